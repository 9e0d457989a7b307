package poll

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll/polltest"
)

// bookReader serves a book that the test changes at will, as strings, each
// answer decoded anew, like the live client.
type bookReader struct {
	*polltest.Reader
	mu  sync.Mutex
	bid string
}

func (r *bookReader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return exchange.StockOrderBook{Symbol: req.Symbol, Asks: []exchange.PriceLevel{{"250.10", "5"}, {"250.30", "9"}},
		Bids: []exchange.PriceLevel{{exchange.Num(r.bid), "7"}, {"249.50", "3"}}, TS: exchange.MillisOf(polltest.Start)}, r.Hit(exchange.OpStockOrderBook)
}

func sharePoller(t *testing.T, r Reader, v *clock.Virtual, rebuild bool) *Poller {
	t.Helper()
	p, err := New(Options{Reader: r, Clock: v, RebuildEveryTick: rebuild, Demand: Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook).Add(marketdata.PartPositions),
		StockPairs:   []string{"TSLAUSDT"},
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPollerSharesUnchangedData(t *testing.T) {
	br := &bookReader{Reader: polltest.NewReader(), bid: "250.00"}
	v := clock.NewVirtual(polltest.Start)
	p := sharePoller(t, br, v, false)
	first := polltest.Tick(t, p, v)
	second := polltest.Tick(t, p, v)
	if !second.SameData(first) {
		t.Fatal("an unchanged answer gave a State with new data")
	}
	if !second.Now.Equal(v.Now()) || second.Now.Equal(first.Now) {
		t.Errorf("the shared State is at %s, the tick at %s", second.Now, v.Now())
	}
	if at := second.Part(marketdata.PartStockBook).At; !at.Equal(v.Now()) {
		t.Errorf("stock_book fetched at %s, want the poll that just confirmed it (%s)", at, v.Now())
	}
	m1, _ := first.Market(0)
	m2, _ := second.Market(0)
	if math.Abs(m2.MinutesToClose-(m1.MinutesToClose-1.0/60)) > 1e-9 {
		t.Errorf("minutes_to_close %v then %v: the session must follow the tick", m1.MinutesToClose, m2.MinutesToClose)
	}

	br.mu.Lock()
	br.bid = "250.05"
	br.mu.Unlock()
	third := polltest.Tick(t, p, v)
	if third.SameData(second) {
		t.Fatal("a changed book gave a State sharing the old data")
	}
	s, err := third.Stock("TSLAUSDT", marketdata.NeedBook)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bid != 250.05 || s.Spread != 0.05 {
		t.Errorf("bid %v spread %v after the change, want 250.05 and 0.05", s.Bid, s.Spread)
	}
}

func TestPollerRebuildEveryTick(t *testing.T) {
	br := &bookReader{Reader: polltest.NewReader(), bid: "250.00"}
	v := clock.NewVirtual(polltest.Start)
	p := sharePoller(t, br, v, true)
	first := polltest.Tick(t, p, v)
	if polltest.Tick(t, p, v).SameData(first) {
		t.Error("RebuildEveryTick shared data between ticks")
	}
	p.SetTimedFields(0)
	second := polltest.Tick(t, p, v)
	if !polltest.Tick(t, p, v).SameData(second) {
		t.Error("data not shared after RebuildEveryTick was switched off")
	}
}

// TestPollerAgesOnlyTimedFields: with a time field read, the poller builds
// a State every tick; a stock pair is copied with that field brought to the
// tick when it moved, and handed on from the tick before when it did not
// (the trade window with no fills) or when only another object's field is
// read.
func TestPollerAgesOnlyTimedFields(t *testing.T) {
	br := &bookReader{Reader: polltest.NewReader(), bid: "250.00"}
	v := clock.NewVirtual(polltest.Start)
	p := sharePoller(t, br, v, false)
	for _, tc := range []struct {
		name  string
		timed marketdata.TimeFieldSet
		aged  bool
	}{
		{"the book's age read", marketdata.TimeFieldsOf("stock", "book_age_seconds"), true},
		{"the trade window read", marketdata.TimeFieldsOf("stock", "volume") | marketdata.TimeFieldsOf("stock", "trades_count") | marketdata.TimeFieldsOf("stock", "vwap"), false},
		{"a position's age read", marketdata.TimeFieldsOf("position", "age_seconds"), false},
	} {
		p.SetTimedFields(tc.timed)
		first := polltest.Tick(t, p, v)
		second := polltest.Tick(t, p, v)
		if second.SameData(first) {
			t.Errorf("%s: data shared between ticks, want a State built every tick", tc.name)
		}
		a, _ := first.Stock("TSLAUSDT", 0)
		b, _ := second.Stock("TSLAUSDT", 0)
		if tc.aged != (a != b) || tc.aged != (b.BookAgeSeconds == a.BookAgeSeconds+1) {
			t.Errorf("%s: pair %p then %p, book age %v then %v; want aged %v", tc.name, a, b, a.BookAgeSeconds, b.BookAgeSeconds, tc.aged)
		}
	}
}

// BenchmarkLiveTick is one second of the live engine's data path with a
// venue that answers in decimal text, as the live client does: the polls
// due (books, positions and orders every second, the session once a
// minute) and the State of the tick.
func BenchmarkLiveTick(b *testing.B) {
	v := clock.NewVirtual(polltest.Start)
	p, err := New(Options{Reader: polltest.NewReader(), Clock: v, Demand: Demand{
		Parts: marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook).
			Add(marketdata.PartPositions).Add(marketdata.PartOrders),
		StockPairs:   []string{"TSLAUSDT", "NVDAUSDT"},
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v.Advance(time.Second)
		_ = p.PollDue(ctx)
		if _, err := p.State(v.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
