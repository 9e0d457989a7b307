package market

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// TestMemoMatchesFresh asks one market about a long run of times (mostly
// forward by sub-second, second and step jumps, sometimes back) and checks
// every answer against a market that never answered before: the memos of
// prices, books and fills never change an answer.
func TestMemoMatchesFresh(t *testing.T) {
	t.Parallel()
	// The walks start shortly before: a fresh market draws them from there.
	opts := testOptions()
	opts.Start = utc("2026-03-10T14:00:00Z")
	newMarket := func() *Market {
		m, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := newMarket()
	rng := rand.New(rand.NewPCG(3, 4))
	at := utc("2026-03-10T14:29:58Z") // the regular session opens at 14:30 UTC
	jumps := []time.Duration{0, 0, 250 * time.Millisecond, time.Second, time.Second, 3 * time.Second, 5 * time.Second, 7 * time.Second, time.Minute, -4 * time.Second, 10 * time.Minute}
	for i := range 400 {
		at = at.Add(jumps[rng.IntN(len(jumps))])
		fresh := newMarket()
		for _, sym := range []string{"TSLAUSDT", "BTCUSDT", "NVDA", "NVDAUSDT"} {
			got, _ := m.PriceAt(sym, at)
			want, _ := fresh.PriceAt(sym, at)
			if !got.Equal(want) {
				t.Fatalf("query %d: PriceAt(%s, %s) = %s, fresh %s", i, sym, at, got, want)
			}
			levels := []int{1, 5, MaxLevels}[rng.IntN(3)]
			gb, ga := m.Book(sym, at, levels)
			wb, wa := fresh.Book(sym, at, levels)
			if !reflect.DeepEqual(gb, wb) || !reflect.DeepEqual(ga, wa) {
				t.Fatalf("query %d: Book(%s, %s, %d) differs from a fresh market's", i, sym, at, levels)
			}
		}
		for _, sym := range []string{"TSLAUSDT", "NVDAUSDT"} {
			got, err := m.StockOrderBook(sym, at)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := fresh.StockOrderBook(sym, at)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("query %d: StockOrderBook(%s, %s) differs from a fresh market's", i, sym, at)
			}
			limit := []int{3, 100}[rng.IntN(2)]
			gf, err := m.StockFills(sym, at, limit)
			if err != nil {
				t.Fatal(err)
			}
			wf, _ := fresh.StockFills(sym, at, limit)
			if !reflect.DeepEqual(gf, wf) {
				t.Fatalf("query %d: StockFills(%s, %s, %d) differs from a fresh market's", i, sym, at, limit)
			}
		}
	}
}

// TestBookPerStep checks when books are redrawn: a walk's book is the same
// (the very same slices) throughout one step and its TS is the step's
// start; the next step has a new book. A points path keeps one book while
// it holds and draws one per second while it interpolates.
func TestBookPerStep(t *testing.T) {
	m := newTestMarket(t)
	stepStart := utc("2026-03-10T14:00:00Z") // NVDA walks in 5 s steps from 2026-01-01
	tests := []struct {
		name     string
		symbol   string
		at, same time.Time // same: a later time within the step of at
		next     time.Time // the start of the next step
		ts       time.Time // when the book at at was drawn
	}{
		{"walk", "NVDAUSDT", stepStart.Add(time.Second), stepStart.Add(4999 * time.Millisecond), stepStart.Add(5 * time.Second), stepStart},
		{"walk at its step start", "NVDAUSDT", stepStart, stepStart.Add(3 * time.Second), stepStart.Add(5 * time.Second), stepStart},
		{"walk before the scenario start", "NVDAUSDT", utc("2025-12-31T00:00:00Z"), utc("2026-01-01T00:00:04Z"), utc("2026-01-01T00:00:05Z"), utc("2026-01-01T00:00:00Z")},
		{"points interpolating", "TSLAUSDT", stepStart.Add(200 * time.Millisecond), stepStart.Add(200 * time.Millisecond), stepStart.Add(time.Second), stepStart},
		{"points after the last point", "TSLAUSDT", utc("2026-12-31T00:00:00Z"), utc("2027-06-01T00:00:00Z"), time.Time{}, utc("2026-12-31T00:00:00Z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b1, err := m.StockOrderBook(tt.symbol, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if b1.TS != exchange.MillisOf(tt.ts) {
				t.Fatalf("TS %s, want the step start %s (%s)", b1.TS, exchange.MillisOf(tt.ts), tt.ts)
			}
			b2, _ := m.StockOrderBook(tt.symbol, tt.same)
			if !sameSlice(b1.Bids, b2.Bids) || !sameSlice(b1.Asks, b2.Asks) || b1.TS != b2.TS {
				t.Fatalf("asked at %s and %s, within one step: not the same book", tt.at, tt.same)
			}
			bids, asks := m.Book(tt.symbol, tt.same, 7)
			if len(bids) != 7 || &bids[0] != &b1.Bids[0] || &asks[0] != &b1.Asks[0] || cap(bids) != 7 {
				t.Fatalf("Book of 7 levels is not the top of the shared book (len %d cap %d)", len(bids), cap(bids))
			}
			if tt.next.IsZero() {
				return
			}
			b3, _ := m.StockOrderBook(tt.symbol, tt.next)
			if sameSlice(b1.Asks, b3.Asks) || reflect.DeepEqual(b1.Asks, b3.Asks) {
				t.Fatalf("the book at %s, the next step, is the book of %s", tt.next, tt.at)
			}
			if b3.TS != exchange.MillisOf(tt.next) {
				t.Fatalf("next step's TS %s, want %s", b3.TS, exchange.MillisOf(tt.next))
			}
		})
	}
}

