package marketdata

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// bookReader serves a book that the test changes at will, as strings (each
// answer decoded anew, like the live client) or, with numbers set, also as
// a NumericBookReader that hands the same slices back while unchanged.
type bookReader struct {
	*countingReader
	mu   sync.Mutex
	bid  string
	nums *NumericBook
}

func (r *bookReader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return exchange.StockOrderBook{Symbol: req.Symbol, Asks: []exchange.PriceLevel{{"250.10", "5"}, {"250.30", "9"}},
		Bids: []exchange.PriceLevel{{exchange.Num(r.bid), "7"}, {"249.50", "3"}}, TS: exchange.MillisOf(pollStart)}, r.hit(exchange.OpStockOrderBook)
}

// numericBookReader adds the numeric path to bookReader.
type numericBookReader struct{ *bookReader }

func (r numericBookReader) StockBookNumbers(ctx context.Context, symbol string) (NumericBook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return *r.nums, r.hit(exchange.OpStockOrderBook)
}

func sharePoller(t *testing.T, r Reader, v *clock.Virtual, rebuild bool) *Poller {
	t.Helper()
	p, err := NewPoller(PollerOptions{Reader: r, Clock: v, RebuildEveryTick: rebuild, Demand: Demand{
		Parts:        PartSet(0).Add(PartMarket).Add(PartStockBook).Add(PartPositions),
		StockPairs:   []string{"TSLAUSDT"},
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func tick(t *testing.T, p *Poller, v *clock.Virtual) *State {
	t.Helper()
	v.Advance(time.Second)
	if err := p.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := p.State(v.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestPollerSharesUnchangedData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		numeric bool
	}{{"strings decoded anew", false}, {"numbers handed back", true}} {
		t.Run(tc.name, func(t *testing.T) {
			br := &bookReader{countingReader: newCountingReader(), bid: "250.00",
				nums: &NumericBook{Bids: []BookLevel{{Price: 250, Size: 7}, {Price: 249.5, Size: 3}}, Asks: []BookLevel{{Price: 250.1, Size: 5}, {Price: 250.3, Size: 9}}, TS: exchange.MillisOf(pollStart)}}
			var r Reader = br
			if tc.numeric {
				r = numericBookReader{br}
			}
			v := clock.NewVirtual(pollStart)
			p := sharePoller(t, r, v, false)
			first := tick(t, p, v)
			second := tick(t, p, v)
			if !second.SameData(first) {
				t.Fatal("an unchanged answer gave a State with new data")
			}
			if !second.Now.Equal(v.Now()) || second.Now.Equal(first.Now) {
				t.Errorf("the shared State is at %s, the tick at %s", second.Now, v.Now())
			}
			if at := second.Part(PartStockBook).At; !at.Equal(v.Now()) {
				t.Errorf("stock_book fetched at %s, want the poll that just confirmed it (%s)", at, v.Now())
			}
			m1, _ := first.Market(0)
			m2, _ := second.Market(0)
			if !near(m2.MinutesToClose, m1.MinutesToClose-1.0/60) {
				t.Errorf("minutes_to_close %v then %v: the session must follow the tick", m1.MinutesToClose, m2.MinutesToClose)
			}

			br.mu.Lock()
			br.bid = "250.05"
			br.nums = &NumericBook{Bids: []BookLevel{{Price: 250.05, Size: 7}, {Price: 249.5, Size: 3}}, Asks: br.nums.Asks, TS: br.nums.TS}
			br.mu.Unlock()
			third := tick(t, p, v)
			if third.SameData(second) {
				t.Fatal("a changed book gave a State sharing the old data")
			}
			s, err := third.Stock("TSLAUSDT", NeedBook)
			if err != nil {
				t.Fatal(err)
			}
			if s.Bid != 250.05 || s.Spread != 0.05 {
				t.Errorf("bid %v spread %v after the change, want 250.05 and 0.05", s.Bid, s.Spread)
			}
		})
	}
}

func TestPollerRebuildEveryTick(t *testing.T) {
	br := &bookReader{countingReader: newCountingReader(), bid: "250.00"}
	v := clock.NewVirtual(pollStart)
	p := sharePoller(t, br, v, true)
	first := tick(t, p, v)
	if tick(t, p, v).SameData(first) {
		t.Error("RebuildEveryTick shared data between ticks")
	}
	p.SetTimedFields(0)
	second := tick(t, p, v)
	if !tick(t, p, v).SameData(second) {
		t.Error("data not shared after RebuildEveryTick was switched off")
	}
}

// TestNumericBookEqualsParsed: a book handed over in numbers builds the
// same stock as the same book in decimal strings.
func TestNumericBookEqualsParsed(t *testing.T) {
	in := fullInput()
	fromStrings := build(t, in)
	in.Books[0].Levels = &NumericBook{
		// Out of order like the strings fixture: the builder must sort a copy.
		Bids: []BookLevel{{Price: 249.80, Size: 50}, {Price: 249.90, Size: 30}, {Price: 249.00, Size: 100}},
		Asks: []BookLevel{{Price: 250.10, Size: 10}, {Price: 251.00, Size: 100}, {Price: 250.30, Size: 20}},
		TS:   in.Books[0].Book.TS,
	}
	shared := slicesOf(in.Books[0].Levels)
	in.Books[0].Book = exchange.StockOrderBook{}
	fromNumbers := build(t, in)
	a, _ := fromStrings.Stock("TSLAUSDT", 0)
	b, _ := fromNumbers.Stock("TSLAUSDT", 0)
	// What each was built from differs by design; what rules read may not.
	a2, b2 := comparableStock(a), comparableStock(b)
	a2.src, b2.src = stockSource{}, stockSource{}
	if !reflect.DeepEqual(a2, b2) {
		t.Errorf("stock from numbers differs:\n strings %+v\n numbers %+v", a, b)
	}
	if !reflect.DeepEqual(shared, slicesOf(in.Books[0].Levels)) {
		t.Error("building the State reordered the reader's slices")
	}
}

func slicesOf(nb *NumericBook) [][]BookLevel {
	return [][]BookLevel{append([]BookLevel(nil), nb.Bids...), append([]BookLevel(nil), nb.Asks...)}
}

// TestNumericBookDepthOnDemand: a book handed over top first gives the same
// stock as the whole book, and draws its depth only when a rule reads it.
func TestNumericBookDepthOnDemand(t *testing.T) {
	in := fullInput()
	whole := &NumericBook{
		Bids: []BookLevel{{Price: 249.90, Size: 30}, {Price: 249.80, Size: 50}, {Price: 249.00, Size: 100}},
		Asks: []BookLevel{{Price: 250.10, Size: 10}, {Price: 250.30, Size: 20}, {Price: 251.00, Size: 100}},
		TS:   in.Books[0].Book.TS,
	}
	in.Books[0].Book, in.Books[0].Levels = exchange.StockOrderBook{}, whole
	full := build(t, in)
	calls := 0
	in.Books[0].Levels = &NumericBook{Bids: whole.Bids[:1], Asks: whole.Asks[:1], TS: whole.TS,
		Depth: func() (bids, asks []BookLevel) { calls++; return whole.Bids, whole.Asks }}
	lazy := build(t, in)
	a, _ := full.Stock("TSLAUSDT", NeedBook)
	b, _ := lazy.Stock("TSLAUSDT", NeedBook)
	if a.Bid != b.Bid || a.Ask != b.Ask || a.SpreadBps != b.SpreadBps || a.BidSize != b.BidSize || a.Imbalance != b.Imbalance || a.BookAgeSeconds != b.BookAgeSeconds {
		t.Errorf("top first %+v, whole book %+v", b, a)
	}
	if calls != 0 {
		t.Fatalf("the depth was drawn %d times before any rule read it", calls)
	}
	for _, bps := range []float64{1, 10, 100} {
		if a.DepthBid(bps) != b.DepthBid(bps) || a.DepthAsk(bps) != b.DepthAsk(bps) {
			t.Errorf("depth within %v bps: %v/%v top first, %v/%v whole", bps, b.DepthBid(bps), b.DepthAsk(bps), a.DepthBid(bps), a.DepthAsk(bps))
		}
	}
	if calls != 1 {
		t.Errorf("the depth was drawn %d times; want once", calls)
	}
}

// TestPollerAgesOnlyTimedFields: with a time field read, the poller builds
// a State every tick; a stock pair is copied with that field brought to the
// tick when it moved, and handed on from the tick before when it did not
// (the trade window with no fills) or when only another object's field is
// read.
func TestPollerAgesOnlyTimedFields(t *testing.T) {
	br := &bookReader{countingReader: newCountingReader(), bid: "250.00"}
	v := clock.NewVirtual(pollStart)
	p := sharePoller(t, br, v, false)
	for _, tc := range []struct {
		name  string
		timed TimeFieldSet
		aged  bool
	}{
		{"the book's age read", stockBookAge, true},
		{"the trade window read", stockWindow, false},
		{"a position's age read", positionAge, false},
	} {
		p.SetTimedFields(tc.timed)
		first := tick(t, p, v)
		second := tick(t, p, v)
		if second.SameData(first) {
			t.Errorf("%s: data shared between ticks, want a State built every tick", tc.name)
		}
		a, b := first.stock("TSLAUSDT"), second.stock("TSLAUSDT")
		if tc.aged != (a != b) || tc.aged != (b.BookAgeSeconds == a.BookAgeSeconds+1) {
			t.Errorf("%s: pair %p then %p, book age %v then %v; want aged %v", tc.name, a, b, a.BookAgeSeconds, b.BookAgeSeconds, tc.aged)
		}
	}
}
