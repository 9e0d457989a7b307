package engine

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/rules"
)

// TestHeartbeat: Run records the clock's time after each tick and whether
// the tick was fully polled, readable without the engine's lock, and calls
// OnTick on the tick loop after each tick.
func TestHeartbeat(t *testing.T) {
	cases := []struct {
		name     string
		notReady bool
	}{
		{"fully polled", false},
		{"not polled yet", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := clock.NewVirtual(t0)
			var calls []time.Time
			var beats []Heartbeat
			var e *Engine
			e, err := New(Options{Rules: ruleSet(t, rules.Rule{Name: "r", When: "false", Enabled: true}), Source: &fakeSource{notReady: c.notReady},
				Executor: &recorder{}, Clock: v, Tick: time.Second,
				OnTick: func(_ context.Context, at time.Time) {
					calls = append(calls, at)
					beats = append(beats, e.Heartbeat())
				}})
			if err != nil {
				t.Fatal(err)
			}
			if hb := e.Heartbeat(); !hb.Last.IsZero() || hb.Ready || hb.Tick != time.Second {
				t.Errorf("before Run: %+v, want no tick yet", hb)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { _ = e.Run(ctx); close(done) }()
			for range 2 { // the ticks at t0 and t0+1s, each then waiting for the next
				if !v.WaitForWaiters(1, done) {
					t.Fatal("Run returned early")
				}
				v.Advance(time.Second)
			}
			if !v.WaitForWaiters(1, done) {
				t.Fatal("Run returned early")
			}
			cancel()
			<-done
			if len(calls) != 3 || !calls[0].Equal(t0) || !calls[2].Equal(t0.Add(2*time.Second)) {
				t.Fatalf("OnTick at %v, want t0, t0+1s, t0+2s", calls)
			}
			for i, hb := range beats {
				if !hb.Last.Equal(t0.Add(time.Duration(i)*time.Second)) || hb.Ready == c.notReady {
					t.Errorf("heartbeat in tick %d: %+v", i, hb)
				}
			}
			if st := e.Status(); !st.LastLoop.Equal(t0.Add(2 * time.Second)) {
				t.Errorf("Status().LastLoop %s, want t0+2s", st.LastLoop)
			}
		})
	}
}
