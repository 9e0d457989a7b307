package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll/polltest"
)

func TestPollerPollsOnlyTheDemand(t *testing.T) {
	r := polltest.NewReader()
	v := clock.NewVirtual(polltest.Start)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{
		Parts:      marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook),
		StockPairs: []string{"TSLAUSDT", "NVDAUSDT"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if p.FullyPolled() {
		t.Fatal("fully polled before any poll")
	}
	for i := 0; i < 60; i++ {
		if err := p.PollDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.Advance(time.Second)
	}
	if !p.FullyPolled() {
		t.Error("not fully polled after a minute")
	}
	// Two pairs at 10/s x 0.5 headroom fit in 1 s: 60 polls each.
	if got := r.Count(exchange.OpStockOrderBook); got != 120 {
		t.Errorf("order book polls = %d, want 120", got)
	}
	if got := r.Count(exchange.OpMarketStates); got != 1 {
		t.Errorf("states polls = %d, want 1 (once a minute)", got)
	}
	for _, op := range []exchange.Op{exchange.OpAllPositions, exchange.OpOrdersPending, exchange.OpStockFills, exchange.OpStockInfo, exchange.OpSpotRecord} {
		if n := r.Count(op); n != 0 {
			t.Errorf("%s polled %d times though no rule reads it", op, n)
		}
	}
}

func TestPollerIntervalsFitRateLimits(t *testing.T) {
	pairs := make([]string, 12)
	for i := range pairs {
		pairs[i] = string(rune('A'+i)) + "USDT"
	}
	p, err := New(Options{Reader: polltest.NewReader(), Clock: clock.NewVirtual(polltest.Start), Demand: Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartStockBook).Add(marketdata.PartPositions).Add(marketdata.PartSpotRecords),
		StockPairs:   pairs,
		ProductTypes: exchange.ProductTypes(),
	}, Intervals: map[marketdata.Part]time.Duration{marketdata.PartSpotRecords: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		part marketdata.Part
		want time.Duration
	}{
		{marketdata.PartStockBook, 2400 * time.Millisecond}, // 12 pairs at 5/s
		{marketdata.PartPositions, 1200 * time.Millisecond}, // 3 product types at 2.5/s
		{marketdata.PartSpotRecords, 2 * time.Second},       // an override below 1/s x 0.5 is raised
		{marketdata.PartOrders, 0},                          // not read
	}
	for _, tt := range tests {
		if got := p.Interval(tt.part); got != tt.want {
			t.Errorf("Interval(%s) = %s, want %s", tt.part, got, tt.want)
		}
	}
	for op, rate := range p.Budget() {
		info, _ := exchange.LookupOp(op)
		if limit := float64(info.Rate) / info.Per.Seconds(); rate > limit*0.5+1e-9 {
			t.Errorf("%s polled at %.2f/s, above half its limit %.0f/s", op, rate, limit)
		}
	}
	if _, err := New(Options{Reader: polltest.NewReader(), Clock: clock.NewVirtual(polltest.Start), Demand: Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartStockBook)}}); err == nil {
		t.Error("a book demand without pairs was accepted")
	}
}

