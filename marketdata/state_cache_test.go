package marketdata

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// TestParseCache: States built from the same fetched book with a cache
// agree with States built without one, share the parsed levels, and a new
// fetch (new level arrays) is parsed again.
func TestParseCache(t *testing.T) {
	cache := NewParseCache()
	in := fullInput()
	plain, err := NewState(in, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := NewState(in, BuildOptions{Parsed: cache})
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewState(in, BuildOptions{Parsed: cache})
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
	if a.Volume != p.Volume || a.VWAP != p.VWAP || a.LastPrice != p.LastPrice || a.TradesCount != p.TradesCount || b.LastTradeAgeSeconds != p.LastTradeAgeSeconds {
		t.Errorf("cached fills differ: volume %v vwap %v last %v, want %v %v %v", a.Volume, a.VWAP, a.LastPrice, p.Volume, p.VWAP, p.LastPrice)
	}
	if e := cache.fills["TSLAUSDT"]; e.trades == nil {
		t.Error("the fills were not cached")
	} else if again, err := cache.trades("TSLAUSDT", e.fills); err != nil || again != e.trades {
		t.Errorf("the same fetched fills were parsed again (%v)", err)
	}
	// The same cached fills at a later tick: the trade window moves.
	in.Now = in.Now.Add(3 * time.Minute)
	later, err := NewState(in, BuildOptions{Parsed: cache})
	if err != nil {
		t.Fatal(err)
	}
	if l := get(later); l.TradesCount != 1 || l.Volume != 2 {
		t.Errorf("3 minutes later the window holds %v fills of volume %v, want 1 and 2", l.TradesCount, l.Volume)
	}
	in.Now = in.Now.Add(-3 * time.Minute)

	// A new fetch of the same symbol: new arrays, new values.
	in.Books = append([]BookInput(nil), in.Books...)
	in.Books[0].Book = exchange.StockOrderBook{
		Bids: []exchange.PriceLevel{{"300.00", "5"}},
		Asks: []exchange.PriceLevel{{"300.50", "5"}},
	}
	third, err := NewState(in, BuildOptions{Parsed: cache})
	if err != nil {
		t.Fatal(err)
	}
	if c := get(third); c.Bid != 300 || c.Ask != 300.5 {
		t.Errorf("after a new fetch the cache gave bid %v ask %v, want 300 and 300.5", c.Bid, c.Ask)
	}
	// A nil cache caches nothing and works.
	var none *ParseCache
	if _, _, err := none.levels("X", &exchange.StockOrderBook{Bids: []exchange.PriceLevel{{"bad", "1"}}}); err == nil {
		t.Error("a bad level parsed through a nil cache")
	}
}

// TestParseCacheAgesFollowTheTick: orders and strategy orders parsed once
// per fetch still get the age of each tick, equal to a build without the
// cache, and the States do not share the objects whose age differs.
func TestParseCacheAgesFollowTheTick(t *testing.T) {
	cache := NewParseCache()
	in := fullInput()
	first, err := NewState(in, BuildOptions{Parsed: cache})
	if err != nil {
		t.Fatal(err)
	}
	in.Now = in.Now.Add(90 * time.Second)
	later, err := NewState(in, BuildOptions{Parsed: cache})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewState(in, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o1, _ := first.Orders("TSLAUSDT")
	o2, _ := later.Orders("TSLAUSDT")
	op, _ := plain.Orders("TSLAUSDT")
	if len(o1) != 2 || len(o2) != 2 || len(op) != 2 {
		t.Fatalf("orders: %d, %d, %d; want 2 each", len(o1), len(o2), len(op))
	}
	for i := range o2 {
		if *o2[i] != *op[i] {
			t.Errorf("order %d with the cache %+v, without %+v", i, *o2[i], *op[i])
		}
		if o2[i].AgeSeconds-o1[i].AgeSeconds != 90 || o1[i] == o2[i] {
			t.Errorf("order %d: ages %v then %v (same object %v); want 90 s apart in two objects", i, o1[i].AgeSeconds, o2[i].AgeSeconds, o1[i] == o2[i])
		}
	}
	s1, _ := first.StrategyOrders("TSLAUSDT")
	s2, _ := later.StrategyOrders("TSLAUSDT")
	if len(s1) != 2 || len(s2) != 2 || s1[0] == s2[0] || s1[0].TakeProfit != s2[0].TakeProfit || s2[0].StopLoss != 240 {
		t.Errorf("strategy orders from the cache: %+v then %+v", s1, s2)
	}
}

// TestParseCachePositions: positions parsed once per fetch through the
// cache and aged per State agree with positions built without a cache, at
// every tick: the age follows the clock, the fetch time stays the fetch's.
func TestParseCachePositions(t *testing.T) {
	cache := NewParseCache()
	in := fullInput()
	for _, later := range []time.Duration{0, time.Second, 90 * time.Minute} {
		in.Now = now.Add(later)
		cached, err := NewState(in, BuildOptions{Parsed: cache})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := NewState(in, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, side := range []string{SideLong, SideNet} {
			c, err := cached.Position("TSLAUSDT", side, NeedOpen)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := plain.Position("TSLAUSDT", side, NeedOpen)
			if *c != *p {
				t.Errorf("%s later, %s: cached %+v, plain %+v", later, side, *c, *p)
			}
			if want := (time.Hour + later).Seconds(); c.AgeSeconds != want || !c.At.Equal(now) {
				t.Errorf("%s later, %s: age %v at %s, want %v at %s", later, side, c.AgeSeconds, c.At, want, now)
			}
		}
	}
}

// TestAgedListKeptFromSecondUse: a list built into one State only is not
// kept (its parsed objects are that State's); built again, it is kept and
// each State gets its own aged copies, equal to building without a cache.
func TestAgedListKeptFromSecondUse(t *testing.T) {
	cache := NewParseCache()
	in := fullInput()
	key := listKey{"orders", string(exchange.USDTFutures)}
	build := func(later time.Duration) []*Order {
		in.Now = now.Add(later)
		st, err := NewState(in, BuildOptions{Parsed: cache})
		if err != nil {
			t.Fatal(err)
		}
		os, err := st.Orders("TSLAUSDT")
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := NewState(in, BuildOptions{})
		want, _ := plain.Orders("TSLAUSDT")
		for i := range want {
			if *os[i] != *want[i] {
				t.Fatalf("%s later, order %d: %+v, without a cache %+v", later, i, *os[i], *want[i])
			}
		}
		return os
	}
	first := build(0)
	if _, kept := cache.lists[key]; kept {
		t.Fatal("a list used once was kept")
	}
	second := build(time.Second)
	if _, kept := cache.lists[key]; !kept {
		t.Fatal("a list used twice was not kept")
	}
	third := build(2 * time.Second)
	for i := range first {
		if first[i] == second[i] || second[i] == third[i] || third[i].AgeSeconds-first[i].AgeSeconds != 2 {
			t.Errorf("order %d: shared objects or ages %v, %v, %v", i, first[i].AgeSeconds, second[i].AgeSeconds, third[i].AgeSeconds)
		}
	}
	// Another list under the same key starts over.
	in.Orders = []OrdersInput{{ProductType: exchange.USDTFutures, At: now, Orders: append([]exchange.PendingOrder(nil), in.Orders[0].Orders...)}}
	build(3 * time.Second)
	if l, _ := cache.lists[key].(cachedList[exchange.PendingOrder, Order]); sameView(l.src, in.Orders[0].Orders) {
		t.Error("a new list used once was kept")
	}
}
