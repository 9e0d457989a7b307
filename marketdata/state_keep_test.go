package marketdata

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// untimed copies an object without the fields that move with time, which a
// kept object has as of the tick it was built at.
func untimed[T any](objs []*T, clear func(*T)) []T {
	out := make([]T, len(objs))
	for i, o := range objs {
		out[i] = *o
		clear(&out[i])
	}
	return out
}

// untimedStocks are the pairs without the time fields in keep.
func untimedStocks(ss []*Stock, keep TimeFieldSet) []Stock {
	return untimed(ss, func(s *Stock) {
		*s = comparableStock(s)
		if keep&stockTradable != 0 {
			s.TradableNow = false
			s.have &^= NeedMarket
		}
		if keep&stockBookAge != 0 {
			s.BookAgeSeconds = 0
		}
		if keep&stockLastTradeAge != 0 {
			s.LastTradeAgeSeconds = 0
		}
		// The window's fields one by one: with one of them read, all are
		// brought to the tick.
		for _, f := range []struct {
			field string
			v     any
		}{{"volume", &s.Volume}, {"trades_count", &s.TradesCount}, {"vwap", &s.VWAP}} {
			if keep&TimeFieldsOf("stock", f.field) == 0 {
				continue
			}
			switch v := f.v.(type) {
			case *float64:
				*v = 0
			case *int:
				*v = 0
			}
			s.have &^= NeedWindowTrades
		}
	})
}

// ageIf clears an object's age when keep has it.
func ageIf[T any](keep, f TimeFieldSet, age func(*T) *float64) func(*T) {
	return func(o *T) {
		if keep&f != 0 {
			*age(o) = 0
		}
	}
}