func TestPollerStaleness(t *testing.T) {
	r := polltest.NewReader()
	v := clock.NewVirtual(polltest.Start)
	parts := marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: parts, StockPairs: []string{"TSLAUSDT"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := p.State(v.Now())
	if err != nil {
		t.Fatal(err)
	}
	if part, stale := p.Stale(st, parts); stale {
		t.Fatalf("fresh state is stale in %s", part)
	}
	r.Fail(exchange.OpStockOrderBook, errors.New("connection refused"))
	for i := 0; i < 3; i++ {
		v.Advance(time.Second)
		if err := p.PollDue(context.Background()); err == nil || !strings.Contains(err.Error(), "stock_book TSLAUSDT") {
			t.Fatalf("poll error %v does not name the part", err)
		}
	}
	st, _ = p.State(v.Now())
	if _, stale := p.Stale(st, parts); stale {
		t.Error("stale after exactly three intervals; the limit is more than three")
	}
	v.Advance(time.Second)
	st, _ = p.State(v.Now())
	if part, stale := p.Stale(st, parts); !stale || part != marketdata.PartStockBook {
		t.Errorf("Stale = %s %v, want stock_book true", part, stale)
	}
}

func TestPollerSessionMovesWithTheTick(t *testing.T) {
	r := polltest.NewReader()
	v := clock.NewVirtual(polltest.Start)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartMarket)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after   time.Duration
		session string
		toClose float64
	}{
		{0, "regular", 10},
		{5 * time.Minute, "regular", 5},
		{11 * time.Minute, "after_hours", 239},
	} {
		st, err := p.State(polltest.Start.Add(tc.after))
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.Market(0)
		if err != nil {
			t.Fatal(err)
		}
		if m.Session != tc.session || m.MinutesToClose != tc.toClose {
			t.Errorf("at +%s: %s, %.0f min to close; want %s, %.0f", tc.after, m.Session, m.MinutesToClose, tc.session, tc.toClose)
		}
	}
	if n := r.Count(exchange.OpMarketStates); n != 1 {
		t.Errorf("states fetched %d times; the session must be recomputed without refetching", n)
	}
}

// TestPollerSummarisesFailures: a part failing every second is logged on
// its first failure with the cause, then at the 2nd, 4th and 8th, and once
// when it recovers.
func TestPollerSummarisesFailures(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	r := polltest.NewReader()
	v := clock.NewVirtual(polltest.Start)
	parts := marketdata.PartSet(0).Add(marketdata.PartStockBook)
	p, err := New(Options{Reader: r, Clock: v, Logger: zap.New(core), Demand: Demand{Parts: parts, StockPairs: []string{"TSLAUSDT"}}})
	if err != nil {
		t.Fatal(err)
	}
	r.Fail(exchange.OpStockOrderBook, errors.New("connection refused"))
	for i := 0; i < 10; i++ {
		_ = p.PollDue(context.Background())
		v.Advance(time.Second)
	}
	r.Fail(exchange.OpStockOrderBook, nil)
	for i := 0; i < 3; i++ {
		if err := p.PollDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.Advance(time.Second)
	}
	var got []string
	for _, e := range logs.All() {
		line := e.Message
		if n, ok := e.ContextMap()["failed_polls"]; ok {
			line += fmt.Sprintf(" %v", n)
		}
		got = append(got, line)
	}
	want := []string{
		"poll failed: the rules that read this part wait for it once it is older than 3 intervals",
		"poll still failing 2", "poll still failing 4", "poll still failing 8",
		"poll recovered 10",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPollerRefusedPartHoldsOnlyItsRules: a stock book the venue refuses to
// the key (whitelist-only on the live venue) is logged once, asked again
// only after RefusedRetry, and does not keep the poller from being fully
// polled: rules that do not read it may fire, those that do see it stale.
func TestPollerRefusedPartHoldsOnlyItsRules(t *testing.T) {
	for _, refusal := range []error{exchange.ErrForbidden, exchange.ErrUnavailable} {
		t.Run(refusal.Error(), func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			r := polltest.NewReader()
			v := clock.NewVirtual(polltest.Start)
			parts := marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook)
			p, err := New(Options{Reader: r, Clock: v, Logger: zap.New(core), Demand: Demand{Parts: parts, StockPairs: []string{"TSLAUSDT"}}})
			if err != nil {
				t.Fatal(err)
			}
			r.Fail(exchange.OpStockOrderBook, fmt.Errorf("stock-orderbook: %w", refusal))
			for i := 0; i < 120; i++ {
				_ = p.PollDue(context.Background())
				v.Advance(time.Second)
			}
			if n := r.Count(exchange.OpStockOrderBook); n != 1 {
				t.Errorf("the refused book was asked %d times in two minutes, want 1", n)
			}
			if !p.FullyPolled() {
				t.Fatal("a refused part keeps every rule from firing")
			}
			st, err := p.State(v.Now())
			if err != nil {
				t.Fatal(err)
			}
			if part, stale := p.Stale(st, marketdata.PartSet(0).Add(marketdata.PartMarket)); stale {
				t.Errorf("the market reads stale (%s) beside a refused book", part)
			}
			if part, stale := p.Stale(st, parts); !stale || part != marketdata.PartStockBook {
				t.Errorf("Stale = %s %v, want stock_book true", part, stale)
			}
			if n := logs.FilterMessageSnippet("refuses this data").Len(); n != 1 || logs.Len() != 1 {
				t.Errorf("%d refusal lines of %d, want the one", n, logs.Len())
			}
			v.Advance(RefusedRetry)
			_ = p.PollDue(context.Background())
			if n := r.Count(exchange.OpStockOrderBook); n != 2 {
				t.Errorf("asked %d times after RefusedRetry, want 2", n)
			}
		})
	}
}

