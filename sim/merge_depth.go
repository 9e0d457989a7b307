package sim

import (
	"context"
	"strconv"

	"github.com/tickrules/tickrules/exchange"
)

// mergeDepthLevels is how many levels a merge-depth answers for a limit:
// the venue's documented values, 100 by default; "max" answers every
// level the synthetic book has.
func mergeDepthLevels(limit string) int {
	switch limit {
	case "":
		return 100
	case "max":
		return maxBookLevels
	}
	n, err := strconv.Atoi(limit)
	if err != nil || n <= 0 {
		return 100 // validated before; kept total for safety
	}
	return n
}

// maxBookLevels bounds a "max" merge-depth answer.
const maxBookLevels = 200

// mergeDepth answers the order book of a contract from the synthetic book
// around the price path, the same book the ticker's top comes from. Levels
// are never merged (scale0, the venue's default): the scale is the
// contract's price step.
func (x *Exchange) mergeDepth(req exchange.MergeDepthRequest) (exchange.MergeDepth, error) {
	op := exchange.OpMergeDepth
	if err := validate(op, req, x.now); err != nil {
		return exchange.MergeDepth{}, err
	}
	c, err := x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.MergeDepth{}, err
	}
	bids, asks := x.mkt.Book(c.spec.Symbol, x.now, mergeDepthLevels(req.Limit))
	if bids == nil {
		bids = []exchange.PriceLevel{}
	}
	if asks == nil {
		asks = []exchange.PriceLevel{}
	}
	return exchange.MergeDepth{Asks: asks, Bids: bids, TS: exchange.MillisOf(x.now), Scale: num(c.priceStep),
		Precision: "scale0", IsMaxPrecision: "NO"}, nil
}

// MergeDepth returns the order book of one contract (GET merge-depth).
func (a *Account) MergeDepth(ctx context.Context, req exchange.MergeDepthRequest) (exchange.MergeDepth, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.mergeDepth(req)
}

// MergeDepth returns the order book of one contract without a key.
func (p publicReader) MergeDepth(ctx context.Context, req exchange.MergeDepthRequest) (exchange.MergeDepth, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.mergeDepth(req)
}
