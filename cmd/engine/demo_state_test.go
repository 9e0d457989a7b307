package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
)

// TestReadmeFirstCommandEveryTime runs the README's first command (engine
// run --rules examples/rules --max-runtime 2m) three times on one state
// directory, 20 times faster: buy-the-open-dip fires 30 s in on every demo
// run, because the demo starts from a fresh state (issue 15: the second run
// restored the first run's cooldown and fired nothing). With --keep-state
// the previous run's state holds, and the cooldown with it. The run path has
// wall clocks only, so each run takes 4 s of wall time, of which the start
// may take up to 1.5 s on a loaded machine.
func TestReadmeFirstCommandEveryTime(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	open := time.Date(2026, 3, 9, 9, 30, 0, 0, clock.NewYork())
	for i, tc := range []struct {
		name      string
		keepState bool
		wantFired int
	}{
		{"first run", false, 1},
		{"second run, same state dir", false, 1},
		{"third run with --keep-state", true, 0},
	} {
		args := []string{"--rules", "../../examples/rules", "--max-runtime", "4s", "--speed", "20", "--tick", "100ms",
			"--state-dir", state, "--log-format", "json", "--metrics-addr", ""}
		if tc.keepState {
			args = append(args, "--keep-state")
		}
		code, stderr := runWith(t, nil, args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", tc.name, code, stderr)
		}
		var fired []time.Time
		var summary struct {
			Msg       string   `json:"msg"`
			Firings   *int64   `json:"firings"`
			Orders    *int64   `json:"orders"`
			Fills     *int64   `json:"fills"`
			Positions []string `json:"positions"`
		}
		for _, line := range strings.Split(stderr, "\n") {
			var l struct {
				Msg  string    `json:"msg"`
				Rule string    `json:"rule"`
				TS   time.Time `json:"ts"`
			}
			if json.Unmarshal([]byte(line), &l) != nil {
				continue
			}
			if l.Msg == "rule fired" && l.Rule == "buy-the-open-dip" {
				fired = append(fired, l.TS)
			}
			if l.Msg == "engine stopped" {
				if err := json.Unmarshal([]byte(line), &summary); err != nil {
					t.Fatal(err)
				}
			}
		}
		if len(fired) != tc.wantFired {
			t.Fatalf("run %d (%s): buy-the-open-dip fired %d times, want %d; log:\n%s", i+1, tc.name, len(fired), tc.wantFired, stderr)
		}
		if len(fired) == 1 {
			// 30 s in (1.5 s of wall time): the demo starts at 09:29:30;
			// one tick is 2 s of demo time.
			if d := fired[0].Sub(open); d < 0 || d > 10*time.Second {
				t.Errorf("run %d: fired at %v, %v after the open", i+1, fired[0], d)
			}
		}
		if summary.Firings == nil || summary.Orders == nil || summary.Fills == nil || summary.Positions == nil {
			t.Fatalf("run %d: the closing line lacks firings, orders, fills or positions; log:\n%s", i+1, stderr)
		}
		if *summary.Firings < int64(tc.wantFired) || *summary.Orders < int64(tc.wantFired) {
			t.Errorf("run %d: closing line says %d firings, %d orders; want at least %d each", i+1, *summary.Firings, *summary.Orders, tc.wantFired)
		}
	}
}
