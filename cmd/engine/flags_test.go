package main

import (
	"math"
	"strings"
	"testing"
)

// TestCheckSpeed: --speed of engine sim and of engine run's embedded demo
// accepts (0, maxSpeed] and refuses anything else, including NaN and the
// infinities that a float flag parses without complaint.
func TestCheckSpeed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		speed float64
		ok    bool
	}{
		{1, true}, {0.01, true}, {60, true}, {maxSpeed, true},
		{0, false}, {-1, false}, {math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false},
		{maxSpeed + 0.001, false}, {1e300, false}, {math.SmallestNonzeroFloat64 * -1, false},
	} {
		if err := checkSpeed(tt.speed); (err == nil) != tt.ok {
			t.Errorf("checkSpeed(%v) = %v, want ok %v", tt.speed, err, tt.ok)
		}
	}
	code, stderr := runWith(t, nil, "--rules", "x", "--speed", "1e300", "--state-dir", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "engine run: --speed must be a number above 0 and at most 1000 (got 1e+300)") {
		t.Errorf("engine run --speed 1e300: exit %d, stderr:\n%s", code, stderr)
	}
}
