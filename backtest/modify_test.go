package backtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

// TestBacktestModifiesAnOrder is the regression test of a backtest that
// stopped for good at a modify_order of size and price: the dispatcher
// looks the new order up by its client order id a second later, on the
// clock, and nothing moved the backtest's clock during a tick. The run is
// bounded by its context: before the fix it ended with the deadline.
func TestBacktestModifiesAnOrder(t *testing.T) {
	dir := t.TempDir()
	rules := `
rules:
  - name: bid
    when: orders_count("BTCUSDT") == 0
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.01, price: 50000}
  - name: move-bid
    when: orders_count("BTCUSDT") == 1 && orders("BTCUSDT")[0].age_seconds >= 5
    once: per_day
    actions:
      - modify_order: {symbol: BTCUSDT, order_id: '=orders("BTCUSDT")[0].id', new_size: 0.02, new_price: 49000}
`
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	from := sim.Demo().Clock.Start.Add(time.Hour)
	rep, err := Run(ctx, Options{Scenario: sim.Demo(), RuleDirs: []string{dir}, From: from, To: from.Add(time.Minute)})
	if err != nil {
		t.Fatalf("the backtest did not finish: %v", err)
	}
	var modified bool
	for _, f := range rep.Firings {
		if f.Rule != "move-bid" {
			continue
		}
		if len(f.Actions) != 1 || f.Actions[0].Kind != "modify_order" || f.Actions[0].Outcome != "ok" {
			t.Fatalf("move-bid: %+v", f.Actions)
		}
		modified = true
	}
	if !modified {
		t.Fatalf("move-bid never fired: %+v", rep.Firings)
	}
	var live []Order
	for _, o := range rep.Orders {
		if o.State == "live" {
			live = append(live, o)
		}
	}
	if len(live) != 1 || live[0].Price != "49000" || live[0].Size != "0.02" {
		t.Errorf("live orders after the modify: %+v; want one of 0.02 at 49000", live)
	}
}
