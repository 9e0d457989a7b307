package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/metrics"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim/simtest"
)

// source serves empty States; the stock book is stale, everything else fresh.
type source struct{}

func (source) State(now time.Time) (*marketdata.State, error) {
	return marketdata.NewState(marketdata.BuildInput{Now: now}, marketdata.BuildOptions{})
}
func (source) FullyPolled() bool { return true }
func (source) Stale(_ *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	return marketdata.PartStockBook, parts.Has(marketdata.PartStockBook)
}
func (source) Parts() marketdata.PartSet {
	return marketdata.PartSet(0).Add(marketdata.PartStockBook).Add(marketdata.PartPositions)
}

// executor answers every firing with one reconciled order and one failed chunk.
type executor struct{}

func (executor) Execute(context.Context, *engine.Firing) []actions.Leg {
	return []actions.Leg{
		{Kind: "place_order", Outcome: actions.OK, Reconciled: true},
		{Kind: "batch_place", Outcome: actions.Failed},
	}
}

type limiter struct{}

func (limiter) Stats() exchange.LimiterStats {
	return exchange.LimiterStats{Ops: map[exchange.Op]exchange.OpStats{
		exchange.OpPlaceOrder: {Waits: 3, WaitTime: 1500 * time.Millisecond, Throttled: 1},
	}}
}

