package market

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
)

const (
	// walkBlock is the number of steps drawn from one generator. The price at
	// step i needs the sum of the shocks before it: the walk keeps that sum at
	// every block start and draws at most walkBlock-1 shocks per query.
	walkBlock = 64
	// maxWalkSteps bounds an open-ended walk (zero End); after it the price
	// holds. At a 1 s step it is more than two years.
	maxWalkSteps = 1 << 26
)

// walk is a seeded geometric random walk: log(price) moves by a normal shock
// of standard deviation VolatilityBps/10000 every Step. The shock of step j
// is a pure function of (Seed, j): block j/walkBlock has its own PCG
// generator, and the shock is draw j%walkBlock of it. So the price at t does
// not depend on which times were asked before. Sums are done in float64 in a
// fixed order; the result is the same on every run of one platform.
type walk struct {
	start    float64
	sigma    float64
	step     time.Duration
	origin   time.Time
	lastStep int64
	seed     uint64

	mu         sync.Mutex
	blockStart []float64 // sum of the shocks of all blocks before block b

	// last is the price of the last step asked about: pollers ask about the
	// same step many times, and drawing it costs up to walkBlock-1 normals.
	last atomic.Pointer[walkPrice]
}

// walkPrice is the price of step i.
type walkPrice struct {
	i     int64
	price float64
}

func newWalk(spec WalkSpec, start, end time.Time) (*walk, error) {
	if !spec.Start.IsPositive() {
		return nil, errors.New("random_walk: start must be positive")
	}
	if spec.VolatilityBps < 0 || math.IsNaN(spec.VolatilityBps) || math.IsInf(spec.VolatilityBps, 0) {
		return nil, errors.New("random_walk: volatility_bps must be a non-negative number")
	}
	if start.IsZero() {
		return nil, errors.New("random_walk: the scenario start is required")
	}
	step := spec.Step
	if step == 0 {
		step = time.Second
	}
	if step < 0 {
		return nil, errors.New("random_walk: step must be positive")
	}
	last := int64(maxWalkSteps)
	if !end.IsZero() {
		last = min(last, int64(end.Sub(start)/step))
	}
	return &walk{
		start:      spec.Start.InexactFloat64(),
		sigma:      spec.VolatilityBps / 10000,
		step:       step,
		origin:     start,
		lastStep:   last,
		seed:       uint64(spec.Seed),
		blockStart: []float64{0},
	}, nil
}

// stepAt returns the walk's step at t: step i runs from origin+i*step to
// the next; the first also covers the time before origin, the last the time
// after the scenario's end. A walk without volatility never moves: it has
// one step.
func (w *walk) stepAt(t time.Time) step {
	if w.sigma == 0 || !t.After(w.origin) {
		return step{}
	}
	i := min(int64(t.Sub(w.origin)/w.step), w.lastStep)
	if i == 0 {
		return step{}
	}
	// i*step <= t-origin, so the product does not overflow.
	return step{seg: i, start: w.origin.Add(time.Duration(i) * w.step)}
}

func (w *walk) ticks(_ time.Time, st step, tick decimal.Decimal) int64 {
	return decimal.NewFromFloat(w.priceAt(st.seg)).DivRound(tick, 0).IntPart()
}

// priceAt is the price at step i, before rounding to a tick.
func (w *walk) priceAt(i int64) float64 {
	if w.sigma == 0 {
		return w.start
	}
	if last := w.last.Load(); last != nil && last.i == i {
		return last.price
	}
	b, k := i/walkBlock, int(i%walkBlock)
	sum := w.sumBefore(b)
	r := w.block(b)
	for range k {
		sum += r.NormFloat64()
	}
	p := w.start * math.Exp(w.sigma*sum)
	w.last.Store(&walkPrice{i: i, price: p})
	return p
}

// sumBefore returns the sum of the shocks of blocks 0..b-1, extending the
// cache as far as needed.
func (w *walk) sumBefore(b int64) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	for int64(len(w.blockStart)) <= b {
		n := int64(len(w.blockStart)) - 1
		sum := w.blockStart[n]
		r := w.block(n)
		for range walkBlock {
			sum += r.NormFloat64()
		}
		w.blockStart = append(w.blockStart, sum)
	}
	return w.blockStart[b]
}

// block returns the generator of block b's shocks.
func (w *walk) block(b int64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(w.seed), splitmix(uint64(b)^0x9e3779b97f4a7c15)))
}

// splitmix is the SplitMix64 finaliser: a fixed bijective mix of 64 bits,
// used to decorrelate neighbouring seeds and as the hash of books and fills.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
