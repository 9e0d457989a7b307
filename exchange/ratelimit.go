package exchange

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tickrules/tickrules/clock"
)

// This file holds the client-side rate limiter: one bucket per operation
// from the operation table, plus the overall per-IP bucket that every
// operation shares. One client is one uid and one IP, so a bucket per
// operation covers both scopes; the scope is kept for reporting.
//
// Each bucket is a sliding-window log: it keeps the times of its last
// limit grants and gives another only when the oldest of them is a whole
// window old. So no window of that length, wherever it starts, ever holds
// more than limit requests: the venue's "10 per second" holds whether it
// counts fixed or sliding seconds. (A token bucket with a burst of the
// rate lets 2N-1 through in the first second after an idle spell.)

// ErrUnknownOp is returned by Limiter.Wait for an operation the limiter has
// no limit for.
var ErrUnknownOp = errors.New("unknown operation")

// Priority orders waiters for the same tokens: orders before polls.
type Priority int

// Priorities. The zero value is PriorityLow, so an unmarked poll never jumps
// ahead of an order.
const (
	PriorityLow Priority = iota
	PriorityHigh
)

// String returns "low" or "high".
func (p Priority) String() string {
	if p == PriorityHigh {
		return "high"
	}
	return "low"
}

type priorityKey struct{}

// WithPriority returns a context whose rate-limited calls wait with priority p.
// Mutating operations are always high, whatever the context says.
func WithPriority(ctx context.Context, p Priority) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

// PriorityFrom returns the priority set by WithPriority, PriorityLow by default.
func PriorityFrom(ctx context.Context) Priority {
	p, _ := ctx.Value(priorityKey{}).(Priority)
	return p
}

// LimiterOptions configures NewLimiter. The zero value uses the published
// limits of every operation on the real clock.
type LimiterOptions struct {
	// Clock is the time source; tests and backtests pass a *clock.Virtual.
	// Default clock.Real{}.
	Clock Clock
	// Ops are the operations and their limits. Default Ops().
	Ops []OpInfo
	// Headroom is the fraction of each published rate to use, in (0, 1]:
	// 0.8 uses 80%. Zero means 1.0; values above 1 are treated as 1, because
	// a 429 is a bug, not a strategy.
	Headroom float64
	// IPPerMinute is the overall per-IP limit. Default IPLimitPerMinute.
	IPPerMinute int
}

// OpBudget is the rate one operation may use, for reporting ("stock-orderbook:
// 3 pairs at 1/s = 3 of 10 req/s").
type OpBudget struct {
	Op    Op
	Scope Scope
	// Rate requests per Per are published; PerSecond is what the limiter
	// allows after headroom.
	Rate      int
	Per       time.Duration
	PerSecond float64
	// Burst is how many requests may go at once after an idle period, and
	// at most in any window of Burst/PerSecond seconds.
	Burst int
}

// OpStats counts one operation's traffic through the limiter.
type OpStats struct {
	// Waits counts calls that had to wait for a token; WaitTime is their
	// total time waiting (clock time).
	Waits    int64
	WaitTime time.Duration
	// Throttled counts 429 responses reported with Note429.
	Throttled int64
}

// LimiterStats is a snapshot of every operation's counters.
type LimiterStats struct {
	Ops map[Op]OpStats
}

// bucket is one sliding-window log: at most limit grants in any window.
type bucket struct {
	limit  int
	window time.Duration
	// grants are the times of the last grants, at most limit, oldest at
	// head (a ring once full).
	grants []time.Time
	head   int
	// highQueued counts high-priority waiters for which this bucket had no
	// token at their last attempt; while it is non-zero, low-priority
	// waiters leave this bucket's tokens alone.
	highQueued int
}

// newBucket returns a bucket for a published limit of rate requests per
// per, used at the share headroom (in (0, 1]). It gives the whole part of
// the rate at once and stretches the window to keep the share: 10 per
// second at 0.8 is 10 in any 1.25 s. The stretch, not fewer requests per
// window, is what leaves room for requests that reach the venue closer
// together than they left. A rate under one is one request per per/rate.
func newBucket(rate float64, per time.Duration, headroom float64) bucket {
	limit := max(1, int(math.Floor(rate+1e-9)))
	window := max(1, time.Duration(float64(per)*float64(limit)/(rate*headroom)))
	return bucket{limit: limit, window: window}
}

