package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/rules"
)

// TestFiringTimelineMatchesTheEngine computes the picture of the firing
// guide with the engine's own state machine, so that the guide cannot
// promise what the engine does not do.
func TestFiringTimelineMatchesTheEngine(t *testing.T) {
	t.Parallel()
	lines := strings.Split(strings.TrimSuffix(rules.FiringTimeline, "\n"), "\n")
	const labelWidth, cell = 19, 4
	cells := func(line string) []string {
		var out []string
		for i := labelWidth; i < len(line); i += cell {
			out = append(out, strings.TrimSpace(line[i:min(i+cell, len(line))]))
		}
		return out
	}
	ticks := cells(lines[0])
	var truth []engine.Outcome
	for _, c := range cells(lines[1]) {
		truth = append(truth, map[string]engine.Outcome{"T": engine.True, ".": engine.False}[c])
	}
	if len(truth) != len(ticks) {
		t.Fatalf("%d ticks but %d condition values", len(ticks), len(truth))
	}
	settings := map[string]engine.Timing{
		"no settings":   {},
		"for: 20s":      {For: 20 * time.Second},
		"cooldown: 30s": {Cooldown: 30 * time.Second},
		"once: per_day": {Once: engine.OncePerDay},
	}
	start := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	for _, line := range lines[2:] {
		label := strings.TrimSpace(line[:labelWidth])
		timing, ok := settings[label]
		if !ok {
			t.Fatalf("no timing for the row %q", label)
		}
		var s engine.RuleState
		row := fmt.Sprintf("%-*s", labelWidth, label)
		for i, out := range truth {
			var fired bool
			s, fired, _ = engine.Step(s, timing, start.Add(time.Duration(10*i)*time.Second), out, "2026-03-09")
			mark := ""
			if fired {
				mark = "^"
			}
			row += fmt.Sprintf("%-*s", cell, mark)
		}
		if got := strings.TrimRight(row, " "); got != line {
			t.Errorf("the engine fires\n%s\nthe guide says\n%s", got, line)
		}
	}
}
