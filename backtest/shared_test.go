package backtest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/sim"
)

// TestSharingChangesNothing runs each backtest twice: as it normally runs
// (States share their data between ticks while no answer changes, and a
// condition that reads nothing moving with time is not run again on the same
// data) and with every State built afresh and every condition run on every
// tick. The reports must be byte-identical, and the normal run must really
// have reused results, or the test would prove nothing.
func TestSharingChangesNothing(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	cases := []struct {
		name     string
		dir      func(testing.TB) string
		from, to time.Time
		getenv   map[string]string
	}{
		{"examples", func(testing.TB) string { return "../examples/rules" }, demoStart.Add(25 * time.Minute), demoStart.Add(3 * time.Hour), map[string]string{"TSLA_DIP_SIZE": "2"}},
		{"small", func(testing.TB) string { return "testdata/rules" }, demoStart, demoStart.Add(3 * time.Hour), nil},
		{"10rules", func(tb testing.TB) string { return writeManyRules(tb, 10) }, demoStart, demoStart.Add(8 * time.Hour), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			run := func(every bool) ([]byte, int64) {
				r, js := runDemo(t, Options{RuleDirs: []string{dir}, From: c.from, To: c.to,
					Getenv: func(k string) string { return c.getenv[k] }, EvaluateEveryTick: every}, false)
				stats, _, _ := r.asm.Engine.Stats()
				var reused int64
				for _, s := range stats {
					reused += s.Reused
				}
				return js, reused
			}
			shared, reused := run(false)
			fresh, none := run(true)
			if !bytes.Equal(shared, fresh) {
				t.Errorf("the report differs when every State is built afresh:\n%s", firstDiff(shared, fresh))
			}
			if none != 0 {
				t.Errorf("EvaluateEveryTick reused %d results", none)
			}
			// Even where a rule reads an age and every State is built
			// afresh (examples), a condition keeps its result while the
			// records of its symbols are the same.
			if reused == 0 {
				t.Errorf("no result was reused: the comparison exercised nothing")
			}
			t.Logf("%d evaluations reused", reused)
		})
	}
}

// runDemo runs a backtest of the demo scenario with opts (its Scenario
// set here), every tick when everyTick, and returns the runner, for what
// the engine kept, and the report's JSON.
// skipUnderRace skips a test whose backtests take minutes with the race
// detector: the equivalence tests and the sweeps compared with single runs.
// .ci/run also runs this package without -race, where they run in full;
// under -race the sweeps' goroutines are still checked by the shorter
// tests (TestSweepErrors, and engine backtest --vary in cmd/engine).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("minutes of backtest under -race: run without it (as .ci/run does)")
	}
}

func runDemo(t *testing.T, opts Options, everyTick bool) (*runner, []byte) {
	t.Helper()
	opts.Scenario = sim.Demo()
	if err := opts.defaults(); err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r.everyTick = everyTick
	rep, err := r.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return r, js
}

// runOutcome is what the equivalence tests compare between a run that
// skips or leaps and one that evaluates every tick: the report, the
// engine's counters and traces, and the ticks leapt over.
type runOutcome struct {
	report []byte
	stats  map[string]engine.RuleStats
	ticks  int64
	traces map[string][]engine.Trace
	leapt  int64
}

// outcomeOf reads the outcome of the run r, whose report is js.
func outcomeOf(r *runner, js []byte) runOutcome {
	o := runOutcome{report: js, traces: map[string][]engine.Trace{}, leapt: r.skippedTicks}
	o.stats, o.ticks, _ = r.asm.Engine.Stats()
	for name := range o.stats {
		o.traces[name] = r.asm.Engine.Traces(name)
	}
	return o
}
