package market

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestEpochSpan checks the promise callers cache on: asked at increasing
// times, an epoch and its span taken at one time give, at every later time
// before until, the epoch a fresh Epoch gives and the same prices; the
// epoch is the same just before until and differs at until (the span is
// not cut short); until is after the time asked. It runs over walks of
// several steps, points that hold and interpolate, a CSV path, and times
// before the start and after the end.
func TestEpochSpan(t *testing.T) {
	start := utc("2026-01-01T00:00:00Z")
	walk := func(seed int64, step time.Duration) PathSpec {
		return PathSpec{RandomWalk: &WalkSpec{Start: dec("100"), Seed: seed, VolatilityBps: 20, Step: step}}
	}
	points := PathSpec{Points: []Point{
		{At: start.Add(30 * time.Second), Price: dec("50")},
		{At: start.Add(90 * time.Second), Price: dec("50")},                          // held
		{At: start.Add(100*time.Second + 500*time.Millisecond), Price: dec("60")},    // interpolating, ends mid-second
		{At: start.Add(100*time.Second + 700*time.Millisecond), Price: dec("60.05")}, // a segment shorter than a second
		{At: start.Add(150 * time.Second), Price: dec("60.05")},                      // held, then the last point
	}}
	end := start.Add(200 * time.Second)
	tests := []struct {
		name       string
		opts       Options
		from, to   time.Time
		wantMisses int // at least; a path that moves must make the cache miss
	}{
		{"walk 1s", Options{Start: start, End: end, Paths: map[string]PathSpec{"W": walk(1, time.Second)}}, start.Add(-time.Minute), end.Add(time.Minute), 150},
		{"walk 7s and 10s", Options{Start: start, End: end, Paths: map[string]PathSpec{"A": walk(2, 7*time.Second), "B": walk(3, 10*time.Second)}}, start.Add(-time.Minute), end.Add(time.Minute), 40},
		{"points", Options{Start: start, End: end, Paths: map[string]PathSpec{"P": points}}, start.Add(-time.Minute), end.Add(time.Minute), 8},
		{"points and walk", Options{Start: start, End: end, Paths: map[string]PathSpec{"P": points, "W": walk(4, 3*time.Second)}}, start.Add(-time.Minute), end.Add(time.Minute), 60},
		{"csv", Options{Start: utc("2026-01-01T00:00:00Z"), BaseDir: "testdata", Paths: map[string]PathSpec{"C": {CSV: "path.csv"}}}, utc("2025-12-31T23:59:00Z"), utc("2026-01-01T00:04:00Z"), 100},
		{"open-ended walk", Options{Start: start, Paths: map[string]PathSpec{"W": walk(5, 2*time.Second)}}, start, start.Add(5 * time.Minute), 100},
		{"walk longer than its scenario", Options{Start: start, End: start.Add(time.Second), Paths: map[string]PathSpec{"W": walk(6, time.Minute)}}, start.Add(-time.Minute), start.Add(5 * time.Minute), 0},
		{"no volatility", Options{Start: start, End: end, Paths: map[string]PathSpec{"W": {RandomWalk: &WalkSpec{Start: dec("5"), Seed: 1}}}}, start.Add(-time.Minute), end.Add(time.Minute), 0},
		{"no paths", Options{Start: start, End: end}, start, end, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(len(tt.name)), 11))
			var (
				cached       bool
				epoch        int64
				since, until time.Time
				hits, misses int
			)
			for at := tt.from; !at.After(tt.to); {
				if cached && !at.Before(since) && (until.IsZero() || at.Before(until)) {
					hits++
					if fresh := m.Epoch(at); fresh != epoch {
						t.Fatalf("at %s: the epoch %d from %s (until %s) is cached, Epoch gives %d", at, epoch, since, until, fresh)
					}
					for sym := range tt.opts.Paths {
						p0, _ := m.PriceAt(sym, since)
						p1, _ := m.PriceAt(sym, at)
						if !p0.Equal(p1) {
							t.Fatalf("%s moved from %s at %s to %s at %s, within the span until %s", sym, p0, since, p1, at, until)
						}
					}
				} else {
					misses++
					epoch, until = m.EpochSpan(at)
					since, cached = at, true
					checkSpan(t, m, at, epoch, until)
				}
				// Whole seconds hit step boundaries exactly; fractions fall
				// anywhere in between.
				if rng.IntN(2) == 0 {
					at = at.Add(time.Duration(rng.IntN(3)) * time.Second)
				} else {
					at = at.Add(time.Duration(rng.Int64N(int64(1500 * time.Millisecond))))
				}
			}
			if misses < tt.wantMisses {
				t.Errorf("%d misses, want at least %d: the span is not cut at the paths' steps", misses, tt.wantMisses)
			}
			if tt.wantMisses > 0 && hits == 0 {
				t.Errorf("no cache hits in %d asks", misses)
			}
		})
	}
}

// checkSpan checks one EpochSpan answer at t.
func checkSpan(t *testing.T, m *Market, at time.Time, epoch int64, until time.Time) {
	t.Helper()
	if fresh := m.Epoch(at); fresh != epoch {
		t.Fatalf("EpochSpan(%s) = %d, Epoch = %d", at, epoch, fresh)
	}
	if epoch > at.UnixNano() {
		t.Fatalf("EpochSpan(%s) = %d, after the time", at, epoch)
	}
	if until.IsZero() {
		// Nothing moves again: far later, the epoch is the same.
		if later := m.Epoch(at.Add(24 * 365 * time.Hour)); later != epoch {
			t.Fatalf("EpochSpan(%s) holds forever, but a year on Epoch is %d, not %d", at, later, epoch)
		}
		return
	}
	if !until.After(at) {
		t.Fatalf("EpochSpan(%s): until %s is not after the time", at, until)
	}
	if last := m.Epoch(until.Add(-time.Nanosecond)); last != epoch {
		t.Fatalf("EpochSpan(%s) = %d until %s, but Epoch just before until is %d", at, epoch, until, last)
	}
	if next := m.Epoch(until); next == epoch {
		t.Fatalf("EpochSpan(%s) = %d until %s, but the epoch is still %d there: the span is cut short", at, epoch, until, next)
	}
}

// TestWalkStepStartOverflow: a step start beyond what a Duration from the
// origin can say is "never", not a wrapped time.
func TestWalkStepStartOverflow(t *testing.T) {
	w, err := newWalk(WalkSpec{Start: dec("1"), VolatilityBps: 1, Step: time.Hour}, utc("2026-01-01T00:00:00Z"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.stepStart(math.MaxInt64/int64(time.Hour) + 1); !got.IsZero() {
		t.Fatalf("stepStart past the Duration range = %s, want the zero time", got)
	}
	if got, want := w.stepStart(3), utc("2026-01-01T03:00:00Z"); !got.Equal(want) {
		t.Fatalf("stepStart(3) = %s, want %s", got, want)
	}
}
