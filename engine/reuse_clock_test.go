package engine_test

import (
	"testing"
	"time"
)

// TestClockRuleKeptUntilItsLimit: a condition that compares the session's
// minutes with constants keeps its result between ticks until the minute
// it can change, and fires on the very tick it comes true (09:32:00 and
// 09:31:00 EDT), as a condition run every tick would.
func TestClockRuleKeptUntilItsLimit(t *testing.T) {
	r := newRigAt(t, 30*time.Minute-10*time.Second, "demo-key", `
rules:
  - name: two-minutes-in
    when: >
      market.session == "regular" && market.minutes_since_open >= 2
      && position("BTCUSDT", "long").size == 0
    actions:
      - log: {message: two minutes in}
  - name: a-minute-gone
    when: market.session == "regular" && market.minutes_to_close <= 389 && weekday != "Sunday"
    actions:
      - log: {message: a minute gone}
`)
	open := r.v.Now().Add(10 * time.Second)
	fired := map[string][]time.Time{}
	const ticks = 200
	for range ticks {
		if err := r.poller.PollDue(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		for _, f := range r.eng.Step(t.Context(), r.v.Now()) {
			fired[f.Rule.Name] = append(fired[f.Rule.Name], f.At)
		}
		r.v.Advance(time.Second)
	}
	want := map[string]time.Time{"two-minutes-in": open.Add(2 * time.Minute), "a-minute-gone": open.Add(time.Minute)}
	for name, at := range want {
		if got := fired[name]; len(got) != 1 || !got[0].Equal(at) {
			t.Errorf("%s fired at %v, want once at %v", name, got, at)
		}
	}
	stats, _, _ := r.eng.Stats()
	for name := range want {
		s := stats[name]
		// Run again at the open (a new session), at the limit and around
		// new answers of the positions; kept otherwise.
		if s.Evaluations != ticks || s.Reused < ticks*3/4 {
			t.Errorf("%s: %d evaluations, %d reused; want %d, at least %d reused", name, s.Evaluations, s.Reused, ticks, ticks*3/4)
		}
		t.Logf("%s: %d of %d evaluations reused", name, s.Reused, s.Evaluations)
	}
}
