package marketdata

import (
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// TestBookCache: States built from the same fetched book with a cache
// agree with States built without one, share the parsed levels, and a new
// fetch (new level arrays) is parsed again.
func TestBookCache(t *testing.T) {
	cache := NewBookCache()
	in := fullInput()
	plain, err := NewState(in, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := NewState(in, BuildOptions{Books: cache})
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewState(in, BuildOptions{Books: cache})
	if err != nil {
		t.Fatal(err)
	}
	get := func(st *State) *Stock {
		s, err := st.Stock("TSLA", NeedBook)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, a, b := get(plain), get(first), get(second)
	for _, s := range []*Stock{a, b} {
		if s.Bid != p.Bid || s.Ask != p.Ask || s.SpreadBps != p.SpreadBps || s.DepthBid(100) != p.DepthBid(100) || s.DepthAsk(100) != p.DepthAsk(100) {
			t.Errorf("cached book differs: bid %v ask %v spread %v, want %v %v %v", s.Bid, s.Ask, s.SpreadBps, p.Bid, p.Ask, p.SpreadBps)
		}
	}
	if &a.bids[0] != &b.bids[0] {
		t.Error("the second State parsed the same fetched book again")
	}

	// A new fetch of the same symbol: new arrays, new values.
	in.Books = append([]BookInput(nil), in.Books...)
	in.Books[0].Book = exchange.StockOrderBook{
		Bids: []exchange.PriceLevel{{"300.00", "5"}},
		Asks: []exchange.PriceLevel{{"300.50", "5"}},
	}
	third, err := NewState(in, BuildOptions{Books: cache})
	if err != nil {
		t.Fatal(err)
	}
	if c := get(third); c.Bid != 300 || c.Ask != 300.5 {
		t.Errorf("after a new fetch the cache gave bid %v ask %v, want 300 and 300.5", c.Bid, c.Ask)
	}
	// A nil cache caches nothing and works.
	var none *BookCache
	if _, _, err := none.levels("X", &exchange.StockOrderBook{Bids: []exchange.PriceLevel{{"bad", "1"}}}); err == nil {
		t.Error("a bad level parsed through a nil cache")
	}
}
