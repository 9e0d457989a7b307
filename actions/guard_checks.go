package actions

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// This file describes the orders that modify_order and reverse_position can
// open to the risk guard; place_order and batch_place describe theirs where
// the order is built (firing.order). When the firing's State does not tell
// enough, the description errs toward the larger order: a limit applied too
// strictly is the safe mistake.

// modifyCheck describes the order a modify_order leaves on the book. A change
// of size or price is a new order at the exchange, so it is checked like one:
// the new size against max_order_size, size times the new price against
// max_notional, and the position on the order's side plus the new size
// against max_position. Only an order the State shows closing (trade side
// close) counts as reducing; a modify of the presets alone opens nothing and
// the dispatcher lets it through without a check.
func (f *firing) modifyCheck(ctx context.Context, req exchange.ModifyOrderRequest) (OrderCheck, error) {
	check := OrderCheck{Symbol: req.Symbol}
	if req.NewSize == "" && req.NewPrice == "" {
		return check, nil // presets only: see Dispatcher.Modify
	}
	target := f.pendingOrder(req)
	switch {
	case req.NewSize != "":
		size, err := req.NewSize.Decimal()
		if err != nil {
			return check, fmt.Errorf("new_size: %w", err)
		}
		check.Size = size
	case target != nil:
		check.Size = decimal.NewFromFloat(target.Remaining)
	default:
		check.SizeUnknown = true
	}
	var err error
	if req.NewPrice != "" {
		if check.Price, err = req.NewPrice.Decimal(); err != nil {
			return check, fmt.Errorf("new_price: %w", err)
		}
	} else if target != nil && target.Price > 0 {
		check.Price = decimal.NewFromFloat(target.Price)
	} else {
		check.Price = f.referencePrice(ctx, contractInfo{symbol: req.Symbol, pt: req.ProductType})
	}
	if target != nil && target.TradeSide == string(exchange.Close) {
		check.Reducing = true
		return check, nil
	}
	pos, known := f.largestPosition(req.Symbol, orderDirection(target))
	check.PositionAfter = pos.Add(check.Size)
	check.PositionUnknown = !known
	return check, nil
}

// pendingOrder finds the order a modify targets among the State's pending
// orders; nil when the State has not fetched it.
func (f *firing) pendingOrder(req exchange.ModifyOrderRequest) *marketdata.Order {
	if f.st == nil {
		return nil
	}
	orders, err := f.st.Orders(req.Symbol)
	if err != nil {
		return nil
	}
	for _, o := range orders {
		if (req.OrderID != "" && o.ID == req.OrderID) || (req.ClientOID != "" && o.ClientOID == req.ClientOID) {
			return o
		}
	}
	return nil
}

// orderDirection is the position side an order adds to: its position side
// in hedge mode, its side in one-way mode; "" when not known.
func orderDirection(o *marketdata.Order) string {
	switch {
	case o == nil:
		return ""
	case o.PosSide == marketdata.SideLong || o.PosSide == marketdata.SideShort:
		return o.PosSide
	case o.Side == string(exchange.Buy):
		return marketdata.SideLong
	case o.Side == string(exchange.Sell):
		return marketdata.SideShort
	}
	return ""
}

// largestPosition is the absolute size of symbol's position on side, or of
// the larger side when side is "", and whether the State knows it.
func (f *firing) largestPosition(symbol, side string) (decimal.Decimal, bool) {
	if f.st == nil {
		return decimal.Zero, false
	}
	sides := []string{marketdata.SideLong, marketdata.SideShort}
	if side != "" {
		sides = []string{side}
	}
	largest := decimal.Zero
	for _, s := range sides {
		p, err := f.st.Position(symbol, s, 0)
		if err != nil {
			return decimal.Zero, false
		}
		largest = decimal.Max(largest, decimal.NewFromFloat(p.Size).Abs())
	}
	return largest, true
}

// reverseCheck describes the position a reverse_position opens. It closes
// the position on dir and opens the same size on the other side, so it is
// checked as an opening order of that size: the given size in hedge mode,
// else the whole position, at the last price, with the other side's position
// added.
func (f *firing) reverseCheck(ctx context.Context, c contractInfo, req exchange.ClickBackhandRequest, dir string) (OrderCheck, error) {
	check := OrderCheck{Symbol: c.symbol, Price: f.referencePrice(ctx, c)}
	held, known := f.largestPosition(c.symbol, dir)
	check.Size, check.SizeUnknown = held, !known
	if req.Size != "" {
		size, err := req.Size.Decimal()
		if err != nil {
			return check, fmt.Errorf("size: %w", err)
		}
		check.Size, check.SizeUnknown = size, false
	}
	check.PositionAfter = check.Size
	if c.mode == exchange.HedgeMode {
		other := marketdata.SideShort
		if dir == marketdata.SideShort {
			other = marketdata.SideLong
		}
		pos, ok := f.largestPosition(c.symbol, other)
		check.PositionAfter = check.PositionAfter.Add(pos)
		check.PositionUnknown = !ok
	}
	return check, nil
}
