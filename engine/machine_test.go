package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// tick is one step of a scripted sequence: the seconds since t0, the outcome
// (T, F or ? for unknown), the once period key, and what must happen.
type tick struct {
	sec    int
	out    string
	period string
	fire   bool
	phase  Phase
	reason Reason
}

func runScript(t *testing.T, timing Timing, start RuleState, ticks []tick) RuleState {
	t.Helper()
	t0 := time.Date(2026, 3, 9, 13, 30, 0, 0, time.UTC)
	s := start
	for i, tk := range ticks {
		out := map[string]Outcome{"T": True, "F": False, "?": Unknown}[tk.out]
		var fired bool
		var why Reason
		s, fired, why = Step(s, timing, t0.Add(time.Duration(tk.sec)*time.Second), out, tk.period)
		if fired != tk.fire || s.Phase != tk.phase || why != tk.reason {
			t.Fatalf("tick %d (t+%ds %s): fired=%v phase=%s reason=%q; want fired=%v phase=%s reason=%q",
				i, tk.sec, tk.out, fired, s.Phase, why, tk.fire, tk.phase, tk.reason)
		}
	}
	return s
}

func TestStep(t *testing.T) {
	tests := []struct {
		name   string
		timing Timing
		ticks  []tick
	}{
		{"edge-triggered without for or cooldown", Timing{}, []tick{
			{0, "F", "", false, PhaseInactive, ReasonFalse},
			{1, "T", "", true, PhaseFiring, ReasonFired},
			{2, "T", "", false, PhaseFiring, ReasonStillTrue},
			{3, "T", "", false, PhaseFiring, ReasonStillTrue},
			{4, "F", "", false, PhaseInactive, ReasonFalse},
			{5, "T", "", true, PhaseFiring, ReasonFired},
		}},
		{"for holds then fires once", Timing{For: 30 * time.Second}, []tick{
			{0, "T", "", false, PhasePending, ReasonHolding},
			{29, "T", "", false, PhasePending, ReasonHolding},
			{30, "T", "", true, PhaseFiring, ReasonFired},
			{31, "T", "", false, PhaseFiring, ReasonStillTrue},
		}},
		{"a false tick restarts the hold", Timing{For: 30 * time.Second}, []tick{
			{0, "T", "", false, PhasePending, ReasonHolding},
			{20, "F", "", false, PhaseInactive, ReasonFalse},
			{21, "T", "", false, PhasePending, ReasonHolding},
			{50, "T", "", false, PhasePending, ReasonHolding},
			{51, "T", "", true, PhaseFiring, ReasonFired},
		}},
		{"unknown data restarts the hold and never fires", Timing{For: 10 * time.Second}, []tick{
			{0, "T", "", false, PhasePending, ReasonHolding},
			{5, "?", "", false, PhaseInactive, ReasonUnknown},
			{10, "T", "", false, PhasePending, ReasonHolding},
			{15, "?", "", false, PhaseInactive, ReasonUnknown},
			{20, "?", "", false, PhaseInactive, ReasonUnknown},
		}},
		{"cooldown rate-limits a condition that stays true", Timing{Cooldown: time.Minute}, []tick{
			{0, "T", "", true, PhaseFiring, ReasonFired},
			{30, "T", "", false, PhaseFiring, ReasonCooldown},
			{60, "T", "", true, PhaseFiring, ReasonFired},
			{61, "F", "", false, PhaseCooldown, ReasonFalse},
			{90, "T", "", false, PhaseCooldown, ReasonCooldown},
			{120, "T", "", true, PhaseFiring, ReasonFired},
		}},
		{"cooldown then false goes inactive", Timing{Cooldown: 10 * time.Second}, []tick{
			{0, "T", "", true, PhaseFiring, ReasonFired},
			{5, "F", "", false, PhaseCooldown, ReasonFalse},
			{15, "F", "", false, PhaseInactive, ReasonFalse},
			{16, "T", "", true, PhaseFiring, ReasonFired},
		}},
		{"once per session across a session boundary", Timing{Once: OncePerSession}, []tick{
			{0, "T", "regular@03-09", true, PhaseFiring, ReasonFired},
			{1, "F", "regular@03-09", false, PhaseInactive, ReasonFalse},
			{2, "T", "regular@03-09", false, PhasePending, ReasonOnce},
			{3, "T", "regular@03-09", false, PhasePending, ReasonOnce},
			{4, "T", "after_hours@03-09", true, PhaseFiring, ReasonFired},
			{5, "F", "after_hours@03-09", false, PhaseInactive, ReasonFalse},
			{6, "T", "after_hours@03-09", false, PhasePending, ReasonOnce},
		}},
		{"once per day with for", Timing{Once: OncePerDay, For: 5 * time.Second}, []tick{
			{0, "T", "2026-03-09", false, PhasePending, ReasonHolding},
			{5, "T", "2026-03-09", true, PhaseFiring, ReasonFired},
			{6, "F", "2026-03-09", false, PhaseInactive, ReasonFalse},
			{7, "T", "2026-03-09", false, PhasePending, ReasonHolding},
			{12, "T", "2026-03-09", false, PhasePending, ReasonOnce},
			{13, "T", "2026-03-10", true, PhaseFiring, ReasonFired},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runScript(t, tt.timing, RuleState{}, tt.ticks)
		})
	}
}