// interval is the average time between grants at the full rate.
func (b *bucket) interval() time.Duration { return b.window / time.Duration(b.limit) }

// oldest returns the k-th oldest of the last limit grants (zero when fewer
// were made).
func (b *bucket) oldest(k int) time.Time {
	if len(b.grants) < b.limit {
		if k < b.limit-len(b.grants) {
			return time.Time{}
		}
		return b.grants[k-(b.limit-len(b.grants))]
	}
	return b.grants[(b.head+k)%b.limit]
}

// wait returns how long until the bucket has a token at now: until the
// oldest of its last limit grants is a window old.
func (b *bucket) wait(now time.Time) time.Duration {
	if len(b.grants) < b.limit {
		return 0
	}
	return max(0, b.grants[b.head].Add(b.window).Sub(now))
}

// take records a grant at now.
func (b *bucket) take(now time.Time) {
	if len(b.grants) < b.limit {
		b.grants = append(b.grants, now)
		return
	}
	b.grants[b.head] = now
	b.head = (b.head + 1) % b.limit
}

// blockUntil makes the bucket give its next token no sooner than t and the
// ones after it one interval apart (no burst): as if its last limit grants
// had been made an interval apart, the newest an interval before t. A
// grant already later is kept, so a block never shortens another.
func (b *bucket) blockUntil(t time.Time) {
	out := make([]time.Time, b.limit)
	step := b.interval()
	for k := range out {
		blocked := t.Add(-b.window).Add(time.Duration(k) * step)
		out[k] = b.oldest(k)
		if blocked.After(out[k]) {
			out[k] = blocked
		}
	}
	b.grants, b.head = out, 0
}

// opLimit is the state of one operation.
type opLimit struct {
	info  OpInfo
	b     bucket
	stats OpStats
}

// Limiter is a rate limiter shared by every caller of one client. It is safe
// for concurrent use.
type Limiter struct {
	clock Clock

	mu  sync.Mutex
	ops map[Op]*opLimit
	ip  bucket
	// changed is closed and replaced whenever a high-priority waiter leaves a
	// queue, so that low-priority waiters it held back look again.
	changed chan struct{}
	order   []Op // table order, for Budget
}

// NewLimiter returns a limiter with the buckets of opts.
func NewLimiter(opts LimiterOptions) *Limiter {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Ops == nil {
		opts.Ops = Ops()
	}
	h := opts.Headroom
	if h <= 0 || h > 1 {
		h = 1
	}
	if opts.IPPerMinute <= 0 {
		opts.IPPerMinute = IPLimitPerMinute
	}
	l := &Limiter{
		clock:   opts.Clock,
		ops:     make(map[Op]*opLimit, len(opts.Ops)),
		changed: make(chan struct{}),
	}
	for _, o := range opts.Ops {
		if o.Rate <= 0 || o.Per <= 0 {
			continue // no published limit: Wait reports ErrUnknownOp
		}
		l.ops[o.Op] = &opLimit{info: o, b: newBucket(float64(o.Rate), o.Per, h)}
		l.order = append(l.order, o.Op)
	}
	// The per-minute IP limit is spread over the minute, at most one
	// second's worth in any second: a burst of the whole minute would let a
	// restart loop spend the minute in a moment.
	l.ip = newBucket(float64(opts.IPPerMinute)/60, time.Second, h)
	return l
}

// attempt takes a token for ol at now if it can. Otherwise it returns how
// long to wait (0 when only a higher-priority waiter holds it back) and
// registers a high-priority waiter as queued at the bucket that binds it, the
// one with the longer wait (both on a tie). A high waiter held back by its
// own slow bucket thus does not hold the shared IP bucket, which refills long
// before it could use a token of it. l.mu is held.
func (l *Limiter) attempt(ol *opLimit, high bool, queued *[2]bool, now time.Time) (ok bool, wait time.Duration) {
	wOp, wIP := ol.b.wait(now), l.ip.wait(now)
	if high {
		l.setQueued(&ol.b, &queued[0], wOp > 0 && wOp >= wIP)
		l.setQueued(&l.ip, &queued[1], wIP > 0 && wIP >= wOp)
		if wOp == 0 && wIP == 0 {
			ol.b.take(now)
			l.ip.take(now)
			return true, 0
		}
		return false, max(wOp, wIP)
	}
	if ol.b.highQueued > 0 || l.ip.highQueued > 0 {
		return false, 0
	}
	if wOp == 0 && wIP == 0 {
		ol.b.take(now)
		l.ip.take(now)
		return true, 0
	}
	return false, max(wOp, wIP)
}

