package backtest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestSkippingChangesNothing runs a day of the demo scenario twice for
// each rule set: as a backtest normally runs (a condition is not run
// again while what it reads is the same, key by key and until its clock
// comparisons can change, and the clock leaps over quiet seconds) and
// with every condition run on every tick, every State built afresh and no
// leap. The firings, the reports, every rule's traces and counters (but
// the count of reused results) must be identical, and the normal run must
// have skipped evaluations of the rules that read stock info, strategy
// orders and the clock, or the test would prove nothing.
func TestSkippingChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("two days of backtest")
	}
	skipUnderRace(t)
	span := 24 * time.Hour
	cases := []struct {
		name   string
		dir    func(testing.TB) string
		getenv map[string]string
		// skipped are rules that must have had evaluations skipped.
		skipped []string
		// leaps is set when the clock must have leapt over quiet seconds.
		leaps bool
	}{
		{"examples", func(testing.TB) string { return "../examples/rules" }, map[string]string{"TSLA_DIP_SIZE": "2"},
			[]string{"buy-the-open-dip", "flatten-before-us-close", "no-overnight-positions[TSLAUSDT]", "restore-stop-loss-tsla"}, false},
		{"every part", func(testing.TB) string { return "testdata/skip" }, nil,
			[]string{"btc-protected", "eth-unprotected", "tsla-overnight-info", "aapl-weekend-info", "tsla-bid", "tsla-cancel-near-close",
				"spot-records", "before-a-session", "before-the-bell", "once-a-session", "orders-in-session[NVDAUSDT]"}, false},
		// Rules that read the clock only by comparing it with constants
		// let the clock leap, up to the instant a comparison can change.
		{"clock leaps", writeClockRules, nil, []string{"near-the-close", "at-the-bell", "early-in-the-session", "before-overnight"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			run := func(every bool) runOutcome {
				return outcomeOf(runDemo(t, Options{RuleDirs: []string{dir}, From: demoStart, To: demoStart.Add(span),
					Getenv: func(k string) string { return c.getenv[k] }, EvaluateEveryTick: every}, every))
			}
			skipping, every := run(false), run(true)
			if !bytes.Equal(skipping.report, every.report) {
				t.Errorf("the report differs when every condition runs every tick:\n%s", firstDiff(skipping.report, every.report))
			}
			var evaluations, reused int64
			for name, s := range skipping.stats {
				evaluations += s.Evaluations
				reused += s.Reused
				e := every.stats[name]
				if e.Reused != 0 {
					t.Errorf("%s: %d results reused when every condition runs every tick", name, e.Reused)
				}
				s.Reused = 0
				if s != e {
					t.Errorf("%s: counters differ: skipping %+v, every tick %+v", name, s, e)
				}
				if !reflect.DeepEqual(skipping.traces[name], every.traces[name]) {
					t.Errorf("%s: traces differ\nskipping   %+v\nevery tick %+v", name, skipping.traces[name], every.traces[name])
				}
			}
			if skipping.ticks != every.ticks {
				t.Errorf("%d ticks skipping, %d every tick", skipping.ticks, every.ticks)
			}
			for _, name := range c.skipped {
				s, ok := skipping.stats[name]
				if !ok || s.Reused == 0 {
					t.Errorf("%s: no evaluation skipped (%+v)", name, s)
				}
			}
			if every.leapt != 0 || c.leaps != (skipping.leapt > 0) {
				t.Errorf("leapt over %d ticks skipping, %d every tick; want leaps %v", skipping.leapt, every.leapt, c.leaps)
			}
			var firings int64
			for _, s := range every.stats {
				firings += s.Firings
			}
			if firings == 0 {
				t.Error("no rule fired: the comparison exercised nothing")
			}
			t.Logf("%d firings; %d of %d evaluations skipped (%.1f%%); leapt over %d ticks", firings, reused, evaluations,
				100*float64(reused)/float64(evaluations), skipping.leapt)
		})
	}
}

// writeClockRules writes the 10 rules of writeManyRules, which let the
// clock leap, and rules that compare clock values with constants.
func writeClockRules(tb testing.TB) string {
	dir := writeManyRules(tb, 10)
	const clock = `rules:
  - name: near-the-close
    when: market.session == "regular" && market.minutes_to_close <= 5 && position("TSLAUSDT", "long").size > 0
    for: 30s
    actions:
      - close_positions: {symbol: TSLAUSDT, side: long}
  - name: at-the-bell
    when: minutes_until("16:00") < 1 && weekday != "Sunday"
    cooldown: 1h
    actions:
      - log: {message: the bell}
  - name: early-in-the-session
    when: market.session == "regular" && market.minutes_since_open < 15 && market.minutes_since_open >= 10
    cooldown: 1h
    actions:
      - log: {message: early in the session}
  - name: before-overnight
    when: market.minutes_to_next_session <= 3 && market.next_session == "overnight"
    cooldown: 1h
    actions:
      - log: {message: overnight soon}
`
	if err := os.WriteFile(filepath.Join(dir, "clock.yaml"), []byte(clock), 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}
