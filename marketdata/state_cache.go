package marketdata

import (
	"slices"
	"sync"

	"github.com/tickrules/tickrules/exchange"
)

// BookCache keeps the parsed levels of the latest order book of each stock
// pair, so that the States of the ticks between two book polls do not parse
// the same book again (a backtest builds a State every tick; the book
// changes only when it is polled). A fetched book is never modified, so
// the identity of its level arrays identifies it; the cache holds them,
// so an address cannot be reused for another book while it is cached. It is
// safe for concurrent use; nil is a valid, empty cache that caches nothing.
type BookCache struct {
	mu    sync.Mutex
	books map[string]cachedBook
}

type cachedBook struct {
	bids, asks []exchange.PriceLevel // the fetched levels: the key
	pb, pa     []level               // parsed and sorted; shared read-only
}

// NewBookCache returns an empty cache.
func NewBookCache() *BookCache { return &BookCache{books: map[string]cachedBook{}} }

// sameSlice reports whether a and b are the same slice of the same array.
func sameSlice(a, b []exchange.PriceLevel) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// levels returns the parsed, sorted bids and asks of book b of symbol.
func (c *BookCache) levels(symbol string, b *exchange.StockOrderBook) (bids, asks []level, err error) {
	if c != nil {
		c.mu.Lock()
		e, ok := c.books[symbol]
		c.mu.Unlock()
		if ok && sameSlice(e.bids, b.Bids) && sameSlice(e.asks, b.Asks) {
			return e.pb, e.pa, nil
		}
	}
	var p numParser
	bids = p.levels("b", b.Bids)
	asks = p.levels("a", b.Asks)
	if p.err != nil {
		return nil, nil, p.err
	}
	// The spec orders bids descending and asks ascending; sort anyway so
	// that depth and the top of book do not depend on it.
	slices.SortStableFunc(bids, func(x, y level) int { return cmpFloat(y.price, x.price) })
	slices.SortStableFunc(asks, func(x, y level) int { return cmpFloat(x.price, y.price) })
	if c != nil {
		c.mu.Lock()
		c.books[symbol] = cachedBook{bids: b.Bids, asks: b.Asks, pb: bids, pa: asks}
		c.mu.Unlock()
	}
	return bids, asks, nil
}