// TestStepLateOrders: a firing whose orders went out 24 s after it
// (RuleState.OrdersAt: recovered after a restart, or settled after an
// unclear answer) has its cooldown run from when they went out, not from
// the firing; without a cooldown the rule stays edge-triggered; the next
// firing clears OrdersAt, which belongs to the firing before.
func TestStepLateOrders(t *testing.T) {
	start := time.Date(2026, 3, 9, 13, 30, 0, 0, time.UTC) // runScript's t0
	fired := RuleState{Phase: PhaseFiring, Since: start, LastFired: start, Firings: 1, OrdersAt: start.Add(24 * time.Second)}
	tests := []struct {
		name   string
		timing Timing
		start  RuleState
		ticks  []tick
	}{
		{"cooldown from the orders", Timing{Cooldown: 5 * time.Second}, fired, []tick{
			{25, "T", "", false, PhaseFiring, ReasonCooldown},
			{28, "T", "", false, PhaseFiring, ReasonCooldown},
			{29, "T", "", true, PhaseFiring, ReasonFired},
			{30, "T", "", false, PhaseFiring, ReasonCooldown},
			{34, "T", "", true, PhaseFiring, ReasonFired}, // from the new firing
		}},
		{"cooldown phase from the orders", Timing{Cooldown: 5 * time.Second}, fired, []tick{
			{25, "F", "", false, PhaseCooldown, ReasonFalse},
			{28, "T", "", false, PhaseCooldown, ReasonCooldown},
			{29, "T", "", true, PhaseFiring, ReasonFired},
		}},
		{"no cooldown: still edge-triggered", Timing{}, fired, []tick{
			{25, "T", "", false, PhaseFiring, ReasonStillTrue},
			{26, "F", "", false, PhaseInactive, ReasonFalse},
			{27, "T", "", true, PhaseFiring, ReasonFired},
		}},
		{"orders before the firing (clock moved back): from the firing", Timing{Cooldown: 5 * time.Second},
			RuleState{Phase: PhaseFiring, Since: start, LastFired: start, Firings: 1, OrdersAt: start.Add(-time.Second)}, []tick{
				{4, "T", "", false, PhaseFiring, ReasonCooldown},
				{5, "T", "", true, PhaseFiring, ReasonFired},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end := runScript(t, tt.timing, tt.start, tt.ticks)
			if !end.OrdersAt.IsZero() {
				t.Errorf("after a new firing OrdersAt is %s, want it cleared", end.OrdersAt)
			}
		})
	}
}

// TestStepRestart saves the state in the middle of a sequence, restores it
// from JSON as a restarted engine would, and checks the rule neither fires
// twice nor forgets its hold.
func TestStepRestart(t *testing.T) {
	timing := Timing{For: 30 * time.Second, Once: OncePerSession}
	s := runScript(t, timing, RuleState{}, []tick{
		{0, "T", "regular@1", false, PhasePending, ReasonHolding},
		{30, "T", "regular@1", true, PhaseFiring, ReasonFired},
	})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var restored RuleState
	if err := json.Unmarshal(b, &restored); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"once_period":"regular@1"`) {
		t.Errorf("persisted state lacks the once period: %s", b)
	}
	runScript(t, timing, restored, []tick{
		{31, "T", "regular@1", false, PhaseFiring, ReasonStillTrue},
		{32, "F", "regular@1", false, PhaseInactive, ReasonFalse},
		{33, "T", "regular@1", false, PhasePending, ReasonHolding},
		{70, "T", "regular@1", false, PhasePending, ReasonOnce},
		{71, "T", "after_hours@1", true, PhaseFiring, ReasonFired},
	})
}

func ExampleStep() {
	timing := Timing{For: 30 * time.Second}
	t0 := time.Date(2026, 3, 9, 19, 55, 0, 0, time.UTC)
	var s RuleState
	for _, sec := range []int{0, 15, 30, 45} {
		var fired bool
		var why Reason
		s, fired, why = Step(s, timing, t0.Add(time.Duration(sec)*time.Second), True, "")
		fmt.Printf("t+%02ds %-8s fired=%-5v %s\n", sec, s.Phase, fired, why)
	}
	// Output:
	// t+00s pending  fired=false holding (for)
	// t+15s pending  fired=false holding (for)
	// t+30s firing   fired=true  fired
	// t+45s firing   fired=false already fired; waiting for the condition to turn false
}