// setQueued keeps b.highQueued in step with one waiter's flag and wakes the
// low-priority waiters when a high-priority waiter leaves.
func (l *Limiter) setQueued(b *bucket, flag *bool, want bool) {
	if *flag == want {
		return
	}
	*flag = want
	if want {
		b.highQueued++
		return
	}
	b.highQueued--
	if b.highQueued == 0 {
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

// Wait blocks until op may be sent, or ctx is done. Mutating operations and
// calls under WithPriority(ctx, PriorityHigh) go before low-priority ones
// waiting for the same bucket. With a free token it does not allocate.
func (l *Limiter) Wait(ctx context.Context, op Op) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rate limit %s: %w", op, err)
	}
	l.mu.Lock()
	ol, found := l.ops[op]
	if !found {
		l.mu.Unlock()
		return fmt.Errorf("rate limit %s: %w", op, ErrUnknownOp)
	}
	high := ol.info.Mutating || PriorityFrom(ctx) == PriorityHigh
	start := l.clock.Now()
	var queued [2]bool // this waiter counted in ol.b / l.ip highQueued
	ok, wait := l.attempt(ol, high, &queued, start)
	if ok {
		l.mu.Unlock()
		return nil
	}
	for {
		changed := l.changed
		l.mu.Unlock()

		// A waiter held back by time waits for the clock; one held back only
		// by a high-priority waiter waits for that waiter to leave. Never
		// both, so that no clock timer is left behind on a normal wake-up.
		var timer <-chan time.Time
		if wait > 0 {
			timer, changed = l.clock.After(wait), nil
		}
		select {
		case <-ctx.Done():
			l.mu.Lock()
			l.setQueued(&ol.b, &queued[0], false)
			l.setQueued(&l.ip, &queued[1], false)
			l.record(ol, start)
			l.mu.Unlock()
			return fmt.Errorf("rate limit %s: %w", op, ctx.Err())
		case <-timer:
		case <-changed:
		}

		l.mu.Lock()
		ok, wait = l.attempt(ol, high, &queued, l.clock.Now())
		if ok {
			l.record(ol, start)
			l.mu.Unlock()
			return nil
		}
	}
}

// record counts one wait that began at start. l.mu is held.
func (l *Limiter) record(ol *opLimit, start time.Time) {
	ol.stats.Waits++
	ol.stats.WaitTime += l.clock.Now().Sub(start)
}

// Penalize stops op for d from now: after a 429 the server has told us the
// budget is spent, whatever our count says. The bucket then gives one token
// per interval, without a burst. A shorter penalty never shortens a longer
// one.
func (l *Limiter) Penalize(op Op, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ol, ok := l.ops[op]
	if !ok {
		return
	}
	ol.b.blockUntil(l.clock.Now().Add(d))
}

// Note429 counts a 429 answer for op.
func (l *Limiter) Note429(op Op) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ol, ok := l.ops[op]; ok {
		ol.stats.Throttled++
	}
}

// Stats returns a snapshot of every operation's counters.
func (l *Limiter) Stats() LimiterStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := LimiterStats{Ops: make(map[Op]OpStats, len(l.ops))}
	for op, ol := range l.ops {
		s.Ops[op] = ol.stats
	}
	return s
}

// Budget returns the rate every operation may use, in the operation table's order.
func (l *Limiter) Budget() []OpBudget {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]OpBudget, 0, len(l.order))
	for _, op := range l.order {
		ol := l.ops[op]
		out = append(out, OpBudget{
			Op: op, Scope: ol.info.Scope, Rate: ol.info.Rate, Per: ol.info.Per,
			PerSecond: float64(ol.b.limit) * float64(time.Second) / float64(ol.b.window),
			Burst:     ol.b.limit,
		})
	}
	return out
}
