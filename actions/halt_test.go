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