// TestBookFollowsPriceWithinASecond checks a points path steep enough to
// move within a second: the price, and the book's prices, follow it,
// although the book's sizes are drawn once a second.
func TestBookFollowsPriceWithinASecond(t *testing.T) {
	opts := Options{Start: utc("2026-03-10T00:00:00Z"), Paths: map[string]PathSpec{"STEEP": {Points: []Point{
		{At: utc("2026-03-10T00:00:00Z"), Price: dec("50")},
		{At: utc("2026-03-10T00:00:10Z"), Price: dec("60")}, // a cent every 10 ms
	}}}}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	at := utc("2026-03-10T00:00:03Z")
	for _, d := range []time.Duration{0, 100 * time.Millisecond, 100 * time.Millisecond, 900 * time.Millisecond, 1200 * time.Millisecond} {
		at := at.Add(d)
		fresh, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m.PriceAt("STEEP", at)
		want, _ := fresh.PriceAt("STEEP", at)
		if !got.Equal(want) {
			t.Fatalf("PriceAt(%s) = %s, fresh %s", at, got, want)
		}
		gb, ga := m.Book("STEEP", at, MaxLevels)
		wb, wa := fresh.Book("STEEP", at, MaxLevels)
		if !reflect.DeepEqual(gb, wb) || !reflect.DeepEqual(ga, wa) {
			t.Fatalf("Book at %s differs from a fresh market's", at)
		}
	}
}

// TestBookAppendDoesNotShare checks that a caller appending to a returned
// book cannot write into the shared one.
func TestBookAppendDoesNotShare(t *testing.T) {
	m := newTestMarket(t)
	at := utc("2026-03-10T14:00:00Z")
	full, _ := m.Book("NVDAUSDT", at, MaxLevels)
	want := full[5]
	top, _ := m.Book("NVDAUSDT", at, 5)
	_ = append(top, exchange.PriceLevel{"1", "1"})
	if again, _ := m.Book("NVDAUSDT", at, MaxLevels); again[5] != want {
		t.Fatalf("appending to a 5-level book changed level 5 of the shared book to %v", again[5])
	}
}

func sameSlice(p, q []exchange.PriceLevel) bool {
	return len(p) == len(q) && (len(p) == 0 || &p[0] == &q[0])
}

// TestEpoch checks Market.Epoch: equal at two times only when no path
// moved between them, and different across every step boundary.
func TestEpoch(t *testing.T) {
	// Two walks (1 s and 5 s steps) and a points path that holds, then
	// interpolates for ten seconds, then holds.
	opts := Options{
		Start: utc("2026-03-10T00:00:00Z"),
		Paths: map[string]PathSpec{
			"FAST": {RandomWalk: &WalkSpec{Start: dec("100"), Seed: 1, VolatilityBps: 5}},
			"SLOW": {RandomWalk: &WalkSpec{Start: dec("100"), Seed: 2, VolatilityBps: 5, Step: 5 * time.Second}},
			"PTS": {Points: []Point{
				{At: utc("2026-03-10T00:00:00Z"), Price: dec("50")},
				{At: utc("2026-03-10T00:01:00Z"), Price: dec("50")},
				{At: utc("2026-03-10T00:01:10Z"), Price: dec("60")},
			}},
		},
	}
	slowOnly := opts
	slowOnly.Paths = map[string]PathSpec{"SLOW": opts.Paths["SLOW"]}
	start := opts.Start
	tests := []struct {
		name   string
		opts   Options
		t1, t2 time.Time
		equal  bool
	}{
		{"same time", opts, start.Add(30 * time.Second), start.Add(30 * time.Second), true},
		{"within every step", opts, start.Add(30*time.Second + 100*time.Millisecond), start.Add(30*time.Second + 900*time.Millisecond), true},
		{"a 1 s step boundary", opts, start.Add(30 * time.Second), start.Add(31 * time.Second), false},
		{"within a 5 s step", slowOnly, start.Add(31 * time.Second), start.Add(34 * time.Second), true},
		{"a 5 s step boundary", slowOnly, start.Add(34 * time.Second), start.Add(35 * time.Second), false},
		{"before the start and in the first step", slowOnly, start.Add(-time.Hour), start.Add(4 * time.Second), true},
		{"points interpolating, within a second", opts, start.Add(65*time.Second + 100*time.Millisecond), start.Add(65*time.Second + 200*time.Millisecond), false},
		{"after the walks end", Options{Start: start, End: start.Add(time.Minute), Paths: slowOnly.Paths}, start.Add(2 * time.Minute), start.Add(3 * time.Hour), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			e1, e2 := m.Epoch(tt.t1), m.Epoch(tt.t2)
			if (e1 == e2) != tt.equal {
				t.Fatalf("Epoch(%s) = %d, Epoch(%s) = %d: equal = %v, want %v", tt.t1, e1, tt.t2, e2, e1 == e2, tt.equal)
			}
			if e1 > tt.t1.UnixNano() || e2 > tt.t2.UnixNano() {
				t.Fatalf("an epoch after its time: %d at %s, %d at %s", e1, tt.t1, e2, tt.t2)
			}
		})
	}
	// The property over a run of times: equal epochs, equal prices.
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	prev := start
	for range 2000 {
		at := prev.Add(time.Duration(rng.Int64N(int64(3 * time.Second))))
		if m.Epoch(at) == m.Epoch(prev) {
			for sym := range opts.Paths {
				p1, _ := m.PriceAt(sym, prev)
				p2, _ := m.PriceAt(sym, at)
				if !p1.Equal(p2) {
					t.Fatalf("epoch equal at %s and %s but %s moved from %s to %s", prev, at, sym, p1, p2)
				}
			}
		}
		prev = at
	}
}

