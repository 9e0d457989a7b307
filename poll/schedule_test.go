package poll

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll/polltest"
)

func TestSpread(t *testing.T) {
	book, orders := marketdata.PartStockBook, marketdata.PartOrders
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, x := range n {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name  string
		tasks []Task
		want  []time.Duration
	}{
		{"one task", []Task{{Part: orders, Interval: time.Second}}, ms(0)},
		{"keys of one part spread evenly", []Task{
			{Part: book, Key: "A", Interval: 2 * time.Second}, {Part: book, Key: "B", Interval: 2 * time.Second},
			{Part: book, Key: "C", Interval: 2 * time.Second}, {Part: book, Key: "D", Interval: 2 * time.Second},
		}, ms(0, 500, 1000, 1500)},
		{"parts staggered", []Task{{Part: book, Key: "A", Interval: time.Second}, {Part: orders, Key: "X", Interval: time.Second}}, ms(0, 500)},
		{"keys spread, parts staggered between them", []Task{
			{Part: book, Key: "A", Interval: time.Second}, {Part: book, Key: "B", Interval: time.Second},
			{Part: orders, Key: "X", Interval: 2 * time.Second},
		}, ms(0, 500, 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spread(tt.tasks); !slices.Equal(got, tt.want) {
				t.Errorf("spread = %v, want %v", got, tt.want)
			}
		})
	}
}

// timedReader records when each stock pair's book was asked for, on the
// poller's clock, and serves a bid the test changes at will.
type timedReader struct {
	*polltest.Reader
	v *clock.Virtual

	mu    sync.Mutex
	at    map[string][]time.Duration // since polltest.Start
	bid   string
	fails bool
}

func newTimedReader(v *clock.Virtual) *timedReader {
	return &timedReader{Reader: polltest.NewReader(), v: v, at: map[string][]time.Duration{}, bid: "250.00"}
}

func (r *timedReader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at[req.Symbol] = append(r.at[req.Symbol], r.v.Now().Sub(polltest.Start))
	if r.fails {
		return exchange.StockOrderBook{}, errors.New("venue busy")
	}
	return exchange.StockOrderBook{Symbol: req.Symbol, Bids: []exchange.PriceLevel{{exchange.Num(r.bid), "7"}},
		Asks: []exchange.PriceLevel{{"250.10", "5"}}, TS: exchange.MillisOf(polltest.Start)}, r.Hit(exchange.OpStockOrderBook)
}

// TestPollerKeepsPhases: after the fetch at start, each pair's book is
// fetched at its phase and then on its grid, every interval, however late
// the poller is woken; in every interval from the second on, the book is
// asked for no more often than the headroom allows.
func TestPollerKeepsPhases(t *testing.T) {
	v := clock.NewVirtual(polltest.Start)
	r := newTimedReader(v)
	pairs := []string{"AUSDT", "BUSDT", "CUSDT", "DUSDT"}
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartStockBook), StockPairs: pairs}})
	if err != nil {
		t.Fatal(err)
	}
	// 4 pairs at 10/s x 0.5 headroom: an interval of 1s, phases 0, 250,
	// 500 and 750 ms. The poller is woken every 40 ms, so up to 40 ms late.
	if iv := p.Interval(marketdata.PartStockBook); iv != time.Second {
		t.Fatalf("interval %v, want 1s", iv)
	}
	for range 100 {
		if err := p.PollDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.Advance(40 * time.Millisecond)
	}
	ms := time.Millisecond
	want := map[string][]time.Duration{
		"AUSDT": {0, 1000 * ms, 2000 * ms, 3000 * ms},
		"BUSDT": {0, 280 * ms, 1280 * ms, 2280 * ms, 3280 * ms},
		"CUSDT": {0, 520 * ms, 1520 * ms, 2520 * ms, 3520 * ms},
		"DUSDT": {0, 760 * ms, 1760 * ms, 2760 * ms, 3760 * ms},
	}
	var all []time.Duration
	for _, pair := range pairs {
		t.Run(pair, func(t *testing.T) {
			if got := r.at[pair]; !slices.Equal(got, want[pair]) {
				t.Errorf("fetched at %v, want %v", got, want[pair])
			}
		})
		all = append(all, r.at[pair]...)
	}
	budget := 10 * 0.5
	for from := time.Second; from < 3*time.Second; from += 40 * ms {
		n := 0
		for _, at := range all {
			if at >= from && at < from+time.Second {
				n++
			}
		}
		if float64(n) > budget {
			t.Errorf("%d book requests in the second from %v, over the %v the headroom allows", n, from, budget)
		}
	}
}

// TestPollerSignalsNewData: Arrived receives after a fetch that brought
// something new (a changed answer, the part's first answer, its answer
// back after failures), and not after one that repeated what was held or
// failed.
func TestPollerSignalsNewData(t *testing.T) {
	v := clock.NewVirtual(polltest.Start)
	r := newTimedReader(v)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartStockBook), StockPairs: []string{"TSLAUSDT"}}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		bid   string
		fails bool
		want  bool
	}{
		{"first answer", "250.00", false, true},
		{"same answer", "250.00", false, false},
		{"changed answer", "250.05", false, true},
		{"failed", "250.05", true, false},
		{"back with the same answer", "250.05", false, true},
		{"same again", "250.05", false, false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			r.mu.Lock()
			r.bid, r.fails = s.bid, s.fails
			r.mu.Unlock()
			_ = p.PollDue(context.Background()) // a failure is what one step tests
			got := false
			select {
			case <-p.Arrived():
				got = true
			default:
			}
			if got != s.want {
				t.Errorf("signalled %v, want %v", got, s.want)
			}
		})
		v.Advance(time.Second)
	}
}
