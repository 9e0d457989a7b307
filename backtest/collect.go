package backtest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// accountReader is what the end of a backtest reads: every order and fill.
type accountReader interface {
	PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error)
	OrderHistory(ctx context.Context, req exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error)
	Fills(ctx context.Context, req exchange.FillsRequest) (exchange.FillPage, error)
}

// maxPages bounds every paginated read: 100 per page, a million records.
const maxPages = 10_000

// pages follows endId from page to page until a short page.
func pages(next func(idLessThan string) (n int, endID string, err error)) error {
	cursor := ""
	for range maxPages {
		n, end, err := next(cursor)
		if err != nil {
			return err
		}
		if n < exchange.MaxPageLimit || end == "" || end == cursor {
			return nil
		}
		cursor = end
	}
	return fmt.Errorf("more than %d pages", maxPages)
}

// readOrders lists the pending and the final orders of every product type,
// oldest first (ids only grow).
func readOrders(ctx context.Context, a accountReader) ([]Order, error) {
	out := []Order{}
	add := func(pt exchange.ProductType, o exchange.ListOrder) {
		out = append(out, Order{Time: millisStamp(o.CTime), OrderID: o.OrderID, ClientOID: o.ClientOID, ProductType: string(pt),
			Symbol: o.Symbol, Side: string(o.Side), TradeSide: string(o.TradeSide), Type: string(o.OrderType), Price: string(o.Price),
			Size: string(o.Size), Filled: string(o.BaseVolume), PriceAvg: string(o.PriceAvg), State: string(o.Status),
			Source: string(o.OrderSource)})
	}
	for _, pt := range exchange.ProductTypes() {
		err := pages(func(cur string) (int, string, error) {
			p, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: pt, IDLessThan: cur, Limit: exchange.MaxPageLimit})
			for _, o := range p.EntrustedList {
				add(pt, o.ListOrder)
			}
			return len(p.EntrustedList), p.EndID, err
		})
		if err != nil {
			return nil, fmt.Errorf("backtest: read %s pending orders: %w", pt, err)
		}
		err = pages(func(cur string) (int, string, error) {
			p, err := a.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: pt, IDLessThan: cur, Limit: exchange.MaxPageLimit})
			for _, o := range p.EntrustedList {
				add(pt, o.ListOrder)
			}
			return len(p.EntrustedList), p.EndID, err
		})
		if err != nil {
			return nil, fmt.Errorf("backtest: read %s order history: %w", pt, err)
		}
	}
	slices.SortFunc(out, func(x, y Order) int { return compareIDs(x.OrderID, y.OrderID) })
	return out, nil
}

// readFills lists every fill of every product type, oldest first.
func readFills(ctx context.Context, a accountReader) ([]Fill, error) {
	out := []Fill{}
	for _, pt := range exchange.ProductTypes() {
		err := pages(func(cur string) (int, string, error) {
			p, err := a.Fills(ctx, exchange.FillsRequest{ProductType: pt, IDLessThan: cur, Limit: exchange.MaxPageLimit})
			for _, f := range p.FillList {
				fl := Fill{Time: millisStamp(f.CTime), TradeID: f.TradeID, OrderID: f.OrderID, ProductType: string(pt), Symbol: f.Symbol,
					Side: string(f.Side), TradeSide: string(f.TradeSide), Price: string(f.Price), Size: string(f.BaseVolume), Profit: string(f.Profit)}
				if len(f.FeeDetail) > 0 {
					fl.Fee, fl.FeeCoin = string(f.FeeDetail[0].TotalFee), f.FeeDetail[0].FeeCoin
				}
				out = append(out, fl)
			}
			return len(p.FillList), p.EndID, err
		})
		if err != nil {
			return nil, fmt.Errorf("backtest: read %s fills: %w", pt, err)
		}
	}
	slices.SortFunc(out, func(x, y Fill) int { return compareIDs(x.TradeID, y.TradeID) })
	return out, nil
}

// compareIDs orders decimal ids numerically: a shorter id is smaller.
func compareIDs(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) }

func millisStamp(m exchange.Millis) string {
	if m == "" {
		return ""
	}
	return stamp(time.UnixMilli(m.Int()))
}
