package exchange

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
)

var limiterStart = time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)

const (
	testPoll  Op = "test-poll"
	testOrder Op = "test-order"
	testSlow  Op = "test-slow"
)

// testLimiter returns a limiter on a virtual clock with three operations: a
// poll of 10/s, a mutating order of 10/s and a slow poll of 1/s.
func testLimiter(t *testing.T, ipPerMinute int) (*Limiter, *clock.Virtual) {
	t.Helper()
	v := clock.NewVirtual(limiterStart)
	l := NewLimiter(LimiterOptions{
		Clock: v,
		Ops: []OpInfo{
			{Op: testPoll, Rate: 10, Per: time.Second, Scope: PerUID},
			{Op: testOrder, Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true},
			{Op: testSlow, Rate: 1, Per: time.Second, Scope: PerIP},
		},
		IPPerMinute: ipPerMinute,
	})
	return l, v
}

// bound is a safety net so that a broken limiter fails the test instead of
// hanging it; no test relies on it for ordering.
func bound(t *testing.T) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	timer := time.AfterFunc(10*time.Second, func() { close(done) })
	t.Cleanup(func() { timer.Stop() })
	return done
}

func waitAsync(ctx context.Context, l *Limiter, op Op) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- l.Wait(ctx, op) }()
	return ch
}

func mustWaiters(t *testing.T, v *clock.Virtual, n int) {
	t.Helper()
	if !v.WaitForWaiters(n, bound(t)) {
		t.Fatalf("never reached %d clock waiters (have %d)", n, v.Waiters())
	}
}

func mustDone(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-bound(t):
		t.Fatal("Wait did not return")
		return nil
	}
}

func notDone(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned early (err %v)", what, err)
	default:
	}
}

// TestLimiterAtMostTheRateInAnyWindow: after an idle spell the whole
// rate goes at once; then no call goes until the oldest of the last ten is
// a second old, so no window of a second, wherever it starts, holds more
// than ten (a token bucket would let 19 through in the first second).
func TestLimiterAtMostTheRateInAnyWindow(t *testing.T) {
	ctx := context.Background()
	l, v := testLimiter(t, 0)
	var granted []time.Time
	for i := range 10 {
		if err := l.Wait(ctx, testPoll); err != nil {
			t.Fatalf("burst call %d: %v", i, err)
		}
		granted = append(granted, v.Now())
	}
	if v.Waiters() != 0 {
		t.Fatalf("the burst waited on the clock")
	}
	// Half a second later, the 11th call waits for the other half: a token
	// bucket would have refilled five tokens by then.
	v.Advance(500 * time.Millisecond)
	ch := waitAsync(ctx, l, testPoll)
	mustWaiters(t, v, 1)
	v.Advance(499 * time.Millisecond)
	notDone(t, ch, "the 11th call within the first second")
	v.Advance(time.Millisecond)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
	granted = append(granted, v.Now())
	// Then nine more at once (the burst's grants are a second old), and the
	// next when the 11th is.
	for range 9 {
		if err := l.Wait(ctx, testPoll); err != nil || v.Waiters() != 0 {
			t.Fatalf("a call a second after the burst waited (%v)", err)
		}
		granted = append(granted, v.Now())
	}
	ch = waitAsync(ctx, l, testPoll)
	mustWaiters(t, v, 1)
	v.Advance(time.Second)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
	granted = append(granted, v.Now())
	for i := range granted {
		in := 0
		for _, g := range granted {
			if !g.Before(granted[i]) && g.Before(granted[i].Add(time.Second)) {
				in++
			}
		}
		if in > 10 {
			t.Fatalf("%d calls in the second from %s, want at most 10", in, granted[i].Sub(limiterStart))
		}
	}
	// Idle for a while: the whole rate is back, but not more.
	v.Advance(10 * time.Second)
	for i := range 10 {
		if err := l.Wait(ctx, testPoll); err != nil {
			t.Fatal(err)
		}
		if v.Waiters() != 0 {
			t.Fatalf("refilled burst call %d waited", i)
		}
	}
	ch = waitAsync(ctx, l, testPoll)
	mustWaiters(t, v, 1)
	v.Advance(time.Second - time.Millisecond)
	notDone(t, ch, "the 11th call within the second")
	v.Advance(time.Millisecond)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterHeadroom(t *testing.T) {
	cases := []struct {
		headroom  float64
		op        Op
		perSecond float64
		burst     int
	}{
		{0, OpPlaceOrder, 10, 10},
		{1, OpPlaceOrder, 10, 10},
		{1.5, OpPlaceOrder, 10, 10}, // never above the published rate
		{0.8, OpPlaceOrder, 8, 10},  // 10 in any 1.25 s
		{0.8, OpClosePositions, 0.8, 1},
		{0.5, OpStrategyOrders, 10, 20},
		{0.29, OpStockInfo, 0.29, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s@%v", c.op, c.headroom), func(t *testing.T) {
			l := NewLimiter(LimiterOptions{Headroom: c.headroom})
			for _, b := range l.Budget() {
				if b.Op != c.op {
					continue
				}
				if d := b.PerSecond - c.perSecond; d > 1e-6 || d < -1e-6 {
					t.Errorf("PerSecond = %v, want %v", b.PerSecond, c.perSecond)
				}
				if b.Burst != c.burst {
					t.Errorf("Burst = %d, want %d", b.Burst, c.burst)
				}
				return
			}
			t.Fatalf("%s missing from Budget", c.op)
		})
	}
}

