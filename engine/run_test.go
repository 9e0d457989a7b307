package engine

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/rules"
)

func TestNextTick(t *testing.T) {
	tick := time.Second
	tests := []struct {
		name       string
		after      time.Duration // now - last
		wantAfter  time.Duration // next - last
		wantMissed int64
	}{
		{"on time", 10 * time.Millisecond, time.Second, 0},
		{"exactly one tick", time.Second, time.Second, 0},
		{"just over one tick", time.Second + time.Millisecond, 2 * time.Second, 1},
		{"overran to a grid point", 3 * time.Second, 3 * time.Second, 2},
		{"overran between grid points", 3500 * time.Millisecond, 4 * time.Second, 3},
		{"clock behind", -time.Second, time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, missed := nextTick(t0, t0.Add(tt.after), tick)
			if next.Sub(t0) != tt.wantAfter || missed != tt.wantMissed {
				t.Errorf("nextTick(+%v) = +%v, %d missed; want +%v, %d", tt.after, next.Sub(t0), missed, tt.wantAfter, tt.wantMissed)
			}
		})
	}
}

// slowExecutor advances the virtual clock while a firing's actions run, as
// a slow venue would.
type slowExecutor struct {
	v    *clock.Virtual
	took time.Duration
	at   []time.Time
}

func (s *slowExecutor) Execute(_ context.Context, f *Firing) []actions.Leg {
	s.at = append(s.at, f.At)
	s.v.Advance(s.took)
	return nil
}

// TestRunSkipsOverrunTicks: a tick whose actions take 2.5 ticks makes Run
// skip the grid points it covered and carry on on the same grid.
func TestRunSkipsOverrunTicks(t *testing.T) {
	v := clock.NewVirtual(t0)
	x := &slowExecutor{v: v, took: 2500 * time.Millisecond}
	e, err := New(Options{Rules: ruleSet(t, rules.Rule{Name: "every-tick", When: "true", Enabled: true, Cooldown: time.Nanosecond}), Source: &fakeSource{}, Executor: x, Clock: v})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var runErr error
	go func() { runErr = e.Run(ctx); close(done) }()
	// Run fires at t0 (the executor moves the clock to t0+2.5s), then waits
	// for t0+3s: one waiter.
	if !v.WaitForWaiters(1, done) {
		t.Fatal("Run returned early")
	}
	v.Set(t0.Add(3 * time.Second))
	if !v.WaitForWaiters(1, done) {
		t.Fatal("Run returned early")
	}
	cancel()
	<-done
	if runErr != context.Canceled {
		t.Fatalf("Run: %v", runErr)
	}
	// Ticks at t0 and t0+3s, each overrunning by 2.5s: t0+1s, t0+2s, t0+4s
	// and t0+5s were skipped; the next tick waits for t0+6s, on the grid.
	_, ticks, skipped := e.Stats()
	if ticks != 2 || skipped != 4 {
		t.Errorf("ticks %d, skipped %d; want 2 ticks and 4 skipped", ticks, skipped)
	}
	if len(x.at) != 2 || !x.at[0].Equal(t0) || !x.at[1].Equal(t0.Add(3*time.Second)) {
		t.Errorf("firings at %v, want t0 and t0+3s", x.at)
	}
}

// TestTraceCodesRoundTrip keeps the compact trace codes and their decoding
// tables in step: every phase and reason survives the ring.
func TestTraceCodesRoundTrip(t *testing.T) {
	for i, p := range phaseCodes {
		if c, ok := phaseCode(p); !ok || int(c) != i {
			t.Errorf("phase %q: code %d, %v; want %d", p, c, ok, i)
		}
	}
	for i, r := range reasonCodes {
		if c, ok := reasonCode(r); !ok || int(c) != i {
			t.Errorf("reason %q: code %d, %v; want %d", r, c, ok, i)
		}
	}
	r := newRing(2)
	want := []Trace{
		{At: t0, Tick: 1, Phase: PhaseInactive, Reason: ReasonFalse},
		{At: t0.Add(time.Second), Tick: 2, Result: true, Phase: PhaseFiring, Reason: ReasonFired, Transition: "inactive -> firing", Values: map[string]any{"x": 1.0}},
		{At: t0.Add(2 * time.Second), Tick: 3, Phase: PhaseFiring, Reason: "a reason not in the table"},
	}
	for i := range want {
		r.push(&want[i])
	}
	got := r.list()
	if len(got) != 2 {
		t.Fatalf("kept %d traces, want the last 2", len(got))
	}
	for i, g := range got {
		w := want[i+1]
		if !g.At.Equal(w.At) || g.Tick != w.Tick || g.Result != w.Result || g.Phase != w.Phase || g.Reason != w.Reason || g.Transition != w.Transition || len(g.Values) != len(w.Values) {
			t.Errorf("trace %d: %+v, want %+v", i, g, w)
		}
	}
}
