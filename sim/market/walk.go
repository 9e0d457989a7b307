package market

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/internal/decimals"
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
	// cur is where the last draw stopped: walks are asked about step after
	// step, so the next step's price is one more shock, not a block's
	// generator drawn again from its start.
	cur walkCursor
	// last is the price of the last step asked about: several instruments
	// may follow one walk, and drawing a step again costs up to
	// walkBlock-1 normals. Kept under mu as a value: a step's price is
	// asked once per instrument, so a lock costs less than allocating an
	// entry for lock-free reads.
	last walkPrice
}

// walkCursor is the state of block b's generator after its first k
// shocks, whose sum, with every block before b, is sum.
type walkCursor struct {
	rng  *rand.Rand
	b    int64
	k    int
	sum  float64
	used bool
}

// walkPrice is the price of step i; ok is false until one is kept.
type walkPrice struct {
	i     int64
	price float64
	ok    bool
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
	if w.sigma == 0 {
		return step{}
	}
	i := int64(0)
	if t.After(w.origin) {
		i = min(int64(t.Sub(w.origin)/w.step), w.lastStep)
	}
	st := step{seg: i, end: w.stepStart(i + 1)}
	if i > 0 {
		// i*step <= t-origin, so the product does not overflow.
		st.start = w.origin.Add(time.Duration(i) * w.step)
	}
	return st
}

// stepStart is when step i begins; zero when it never does (past the last
// step, or beyond what a Duration from origin can say).
func (w *walk) stepStart(i int64) time.Time {
	if i > w.lastStep || i > math.MaxInt64/int64(w.step) {
		return time.Time{}
	}
	return w.origin.Add(time.Duration(i) * w.step)
}

func (w *walk) ticks(_ time.Time, st step, tick decimal.Decimal, tickF float64) int64 {
	return ticksOf(w.priceAt(st.seg), tick, tickF)
}

// ticksOf is decimal.NewFromFloat(p).DivRound(tick, 0).IntPart(): p's
// shortest decimal in ticks, rounded half away from zero; tickF is tick
// as a float. The quotient in floats is within a few parts in 10^16 of
// the decimal one (the shortest decimal is within half an ulp of p, tickF
// and the division add as much again), so it rounds the same way unless
// it lies that close to a half: then, and for quotients too large for a
// float's fraction, it is done exactly with integers when they fit (a
// walk's price has up to 17 digits, beyond the exact range of float64),
// and the decimal definition is the last resort.
func ticksOf(p float64, tick decimal.Decimal, tickF float64) int64 {
	if q := p / tickF; q > 0 && q < 1e15 {
		if f := q - math.Floor(q); math.Abs(f-0.5) > 1e-15*q {
			return int64(math.Floor(q + 0.5))
		}
	}
	if tc, te := tick.CoefficientInt64(), tick.Exponent(); tc > 0 {
		if q, ok := decimals.FromFloat(p).DivRound(decimals.New(tc, te), 0).Int64(); ok {
			return q
		}
	}
	return decimal.NewFromFloat(p).DivRound(tick, 0).IntPart()
}

// priceAt is the price at step i, before rounding to a tick.
func (w *walk) priceAt(i int64) float64 {
	if w.sigma == 0 {
		return w.start
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last.ok && w.last.i == i {
		return w.last.price
	}
	p := w.start * math.Exp(w.sigma*w.shocksBefore(i))
	w.last = walkPrice{i: i, price: p, ok: true}
	return p
}

// shocksBefore returns the sum of the shocks of steps 0..i-1: from the
// cursor when i is later in its block, else from the start of i's block.
// The shocks are added in the same order either way, so the sum is the
// same to the bit. The caller holds w.mu.
func (w *walk) shocksBefore(i int64) float64 {
	b, k := i/walkBlock, int(i%walkBlock)
	c := &w.cur
	if !c.used || c.b != b || c.k > k {
		*c = walkCursor{rng: w.block(b), b: b, sum: w.sumBefore(b), used: true}
	}
	for ; c.k < k; c.k++ {
		c.sum += c.rng.NormFloat64()
	}
	return c.sum
}

// sumBefore returns the sum of the shocks of blocks 0..b-1, extending the
// cache as far as needed. The caller holds w.mu.
func (w *walk) sumBefore(b int64) float64 {
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
