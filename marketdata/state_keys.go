package marketdata

import (
	"reflect"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Keys names the data a condition reads, as finely as it can be told
// apart: the futures symbols whose positions, orders and strategy orders
// it reads and the stock pairs whose info, book and fills it reads. A
// condition that reads any other part, or a part without naming its keys
// (every position, a symbol computed at run time), has Whole set: only
// SameData can stand for it.
type Keys struct {
	Parts   PartSet
	Futures []string
	Pairs   []string
	Whole   bool
}

// keyedParts are the parts SameKeys compares key by key. The market's
// session is compared by SameSession, the rest only whole.
const keyedParts = PartSet(1<<PartPositions | 1<<PartOrders | 1<<PartStrategyOrders |
	1<<PartStockInfo | 1<<PartStockBook | 1<<PartStockTrades | 1<<PartMarket)

// stockParts are the parts read pair by pair.
const stockParts = PartSet(1<<PartStockInfo | 1<<PartStockBook | 1<<PartStockTrades)

// NewKeys returns the keys of a condition that reads parts: futures and
// pairs must name every symbol it reads of them, and all is set when it
// reads some without naming them.
func NewKeys(parts PartSet, futures, pairs []string, all bool) Keys {
	return Keys{Parts: parts, Futures: futures, Pairs: pairs, Whole: all || parts&^keyedParts != 0}
}

// SameKeys reports whether s and o hold the same data under k: the same
// records (and the same fetches) of each of its futures symbols in the
// positions, orders and strategy orders, and the same info, book and
// fills of each of its pairs. A condition reading k and nothing that moves
// with time then has the same value in both, however much other symbols'
// data changed.
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
	if k.Parts&stockParts != 0 {
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
	if k.Parts.Has(PartStrategyOrders) && !s.sameStrategyOrders(o, k.Futures) {
		return false
	}
	return true
}

// sameStrategyOrders reports whether s and o fetched the strategy orders
// of the same categories, know each of symbols as the same product type
// (which names its category), and hold the same strategy orders of each.
func (s *State) sameStrategyOrders(o *State, symbols []string) bool {
	if !slices.Equal(s.strategyScope, o.strategyScope) {
		return false
	}
	for _, sym := range symbols {
		if !sameProduct(s, o, sym) || !sameRecordsFunc(s.srcStrategy, o.srcStrategy, sym, strategyOrdersOf, strategySymbol, sameStrategyOrder) {
			return false
		}
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

// sameStockSource reports whether the stock pair is the same pair in s
// and o, with the same info, and built from the same book (and fills) when
// they are read.
func (s *State) sameStockSource(o *State, pair string, parts PartSet) bool {
	a, b := s.stock(pair), o.stock(pair)
	if a == nil || b == nil {
		return a == b
	}
	// The info of the pair alone: a pair listed or changed elsewhere in
	// the answer changes nothing here.
	if a.Symbol != b.Symbol || !sameStockInfo(a.src.info, b.src.info) {
		return false
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

// sameStockInfo reports whether two info records of a pair (nil: not
// fetched) say the same.
func sameStockInfo(a, b *exchange.StockInfo) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && a.Symbol == b.Symbol && a.Code == b.Code && a.Name == b.Name &&
		a.WeekendTradable == b.WeekendTradable && slices.Equal(a.TradingPeriod, b.TradingPeriod)
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
	return sameRecordsFunc(a, b, symbol, records, symbolOf, func(x, y *R) bool { return *x == *y })
}

// sameRecordsFunc is sameRecords for records that equal tells apart.
func sameRecordsFunc[F, R any](a, b []F, symbol string, records func(F) []R, symbolOf func(*R) string, equal func(x, y *R) bool) bool {
	ca, cb := recordCursor[F, R]{fetches: a, records: records}, recordCursor[F, R]{fetches: b, records: records}
	for {
		ra, rb := ca.next(symbol, symbolOf), cb.next(symbol, symbolOf)
		switch {
		case ra == nil || rb == nil:
			return ra == rb
		case ra != rb && !equal(ra, rb):
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

func strategyOrdersOf(f StrategyOrdersInput) []exchange.StrategyOrder { return f.Orders }
func strategySymbol(o *exchange.StrategyOrder) string                 { return o.Symbol }

// sameStrategyOrder reports whether two strategy order records are equal,
// parameter lists included. It runs only when a new answer came (an equal
// one keeps the old records, which sameRecordsFunc finds by address).
func sameStrategyOrder(a, b *exchange.StrategyOrder) bool { return reflect.DeepEqual(a, b) }

// sameProduct reports whether s and o know sym as the same product type.
func sameProduct(s, o *State, sym string) bool {
	a, okA := s.product(sym)
	b, okB := o.product(sym)
	return a == b && okA == okB
}
