package backtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

// These tests hold the backtest's reuse of condition results
// (engine.Options.Reuse, which only the backtest sets) to what
// running every condition on every tick gives, case by case: a rule keyed
// by its symbols, one that compares the clock with constants, one that
// reads the session. TestSkippingChangesNothing compares whole reports.

// reuseRig is a backtest of ruleYAML on the demo scenario from its start
// plus after, stepped by hand one second at a time (no leap over quiet
// seconds): poller.PollDue, then eng.Step, then v.Advance.
type reuseRig struct {
	*runner
	poller runnerPolls
	eng    *engine.Engine
}

// runnerPolls polls what is due, as the runner does before each step.
type runnerPolls struct{ r *runner }

// PollDue polls what is due at the clock's time.
func (p runnerPolls) PollDue(ctx context.Context) error { return p.r.pollDue(ctx) }

func newReuseRigAt(t *testing.T, after time.Duration, ruleYAML string) *reuseRig {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), []byte(ruleYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	sc := sim.Demo()
	opts := Options{Scenario: sc, RuleDirs: []string{dir}, From: sc.Clock.Start.Add(after), Getenv: func(string) string { return "" }}
	if err := opts.defaults(); err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.sim == nil {
		t.Fatal("the demo account is not read by the source made for the simulator")
	}
	return &reuseRig{runner: r, poller: runnerPolls{r}, eng: r.asm.Engine}
}

// newReuseRig is newReuseRigAt at 10:30 EDT, in the regular session.
func newReuseRig(t *testing.T, ruleYAML string) *reuseRig {
	t.Helper()
	return newReuseRigAt(t, 90*time.Minute, ruleYAML)
}

// TestSymbolRuleKeptWhileOtherSymbolsMove: a condition on NVDAUSDT's
// position keeps its result while the TSLAUSDT position's P&L moves every
// price step (the positions answer changes, NVDAUSDT's records do not),
// and is run again, and fires, on the very tick an NVDAUSDT position
// appears.
func TestSymbolRuleKeptWhileOtherSymbolsMove(t *testing.T) {
	r := newReuseRig(t, `
rules:
  - name: hold-tsla
    when: position("TSLAUSDT", "long").size == 0
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}
  - name: nvda-opened
    when: position("NVDAUSDT", "long").size > 0
    actions:
      - log: {message: nvda}
`)
	step := func() []string {
		t.Helper()
		if err := r.poller.PollDue(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		var fired []string
		for _, f := range r.eng.Step(t.Context(), r.v.Now()) {
			fired = append(fired, f.Rule.Name)
		}
		r.v.Advance(time.Second)
		return fired
	}
	for i := range 120 {
		if fired := step(); (i == 0) != (len(fired) == 1 && fired[0] == "hold-tsla") || (i > 0 && len(fired) > 0) {
			t.Fatalf("tick %d fired %v: want hold-tsla on the first tick only", i, fired)
		}
	}
	stats, _, _ := r.eng.Stats()
	// In 120 s the TSLAUSDT position moved with the price a dozen times
	// (a 10 s walk step): its rule ran again each time, the NVDAUSDT one
	// only on the first tick and when the first fetches came in.
	if got := stats["hold-tsla"].Reused; got > 110 {
		t.Errorf("hold-tsla reused %d of 120 results: its own position moved, it must run again", got)
	}
	if got := stats["nvda-opened"].Reused; got < 117 {
		t.Errorf("nvda-opened reused %d of 120 results, want at least 117: other symbols' moves ran it again", got)
	}
	// An NVDAUSDT position appears: the next tick runs the rule and fires.
	if _, err := r.acct.PlaceOrder(t.Context(), exchange.PlaceOrderRequest{Symbol: "NVDAUSDT", ProductType: exchange.USDTFutures,
		MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "1", Side: exchange.Buy, OrderType: exchange.Market}); err != nil {
		t.Fatal(err)
	}
	if fired := step(); len(fired) != 1 || fired[0] != "nvda-opened" {
		t.Fatalf("after NVDAUSDT opened, fired %v; want nvda-opened", fired)
	}
}

// TestClockRuleKeptUntilItsLimit: a condition that compares the session's
// minutes with constants keeps its result between ticks until the minute
// it can change, and fires on the very tick it comes true (09:32:00 and
// 09:31:00 EDT), as a condition run every tick would.
func TestClockRuleKeptUntilItsLimit(t *testing.T) {
	r := newReuseRigAt(t, 30*time.Minute-10*time.Second, `
rules:
  - name: two-minutes-in
    when: >
      market.session == "regular" && market.minutes_since_open >= 2
      && position("BTCUSDT", "long").size == 0
    actions:
      - log: {message: two minutes in}
  - name: a-minute-gone
    when: market.session == "regular" && market.minutes_to_close <= 389 && weekday != "Sunday"
    actions:
      - log: {message: a minute gone}
`)
	open := r.v.Now().Add(10 * time.Second)
	fired := map[string][]time.Time{}
	const ticks = 200
	for range ticks {
		if err := r.poller.PollDue(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		for _, f := range r.eng.Step(t.Context(), r.v.Now()) {
			fired[f.Rule.Name] = append(fired[f.Rule.Name], f.At)
		}
		r.v.Advance(time.Second)
	}
	want := map[string]time.Time{"two-minutes-in": open.Add(2 * time.Minute), "a-minute-gone": open.Add(time.Minute)}
	for name, at := range want {
		if got := fired[name]; len(got) != 1 || !got[0].Equal(at) {
			t.Errorf("%s fired at %v, want once at %v", name, got, at)
		}
	}
	stats, _, _ := r.eng.Stats()
	for name := range want {
		s := stats[name]
		// Run again at the open (a new session), at the limit and around
		// new answers of the positions; kept otherwise.
		if s.Evaluations != ticks || s.Reused < ticks*3/4 {
			t.Errorf("%s: %d evaluations, %d reused; want %d, at least %d reused", name, s.Evaluations, s.Reused, ticks, ticks*3/4)
		}
		t.Logf("%s: %d of %d evaluations reused", name, s.Reused, s.Evaluations)
	}
}

// TestSessionRuleKeptUntilTheSessionChanges: a condition that reads the
// session and data that does not change is run again only when the session
// changes, and fires on the very tick it opens (09:30:00 EDT), not on a
// later fetch of the data.
func TestSessionRuleKeptUntilTheSessionChanges(t *testing.T) {
	r := newReuseRigAt(t, 30*time.Minute-10*time.Second, `
rules:
  - name: at-the-open
    when: market.session == "regular" && position("BTCUSDT", "long").size == 0
    actions:
      - log: {message: open}
`)
	open := r.v.Now().Add(10 * time.Second)
	var firedAt []time.Time
	for range 20 {
		if err := r.poller.PollDue(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		for _, f := range r.eng.Step(t.Context(), r.v.Now()) {
			firedAt = append(firedAt, f.At)
		}
		r.v.Advance(time.Second)
	}
	if len(firedAt) != 1 || !firedAt[0].Equal(open) {
		t.Fatalf("fired at %v, want once at the open %v", firedAt, open)
	}
	stats, _, _ := r.eng.Stats()
	// Ticks 2-10 keep the pre-market result; the open runs it again.
	if got := stats["at-the-open"].Reused; got < 9 {
		t.Errorf("reused %d results before the open, want at least 9", got)
	}
}
