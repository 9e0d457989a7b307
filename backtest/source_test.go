package backtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/poll/polltest"
)

// promisingReader versions its answers like the simulator: each part has a
// version the test moves, and Promise promises versions until a time the
// test sets, while the mark (moved by writes) stays.
type promisingReader struct {
	*polltest.Reader
	mu        sync.Mutex
	versions  map[marketdata.Part]int64
	mark      uint64
	until     time.Time
	asked     map[marketdata.Part]int // Version calls
	stillAsks int
}

// newStillReader returns a promisingReader whose promise holds until until
// (zero: no end).
func newStillReader(until time.Time) *promisingReader {
	return &promisingReader{Reader: polltest.NewReader(), versions: map[marketdata.Part]int64{}, asked: map[marketdata.Part]int{}, until: until}
}

func (r *promisingReader) Version(_ context.Context, part marketdata.Part, _ string) ([3]int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked[part]++
	return [3]int64{r.versions[part], int64(r.mark)}, true
}

func (r *promisingReader) Promise(context.Context) (uint64, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stillAsks++
	return r.mark, r.until
}

func (r *promisingReader) Mark() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mark
}

// versionsOnly is promisingReader as a plain versionReader: its Promise has
// another signature, so it is no promiseReader.
type versionsOnly struct{ *promisingReader }

func (versionsOnly) Promise() {}

