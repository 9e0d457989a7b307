package market

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func walkMarket(t testing.TB, seed int64, end time.Time) *Market {
	t.Helper()
	m, err := New(Options{
		Start: utc("2026-03-09T00:00:00Z"),
		End:   end,
		Paths: map[string]PathSpec{"W": {RandomWalk: &WalkSpec{Start: dec("100"), Seed: seed, VolatilityBps: 10}, Tick: dec("0.0001")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWalkIndependentOfQueryOrder(t *testing.T) {
	start := utc("2026-03-09T00:00:00Z")
	times := make([]time.Time, 500)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range times {
		times[i] = start.Add(time.Duration(rng.Int64N(int64(48 * time.Hour))))
	}
	// In order on one market.
	sequential := walkMarket(t, 42, time.Time{})
	want := make(map[time.Time]decimal.Decimal, len(times))
	for _, at := range times {
		want[at], _ = sequential.PriceAt("W", at)
	}
	// Shuffled on another, and each time on a fresh market.
	shuffled := walkMarket(t, 42, time.Time{})
	rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
	for i, at := range times {
		got, _ := shuffled.PriceAt("W", at)
		if !got.Equal(want[at]) {
			t.Fatalf("shuffled PriceAt(%s) = %s, in order %s", at, got, want[at])
		}
		if i%50 == 0 {
			fresh, _ := walkMarket(t, 42, time.Time{}).PriceAt("W", at)
			if !fresh.Equal(want[at]) {
				t.Fatalf("fresh PriceAt(%s) = %s, in order %s", at, fresh, want[at])
			}
		}
	}
}

// TestWalkStepByStep asks second after second, as pollers do (each price
// one more shock from where the last stopped), and backwards (each price
// drawn from its block's start): the prices agree to the bit.
func TestWalkStepByStep(t *testing.T) {
	start := utc("2026-03-09T00:00:00Z").Add(37 * time.Second)
	const n = 3*walkBlock + 5
	forward, backward := walkMarket(t, 42, time.Time{}), walkMarket(t, 42, time.Time{})
	want := make([]decimal.Decimal, n)
	for i := range n {
		want[i], _ = forward.PriceAt("W", start.Add(time.Duration(i)*time.Second))
	}
	for i := n - 1; i >= 0; i-- {
		got, _ := backward.PriceAt("W", start.Add(time.Duration(i)*time.Second))
		if !got.Equal(want[i]) {
			t.Fatalf("second %d: backwards %s, forwards %s", i, got, want[i])
		}
	}
	if want[0].Equal(want[n-1]) && want[1].Equal(want[n-2]) {
		t.Fatal("the walk did not move: the test compares nothing")
	}
}

func TestWalkSeeds(t *testing.T) {
	at := utc("2026-03-09T05:00:00Z")
	a, _ := walkMarket(t, 1, time.Time{}).PriceAt("W", at)
	b, _ := walkMarket(t, 2, time.Time{}).PriceAt("W", at)
	if a.Equal(b) {
		t.Fatalf("seeds 1 and 2 give the same price %s after five hours", a)
	}
	// A fixed point of the seed-42 walk: it changes only if the generator
	// changes, which would change every scenario's prices.
	got, _ := walkMarket(t, 42, time.Time{}).PriceAt("W", at)
	if got.String() != walkGolden {
		t.Fatalf("seed 42 after five hours = %s, want %s", got, walkGolden)
	}
}

const walkGolden = "97.3429" // recorded from this implementation; a change breaks every scenario

func TestWalkHoldsOutsideRange(t *testing.T) {
	end := utc("2026-03-09T01:00:00Z")
	m := walkMarket(t, 3, end)
	before, _ := m.PriceAt("W", utc("2026-03-01T00:00:00Z"))
	if !before.Equal(dec("100")) {
		t.Errorf("price before the start = %s, want the start price 100", before)
	}
	atEnd, _ := m.PriceAt("W", end)
	for _, later := range []time.Duration{time.Second, time.Hour, 24 * 365 * time.Hour} {
		p, _ := m.PriceAt("W", end.Add(later))
		if !p.Equal(atEnd) {
			t.Errorf("price %s after the end = %s, want the end price %s", later, p, atEnd)
		}
	}
	// The step is 1s by default: inside one step the price holds.
	a, _ := m.PriceAt("W", utc("2026-03-09T00:30:00Z"))
	b, _ := m.PriceAt("W", utc("2026-03-09T00:30:00.999Z"))
	if !a.Equal(b) {
		t.Errorf("price moved inside one step: %s then %s", a, b)
	}
}

func TestWalkVolatility(t *testing.T) {
	// Over 20,000 one-second steps the standard deviation of the log
	// returns is the configured 10 bps, within sampling error (about 0.5%).
	m := walkMarket(t, 9, time.Time{})
	start := utc("2026-03-09T00:00:00Z")
	prev, _ := m.PriceAt("W", start)
	var sum, sumSq float64
	const n = 20000
	for i := 1; i <= n; i++ {
		p, _ := m.PriceAt("W", start.Add(time.Duration(i)*time.Second))
		r := math.Log(p.InexactFloat64() / prev.InexactFloat64())
		sum += r
		sumSq += r * r
		prev = p
	}
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	if sd < 0.00095 || sd > 0.00105 {
		t.Fatalf("step standard deviation %.6f, want 0.0010 +- 5%%", sd)
	}
}

func TestWalkZeroVolatilityIsFlat(t *testing.T) {
	m, err := New(Options{Start: utc("2026-01-01T00:00:00Z"),
		Paths: map[string]PathSpec{"W": {RandomWalk: &WalkSpec{Start: dec("42.5"), Seed: 5}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"2026-01-01T00:00:00Z", "2026-01-01T10:00:00Z", "2026-02-01T00:00:00Z"} {
		if p, _ := m.PriceAt("W", utc(at)); !p.Equal(dec("42.5")) {
			t.Errorf("PriceAt(%s) = %s, want 42.5", at, p)
		}
	}
}

// TestWalkConcurrent asks one walk from many goroutines at once, far apart
// so that the block sums grow while others read them.
func TestWalkConcurrent(t *testing.T) {
	start := utc("2026-03-09T00:00:00Z")
	times := make([]time.Time, 64)
	for i := range times {
		times[i] = start.Add(time.Duration(i*i) * 97 * time.Second)
	}
	ref := walkMarket(t, 11, time.Time{})
	want := make([]decimal.Decimal, len(times))
	for i, at := range times {
		want[i], _ = ref.PriceAt("W", at)
	}
	m := walkMarket(t, 11, time.Time{})
	got := make([]decimal.Decimal, len(times))
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := len(times) - 1 - g; i >= 0; i -= 4 {
				got[i], _ = m.PriceAt("W", times[i])
			}
		}()
	}
	for range 4 {
		<-done
	}
	for i := range times {
		if !got[i].Equal(want[i]) {
			t.Fatalf("concurrent PriceAt(%s) = %s, alone %s", times[i], got[i], want[i])
		}
	}
}

// TestTicksOfMatchesDecimal: the rounding of a walk's price to its tick
// (in floats, or with integers near a half) gives what decimal gives, for
// random 17-digit prices, every kind of tick, prices exactly half way
// between two ticks and prices a float's step or two either side of that.
func TestTicksOfMatchesDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	ticks := []string{"0.0001", "0.01", "0.05", "0.1", "0.5", "1", "5", "10", "25"}
	for i := range 200000 {
		tick := decimal.RequireFromString(ticks[i%len(ticks)])
		p := r.Float64() * math.Pow10(r.IntN(7))
		if i%5 == 0 { // half way: n + 0.5 ticks, written exactly, or next to it
			half := decimal.NewFromInt(r.Int64N(1e6)).Add(decimal.New(5, -1)).Mul(tick)
			p = half.InexactFloat64()
			for range r.IntN(3) {
				p = math.Nextafter(p, []float64{0, math.Inf(1)}[r.IntN(2)])
			}
		}
		want := decimal.NewFromFloat(p).DivRound(tick, 0).IntPart()
		if got := ticksOf(p, tick, tick.InexactFloat64()); got != want {
			t.Fatalf("ticksOf(%v, %s) = %d, decimal gives %d", p, tick, got, want)
		}
	}
}
