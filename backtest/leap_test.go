package backtest

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// TestLeapChangesNothing runs each backtest twice: leaping over the ticks
// that cannot differ from the one before (runner.skipQuietTicks) and running every
// tick. The reports must be byte-identical, and so must what the engine
// keeps of every tick (its counters and every rule's traces); where the
// rules allow it, the leaping run must really have leapt.
func TestLeapChangesNothing(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	cases := []struct {
		name     string
		dir      func(testing.TB) string
		from, to time.Time
		getenv   map[string]string
		leaps    bool
		sample   time.Duration // SampleEvery; 0: the default
	}{
		{"examples", func(testing.TB) string { return "../examples/rules" }, demoStart.Add(25 * time.Minute), demoStart.Add(3 * time.Hour), map[string]string{"TSLA_DIP_SIZE": "2"}, false, 0},
		{"small", func(testing.TB) string { return "testdata/rules" }, demoStart, demoStart.Add(3 * time.Hour), nil, false, 0},
		{"10rules", func(tb testing.TB) string { return writeManyRules(tb, 10) }, demoStart, demoStart.Add(26 * time.Hour), nil, true, 0},
		{"100rules", func(tb testing.TB) string { return writeManyRules(tb, 100) }, demoStart, demoStart.Add(8 * time.Hour), nil, true, 0},
		// Samples between two price steps: a leap stops at each.
		{"10rules sampled every 7s", func(tb testing.TB) string { return writeManyRules(tb, 10) }, demoStart, demoStart.Add(2 * time.Hour), nil, true, 7 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			run := func(everyTick bool) runOutcome {
				return outcomeOf(runDemo(t, Options{RuleDirs: []string{dir}, From: c.from, To: c.to,
					Getenv: func(k string) string { return c.getenv[k] }, SampleEvery: c.sample}, everyTick))
			}
			leapt, every := run(false), run(true)
			if !bytes.Equal(leapt.report, every.report) {
				t.Errorf("the report differs when every tick runs:\n%s", firstDiff(leapt.report, every.report))
			}
			if leapt.ticks != every.ticks || !reflect.DeepEqual(leapt.stats, every.stats) {
				t.Errorf("engine counters differ: leaping %d ticks %+v, every tick %d ticks %+v", leapt.ticks, leapt.stats, every.ticks, every.stats)
			}
			for name, tr := range every.traces {
				if !reflect.DeepEqual(leapt.traces[name], tr) {
					t.Errorf("rule %s: traces differ\nleaping    %+v\nevery tick %+v", name, leapt.traces[name], tr)
				}
			}
			if every.leapt != 0 {
				t.Errorf("running every tick leapt %d ticks", every.leapt)
			}
			if c.leaps != (leapt.leapt > 0) {
				t.Errorf("leapt over %d of %d ticks; want leaps %v", leapt.leapt, leapt.ticks, c.leaps)
			}
			t.Logf("leapt over %d of %d ticks", leapt.leapt, leapt.ticks)
		})
	}
}