// TestSourceKeepsAnswersWhilePromised: a versioned answer is fetched again
// only when its version moves; while the reader's promise holds, versions
// are not even asked; a write (the mark) or the end of the promise brings
// the checks back, and an answer checked before the promise was made is
// checked again.
func TestSourceKeepsAnswersWhilePromised(t *testing.T) {
	for _, promise := range []bool{true, false} {
		r := newStillReader(time.Time{})
		start := polltest.Start
		r.until = start.Add(10 * time.Second)
		v := clock.NewVirtual(start)
		var reader poll.Reader = r
		if !promise {
			reader = versionsOnly{r}
		}
		// Balances every 5 s (set, as a user may): checked at 0, 5 and 10 s,
		// between the promises.
		p, err := newSimulatorSource(poll.Options{Reader: reader, Clock: v, Demand: poll.Demand{
			Parts:        marketdata.PartSet(0).Add(marketdata.PartPositions).Add(marketdata.PartBalances),
			ProductTypes: []exchange.ProductType{exchange.USDTFutures},
		}, Intervals: map[marketdata.Part]time.Duration{marketdata.PartBalances: 5 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		poll := func() {
			t.Helper()
			if err := p.PollDue(context.Background()); err != nil {
				t.Fatal(err)
			}
			v.Advance(time.Second)
		}
		fetches := func() int { return r.Count(exchange.OpAllPositions) }
		asked := func() int {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.asked[marketdata.PartPositions]
		}
		// 0 s: the first poll fetches everything, with its version.
		poll()
		if fetches() != 1 || asked() != 1 {
			t.Fatalf("promise=%v: first poll fetched %d, asked %d", promise, fetches(), asked())
		}
		// 1-4 s: nothing moves.
		for range 4 {
			poll()
		}
		wantAsked := 5
		if promise {
			wantAsked = 1 // the promise was made at 0 s before the first check
		}
		if fetches() != 1 || asked() != wantAsked {
			t.Fatalf("promise=%v: quiet seconds fetched %d (want 1), asked %d (want %d)", promise, fetches(), asked(), wantAsked)
		}
		// 5 s: a write moves the mark and the version.
		r.mu.Lock()
		r.mark++
		r.versions[marketdata.PartPositions]++
		r.mu.Unlock()
		poll()
		if fetches() != 2 {
			t.Fatalf("promise=%v: a write was not fetched (%d fetches)", promise, fetches())
		}
		// 6-9 s: still again; 10 s: the promise ends and the version moved
		// with the price, without a write.
		for range 4 {
			poll()
		}
		r.mu.Lock()
		r.versions[marketdata.PartPositions]++
		r.until = start.Add(time.Hour)
		r.mu.Unlock()
		poll()
		if fetches() != 3 {
			t.Fatalf("promise=%v: a version moved at the end of the promise but was not fetched (%d fetches)", promise, fetches())
		}
		if promise && r.stillAsks < 3 {
			t.Errorf("Promise asked %d times, want a new promise at the start, after the write and at its end", r.stillAsks)
		}
		// The balances (every 5 s, at 0, 5 and 10 s) were each time
		// checked before the promise of the moment: their versions were
		// asked every time, and moved once, with the write.
		if n := r.Count(exchange.OpAccounts); n != 2 {
			t.Errorf("promise=%v: balances fetched %d times, want 2", promise, n)
		}
		r.mu.Lock()
		balancesAsked := r.asked[marketdata.PartBalances]
		r.mu.Unlock()
		if balancesAsked != 3 {
			t.Errorf("promise=%v: balances' version asked %d times", promise, balancesAsked)
		}
	}
}

// TestSourceChecksWhatThePromiseDidNotSee: an answer last checked before
// the promise was made may have moved in between, so it is checked once
// when next due, even while the promise holds.
func TestSourceChecksWhatThePromiseDidNotSee(t *testing.T) {
	r := newStillReader(time.Time{})
	r.until = polltest.Start.Add(time.Second) // the first promise ends at 1 s
	v := clock.NewVirtual(polltest.Start)
	p, err := newSimulatorSource(poll.Options{Reader: r, Clock: v, Demand: poll.Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartPositions).Add(marketdata.PartBalances),
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 7 {
		if s == 1 {
			// Between 0 and 1 s the balances' version moved (a price),
			// then a promise is made at 1 s, when they are not due.
			r.mu.Lock()
			r.versions[marketdata.PartBalances]++
			r.until = polltest.Start.Add(time.Hour)
			r.mu.Unlock()
		}
		if err := p.PollDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.Advance(time.Second)
	}
	if n := r.Count(exchange.OpAccounts); n != 2 {
		t.Fatalf("balances fetched %d times, want 2: the move before the promise was missed", n)
	}
}

// BenchmarkSourceQuietTick is one second of a backtest between two price
// steps: the reader's promise holds, so the pollers ask nothing, and the
// State shares its data with the one before (market session, positions,
// orders and two books demanded).
func BenchmarkSourceQuietTick(b *testing.B) {
	r := newStillReader(time.Time{})
	r.until = polltest.Start.AddDate(100, 0, 0) // beyond any b.N seconds
	v := clock.NewVirtual(polltest.Start)
	p, err := newSimulatorSource(poll.Options{Reader: r, Clock: v, Demand: poll.Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartPositions).Add(marketdata.PartOrders).Add(marketdata.PartStockBook),
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
		StockPairs:   []string{"TSLAUSDT", "NVDAUSDT"},
	}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := exchange.WithPriority(context.Background(), exchange.PriorityLow)
	if err := p.PollDue(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		v.Advance(time.Second)
		_ = p.PollDue(ctx)
		if _, err := p.State(v.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSourceQuietUntil: the pollers can say until when nothing but the
// clock moves: the reader's promise, the next poll it does not cover, the
// age of the market's answers (stale after three minutes; this reader's
// promise covers their poll) and the end of the session's segment bound it;
// a write, a reader that promises nothing, or no session yet mean it
// cannot tell.
func TestSourceQuietUntil(t *testing.T) {
	for _, tc := range []struct {
		name         string
		start, until time.Time // the clock's start, the promise's end
		plain, write bool
		noState      bool
		failed       bool // the positions' poll failed: due again in a second
		want         time.Time
	}{
		{name: "a poll the promise does not cover falls due", start: polltest.Start, until: polltest.Start.Add(10 * time.Second), failed: true, want: polltest.Start.Add(time.Second)},
		{name: "the promise ends first", start: polltest.Start, until: polltest.Start.Add(10 * time.Second), want: polltest.Start.Add(10 * time.Second)},
		{name: "no price step ahead: the market's answers turn stale", start: polltest.Start, want: polltest.Start.Add(poll.StaleAfter * time.Minute)},
		{name: "the regular session ends first", start: polltest.Start.Add(9*time.Minute + 30*time.Second), until: polltest.Start.Add(10*time.Minute + 10*time.Second),
			want: polltest.Start.Add(10 * time.Minute)},
		{name: "a write since", start: polltest.Start, until: polltest.Start.Add(10 * time.Second), write: true},
		{name: "no promise", start: polltest.Start, until: polltest.Start.Add(10 * time.Second), plain: true},
		{name: "no session computed yet", start: polltest.Start, until: polltest.Start.Add(10 * time.Second), noState: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newStillReader(tc.until)
			var reader poll.Reader = r
			if tc.plain {
				reader = versionsOnly{r}
			}
			if tc.failed {
				r.Fail(exchange.OpAllPositions, errors.New("timeout"))
			}
			v := clock.NewVirtual(tc.start)
			p, err := newSimulatorSource(poll.Options{Reader: reader, Clock: v, Demand: poll.Demand{
				Parts:        marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartPositions),
				ProductTypes: []exchange.ProductType{exchange.USDTFutures},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.PollDue(context.Background()); (err != nil) != tc.failed {
				t.Fatal(err)
			}
			if !tc.noState {
				if _, err := p.State(tc.start); err != nil {
					t.Fatal(err)
				}
			}
			if tc.write {
				r.mu.Lock()
				r.mark++
				r.mu.Unlock()
			}
			if got := p.QuietUntil(tc.start); !got.Equal(tc.want) {
				t.Errorf("QuietUntil = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSourceQuietUntilStale: a task the promise does not cover that keeps
// failing turns stale before it is due again: nothing can be skipped then.
func TestSourceQuietUntilStale(t *testing.T) {
	r := newStillReader(polltest.Start.Add(time.Hour))
	v := clock.NewVirtual(polltest.Start)
	p, err := newSimulatorSource(poll.Options{Reader: r, Clock: v, Demand: poll.Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartPositions),
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 4 {
		if tick == 1 {
			r.Fail(exchange.OpAllPositions, errors.New("timeout"))
		}
		if tick > 0 { // a write: the promise is asked again, the positions' version moved
			r.mu.Lock()
			r.mark++
			r.versions[marketdata.PartPositions]++
			r.mu.Unlock()
		}
		_ = p.PollDue(context.Background())
		if _, err := p.State(v.Now()); err != nil {
			t.Fatal(err)
		}
		want := v.Now().Add(time.Second) // the positions are due again
		switch tick {
		case 0: // covered by the promise: the market's age bounds it
			want = polltest.Start.Add(poll.StaleAfter * time.Minute)
		case 3: // last fetched three seconds ago: stale from now on
			want = time.Time{}
		}
		if got := p.QuietUntil(v.Now()); !got.Equal(want) {
			t.Errorf("tick %d: QuietUntil = %v, want %v", tick, got, want)
		}
		v.Advance(time.Second)
	}
}

// numericBookReader serves one book in numbers that the test changes at
// will, handing the same slices back while it is unchanged, as the
// simulator does.
type numericBookReader struct {
	*polltest.Reader
	mu   sync.Mutex
	nums *marketdata.NumericBook
}

func (r *numericBookReader) StockBookNumbers(context.Context, string) (marketdata.NumericBook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return *r.nums, nil
}

// TestSourceSharesUnchangedBookNumbers: a book handed back in the same
// numbers gives a State sharing the data of the one before; new numbers a
// State with the new book.
func TestSourceSharesUnchangedBookNumbers(t *testing.T) {
	r := &numericBookReader{Reader: polltest.NewReader(), nums: &marketdata.NumericBook{
		Bids: []marketdata.BookLevel{{Price: 250, Size: 7}, {Price: 249.5, Size: 3}},
		Asks: []marketdata.BookLevel{{Price: 250.1, Size: 5}, {Price: 250.3, Size: 9}}, TS: exchange.MillisOf(polltest.Start)}}
	v := clock.NewVirtual(polltest.Start)
	s, err := newSimulatorSource(poll.Options{Reader: r, Clock: v, Demand: poll.Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook).Add(marketdata.PartPositions),
		StockPairs:   []string{"TSLAUSDT"},
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tick := func() *marketdata.State { return polltest.Tick(t, s, v) }
	first := tick()
	second := tick()
	if !second.SameData(first) {
		t.Fatal("an unchanged book gave a State with new data")
	}
	if at := second.Part(marketdata.PartStockBook).At; !at.Equal(v.Now()) {
		t.Errorf("stock_book fetched at %s, want the poll that just confirmed it (%s)", at, v.Now())
	}
	r.mu.Lock()
	r.nums = &marketdata.NumericBook{Bids: []marketdata.BookLevel{{Price: 250.05, Size: 7}, {Price: 249.5, Size: 3}}, Asks: r.nums.Asks, TS: r.nums.TS}
	r.mu.Unlock()
	third := tick()
	if third.SameData(second) {
		t.Fatal("a changed book gave a State sharing the old data")
	}
	st, err := third.Stock("TSLAUSDT", marketdata.NeedBook)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bid != 250.05 || st.Spread != 0.05 {
		t.Errorf("bid %v spread %v after the change, want 250.05 and 0.05", st.Bid, st.Spread)
	}
}

// TestSourcePlansAsLive: the backtest's source polls every part as often
// as the live poller does. It planned without the spare rate budget, so a
// backtest read account equity every 5 s where a live engine reads it
// about every second, and a loss limit on equity fired up to 5 s late.
func TestSourcePlansAsLive(t *testing.T) {
	demand := poll.Demand{
		Parts: marketdata.PartSet(0).Add(marketdata.PartBalances).Add(marketdata.PartPositions).Add(marketdata.PartOrders).
			Add(marketdata.PartMarket),
		ProductTypes: []exchange.ProductType{exchange.USDTFutures, exchange.COINFutures},
	}
	opts := poll.Options{Reader: newStillReader(time.Time{}), Clock: clock.NewVirtual(polltest.Start), Demand: demand}
	live, err := poll.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	src, err := newSimulatorSource(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range demand.Parts.Parts() {
		t.Run(part.String(), func(t *testing.T) {
			if got, want := src.plan.Interval(part), live.Interval(part); got != want {
				t.Errorf("backtest polls %s every %s, live every %s", part, got, want)
			}
		})
	}
	if got := src.plan.Interval(marketdata.PartBalances); got > time.Second {
		t.Errorf("backtest polls balances every %s, want about 1s as live", got)
	}
}
