package marketdata

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// comparableStock is s without what two equal Stocks may hold in different
// memory: the lazily sorted depth and the parsed fills (compared through
// the fields derived from them).
func comparableStock(s *Stock) Stock {
	c := *s
	c.more, c.trades = nil, nil
	return c
}

// TestStocksFromPrevMatchFresh: a State built with the one before (Prev),
// which copies the stock pairs built from the very same answers and only
// ages them, has the same stock pairs as one built afresh, tick after
// tick, whether the clock moves, the session changes, or an answer is
// fetched again (equal or not), and the pairs that did change are built
// anew.
func TestStocksFromPrevMatchFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	in := fullInput()
	cache := NewParseCache()
	var prev *State
	reused, shared := 0, 0
	for step := range 400 {
		switch rng.IntN(14) {
		case 0: // the book fetched again, the same levels in new arrays
			b := in.Books[0].Book
			b.Bids, b.Asks = append([]exchange.PriceLevel(nil), b.Bids...), append([]exchange.PriceLevel(nil), b.Asks...)
			in.Books = append([]BookInput(nil), in.Books...)
			in.Books[0].Book, in.Books[0].At = b, in.Now
		case 1: // a new fill
			f := in.Fills[0]
			f.Fills = append([]exchange.StockFill{{Price: "251.5", Size: "3", TS: ms(in.Now.Add(-time.Second))}}, f.Fills...)
			f.At = in.Now
			in.Fills = []FillsInput{f}
		case 2: // the info fetched again
			info := *in.StockInfo
			info.Pairs, info.At = append([]exchange.StockInfo(nil), info.Pairs...), in.Now
			in.StockInfo = &info
		case 3: // the session closes, or is not known
			if in.Market != nil && rng.IntN(2) == 0 {
				m := *in.Market
				m.Session.Session, m.Session.IsOpen = SessionClosed, false
				in.Market = &m
			} else {
				in.Market = nil
			}
		case 4: // the session is known again
			in.Market = fullInput().Market
		case 5: // the same book, polled at another time
			in.Books = append([]BookInput(nil), in.Books...)
			in.Books[0].At = in.Now
		case 6: // an hour on: the window empties
			in.Now = in.Now.Add(time.Hour)
		case 7: // the same info, polled at another time
			info := *in.StockInfo
			info.At = in.Now
			in.StockInfo = &info
		case 8: // a book that does not parse, or its pair's book gone
			if len(in.Books) == 2 {
				in.Books = append(append([]BookInput(nil), in.Books...), BookInput{Symbol: "BADUSDT", At: in.Now,
					Book: exchange.StockOrderBook{Bids: []exchange.PriceLevel{{"x", "1"}}, Asks: []exchange.PriceLevel{{"2", "1"}}}})
			} else {
				in.Books = in.Books[:2]
			}
		default: // a tick
			in.Now = in.Now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		in.Prev = prev
		got, gerr := NewState(in, BuildOptions{Parsed: cache})
		in.Prev = nil
		want, werr := NewState(in, BuildOptions{})
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("step %d: errors %v and %v", step, gerr, werr)
		}
		if len(got.Stocks()) != len(want.Stocks()) {
			t.Fatalf("step %d: %d pairs with Prev, %d afresh", step, len(got.Stocks()), len(want.Stocks()))
		}
		for i, g := range got.Stocks() {
			w := want.Stocks()[i]
			if !reflect.DeepEqual(comparableStock(g), comparableStock(w)) {
				t.Fatalf("step %d: pair %s with Prev\n%+v\nafresh\n%+v", step, g.Symbol, comparableStock(g), comparableStock(w))
			}
			if g.DepthBid(100) != w.DepthBid(100) || g.DepthAsk(100) != w.DepthAsk(100) {
				t.Fatalf("step %d: pair %s depth differs", step, g.Symbol)
			}
			if prev != nil {
				// newStock makes the list of trading periods, a copy shares it.
				if old := prev.stock(g.Symbol); old != nil && len(g.TradingPeriods) > 0 && &old.TradingPeriods[0] == &g.TradingPeriods[0] {
					reused++
				}
			}
		}
		for _, name := range []string{"TSLA", "NVDA"} {
			g, w := got.stock(name), want.stock(name)
			if (g == nil) != (w == nil) || (g != nil && g.Symbol != w.Symbol) {
				t.Fatalf("step %d: code %s names %v with Prev, %v afresh", step, name, g, w)
			}
		}
		if prev != nil && reflect.ValueOf(got.stockIndex).Pointer() == reflect.ValueOf(prev.stockIndex).Pointer() {
			shared++ // every pair aged, the index shared
		}
		prev = got
	}
	if reused == 0 || shared == 0 {
		t.Errorf("pairs copied from the State before %d times, all pairs at once %d times: want both", reused, shared)
	}
}