func TestLimiterBudgetCoversEveryOp(t *testing.T) {
	b := NewLimiter(LimiterOptions{}).Budget()
	ops := Ops()
	if len(b) != len(ops) {
		t.Fatalf("Budget has %d ops, table has %d", len(b), len(ops))
	}
	for i, o := range ops {
		if b[i].Op != o.Op || b[i].Scope != o.Scope || b[i].Rate != o.Rate || b[i].Per != o.Per {
			t.Errorf("Budget[%d] = %+v, want op %s %d per %s (%s)", i, b[i], o.Op, o.Rate, o.Per, o.Scope)
		}
	}
}

func TestLimiterHighGoesFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		ctx  context.Context
		op   Op
	}{
		{"WithPriority", WithPriority(context.Background(), PriorityHigh), testSlow},
		{"mutating op", context.Background(), testOrder},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The mutating case shares only the IP bucket (1/s) with the poll.
			l, v := testLimiter(t, 60)
			lowOp := testSlow
			if c.op == testOrder {
				lowOp = testPoll
			}
			if err := l.Wait(context.Background(), lowOp); err != nil {
				t.Fatal(err)
			}
			low := waitAsync(WithPriority(context.Background(), PriorityLow), l, lowOp)
			mustWaiters(t, v, 1)
			high := waitAsync(c.ctx, l, c.op)
			mustWaiters(t, v, 2)
			v.Advance(time.Second) // one token: both wake, the high one must get it
			if err := mustDone(t, high); err != nil {
				t.Fatal(err)
			}
			mustWaiters(t, v, 1) // the low waiter waits for the next token
			notDone(t, low, "low-priority waiter")
			v.Advance(time.Second)
			if err := mustDone(t, low); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLimiterHighOnOtherBucketDoesNotBlock(t *testing.T) {
	// A high waiter held back by its own operation's bucket leaves the
	// shared IP bucket to others.
	ctx := context.Background()
	l, v := testLimiter(t, 0)
	if err := l.Wait(ctx, testSlow); err != nil {
		t.Fatal(err)
	}
	high := waitAsync(WithPriority(ctx, PriorityHigh), l, testSlow)
	mustWaiters(t, v, 1)
	if err := mustDone(t, waitAsync(ctx, l, testPoll)); err != nil {
		t.Fatal(err)
	}
	v.Advance(time.Second)
	if err := mustDone(t, high); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterCancel(t *testing.T) {
	l, v := testLimiter(t, 0)
	if err := l.Wait(context.Background(), testSlow); err != nil {
		t.Fatal(err)
	}
	low := waitAsync(context.Background(), l, testSlow)
	mustWaiters(t, v, 1)
	ctx, cancel := context.WithCancel(WithPriority(context.Background(), PriorityHigh))
	high := waitAsync(ctx, l, testSlow)
	mustWaiters(t, v, 2)
	cancel()
	err := mustDone(t, high)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Wait = %v, want context.Canceled", err)
	}
	// The cancelled high waiter no longer holds the low one back.
	v.Advance(time.Second)
	if err := mustDone(t, low); err != nil {
		t.Fatal(err)
	}

	dead, cancelDead := context.WithCancel(context.Background())
	cancelDead()
	if err := l.Wait(dead, testPoll); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a done context = %v, want context.Canceled", err)
	}
	if err := l.Wait(context.Background(), "no-such-op"); !errors.Is(err, ErrUnknownOp) {
		t.Errorf("unknown op = %v, want ErrUnknownOp", err)
	}
}

