package backtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

// writeManyRules writes n rules that read what real rule sets read (the
// session, positions, stock books, pending orders); one in ten trades now
// and then, the rest watch.
func writeManyRules(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("rules:\n")
	syms := []string{"TSLA", "NVDA", "AAPL"}
	for i := range n {
		s := syms[i%len(syms)]
		switch {
		case i%10 == 0:
			fmt.Fprintf(&b, "  - name: trade-%03d\n    when: market.session == \"regular\" && position(\"%sUSDT\", \"long\").size == 0\n    cooldown: 2h\n    actions:\n      - place_order: {symbol: %sUSDT, open: long, type: market, size: 0.1}\n", i, s, s)
		case i%10 == 1:
			fmt.Fprintf(&b, "  - name: exit-%03d\n    when: position(\"%sUSDT\", \"long\").unrealized_pnl_pct > 0.004 || position(\"%sUSDT\", \"long\").unrealized_pnl_pct < -0.004\n    actions:\n      - close_positions: {symbol: %sUSDT, side: long}\n", i, s, s, s)
		default:
			fmt.Fprintf(&b, "  - name: watch-%03d\n    when: stock(\"%s\").spread_bps > %d && orders_count(\"%sUSDT\") > 100\n    actions:\n      - cancel_all: {}\n", i, s, 50+i, s)
		}
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "many.yaml"), []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkBacktest runs a backtest of the demo scenario at one-second
// steps and reports ticks per second. The week-long cases are the issue's
// benchmark (run with -benchtime=1x); BACKTEST_SPAN shortens them for
// profiling (e.g. BACKTEST_SPAN=24h).
func BenchmarkBacktest(b *testing.B) {
	span := 7 * 24 * time.Hour
	if s := os.Getenv("BACKTEST_SPAN"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		span = d
	}
	cases := []struct {
		name string
		dir  func(testing.TB) string
	}{
		{"examples", func(testing.TB) string { return "../examples/rules" }},
		{"10rules", func(tb testing.TB) string { return writeManyRules(tb, 10) }},
		{"100rules", func(tb testing.TB) string { return writeManyRules(tb, 100) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := c.dir(b)
			sc := sim.Demo()
			var ticks int64
			b.ReportAllocs()
			for b.Loop() {
				rep, err := Run(context.Background(), Options{Scenario: sc, RuleDirs: []string{dir}, To: sc.Clock.Start.Add(span),
					Getenv: func(string) string { return "" }})
				if err != nil {
					b.Fatal(err)
				}
				ticks += rep.Ticks
			}
			b.ReportMetric(float64(ticks)/b.Elapsed().Seconds(), "ticks/s")
		})
	}
}

// BenchmarkDataPath measures what the issue calls "the simulator and State
// building": one tick's polls and State, without the engine. "tick" steps a
// second at a time, as the backtest does (a price step every ten); "step"
// steps ten seconds, so that every tick is a price step. A week is run at
// most, then a new run starts (outside the timing).
func BenchmarkDataPath(b *testing.B) {
	dir := writeManyRules(b, 10)
	for _, c := range []struct {
		name string
		step time.Duration
	}{{"tick", time.Second}, {"step", 10 * time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			var r *runner
			var t, end time.Time
			for b.Loop() {
				if r == nil || t.After(end) {
					b.StopTimer()
					sc := sim.Demo()
					opts := Options{Scenario: sc, RuleDirs: []string{dir}, Getenv: func(string) string { return "" }}
					if err := opts.defaults(); err != nil {
						b.Fatal(err)
					}
					var err error
					if r, err = newRunner(ctx, opts); err != nil {
						b.Fatal(err)
					}
					t, end = opts.From, opts.From.Add(7*24*time.Hour)
					b.StartTimer()
				}
				r.v.Set(t)
				_ = r.pollDue(ctx)
				if _, err := r.asm.Source.State(t); err != nil {
					b.Fatal(err)
				}
				t = t.Add(c.step)
			}
		})
	}
}
