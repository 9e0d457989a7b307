package engine_test

import (
	"testing"
	"time"
)

// TestSessionRuleKeptUntilTheSessionChanges: a condition that reads the
// session and data that does not change is run again only when the session
// changes, and fires on the very tick it opens (09:30:00 EDT), not on a
// later fetch of the data.
func TestSessionRuleKeptUntilTheSessionChanges(t *testing.T) {
	r := newRigAt(t, 30*time.Minute-10*time.Second, "demo-key", `
rules:
  - name: at-the-open
    when: market.session == "regular" && position("BTCUSDT", "long").size == 0
    actions:
      - log: {message: open}
`)
	open := r.v.Now().Add(10 * time.Second)
	var firedAt []time.Time
	for range 20 {
		if err := r.poller.PollDue(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		for _, f := range r.eng.Step(t.Context(), r.v.Now()) {
			firedAt = append(firedAt, f.At)
		}
		r.v.Advance(time.Second)
	}
	if len(firedAt) != 1 || !firedAt[0].Equal(open) {
		t.Fatalf("fired at %v, want once at the open %v", firedAt, open)
	}
	stats, _, _ := r.eng.Stats()
	// Ticks 2-10 keep the pre-market result; the open runs it again.
	if got := stats["at-the-open"].Reused; got < 9 {
		t.Errorf("reused %d results before the open, want at least 9", got)
	}
}