// sparseOptions are the test market with one pair, SPARSE, that trades
// at every hour but is closed from March 2, 2026 until reopen (Eastern),
// for five minutes on April 15 apart.
func sparseOptions(reopen string) Options {
	opts := testOptions()
	opts.StockPairs = []StockPairSpec{{Symbol: "SPARSE", Code: "SPR", PricePath: "NVDA", TradingPeriod: allPeriods, WeekendTradable: true}}
	opts.Calendar = CalendarSpec{RegularClosed: []string{}, Closures: []ClosureSpec{
		{Remark: "long", Start: "2026-03-02 00:00", End: "2026-04-15 00:00"},
		{Remark: "long", Start: "2026-04-15 00:05", End: reopen},
	}}
	return opts
}

// TestStockFillsMemoWindow checks the memo of stock fills where the
// three-month window decides: a sparse pair whose answer loses fills as
// the window's start passes them, and month arithmetic that moves the
// window's start back (May 31 - 3 months = March 3, June 1 - 3 months =
// March 1).
func TestStockFillsMemoWindow(t *testing.T) {
	t.Parallel()
	// Closed from March 2 to August, but for five minutes on April 15.
	opts := sparseOptions("2026-08-01 00:00")
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{
		"2026-05-31T12:00:00Z", "2026-05-31T18:00:00Z", // window from March 3: the five minutes of April 15 only
		"2026-06-01T12:00:00Z",                         // window from March 1: March 1 comes back
		"2026-07-14T12:00:00Z", "2026-07-15T04:02:00Z", // the window's start passes the April fills
		"2026-07-15T04:03:30Z", "2026-07-15T04:06:00Z",
	} {
		for _, limit := range []int{5, 100} {
			got, err := m.StockFills("SPARSE", utc(at), limit)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := fresh.StockFills("SPARSE", utc(at), limit)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("StockFills at %s limit %d: memoised %d fills, fresh %d", at, limit, len(got), len(want))
			}
		}
	}
}

// TestMemoConcurrent asks one market from several goroutines at once (as
// the HTTP server does) and checks every answer against a fresh market's;
// run with -race it also checks the memos' synchronisation.
func TestMemoConcurrent(t *testing.T) {
	opts := testOptions()
	opts.Start = utc("2026-03-10T14:00:00Z")
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	times := make([]time.Time, 40)
	for i := range times {
		times[i] = opts.Start.Add(time.Duration(i) * 1700 * time.Millisecond)
	}
	type answer struct {
		asks  []exchange.PriceLevel
		fills []exchange.StockFill
	}
	want := make([]answer, len(times))
	fresh, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range times {
		_, want[i].asks = fresh.Book("NVDAUSDT", at, MaxLevels)
		want[i].fills, _ = fresh.StockFills("NVDAUSDT", at, 10)
	}
	errs := make(chan string, 4)
	for g := range 4 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 300 {
				i := rng.IntN(len(times))
				_, asks := m.Book("NVDAUSDT", times[i], MaxLevels)
				fills, _ := m.StockFills("NVDAUSDT", times[i], 10)
				if !reflect.DeepEqual(asks, want[i].asks) || !reflect.DeepEqual(fills, want[i].fills) {
					errs <- "answer at " + times[i].String() + " differs from a fresh market's"
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}
