package sim

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/tickrules/tickrules/exchange"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func sortBySeq(orders []*order) {
	slices.SortFunc(orders, func(p, q *order) int { return cmp.Compare(p.seq, q.seq) })
}

// StrategyOrders lists the pending strategy orders of a category: the
// scenario's, then the take-profit/stop-loss orders of positions opened by
// orders with presets (see strategy.go),
// optionally of one type (GET unfilled-strategy-orders). A record's category
// matches the request's case-insensitively (usdt-futures = USDT-FUTURES),
// and is answered in upper case as the live venue writes it.
// The answer is memoised: its slices are shared and read-only.
func (a *Account) StrategyOrders(ctx context.Context, req exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpStrategyOrders, req, a.x.now); err != nil {
		return nil, err
	}
	// The strategy orders neither move with prices nor with time: those of
	// positions change only with the state (see strategy.go).
	return memoised(a.x, &a.memo.strategyOrders, req, a.x.stateKey(false, false), func() ([]exchange.StrategyOrder, error) {
		out := []exchange.StrategyOrder{}
		for _, so := range slices.Concat(a.strategy, a.x.posStrategyRecords(a)) {
			if !strings.EqualFold(string(so.Category), string(req.Category)) || (req.Type != "" && so.Type() != req.Type) {
				continue
			}
			c := cloneStrategy(so)
			// The venue answers the category in upper case, as it takes it.
			c.Category = exchange.ProductType(strings.ToUpper(string(c.Category)))
			out = append(out, c)
		}
		return out, nil
	})
}

func cloneStrategy(so exchange.StrategyOrder) exchange.StrategyOrder {
	so.OCOParams = slices.Clone(so.OCOParams)
	so.TrailingStopParams = slices.Clone(so.TrailingStopParams)
	so.IcebergParams = slices.Clone(so.IcebergParams)
	so.TWAPParams = slices.Clone(so.TWAPParams)
	return so
}

// DiscountRates returns the discount tiers of one coin or of all (GET
// eligible-discount-rate), in scenario order.
func (a *Account) DiscountRates(ctx context.Context, req exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpDiscountRate, req, a.x.now); err != nil {
		return nil, err
	}
	out := []exchange.DiscountCoin{}
	for _, d := range a.x.discount {
		if req.Coin == "" || strings.EqualFold(d.Coin, req.Coin) {
			out = append(out, exchange.DiscountCoin{Coin: d.Coin, List: slices.Clone(d.List)})
		}
	}
	return out, nil
}

// SpotRecords returns spot financial records with ts in [startTime,
// endTime] (at most 30 days apart), newest first, below idLessThan, at most
// limit (default and maximum 500) (GET spot-record).
func (a *Account) SpotRecords(ctx context.Context, req exchange.SpotRecordRequest) ([]exchange.SpotRecord, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpSpotRecord, req, a.x.now); err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = exchange.MaxSpotRecordLimit
	}
	recs, _ := page(a.spot, func(r exchange.SpotRecord) string { return r.ID }, func(r exchange.SpotRecord) bool {
		return (req.Coin == "" || strings.EqualFold(r.Coin, req.Coin)) && r.TS.Int() >= req.StartTime.Int() && r.TS.Int() <= req.EndTime.Int()
	}, req.IDLessThan, limit)
	return recs, nil
}
