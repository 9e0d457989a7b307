package actions

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestHaltStopsEntriesOfEveryRule: while a halt holds, an order that opens
// is refused and one that reduces passes; a timed halt ends by itself, a
// manual one only by Resume; the halt is saved when it starts and when it
// is lifted, and a guard built with the saved halt holds it again.
func TestHaltStopsEntriesOfEveryRule(t *testing.T) {
	now := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	var saved []Halt
	g := NewGuard(GuardOptions{Now: func() time.Time { return now }, SaveHalt: func(h Halt) error { saved = append(saved, h); return nil }})
	open := OrderCheck{Symbol: "TSLAUSDT", Size: decimal.NewFromInt(1)}
	closing := OrderCheck{Symbol: "TSLAUSDT", Size: decimal.NewFromInt(1), Reducing: true}

	if err := g.Halt(Halt{Rule: "daily-loss", Reason: "lost 500 USDT", At: now, Until: now.Add(30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := g.Allow(open); !errors.Is(err, ErrKillSwitch) {
		t.Errorf("an opening order during the halt: %v, want ErrKillSwitch", err)
	}
	if err := g.Allow(closing); err != nil {
		t.Errorf("a closing order during the halt: %v, want it to pass", err)
	}
	if on, why := g.Killed(); !on || why != "halted by rule daily-loss: lost 500 USDT (until 2026-03-09T15:30:00Z)" {
		t.Errorf("Killed() = %v, %q", on, why)
	}
	now = now.Add(30 * time.Minute)
	if err := g.Allow(open); err != nil {
		t.Errorf("an opening order after the halt ended: %v", err)
	}

	// A manual halt holds until Resume, and across a restart.
	if err := g.Halt(Halt{Rule: "daily-loss", Reason: "by hand", At: now}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(48 * time.Hour)
	restarted := NewGuard(GuardOptions{Now: func() time.Time { return now }, Halt: saved[len(saved)-1]})
	for _, gg := range []*Guard{g, restarted} {
		if err := gg.Allow(open); !errors.Is(err, ErrKillSwitch) {
			t.Errorf("an opening order two days into a manual halt: %v, want ErrKillSwitch", err)
		}
	}
	if err := g.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := g.Allow(open); err != nil {
		t.Errorf("an opening order after Resume: %v", err)
	}
	if len(saved) != 3 || !saved[2].At.IsZero() {
		t.Errorf("saved %+v; want the two halts, then the lifted one (zero)", saved)
	}
}

// TestShorterHaltDoesNotShortenALongerOne: a rule's 30-minute halt fired
// during a halt until lifted by hand, or during a longer timed one, leaves
// it in force (ErrHaltHoldsLonger) and is not saved; a halt that ends later
// replaces it.
func TestShorterHaltDoesNotShortenALongerOne(t *testing.T) {
	now := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	open := OrderCheck{Symbol: "TSLAUSDT", Size: decimal.NewFromInt(1)}
	for _, tc := range []struct {
		name          string
		first, second time.Duration // 0: until lifted by hand
		replaced      bool
		haltedAfter   time.Duration // entries still refused this long after the second halt
	}{
		{name: "by hand, then 30m", first: 0, second: 30 * time.Minute, replaced: false, haltedAfter: 48 * time.Hour},
		{name: "2h, then 30m", first: 2 * time.Hour, second: 30 * time.Minute, replaced: false, haltedAfter: 90 * time.Minute},
		{name: "30m, then 30m", first: 30 * time.Minute, second: 30 * time.Minute, replaced: false, haltedAfter: 29 * time.Minute},
		{name: "30m, then 2h", first: 30 * time.Minute, second: 2 * time.Hour, replaced: true, haltedAfter: 119 * time.Minute},
		{name: "30m, then by hand", first: 30 * time.Minute, second: 0, replaced: true, haltedAfter: 48 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := now
			var saved []Halt
			g := NewGuard(GuardOptions{Now: func() time.Time { return at }, SaveHalt: func(h Halt) error { saved = append(saved, h); return nil }})
			halt := func(rule string, d time.Duration) error {
				h := Halt{Rule: rule, Reason: "test", At: at}
				if d > 0 {
					h.Until = at.Add(d)
				}
				return g.Halt(h)
			}
			if err := halt("first", tc.first); err != nil {
				t.Fatal(err)
			}
			err := halt("second", tc.second)
			if tc.replaced != (err == nil) || (!tc.replaced && !errors.Is(err, ErrHaltHoldsLonger)) {
				t.Fatalf("second halt: %v, want replaced %v", err, tc.replaced)
			}
			if want := map[bool]int{true: 2, false: 1}[tc.replaced]; len(saved) != want {
				t.Errorf("saved %d halts, want %d", len(saved), want)
			}
			at = now.Add(tc.haltedAfter)
			if err := g.Allow(open); !errors.Is(err, ErrKillSwitch) {
				t.Errorf("an opening order %s after: %v, want ErrKillSwitch", tc.haltedAfter, err)
			}
		})
	}
}