// failingPair is a reader whose stock book of one pair always fails.
type failingPair struct {
	*polltest.Reader
	pair string
}

func (f failingPair) StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	if req.Symbol == f.pair {
		return exchange.StockOrderBook{}, errors.New("503 service unavailable")
	}
	return f.Reader.StockOrderBook(ctx, req)
}

// TestPollerFailingPartHoldsOnlyItsRules: a part that fails from the start
// with an ordinary error (not a refusal) does not keep the poller from being
// fully polled once every task has been tried; the part reads as missing,
// so only the rules reading it wait. A keyed part with one key failing reads
// as missing as a whole, never as an empty book of that key.
func TestPollerFailingPartHoldsOnlyItsRules(t *testing.T) {
	market := marketdata.PartSet(0).Add(marketdata.PartMarket)
	for _, tt := range []struct {
		name   string
		reader func() Reader
		pairs  []string
	}{
		{"every key fails", func() Reader {
			r := polltest.NewReader()
			r.Fail(exchange.OpStockOrderBook, errors.New("500 internal error"))
			return r
		}, []string{"TSLAUSDT"}},
		{"one key of two fails", func() Reader {
			return failingPair{polltest.NewReader(), "NVDAUSDT"}
		}, []string{"TSLAUSDT", "NVDAUSDT"}},
		{"one key of two fails, listed first", func() Reader {
			return failingPair{polltest.NewReader(), "TSLAUSDT"}
		}, []string{"TSLAUSDT", "NVDAUSDT"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := clock.NewVirtual(polltest.Start)
			parts := market.Add(marketdata.PartStockBook)
			p, err := New(Options{Reader: tt.reader(), Clock: v, Demand: Demand{Parts: parts, StockPairs: tt.pairs}})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 5; i++ {
				_ = p.PollDue(context.Background())
				v.Advance(time.Second)
			}
			if !p.FullyPolled() {
				t.Fatal("a part failing since the start keeps every rule from firing")
			}
			st, err := p.State(v.Now())
			if err != nil {
				t.Fatal(err)
			}
			if part, stale := p.Stale(st, market); stale {
				t.Errorf("the market reads stale (%s) beside a failing book", part)
			}
			if part, stale := p.Stale(st, parts); !stale || part != marketdata.PartStockBook {
				t.Errorf("Stale = %s %v, want stock_book true", part, stale)
			}
		})
	}
}

// countingClock is a clock on which every wait has already passed; it
// counts the waits and cancels the run at the limit, so that a loop that
// never blocks still ends.
type countingClock struct {
	now    time.Time
	waits  atomic.Int64
	limit  int64
	cancel context.CancelFunc
}

func (c *countingClock) Now() time.Time { return c.now }

func (c *countingClock) After(time.Duration) <-chan time.Time {
	if c.waits.Add(1) == c.limit {
		c.cancel()
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// TestPollerWithoutTasksWaits: rules that read only the clock give the
// poller no task; Run then waits for its context instead of waking at
// once, forever (a whole core of a live engine that polls nothing).
func TestPollerWithoutTasksWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		clk := &countingClock{now: polltest.Start, limit: 100, cancel: cancel}
		p, err := New(Options{Reader: polltest.NewReader(), Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		if tasks := p.Tasks(); len(tasks) != 0 {
			t.Fatalf("tasks %v, want none for an empty demand", tasks)
		}
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		synctest.Wait() // Run is blocked, or has ended
		if n := clk.waits.Load(); n != 0 {
			t.Fatalf("Run woke %d times with nothing to poll", n)
		}
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before its context ended", err)
		default:
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	})
}
