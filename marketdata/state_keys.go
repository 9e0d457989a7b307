package marketdata

import (
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Keys names the data a condition reads, as finely as it can be told
// apart: the futures symbols whose positions and orders it reads and the
// stock pairs whose book and fills it reads. A condition that reads any
// other part, or a part without naming its keys (every position, a symbol
// computed at run time), has Whole set: only SameData can stand for it.
type Keys struct {
	Parts   PartSet
	Futures []string
	Pairs   []string
	Whole   bool
}

// keyedParts are the parts SameKeys compares key by key. The market's
// session is compared by SameSession, the rest only whole.
const keyedParts = PartSet(1<<PartPositions | 1<<PartOrders | 1<<PartStockBook | 1<<PartStockTrades | 1<<PartMarket)

// NewKeys returns the keys of a condition that reads parts: futures and
// pairs must name every symbol it reads of them, and all is set when it
// reads some without naming them.
func NewKeys(parts PartSet, futures, pairs []string, all bool) Keys {
	return Keys{Parts: parts, Futures: futures, Pairs: pairs, Whole: all || parts&^keyedParts != 0}
}

// SameKeys reports whether s and o hold the same data under k: the same
// records (and the same fetches) of each of its futures symbols in the
// positions and orders, the same book and fills of each of its pairs, and
// the same stock info when it reads a pair. A condition reading k and
// nothing that moves with time then has the same value in both, however
// much other symbols' data changed.
func (s *State) SameKeys(o *State, k *Keys) bool {
	switch {
	case o == nil:
		return false
	case s.content == o.content:
		return true
	case k.Whole:
		return false
	}
	// Books first: they change at every price step, so most conditions
	// that differ differ there.
	if k.Parts.Has(PartStockBook) || k.Parts.Has(PartStockTrades) {
		if !sameView(s.srcInfo, o.srcInfo) {
			return false
		}
		for _, pair := range k.Pairs {
			if !s.sameStockSource(o, pair, k.Parts) {
				return false
			}
		}
	}
	if k.Parts.Has(PartPositions) && !sameFutures(s, o, k.Futures, s.positionScope, o.positionScope, func(sym string) bool {
		return sameRecords(s.srcPositions, o.srcPositions, sym, positionsOf, positionSymbol)
	}) {
		return false
	}
	if k.Parts.Has(PartOrders) && !sameFutures(s, o, k.Futures, s.ordersScope, o.ordersScope, func(sym string) bool {
		return sameRecords(s.srcOrders, o.srcOrders, sym, ordersOf, orderSymbol)
	}) {
		return false
	}
	return true
}

// sameFutures reports whether s and o fetched the same product types and
// symbols (scopes a and b), know each of symbols as the same product type,
// and hold the same records of each (same).
func sameFutures(s, o *State, symbols []string, a, b []scope, same func(symbol string) bool) bool {
	if !sameScopes(a, b) {
		return false
	}
	for _, sym := range symbols {
		if !sameProduct(s, o, sym) || !same(sym) {
			return false
		}
	}
	return true
}

// sameStockSource reports whether the stock pair was built from the same
// book (and fills, when read) in s and o.
func (s *State) sameStockSource(o *State, pair string, parts PartSet) bool {
	a, b := s.stock(pair), o.stock(pair)
	if a == nil || b == nil {
		return a == b
	}
	if parts.Has(PartStockBook) && !a.src.sameBook(&b.src) {
		return false
	}
	return !parts.Has(PartStockTrades) || (sameView(a.src.fills, b.src.fills) && a.TradesAt.Equal(b.TradesAt))
}

// stockSource is what a Stock was built from, by identity: answers are
// never changed, so the same slices are the same data.
type stockSource struct {
	info       *exchange.StockInfo // nil: no info fetched
	levels     *NumericBook
	bids, asks []exchange.PriceLevel
	ts         exchange.Millis
	bookAt     time.Time // zero: no book fetched
	fills      []exchange.StockFill
	fillsIn    bool // fills were fetched (the list may be empty)
}

func (a *stockSource) sameBook(b *stockSource) bool {
	return a.levels == b.levels && sameView(a.bids, b.bids) && sameView(a.asks, b.asks) && a.ts == b.ts && a.bookAt.Equal(b.bookAt)
}

// sameScopes reports whether two lists of fetches cover the same product
// types and symbols (whenever they were fetched).
func sameScopes(a, b []scope) bool {
	return slices.EqualFunc(a, b, func(x, y scope) bool { return x.product == y.product && x.symbol == y.symbol })
}

// sameRecords reports whether the fetches a and b hold the same records of
// symbol, in the same order. It walks both at once and copies nothing.
func sameRecords[F any, R comparable](a, b []F, symbol string, records func(F) []R, symbolOf func(*R) string) bool {
	ca, cb := recordCursor[F, R]{fetches: a, records: records}, recordCursor[F, R]{fetches: b, records: records}
	for {
		ra, rb := ca.next(symbol, symbolOf), cb.next(symbol, symbolOf)
		switch {
		case ra == nil || rb == nil:
			return ra == rb
		case ra != rb && *ra != *rb:
			return false
		}
	}
}

// recordCursor walks the records of a list of fetches.
type recordCursor[F any, R any] struct {
	fetches []F
	records func(F) []R
	cur     []R
}

// next returns the next record of symbol, nil after the last.
func (c *recordCursor[F, R]) next(symbol string, symbolOf func(*R) string) *R {
	for {
		for len(c.cur) > 0 {
			r := &c.cur[0]
			c.cur = c.cur[1:]
			if symbolOf(r) == symbol {
				return r
			}
		}
		if len(c.fetches) == 0 {
			return nil
		}
		c.cur, c.fetches = c.records(c.fetches[0]), c.fetches[1:]
	}
}

func positionsOf(f PositionsInput) []exchange.Position { return f.Positions }
func positionSymbol(p *exchange.Position) string       { return p.Symbol }
func ordersOf(f OrdersInput) []exchange.PendingOrder   { return f.Orders }
func orderSymbol(o *exchange.PendingOrder) string      { return o.Symbol }

// sameProduct reports whether s and o know sym as the same product type.
func sameProduct(s, o *State, sym string) bool {
	a, okA := s.product(sym)
	b, okB := o.product(sym)
	return a == b && okA == okB
}