// TestKeepAgesMatchesFreshBuild: a State built with the one before and
// some time fields kept (a random set each tick) takes the objects built
// from the very same answers from it as they are (the same pointers) when
// the fields it must bring to the tick did not move, and builds or copies
// the others; apart from the kept fields, its objects equal those of a
// State built afresh, tick after tick, whatever answer changes.
func TestKeepAgesMatchesFreshBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	in := fullInput()
	cache := NewParseCache()
	var prev *State
	kept := map[string]int{}
	for step := range 400 {
		switch rng.IntN(13) {
		case 12: // the info not known, or known again
			if in.StockInfo != nil {
				in.StockInfo = nil
			} else {
				in.StockInfo = fullInput().StockInfo
			}
		case 0: // a new positions answer: another size
			p := in.Positions[0]
			p.Positions = append([]exchange.Position(nil), p.Positions...)
			p.Positions[0].Total = exchange.Num([]string{"1", "2", "3"}[rng.IntN(3)])
			p.At = in.Now
			in.Positions = []PositionsInput{p}
		case 1: // the same positions, polled again: a new fetch time
			in.Positions = []PositionsInput{in.Positions[0]}
			in.Positions[0].At = in.Now
		case 2: // an order cancelled, or back
			o := in.Orders[0]
			if len(o.Orders) == 2 {
				o.Orders = o.Orders[1:]
			} else {
				o.Orders = fullInput().Orders[0].Orders
			}
			o.At = in.Now
			in.Orders = []OrdersInput{o}
		case 3: // a strategy order gone, or back
			s := in.StrategyOrders[0]
			if len(s.Orders) == 2 {
				s.Orders = s.Orders[:1]
			} else {
				s.Orders = fullInput().StrategyOrders[0].Orders
			}
			s.At = in.Now
			in.StrategyOrders = []StrategyOrdersInput{s}
		case 4: // a new fill
			f := in.Fills[0]
			f.Fills = append([]exchange.StockFill{{Price: "251.5", Size: "3", TS: ms(in.Now.Add(-time.Second))}}, f.Fills...)
			f.At = in.Now
			in.Fills = []FillsInput{f}
		case 5: // the book fetched again, the same levels in new arrays
			b := in.Books[0].Book
			b.Bids = append([]exchange.PriceLevel(nil), b.Bids...)
			in.Books = append([]BookInput(nil), in.Books...)
			in.Books[0].Book, in.Books[0].At = b, in.Now
		default: // a tick
			in.Now = in.Now.Add(time.Duration(1+rng.IntN(3)) * time.Second)
		}
		keep := AllTimeFields
		if rng.IntN(2) == 0 {
			keep = TimeFieldSet(rng.Uint32()) & AllTimeFields
		}
		in.Prev, in.KeepAges = prev, keep
		got, gerr := NewState(in, BuildOptions{Parsed: cache})
		in.Prev, in.KeepAges = nil, 0
		want, werr := NewState(in, BuildOptions{})
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("step %d: errors %v and %v", step, gerr, werr)
		}
		if g, w := untimedStocks(got.Stocks(), keep), untimedStocks(want.Stocks(), keep); !reflect.DeepEqual(g, w) {
			t.Fatalf("step %d: stock pairs kept\n%+v\nafresh\n%+v", step, g, w)
		}
		clearPos := ageIf(keep, positionAge, func(p *Position) *float64 { return &p.AgeSeconds })
		gp, _ := got.Positions()
		wp, _ := want.Positions()
		if g, w := untimed(gp, clearPos), untimed(wp, clearPos); !reflect.DeepEqual(g, w) {
			t.Fatalf("step %d: positions kept\n%+v\nafresh\n%+v", step, g, w)
		}
		for _, side := range []string{SideLong, SideShort, SideNet} {
			for _, sym := range []string{"TSLAUSDT", "NVDAUSDT"} {
				g, gerr := got.Position(sym, side, 0)
				w, werr := want.Position(sym, side, 0)
				if (gerr == nil) != (werr == nil) || (g == nil) != (w == nil) ||
					(g != nil && !reflect.DeepEqual(untimed([]*Position{g}, clearPos), untimed([]*Position{w}, clearPos))) {
					t.Fatalf("step %d: position %s %s kept %+v (%v), afresh %+v (%v)", step, sym, side, g, gerr, w, werr)
				}
			}
		}
		go1, _ := got.Orders("TSLAUSDT")
		wo, _ := want.Orders("TSLAUSDT")
		clearOrder := ageIf(keep, orderAge, func(o *Order) *float64 { return &o.AgeSeconds })
		if g, w := untimed(go1, clearOrder), untimed(wo, clearOrder); !reflect.DeepEqual(g, w) {
			t.Fatalf("step %d: orders kept\n%+v\nafresh\n%+v", step, g, w)
		}
		gs, _ := got.StrategyOrders("TSLAUSDT")
		ws, _ := want.StrategyOrders("TSLAUSDT")
		clearStrategy := ageIf(keep, strategyOrderAge, func(o *StrategyOrder) *float64 { return &o.AgeSeconds })
		if g, w := untimed(gs, clearStrategy), untimed(ws, clearStrategy); !reflect.DeepEqual(g, w) {
			t.Fatalf("step %d: strategy orders kept\n%+v\nafresh\n%+v", step, g, w)
		}
		for _, p := range []Part{PartStockBook, PartPositions, PartOrders, PartStrategyOrders} {
			if got.Part(p) != want.Part(p) {
				t.Fatalf("step %d: %s %+v kept, %+v afresh", step, p, got.Part(p), want.Part(p))
			}
		}
		if prev != nil {
			count := func(name string, same bool) {
				if same {
					kept[name]++
				}
			}
			count("stocks", len(got.stocks) > 0 && len(prev.stocks) > 0 && got.stocks[0] == prev.stocks[0])
			// Handed on though a time field of theirs is read: it did not move.
			count("stocks, partly kept", keep&stockTimeFields != stockTimeFields && len(got.stocks) > 0 && len(prev.stocks) > 0 && got.stocks[0] == prev.stocks[0])
			count("positions", len(gp) > 0 && len(prev.positions) > 0 && gp[0] == prev.positions[0])
			count("orders", len(go1) > 0 && len(prev.orders) > 0 && go1[0] == prev.orders[0])
			count("strategy", len(gs) > 0 && len(prev.strategy) > 0 && gs[0] == prev.strategy[0])
		}
		prev = got
	}
	for _, name := range []string{"stocks", "stocks, partly kept", "positions", "orders", "strategy"} {
		if kept[name] == 0 {
			t.Errorf("the %s of the State before were never kept", name)
		}
	}
}

