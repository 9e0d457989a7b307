package engine

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

// atClock is a Clock standing at one instant: a restarted engine compares
// saved times with it.
type atClock struct{ t time.Time }

func (c atClock) Now() time.Time                       { return c.t }
func (c atClock) After(time.Duration) <-chan time.Time { return nil }

const countsRules = `
rules:
  - name: tick
    when: "true"
    cooldown: 1m
    actions:
      - log: { message: "tick" }
  - name: second
    when: firings_today("tick") >= 2 && minutes_since_fired("tick") < 0.5
    actions:
      - log: { message: "tick fired twice today" }
`

// TestFiringCounts: firings_today and minutes_since_fired read the rule
// states as the tick starts, reset at the New York day, and survive a
// restart.
func TestFiringCounts(t *testing.T) {
	rs, errs := rules.LoadBytes(context.Background(), "counts.yaml", []byte(countsRules), rules.LoadOptions{Actions: actions.Defs()})
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	store, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// t0 is 10:00 New York time (EDT) on Monday 2026-03-09.
	rec := &recorder{}
	e, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: rec, Clock: atClock{t0}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	var secondAt []int
	for s := 0; s <= 150; s++ {
		before := len(rec.firings)
		e.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
		for _, name := range rec.firings[before:] {
			if name == "second" {
				secondAt = append(secondAt, s)
			}
		}
	}
	// tick fires at 0 s, 60 s and 120 s; a tick reads the counts from
	// before it, so second first sees two firings at 61 s and fires. It
	// goes false at 90 s (half a minute after tick's firing) and fires
	// again at 121 s, one tick after tick's third firing.
	if len(secondAt) != 2 || secondAt[0] != 61 || secondAt[1] != 121 {
		t.Errorf("second fired at %v s, want [61 121]", secondAt)
	}

	check := func(e *Engine, at time.Time, wantToday int, wantLast time.Time) {
		t.Helper()
		st, err := (&fakeSource{}).State(at)
		if err != nil {
			t.Fatal(err)
		}
		n, last, ok := e.firingCounts(st).Fired("tick")
		if !ok || n != wantToday || !last.Equal(wantLast) {
			t.Errorf("at %s: Fired(tick) = %d, %s, %v; want %d, %s", at, n, last, ok, wantToday, wantLast)
		}
		if _, _, ok := e.firingCounts(st).Fired("nope"); ok {
			t.Error("Fired knows a rule that does not exist")
		}
	}
	lastTick := t0.Add(120 * time.Second)
	check(e, t0.Add(151*time.Second), 3, lastTick)

	// A restart the same day keeps the count and the last firing.
	e2, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: &recorder{}, Clock: atClock{t0.Add(200 * time.Second)}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	check(e2, t0.Add(200*time.Second), 3, lastTick)

	// 23:59:59 New York time is still the same day; 00:00 the next is not.
	endOfDay := time.Date(2026, 3, 10, 3, 59, 59, 0, time.UTC) // 23:59:59 EDT
	check(e2, endOfDay, 3, lastTick)
	check(e2, endOfDay.Add(time.Second), 0, lastTick)
}