// load loads rule YAML against the demo scenario's contracts.
func load(t *testing.T, yaml string) *rules.RuleSet {
	t.Helper()
	x := simtest.NewRig(t, simtest.RigOptions{}).Exchange
	cat, err := rules.FetchCatalog(context.Background(), x.Public())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, errs := rules.Load(context.Background(), []string{dir}, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
	if rs == nil {
		t.Fatalf("rules: %v", errs)
	}
	return rs
}

// TestScrape runs three ticks of an engine with a rule that fires, one that
// cannot be evaluated and one that reads stale data, and scrapes the
// metrics over HTTP on loopback.
func TestScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	v := clock.NewVirtual(time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC))
	eng, err := engine.New(engine.Options{
		Rules: load(t, `
rules:
  - {name: fires, when: "true", actions: [log: {message: hi}]}
  - {name: errors, when: 'position("BTCUSDT", "long").size > 0', actions: [log: {message: hi}]}
  - {name: stale, when: 'stock("TSLA").bid > 0', actions: [log: {message: hi}]}
`),
		Source: source{}, Executor: executor{}, Clock: v,
		OnFiring: func(f *engine.Firing) { m.ObserveLegs(f.Legs) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := metrics.RegisterSources(reg, metrics.Sources{Engine: eng, Limiter: limiter{}, Parts: source{}, Clock: v}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		eng.Step(context.Background(), v.Now())
		v.Advance(time.Second)
	}
	m.ObservePoll(marketdata.PartPositions, "USDT-FUTURES", 30*time.Millisecond, nil)
	m.ObservePoll(marketdata.PartPositions, "USDT-FUTURES", 2*time.Second, context.DeadlineExceeded)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := metrics.Serve(ctx, "127.0.0.1:0", reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + addr.String() + "/metrics"
	want := `
# HELP tickrules_actions_total Requests sent by actions (one per leg: an order, a batch chunk, a cancel), by action kind and outcome (ok, error, blocked).
# TYPE tickrules_actions_total counter
tickrules_actions_total{kind="batch_place",outcome="error"} 1
tickrules_actions_total{kind="place_order",outcome="ok"} 1
# HELP tickrules_reconciliations_total Ambiguous outcomes (timeout, 5xx, no order id) settled by looking the order up by clientOid, by action kind and final outcome.
# TYPE tickrules_reconciliations_total counter
tickrules_reconciliations_total{kind="place_order",outcome="ok"} 1
# HELP tickrules_rule_evaluations_total Ticks on which a rule was evaluated (or skipped for stale data), by rule.
# TYPE tickrules_rule_evaluations_total counter
tickrules_rule_evaluations_total{rule="errors"} 3
tickrules_rule_evaluations_total{rule="fires"} 3
tickrules_rule_evaluations_total{rule="stale"} 3
# HELP tickrules_rule_firings_total Firings of a rule (transitions into firing; its actions ran), by rule.
# TYPE tickrules_rule_firings_total counter
tickrules_rule_firings_total{rule="errors"} 0
tickrules_rule_firings_total{rule="fires"} 1
tickrules_rule_firings_total{rule="stale"} 0
# HELP tickrules_rule_errors_total Evaluations of a rule whose condition could not be evaluated (not counting stale data), by rule.
# TYPE tickrules_rule_errors_total counter
tickrules_rule_errors_total{rule="errors"} 3
tickrules_rule_errors_total{rule="fires"} 0
tickrules_rule_errors_total{rule="stale"} 0
# HELP tickrules_rule_stale_total Evaluations of a rule skipped because a part it reads was stale or missing, by rule.
# TYPE tickrules_rule_stale_total counter
tickrules_rule_stale_total{rule="errors"} 0
tickrules_rule_stale_total{rule="fires"} 0
tickrules_rule_stale_total{rule="stale"} 3
# HELP tickrules_engine_ticks_total Ticks the engine ran.
# TYPE tickrules_engine_ticks_total counter
tickrules_engine_ticks_total 3
# HELP tickrules_rate_limit_waits_total Requests that waited for the client-side rate limiter, by operation.
# TYPE tickrules_rate_limit_waits_total counter
tickrules_rate_limit_waits_total{op="place-order"} 3
# HELP tickrules_rate_limit_wait_seconds_total Time requests spent waiting for the client-side rate limiter, by operation.
# TYPE tickrules_rate_limit_wait_seconds_total counter
tickrules_rate_limit_wait_seconds_total{op="place-order"} 1.5
# HELP tickrules_rate_limited_responses_total HTTP 429 answers received, by operation (each is a bug: the limiter should prevent it).
# TYPE tickrules_rate_limited_responses_total counter
tickrules_rate_limited_responses_total{op="place-order"} 1
# HELP tickrules_stale_part 1 when a polled State part is stale or missing now, else 0, by part.
# TYPE tickrules_stale_part gauge
tickrules_stale_part{part="positions"} 0
tickrules_stale_part{part="stock_book"} 1
# HELP tickrules_poll_errors_total Polls that failed, by part; the previous answer is kept and ages towards staleness.
# TYPE tickrules_poll_errors_total counter
tickrules_poll_errors_total{part="positions"} 1
`
	names := []string{"tickrules_actions_total", "tickrules_reconciliations_total", "tickrules_rule_evaluations_total",
		"tickrules_rule_firings_total", "tickrules_rule_errors_total", "tickrules_rule_stale_total", "tickrules_engine_ticks_total",
		"tickrules_rate_limit_waits_total", "tickrules_rate_limit_wait_seconds_total", "tickrules_rate_limited_responses_total",
		"tickrules_stale_part", "tickrules_poll_errors_total"}
	if err := testutil.ScrapeAndCompare(url, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	// The histogram: two observations, one under 50ms, one over 1s.
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	if _, err := io.Copy(&body, resp.Body); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`tickrules_poll_duration_seconds_bucket{part="positions",le="0.05"} 1`,
		`tickrules_poll_duration_seconds_bucket{part="positions",le="1"} 1`,
		`tickrules_poll_duration_seconds_bucket{part="positions",le="2.5"} 2`,
		`tickrules_poll_duration_seconds_count{part="positions"} 2`,
	} {
		if !strings.Contains(body.String(), line+"\n") {
			t.Errorf("scrape lacks %q", line)
		}
	}
}

func TestNewNeedsRegistry(t *testing.T) {
	if _, err := metrics.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	if err := metrics.RegisterSources(nil, metrics.Sources{}); err == nil {
		t.Error("RegisterSources(nil) succeeded")
	}
}

// pulse, kill and offset are the health sources, set by hand.
type pulse struct{ hb engine.Heartbeat }

func (p *pulse) Heartbeat() engine.Heartbeat { return p.hb }

type kill struct{ on bool }

func (k *kill) Killed() (bool, string) { return k.on, "SIGUSR1" }

type offset struct{ d time.Duration }

func (o *offset) Offset() time.Duration { return o.d }

// TestHealthMetrics: the gauges the alert rules (deploy/kubernetes) read:
// the tick loop's last tick, readiness, the kill switch and the venue
// clock's offset.
func TestHealthMetrics(t *testing.T) {
	names := []string{"tickrules_engine_last_tick_timestamp_seconds", "tickrules_engine_ready", "tickrules_kill_switch", "tickrules_venue_clock_offset_seconds"}
	cases := []struct {
		name  string
		hb    engine.Heartbeat
		kill  bool
		off   time.Duration
		lines string
	}{
		{name: "before the first tick", off: -250 * time.Millisecond, lines: `
tickrules_engine_last_tick_timestamp_seconds 0
tickrules_engine_ready 0
tickrules_kill_switch 0
tickrules_venue_clock_offset_seconds -0.25
`},
		{name: "ticking, ready, kill switch on", hb: engine.Heartbeat{Last: time.Unix(1773064800, 5e8), Ready: true}, kill: true, off: 31 * time.Second, lines: `
tickrules_engine_last_tick_timestamp_seconds 1.7730648005e+09
tickrules_engine_ready 1
tickrules_kill_switch 1
tickrules_venue_clock_offset_seconds 31
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			if err := metrics.RegisterSources(reg, metrics.Sources{Heartbeat: &pulse{c.hb}, Kill: &kill{c.kill}, Offset: &offset{c.off}}); err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			help := map[string]string{
				"tickrules_engine_last_tick_timestamp_seconds": "When the tick loop last finished a tick, in Unix seconds of the engine's clock (0 before the first): a stuck loop stops moving it.",
				"tickrules_engine_ready":                       "1 once every polled part was fetched once (rules may fire), else 0.",
				"tickrules_kill_switch":                        "1 while the kill switch is on (no new orders; cancels and closes still run), else 0.",
				"tickrules_venue_clock_offset_seconds":         "The venue's clock minus the local clock; the venue refuses requests signed more than 30s off.",
			}
			for _, line := range strings.Split(strings.TrimSpace(c.lines), "\n") {
				name, _, _ := strings.Cut(line, " ")
				fmt.Fprintf(&want, "# HELP %s %s\n# TYPE %s gauge\n%s\n", name, help[name], name, line)
			}
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want.String()), names...); err != nil {
				t.Error(err)
			}
		})
	}
}

// stats is an engine's counters, fixed.
type stats struct{}

func (stats) Stats() (map[string]engine.RuleStats, int64, int64) {
	return map[string]engine.RuleStats{"r": {Evaluations: 1}}, 1, 0
}

// TestAlertRulesNameExportedMetrics: every metric the alert rules of
// deploy/kubernetes/prometheusrule.yaml read is one the engine exports
// (deploy/kubernetes's own test parses the rules with Prometheus's parser).
func TestAlertRulesNameExportedMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	v := clock.NewVirtual(time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC))
	if err := metrics.RegisterSources(reg, metrics.Sources{Engine: stats{}, Limiter: limiter{}, Parts: source{}, Clock: v,
		Heartbeat: &pulse{}, Kill: &kill{}, Offset: &offset{}}); err != nil {
		t.Fatal(err)
	}
	// The metrics by label appear once observed.
	m.ObservePoll(marketdata.PartPositions, "USDT-FUTURES", time.Millisecond, context.DeadlineExceeded)
	m.ObserveLegs([]actions.Leg{{Kind: "place_order", Outcome: actions.Failed, Reconciled: true}})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range families {
		exported[f.GetName()] = true
	}
	rules, err := os.ReadFile(filepath.Join("..", "deploy", "kubernetes", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\btickrules_[a-z_]+`).FindAllString(string(rules), -1)
	if len(named) < 5 {
		t.Fatalf("the alert rules name only %q", named)
	}
	for _, name := range named {
		if !exported[name] {
			t.Errorf("the alert rules read %s, which the engine does not export", name)
		}
	}
}