func TestLimiterDeadline(t *testing.T) {
	l, _ := testLimiter(t, 0)
	if err := l.Wait(context.Background(), testSlow); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(time.Millisecond))
	defer cancel()
	err := mustDone(t, waitAsync(ctx, l, testSlow))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want DeadlineExceeded", err)
	}
}

func TestLimiterPenalize(t *testing.T) {
	ctx := context.Background()
	l, v := testLimiter(t, 0)
	l.Penalize(testPoll, 5*time.Second)
	l.Note429(testPoll)
	l.Note429(testPoll)
	ch := waitAsync(ctx, l, testPoll)
	mustWaiters(t, v, 1)
	v.Advance(5*time.Second - time.Millisecond)
	notDone(t, ch, "penalized Wait")
	v.Advance(time.Millisecond)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
	// After a penalty the bucket refills one token per interval, no burst.
	ch = waitAsync(ctx, l, testPoll)
	mustWaiters(t, v, 1)
	v.Advance(100 * time.Millisecond)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
	// Other operations are not penalized.
	if err := l.Wait(ctx, testOrder); err != nil || v.Waiters() != 0 {
		t.Fatalf("order waited after a poll's penalty: %v", err)
	}
	st := l.Stats().Ops[testPoll]
	if st.Throttled != 2 || st.Waits != 2 {
		t.Errorf("stats = %+v, want 2 throttled, 2 waits", st)
	}
	// A shorter penalty never shortens a longer one.
	l.Penalize(testSlow, 3*time.Second)
	l.Penalize(testSlow, time.Second)
	ch = waitAsync(ctx, l, testSlow)
	mustWaiters(t, v, 1)
	v.Advance(2 * time.Second)
	mustWaiters(t, v, 1)
	notDone(t, ch, "slow after the shorter penalty")
	v.Advance(time.Second)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterIPBucketShared(t *testing.T) {
	ctx := context.Background()
	l, v := testLimiter(t, 120) // at most 2 in any second
	if err := l.Wait(ctx, testPoll); err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(ctx, testOrder); err != nil {
		t.Fatal(err)
	}
	ch := waitAsync(ctx, l, testSlow)
	mustWaiters(t, v, 1)
	v.Advance(999 * time.Millisecond)
	notDone(t, ch, "third call within the IP budget")
	v.Advance(time.Millisecond)
	if err := mustDone(t, ch); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterConcurrent(t *testing.T) {
	const n, burst, interval = 60, 10, 100 * time.Millisecond
	l, v := testLimiter(t, 0)
	var done atomic.Int64
	allDone := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if i%3 == 0 {
				ctx = WithPriority(ctx, PriorityHigh)
			}
			if err := l.Wait(ctx, testPoll); err != nil {
				t.Error(err)
			}
			if done.Add(1) == n {
				close(allDone)
			}
		}()
	}
	safety := bound(t)
	steps := 0
	for v.WaitForWaiters(1, allDone) {
		v.Advance(interval)
		steps++
		select {
		case <-safety:
			t.Fatalf("only %d of %d done after %d steps", done.Load(), n, steps)
		default:
		}
	}
	wg.Wait()
	elapsed := v.Now().Sub(limiterStart)
	// n calls at 10 a second need at least (n-burst) intervals: had the
	// limiter handed out more than the rate allows, they would have
	// finished sooner.
	if min := (n - burst) * interval; elapsed < min {
		t.Errorf("%d calls finished after %s, faster than the rate allows (%s)", n, elapsed, min)
	}
	// Goroutines that start late can find a refilled token, so only the
	// bounds are certain.
	if st := l.Stats().Ops[testPoll]; st.Waits > n || st.Waits == 0 {
		t.Errorf("Waits = %d, want 1 to %d", st.Waits, n)
	}
}

func TestPriorityFrom(t *testing.T) {
	ctx := context.Background()
	if PriorityFrom(ctx) != PriorityLow {
		t.Error("default priority is not low")
	}
	if PriorityFrom(WithPriority(ctx, PriorityHigh)) != PriorityHigh {
		t.Error("WithPriority(high) lost")
	}
	if PriorityHigh.String() != "high" || PriorityLow.String() != "low" {
		t.Error("Priority.String")
	}
}

