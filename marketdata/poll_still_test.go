package marketdata

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// stillReader versions its answers like the simulator: each part has a
// version the test moves, and StillUntil promises versions until a time the
// test sets, while the mark (moved by writes) stays.
type stillReader struct {
	*countingReader
	mu        sync.Mutex
	versions  map[Part]int64
	mark      uint64
	until     time.Time
	asked     map[Part]int // Version calls
	stillAsks int
}

// newStillReader returns a stillReader whose promise holds until until
// (zero: no end).
func newStillReader(until time.Time) *stillReader {
	return &stillReader{countingReader: newCountingReader(), versions: map[Part]int64{}, asked: map[Part]int{}, until: until}
}

func (r *stillReader) Version(_ context.Context, part Part, _ string) ([3]int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked[part]++
	return [3]int64{r.versions[part], int64(r.mark)}, true
}

func (r *stillReader) StillUntil(context.Context) (uint64, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stillAsks++
	return r.mark, r.until
}

func (r *stillReader) Mark() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mark
}

// plainVersioner is stillReader as a plain Versioner: its StillUntil has
// another signature, so it is no StillVersioner.
type plainVersioner struct{ *stillReader }

func (plainVersioner) StillUntil() {}

// TestPollerKeepsAnswersWhileStill: a versioned answer is fetched again
// only when its version moves; while the reader's promise holds, versions
// are not even asked; a write (the mark) or the end of the promise brings
// the checks back, and an answer checked before the promise was made is
// checked again.
func TestPollerKeepsAnswersWhileStill(t *testing.T) {
	for _, promise := range []bool{true, false} {
		r := newStillReader(time.Time{})
		start := pollStart
		r.until = start.Add(10 * time.Second)
		v := clock.NewVirtual(start)
		var reader Reader = r
		if !promise {
			reader = plainVersioner{r}
		}
		p, err := NewPoller(PollerOptions{Reader: reader, Clock: v, Demand: Demand{
			Parts:        PartSet(0).Add(PartPositions).Add(PartBalances),
			ProductTypes: []exchange.ProductType{exchange.USDTFutures},
		}})
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
		fetches := func() int { return r.count(exchange.OpAllPositions) }
		asked := func() int {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.asked[PartPositions]
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
		r.versions[PartPositions]++
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
		r.versions[PartPositions]++
		r.until = start.Add(time.Hour)
		r.mu.Unlock()
		poll()
		if fetches() != 3 {
			t.Fatalf("promise=%v: a version moved at the end of the promise but was not fetched (%d fetches)", promise, fetches())
		}
		if promise && r.stillAsks < 3 {
			t.Errorf("StillUntil asked %d times, want a new promise at the start, after the write and at its end", r.stillAsks)
		}
		// The balances (every 5 s, at 0, 5 and 10 s) were each time
		// checked before the promise of the moment: their versions were
		// asked every time, and moved once, with the write.
		if n := r.count(exchange.OpAccounts); n != 2 {
			t.Errorf("promise=%v: balances fetched %d times, want 2", promise, n)
		}
		r.mu.Lock()
		balancesAsked := r.asked[PartBalances]
		r.mu.Unlock()
		if balancesAsked != 3 {
			t.Errorf("promise=%v: balances' version asked %d times", promise, balancesAsked)
		}
	}
}

// TestPollerChecksWhatThePromiseDidNotSee: an answer last checked before
// the promise was made may have moved in between, so it is checked once
// when next due, even while the promise holds.
func TestPollerChecksWhatThePromiseDidNotSee(t *testing.T) {
	r := newStillReader(time.Time{})
	r.until = pollStart.Add(time.Second) // the first promise ends at 1 s
	v := clock.NewVirtual(pollStart)
	p, err := NewPoller(PollerOptions{Reader: r, Clock: v, Demand: Demand{
		Parts:        PartSet(0).Add(PartPositions).Add(PartBalances),
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
			r.versions[PartBalances]++
			r.until = pollStart.Add(time.Hour)
			r.mu.Unlock()
		}
		if err := p.PollDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.Advance(time.Second)
	}
	if n := r.count(exchange.OpAccounts); n != 2 {
		t.Fatalf("balances fetched %d times, want 2: the move before the promise was missed", n)
	}
}

// BenchmarkPollerQuietTick is one second of a backtest between two price
// steps: the reader's promise holds, so the pollers ask nothing, and the
// State shares its data with the one before (market session, positions,
// orders and two books demanded).
func BenchmarkPollerQuietTick(b *testing.B) {
	r := newStillReader(time.Time{})
	r.until = pollStart.AddDate(100, 0, 0) // beyond any b.N seconds
	v := clock.NewVirtual(pollStart)
	p, err := NewPoller(PollerOptions{Reader: r, Clock: v, Demand: Demand{
		Parts:        PartSet(0).Add(PartMarket).Add(PartPositions).Add(PartOrders).Add(PartStockBook),
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

// TestPollerQuietUntil: the pollers can say until when nothing but the
// clock moves: the reader's promise, the next poll it does not cover, the
// age of the market's answers (stale after three minutes; this reader's
// promise covers their poll) and the end of the session's segment bound it;
// a write, a reader that promises nothing, or no session yet mean it
// cannot tell.
func TestPollerQuietUntil(t *testing.T) {
	for _, tc := range []struct {
		name         string
		start, until time.Time // the clock's start, the promise's end
		plain, write bool
		noState      bool
		failed       bool // the positions' poll failed: due again in a second
		want         time.Time
	}{
		{name: "a poll the promise does not cover falls due", start: pollStart, until: pollStart.Add(10 * time.Second), failed: true, want: pollStart.Add(time.Second)},
		{name: "the promise ends first", start: pollStart, until: pollStart.Add(10 * time.Second), want: pollStart.Add(10 * time.Second)},
		{name: "no price step ahead: the market's answers turn stale", start: pollStart, want: pollStart.Add(StaleAfter * time.Minute)},
		{name: "the regular session ends first", start: pollStart.Add(9*time.Minute + 30*time.Second), until: pollStart.Add(10*time.Minute + 10*time.Second),
			want: pollStart.Add(10 * time.Minute)},
		{name: "a write since", start: pollStart, until: pollStart.Add(10 * time.Second), write: true},
		{name: "no promise", start: pollStart, until: pollStart.Add(10 * time.Second), plain: true},
		{name: "no session computed yet", start: pollStart, until: pollStart.Add(10 * time.Second), noState: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newStillReader(tc.until)
			var reader Reader = r
			if tc.plain {
				reader = plainVersioner{r}
			}
			if tc.failed {
				r.fail[exchange.OpAllPositions] = errors.New("timeout")
			}
			v := clock.NewVirtual(tc.start)
			p, err := NewPoller(PollerOptions{Reader: reader, Clock: v, Demand: Demand{
				Parts:        PartSet(0).Add(PartMarket).Add(PartPositions),
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

// TestPollerQuietUntilStale: a task the promise does not cover that keeps
// failing turns stale before it is due again: nothing can be skipped then.
func TestPollerQuietUntilStale(t *testing.T) {
	r := newStillReader(pollStart.Add(time.Hour))
	v := clock.NewVirtual(pollStart)
	p, err := NewPoller(PollerOptions{Reader: r, Clock: v, Demand: Demand{
		Parts:        PartSet(0).Add(PartMarket).Add(PartPositions),
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 4 {
		if tick == 1 {
			r.fail[exchange.OpAllPositions] = errors.New("timeout")
		}
		if tick > 0 { // a write: the promise is asked again, the positions' version moved
			r.mu.Lock()
			r.mark++
			r.versions[PartPositions]++
			r.mu.Unlock()
		}
		_ = p.PollDue(context.Background())
		if _, err := p.State(v.Now()); err != nil {
			t.Fatal(err)
		}
		want := v.Now().Add(time.Second) // the positions are due again
		switch tick {
		case 0: // covered by the promise: the market's age bounds it
			want = pollStart.Add(StaleAfter * time.Minute)
		case 3: // last fetched three seconds ago: stale from now on
			want = time.Time{}
		}
		if got := p.QuietUntil(v.Now()); !got.Equal(want) {
			t.Errorf("tick %d: QuietUntil = %v, want %v", tick, got, want)
		}
		v.Advance(time.Second)
	}
}