// TestKeepAgesAgesTheOthers: an object whose time field is not kept is
// brought to the new tick (a copy), one whose fields are all kept handed
// on as it is.
func TestKeepAgesAgesTheOthers(t *testing.T) {
	in := fullInput()
	var prev *State
	for tick := range 3 {
		in.Prev, in.KeepAges = prev, AllTimeFields&^orderAge
		st, err := NewState(in, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		os, _ := st.Orders("TSLAUSDT")
		ss, _ := st.StrategyOrders("TSLAUSDT")
		if prev != nil {
			pos, _ := prev.Orders("TSLAUSDT")
			pss, _ := prev.StrategyOrders("TSLAUSDT")
			if os[0] == pos[0] || os[0].AgeSeconds != pos[0].AgeSeconds+1 {
				t.Errorf("tick %d: order aged %v -> %v, want a new order one second older", tick, pos[0].AgeSeconds, os[0].AgeSeconds)
			}
			if ss[0] != pss[0] {
				t.Errorf("tick %d: strategy order copied, want the one before", tick)
			}
		}
		prev = st
		in.Now = in.Now.Add(time.Second)
	}
}

// TestPairsOfTheStateBefore: a State takes the list of pairs of the one
// before only when its fetches name exactly those pairs. A pair whose book
// did not parse is left out of a State; when the next fetches bring a good
// book, or none, the pair is built, even though the State before has as
// many pairs as the info lists (one of them known only from its book).
// Without the info, the pairs are those of the books.
func TestPairsOfTheStateBefore(t *testing.T) {
	in := fullInput()
	good := exchange.StockOrderBook{Bids: []exchange.PriceLevel{{"180", "5"}}, Asks: []exchange.PriceLevel{{"181", "5"}}}
	bad := good
	bad.Bids = []exchange.PriceLevel{{"x", "5"}}
	in.Books = []BookInput{
		{Symbol: "TSLAUSDT", At: now, Book: good},
		{Symbol: "NVDAUSDT", At: now, Book: bad},
		{Symbol: "AMDUSDT", At: now, Book: good}, // a pair the info does not list
	}
	prev, err := NewState(in, BuildOptions{})
	if err == nil || len(prev.Stocks()) != len(in.StockInfo.Pairs) {
		t.Fatalf("setup: %d pairs (%v), want %d and an error", len(prev.Stocks()), err, len(in.StockInfo.Pairs))
	}
	noInfo := in
	noInfo.StockInfo = nil
	noInfo.Books = []BookInput{in.Books[0], {Symbol: "NVDAUSDT", At: now, Book: good}, in.Books[2]}
	prevNoInfo, err := NewState(noInfo, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		prev  *State
		info  *StockInfoInput
		books []BookInput
		want  []string
	}{
		{"its book good now", prev, in.StockInfo, []BookInput{in.Books[0], {Symbol: "NVDAUSDT", At: now.Add(time.Second), Book: good}, in.Books[2]},
			[]string{"AMDUSDT", "NVDAUSDT", "TSLAUSDT"}},
		{"its book no longer fetched", prev, in.StockInfo, []BookInput{in.Books[0], in.Books[2]}, []string{"AMDUSDT", "NVDAUSDT", "TSLAUSDT"}},
		// Without the info, the pairs are those of the books.
		{"no info, a book no longer fetched", prevNoInfo, nil, []BookInput{in.Books[0], in.Books[2]}, []string{"AMDUSDT", "TSLAUSDT"}},
		{"no info, the same books", prevNoInfo, nil, noInfo.Books, []string{"AMDUSDT", "NVDAUSDT", "TSLAUSDT"}},
	} {
		next := in
		next.StockInfo, next.Books, next.Now = tc.info, tc.books, now.Add(time.Second)
		next.Prev, next.KeepAges = tc.prev, AllTimeFields
		st, err := NewState(next, BuildOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var names []string
		for _, s := range st.Stocks() {
			names = append(names, s.Symbol)
		}
		if !reflect.DeepEqual(names, tc.want) {
			t.Errorf("%s: pairs %v, want %v", tc.name, names, tc.want)
		}
	}
}

// TestNetPositionsOnDemand: the net position of a symbol is made when
// asked, once per State, from that symbol's sides, and a State that keeps
// the positions of the one before keeps its nets.
func TestNetPositionsOnDemand(t *testing.T) {
	in := fullInput()
	in.Positions = []PositionsInput{{ProductType: exchange.USDTFutures, At: now, Positions: []exchange.Position{
		{Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, Total: "2", OpenPriceAvg: "260", MarkPrice: "250", PosMode: exchange.OneWayMode},
		{Symbol: "NVDAUSDT", MarginCoin: "USDT", HoldSide: exchange.Short, Total: "3", OpenPriceAvg: "180", MarkPrice: "170", PosMode: exchange.OneWayMode},
	}}}
	st := build(t, in)
	for _, c := range []struct {
		symbol string
		size   float64
	}{{"TSLAUSDT", 2}, {"NVDAUSDT", -3}, {"TSLAUSDT", 2}} {
		p, err := st.Position(c.symbol, SideNet, NeedOpen)
		if err != nil || p.Symbol != c.symbol || p.Size != c.size {
			t.Fatalf("net %s: %+v (%v), want size %v", c.symbol, p, err, c.size)
		}
	}
	a, _ := st.Position("TSLAUSDT", SideNet, 0)
	in.Prev, in.KeepAges, in.Now = st, AllTimeFields, now.Add(time.Second)
	next, err := NewState(in, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := next.Position("TSLAUSDT", SideNet, 0); a != b {
		t.Errorf("net position made again (%p, %p): want the one the positions came with", a, b)
	}
}