func BenchmarkLimiterWaitFree(b *testing.B) {
	// The venue's rates (10 a second, 6,000 a minute per IP) on a clock that
	// moves 200 ms between calls: every call finds its token, with the
	// buckets as full of past grants as they are in use.
	clk := &steppingClock{now: limiterStart, step: 200 * time.Millisecond}
	l := NewLimiter(LimiterOptions{
		Clock: clk,
		Ops:   []OpInfo{{Op: testPoll, Rate: 10, Per: time.Second, Scope: PerUID}},
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Wait(ctx, testPoll); err != nil {
			b.Fatal(err)
		}
	}
}

// steppingClock moves step forward at each Now; it never waits.
type steppingClock struct {
	now  time.Time
	step time.Duration
}

func (c *steppingClock) Now() time.Time {
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *steppingClock) After(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// TestLimiterAttemptPriority checks the priority rule on the limiter's own
// decision step, where no goroutine scheduling can decide the outcome.
func TestLimiterAttemptPriority(t *testing.T) {
	l, v := testLimiter(t, 60) // IP bucket: 1/s, burst 1
	now := v.Now()
	slow, poll := l.ops[testSlow], l.ops[testPoll]
	l.mu.Lock()
	defer l.mu.Unlock()
	var low, high [2]bool

	if ok, _ := l.attempt(slow, false, &low, now); !ok {
		t.Fatal("first low call did not get the free token")
	}
	ok, wait := l.attempt(slow, true, &high, now)
	if ok || wait != time.Second || high != [2]bool{true, true} {
		t.Fatalf("high on empty buckets: ok %v wait %s queued %v; want false, 1s, queued on both", ok, wait, high)
	}
	later := now.Add(time.Second)
	if ok, wait := l.attempt(slow, false, &low, later); ok || wait != 0 {
		t.Errorf("low took the token a high waiter is queued for (ok %v, wait %s)", ok, wait)
	}
	if ok, _ := l.attempt(poll, false, &low, later); ok {
		t.Errorf("low on another op took the shared IP token a high waiter is queued for")
	}
	if low != [2]bool{} {
		t.Errorf("a low waiter was counted as queued: %v", low)
	}
	if ok, _ := l.attempt(slow, true, &high, later); !ok || high != [2]bool{} {
		t.Fatalf("high did not get the token (ok %v, queued %v)", ok, high)
	}
	if slow.b.highQueued != 0 || l.ip.highQueued != 0 {
		t.Errorf("queue counts not released: op %d ip %d", slow.b.highQueued, l.ip.highQueued)
	}

	// A high waiter held back only by its own bucket leaves the IP token to others.
	much := later.Add(time.Minute)
	if ok, _ := l.attempt(slow, true, &high, much); !ok {
		t.Fatal("high after a minute did not get a token")
	}
	if ok, _ := l.attempt(slow, true, &high, much.Add(500*time.Millisecond)); ok || high != [2]bool{true, true} {
		t.Fatalf("queued %v", high)
	}
	if ok, _ := l.attempt(slow, true, &high, much.Add(time.Second)); !ok {
		t.Fatal("high did not get the next token")
	}
	l.ip.grants, l.ip.head = nil, 0 // refill the IP bucket only
	if ok, _ := l.attempt(slow, true, &high, much.Add(1500*time.Millisecond)); ok || high != [2]bool{true, false} {
		t.Fatalf("high should be queued on its op bucket only, queued %v", high)
	}
	if ok, _ := l.attempt(poll, false, &low, much.Add(1500*time.Millisecond)); !ok {
		t.Error("low on another op was held back by a high waiter queued on a different bucket")
	}
	// The low call emptied the IP bucket for a second; the high waiter's own
	// bucket frees in half a second, so the IP bucket binds it now.
	if ok, wait := l.attempt(slow, true, &high, much.Add(1500*time.Millisecond)); ok || wait != time.Second || high != [2]bool{false, true} {
		t.Fatalf("ok %v wait %s queued %v; want false, 1s, queued on the IP bucket only", ok, wait, high)
	}
	// Both empty, the op bucket binding longer: the IP bucket is left to others.
	l.ip.grants, slow.b.grants = nil, nil
	l.ip.blockUntil(much.Add(1600 * time.Millisecond))
	slow.b.blockUntil(much.Add(1900 * time.Millisecond))
	if ok, wait := l.attempt(slow, true, &high, much.Add(1500*time.Millisecond)); ok || wait != 400*time.Millisecond || high != [2]bool{true, false} {
		t.Fatalf("ok %v wait %s queued %v; want false, 400ms, queued on the op bucket only", ok, wait, high)
	}
}
