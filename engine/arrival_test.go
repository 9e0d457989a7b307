package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// arrivingSource is a source that says when data arrived (as the live
// poller does) and records the time of every State the engine asks for:
// one per tick.
type arrivingSource struct {
	fakeSource
	arrived chan struct{}
	ticks   chan time.Time
}

func newArrivingSource() *arrivingSource {
	return &arrivingSource{arrived: make(chan struct{}, 1), ticks: make(chan time.Time, 64)}
}

func (s *arrivingSource) Arrived() <-chan struct{} { return s.arrived }

func (s *arrivingSource) State(now time.Time) (*marketdata.State, error) {
	s.ticks <- now
	return s.fakeSource.State(now)
}

// arrive signals without blocking, as the poller does.
func (s *arrivingSource) arrive() {
	select {
	case s.arrived <- struct{}{}:
	default:
	}
}

// runRig is Run on a virtual clock over an arrivingSource.
type runRig struct {
	t    *testing.T
	v    *clock.Virtual
	src  *arrivingSource
	eng  *Engine
	done chan struct{}
	stop context.CancelFunc
	got  []time.Duration // the ticks so far, since t0
}

func newRunRig(t *testing.T) *runRig {
	t.Helper()
	r := &runRig{t: t, v: clock.NewVirtual(t0), src: newArrivingSource(), done: make(chan struct{})}
	var err error
	r.eng, err = New(Options{Rules: ruleSet(t, rules.Rule{Name: "r", When: "false", Enabled: true}), Source: r.src,
		Executor: &recorder{}, Clock: r.v})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() {
		defer close(r.done)
		_ = r.eng.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-r.done })
	r.tick() // the first tick, at start
	return r
}

// tick waits for the next tick and records it.
func (r *runRig) tick() {
	r.t.Helper()
	select {
	case at := <-r.src.ticks:
		r.got = append(r.got, at.Sub(t0))
	case <-r.done:
		r.t.Fatal("Run returned")
	}
}

// waitFor waits until Run waits on n timers of the clock.
func (r *runRig) waitFor(n int) {
	r.t.Helper()
	if !r.v.WaitForWaiters(n, r.done) {
		r.t.Fatal("Run returned")
	}
}

// finish stops Run and checks that it ticked exactly want (since t0).
func (r *runRig) finish(want ...time.Duration) {
	r.t.Helper()
	r.stop()
	<-r.done
	close(r.src.ticks)
	for at := range r.src.ticks {
		r.got = append(r.got, at.Sub(t0))
	}
	if !slices.Equal(r.got, want) {
		r.t.Errorf("ticks at %v, want %v", r.got, want)
	}
}

const ms = time.Millisecond

func TestRunTicksOnArrival(t *testing.T) {
	for _, tt := range []struct {
		name string
		late bool // a second poll lands while Run gathers
	}{{"a tick once new data arrives, the timer's ticks as before", false}, {"polls landing together make one tick", true}} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunRig(t)
			r.waitFor(1) // the timer
			r.src.arrive()
			r.waitFor(2) // the timer and the wait for polls landing together
			r.v.Advance(3 * ms)
			if tt.late {
				r.src.arrive()
			}
			r.v.Advance(2 * ms)
			r.tick()
			r.v.Set(t0.Add(time.Second))
			r.tick()
			r.finish(0, 5*ms, time.Second)
		})
	}
	t.Run("the timer alone while nothing arrives", func(t *testing.T) {
		r := newRunRig(t)
		for i := 1; i <= 3; i++ {
			r.waitFor(1)
			r.v.Set(t0.Add(time.Duration(i) * time.Second))
			r.tick()
		}
		r.finish(0, time.Second, 2*time.Second, 3*time.Second)
	})
	t.Run("a tick on arrival past a grid point stands for it", func(t *testing.T) {
		r := newRunRig(t)
		r.waitFor(1)
		r.v.Set(t0.Add(998 * ms))
		r.src.arrive()
		r.waitFor(2)
		r.v.Advance(5 * ms) // past the grid point at 1s
		r.tick()
		r.waitFor(1) // the timer of the next grid point
		r.v.Set(t0.Add(2 * time.Second))
		r.tick()
		r.finish(0, 1003*ms, 2*time.Second)
		if _, _, skipped := r.eng.Stats(); skipped != 0 {
			t.Errorf("%d ticks skipped, want none", skipped)
		}
	})
}

// TestGatherTakesTheSignalsOfItsWait: the arrivals that land while Run
// waits for the polls landing together are taken with it, so they make no
// tick of their own.
func TestGatherTakesTheSignalsOfItsWait(t *testing.T) {
	v := clock.NewVirtual(t0)
	e, err := New(Options{Rules: ruleSet(t), Source: &fakeSource{}, Executor: &recorder{}, Clock: v, Coalesce: 4 * ms})
	if err != nil {
		t.Fatal(err)
	}
	arrived := make(chan struct{}, 1)
	done := make(chan struct{})
	var at time.Time
	go func() {
		defer close(done)
		at, err = e.gather(context.Background(), arrived)
	}()
	if !v.WaitForWaiters(1, done) {
		t.Fatal("gather returned before its wait")
	}
	arrived <- struct{}{}
	v.Advance(4 * ms)
	<-done
	if err != nil || !at.Equal(t0.Add(4*ms)) {
		t.Errorf("gather = %v, %v; want t0+4ms", at.Sub(t0), err)
	}
	if len(arrived) != 0 {
		t.Error("a signal of the wait was left for another tick")
	}
}
