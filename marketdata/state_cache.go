package marketdata

import (
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// ParseCache keeps the parsed numbers of the latest order book and platform
// fills of each stock pair, so that the States of the ticks between two
// polls do not parse the same answer again (a State is built every tick
// when a rule reads an age or the trade window). A fetched answer is never
// modified, so the identity of its arrays identifies it; the cache holds
// them, so an address cannot be reused for another answer while it is
// cached. It is not safe for concurrent use: the one Answers that builds
// its States with it serialises them. nil is a valid, empty cache that
// caches nothing.
type ParseCache struct {
	books map[string]cachedBook
	fills map[string]cachedFills
	lists map[listKey]any      // a cachedList
	seen  map[listKey]seenList // the list last parsed and not kept, by key
	// contracts is the product type of every contract of the last list
	// of contracts, which Answers passes unchanged to every State.
	contracts    []ProductContract
	contractsMap map[string]exchange.ProductType
}

// productTypes returns the product type of every contract, made once per
// list of contracts; the map is shared and read-only.
func (c *ParseCache) productTypes(contracts []ProductContract) map[string]exchange.ProductType {
	if c != nil {
		if c.contractsMap != nil && sameView(c.contracts, contracts) {
			return c.contractsMap
		}
	}
	m := make(map[string]exchange.ProductType, len(contracts))
	for _, k := range contracts {
		m[k.Symbol] = k.ProductType
	}
	if c != nil {
		c.contracts, c.contractsMap = contracts, m
	}
	return m
}

// listKey names a fetched list: its kind and the key it was fetched for.
type listKey struct{ kind, key string }

// seenList says which list was seen, by identity as sameView does: its
// first element (a pointer in an interface, which allocates nothing) and
// its length.
type seenList struct {
	first any
	n     int
}

func seenOf[W any](src []W) seenList {
	if len(src) == 0 {
		return seenList{}
	}
	return seenList{&src[0], len(src)}
}

// cachedList is one fetched list parsed, without the ages, which follow
// the tick.
type cachedList[W, T any] struct {
	src    []W  // the fetched list: the key
	protos []*T // parsed; copied for every State
	born   []time.Time
}

type cachedFills struct {
	fills  []exchange.StockFill // the fetched fills: the key
	trades *tradeList           // parsed; shared
}

type cachedBook struct {
	bids, asks []exchange.PriceLevel // the fetched levels: the key
	pb, pa     []BookLevel           // parsed and sorted; shared read-only
}

// NewParseCache returns an empty cache.
func NewParseCache() *ParseCache {
	return &ParseCache{books: map[string]cachedBook{}, fills: map[string]cachedFills{}, lists: map[listKey]any{}, seen: map[listKey]seenList{}}
}

// levels returns the parsed, sorted bids and asks of book b of symbol.
func (c *ParseCache) levels(symbol string, b *exchange.StockOrderBook) (bids, asks []BookLevel, err error) {
	if c != nil {
		e, ok := c.books[symbol]
		if ok && sameView(e.bids, b.Bids) && sameView(e.asks, b.Asks) {
			return e.pb, e.pa, nil
		}
	}
	var p numParser
	bids = p.levels("b", b.Bids)
	asks = p.levels("a", b.Asks)
	if p.err != nil {
		return nil, nil, p.err
	}
	bids, asks = sortBook(bids, asks)
	if c != nil {
		c.books[symbol] = cachedBook{bids: b.Bids, asks: b.Asks, pb: bids, pa: asks}
	}
	return bids, asks, nil
}

// sortBook returns bids descending and asks ascending. The spec promises
// that order; checking it keeps depth and the top of book right if an answer
// breaks it, for one pass when it does not. A side out of order is sorted in
// a copy: the levels may be shared with the reader.
func sortBook(bids, asks []BookLevel) ([]BookLevel, []BookLevel) {
	desc := func(x, y BookLevel) int { return cmpFloat(y.Price, x.Price) }
	asc := func(x, y BookLevel) int { return cmpFloat(x.Price, y.Price) }
	if !slices.IsSortedFunc(bids, desc) {
		bids = slices.Clone(bids)
		slices.SortStableFunc(bids, desc)
	}
	if !slices.IsSortedFunc(asks, asc) {
		asks = slices.Clone(asks)
		slices.SortStableFunc(asks, asc)
	}
	return bids, asks
}

// trades returns the parsed fills of symbol. A list not seen before is
// parsed with the numbers of the one before it (parseTrades).
func (c *ParseCache) trades(symbol string, fills []exchange.StockFill) (*tradeList, error) {
	var prev cachedFills
	if c != nil {
		prev = c.fills[symbol]
		if prev.trades != nil && sameView(prev.fills, fills) {
			return prev.trades, nil
		}
	}
	l, err := parseTrades(fills, prev.fills, prev.trades)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.fills[symbol] = cachedFills{fills: fills, trades: l}
	}
	return l, nil
}

// agedList returns the objects of one fetched list as of now: each parsed
// once per fetch (through c, under key, when c is set) and then copied
// with its age, which parse leaves out and setAge sets from the creation
// time parse returns (zero: no age). A list is kept from the second State
// built from it on: a list asked for once (the positions of a price step,
// when no rule reads an age) would cost the copies and the keeping for
// nothing, so its parsed objects are that State's.
func agedList[W, T any](c *ParseCache, key listKey, src []W, now time.Time,
	parse func(*W) (*T, time.Time, error), setAge func(*T, float64)) ([]*T, error) {
	var l cachedList[W, T]
	hit, keep := false, false
	if c != nil {
		l, hit = c.lists[key].(cachedList[W, T])
		hit = hit && sameView(l.src, src)
		if !hit {
			if keep = c.seen[key] == seenOf(src); keep {
				delete(c.seen, key)
			} else {
				c.seen[key] = seenOf(src)
			}
		}
	}
	if !hit && !keep {
		out := make([]*T, len(src))
		for i := range src {
			o, born, err := parse(&src[i])
			if err != nil {
				return nil, err
			}
			if !born.IsZero() {
				setAge(o, now.Sub(born).Seconds())
			}
			out[i] = o
		}
		return out, nil
	}
	if !hit {
		l = cachedList[W, T]{src: src, protos: make([]*T, len(src)), born: make([]time.Time, len(src))}
		for i := range src {
			var err error
			if l.protos[i], l.born[i], err = parse(&src[i]); err != nil {
				return nil, err
			}
		}
		c.lists[key] = l
	}
	// The copies in one allocation: a list is copied every tick.
	objs := make([]T, len(l.protos))
	out := make([]*T, len(l.protos))
	for i, p := range l.protos {
		o := &objs[i]
		*o = *p
		if !l.born[i].IsZero() {
			setAge(o, now.Sub(l.born[i]).Seconds())
		}
		out[i] = o
	}
	return out, nil
}
