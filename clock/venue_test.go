package clock

import (
	"testing"
	"time"
)

func TestVenueFollowsTheVenue(t *testing.T) {
	local0 := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	venue0 := time.Date(2026, 3, 9, 13, 29, 50, 0, time.UTC) // a simulator's scenario
	type sample struct {
		at     time.Duration // local time since local0 when the answer came
		rtt    time.Duration
		venue  time.Duration // the venue's stated time since venue0
		wantAt time.Duration // venue time since venue0 that Now must read right after
		within time.Duration
	}
	tests := []struct {
		name    string
		samples []sample
	}{
		{"before any answer it is the local clock", nil},
		{"first answer is taken whole", []sample{{0, 0, 0, 0, 0}}},
		{"the midpoint of the round trip", []sample{{100 * time.Millisecond, 100 * time.Millisecond, 0, 50 * time.Millisecond, 0}}},
		{"jitter is smoothed", []sample{
			{0, 0, 0, 0, 0},
			{time.Second, 0, time.Second + 80*time.Millisecond, time.Second + 20*time.Millisecond, 0},
		}},
		{"a jump is taken whole", []sample{
			{0, 0, 0, 0, 0},
			{time.Second, 0, time.Hour, time.Hour, 0},
		}},
		{"a simulator run 60 times faster is followed between answers", []sample{
			{0, 0, 0, 0, 0},
			{time.Second, 0, time.Minute, time.Minute, 0},
			{2 * time.Second, 0, 2 * time.Minute, 2 * time.Minute, 0},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			local := NewVirtual(local0)
			v := NewVenue(local)
			if len(tc.samples) == 0 {
				if !v.Now().Equal(local0) || v.Synced() {
					t.Fatalf("unsynced Now = %v, want the local %v", v.Now(), local0)
				}
				return
			}
			for i, s := range tc.samples {
				local.Set(local0.Add(s.at))
				v.Observe(venue0.Add(s.venue), local0.Add(s.at-s.rtt), local0.Add(s.at))
				got := v.Now().Sub(venue0)
				if d := got - s.wantAt; d > s.within || d < -s.within {
					t.Fatalf("after sample %d: venue time +%v, want +%v (±%v)", i, got, s.wantAt, s.within)
				}
			}
			if tc.name == "a simulator run 60 times faster is followed between answers" {
				local.Advance(500 * time.Millisecond)
				if got := v.Now().Sub(venue0); got != 2*time.Minute+30*time.Second {
					t.Fatalf("half a local second later: +%v, want +2m30s", got)
				}
			}
		})
	}
}

func TestVenueNeverGoesBack(t *testing.T) {
	local0 := time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)
	local := NewVirtual(local0)
	v := NewVenue(local)
	v.Observe(local0.Add(10*time.Second), local0, local0)
	before := v.Now()
	// The venue now says it is earlier (a restarted simulator): Now holds
	// until the venue's time passes what was already read.
	v.Observe(local0, local0, local0)
	if got := v.Now(); got.Before(before) {
		t.Fatalf("Now went back from %v to %v", before, got)
	}
	local.Advance(20 * time.Second)
	if got := v.Now(); !got.Equal(local0.Add(20 * time.Second)) {
		t.Fatalf("Now = %v, want the venue's %v", got, local0.Add(20*time.Second))
	}
	if off := v.Offset(); off != 0 {
		t.Fatalf("Offset = %v, want 0", off)
	}
}
