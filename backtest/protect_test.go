package backtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim/simtest"
)

// TestBacktestProtectTrailingStopFiresOnTheRetrace runs the trailing stop
// the way a trader writes it, through the engine, the poller and the
// simulator: a short opened at 14:00 on the conformance scenario's BTCUSDT
// (50000 until 15:00, 49000 at 16:00, 51000 at 17:00) is protected by a 2%
// trailing stop that starts at 49500. The stop follows the low to 49000
// and closes the short on the way back up, at 49980, 16:29:24; a stop that
// did not follow the low would close it at 50490, 16:44:42.
func TestBacktestProtectTrailingStopFiresOnTheRetrace(t *testing.T) {
	dir := t.TempDir()
	rules := `
rules:
  - name: sell
    when: position("BTCUSDT", "short").size == 0
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: short, type: market, size: 0.01}
  - name: trail
    when: position("BTCUSDT", "short").is_open && len(strategy_orders("BTCUSDT")) == 0
    once: per_day
    actions:
      - protect: {symbol: BTCUSDT, position: short, trailing_ratio: 2, activation_price: 49500}
`
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc := simtest.Scenario()
	sc.StrategyOrders = nil
	for i := range sc.Accounts {
		sc.Accounts[i].StrategyOrders = nil
	}
	from := sc.Clock.Start
	rep, err := Run(ctx, Options{Scenario: sc, APIKey: simtest.OneWayKey, RuleDirs: []string{dir}, From: from, To: from.Add(3 * time.Hour)})
	if err != nil {
		t.Fatalf("backtest: %v", err)
	}
	var protected bool
	for _, f := range rep.Firings {
		if f.Rule == "trail" && len(f.Actions) == 1 && f.Actions[0].Kind == "protect" && f.Actions[0].Outcome == "ok" {
			protected = true
		}
	}
	if !protected {
		t.Fatalf("the trailing stop was not placed: %+v", rep.Firings)
	}
	var closes []Order
	for _, o := range rep.Orders {
		if o.Symbol == "BTCUSDT" && o.Side == "buy" {
			closes = append(closes, o)
		}
	}
	if len(closes) != 1 || closes[0].State != "filled" {
		t.Fatalf("orders that buy the short back: %+v; want the trailing stop's, filled", closes)
	}
	at, err := time.Parse(time.RFC3339, closes[0].Time)
	if err != nil {
		t.Fatal(err)
	}
	// 49980 is 980 above the low, at 2000 an hour: 29 min 24 s after 16:00.
	if want := from.Add(149*time.Minute + 24*time.Second); !at.Equal(want) {
		t.Errorf("the trailing stop closed the short at %s, want %s", at.UTC().Format(time.TimeOnly), want.UTC().Format(time.TimeOnly))
	}
}
