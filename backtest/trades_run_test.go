package backtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

// heldScenario is a one-way account that starts with a long of 0.2 BTC at
// 82000; the price rises to 83000 and then falls through 80000.
const heldScenario = `
name: held-long
clock: {start: 2026-03-10T14:00:00Z, end: 2026-03-10T15:00:00Z, step: 1s}
accounts:
  - uid: "8400000001"
    api_key: held-key
    secret: held-secret
    passphrase: held-pass
    balances: {USDT: "25000"}
    position_mode: {USDT-FUTURES: one_way_mode}
    leverage: {BTCUSDT: "5"}
    positions:
      - {symbol: BTCUSDT, product_type: USDT-FUTURES, hold_side: long, size: "0.2", open_price: "82000", margin_mode: crossed}
contracts:
  - {product_type: USDT-FUTURES, symbol: BTCUSDT, base_coin: BTC, quote_coin: USDT, price_place: "1", volume_place: "4",
     price_end_step: "1", min_trade_num: "0.0001", min_trade_usdt: "5", maker_fee_rate: "0.0002", taker_fee_rate: "0.0006"}
prices:
  BTCUSDT:
    points:
      - {at: 2026-03-10T14:00:00Z, price: "83000"}
      - {at: 2026-03-10T14:20:00Z, price: "83000"}
      - {at: 2026-03-10T15:00:00Z, price: "78000"}
`

// heldRules adds 0.1 to the long at once, with a stop-loss at 80000 that
// the venue keeps on the whole position.
const heldRules = `
rules:
  - name: add-with-stop
    when: position("BTCUSDT", "long").size > 0 && position("BTCUSDT", "long").size < 0.25
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.1, stop_loss: 80000}
`

// TestHeldPositionClosedByStopLoss runs a backtest that starts with an open
// long. Before, the report listed the stop-loss's sell of 0.3 as the close
// of the rule's 0.1 and a new short of 0.2 "still open" entered by "no
// rule", and the exits said "no rule". Now: the held 0.2 is a closed long
// entered at the start ("held at start"), the rule's 0.1 a closed long,
// both exited by the stop-loss, nothing left open; fees are positive.
func TestHeldPositionClosedByStopLoss(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "held.yaml"), []byte(heldRules), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario([]byte(heldScenario), "held.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Scenario: sc, RuleDirs: []string{dir}, Step: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Trades) != 2 {
		t.Fatalf("want 2 trades, got %d: %+v", len(rep.Trades), rep.Trades)
	}
	held, added := rep.Trades[0], rep.Trades[1]
	for _, c := range []struct {
		name, got, want string
	}{
		{"held side", held.Side, "long"},
		{"held size", held.Size, "0.2"},
		{"held entry", held.EntryTime, rep.From},
		{"held entry price", held.EntryPrice, "82000"},
		{"held entered by", held.EntryBy, heldAtStart},
		{"held exit by", held.ExitBy, "stop-loss"},
		{"added side", added.Side, "long"},
		{"added size", added.Size, "0.1"},
		{"added rule", added.EntryRule, "add-with-stop"},
		{"added exit by", added.ExitBy, "stop-loss"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("%s = %q, want %q (trades %+v)", c.name, c.got, c.want, rep.Trades)
			}
		})
	}
	for _, tr := range rep.Trades {
		if tr.Open {
			t.Errorf("a trade is still open: %+v", tr)
		}
		if !parseOrZero(tr.Fees).IsPositive() {
			t.Errorf("fees paid %s, want positive: %+v", tr.Fees, tr)
		}
	}
	if n, _, _ := tradeStats(rep.Trades); n != 2 || rep.Summary.Accounts[0].Trades != 2 {
		t.Errorf("closed trades %d, account summary %d; want 2", n, rep.Summary.Accounts[0].Trades)
	}
}

// TestFundingInMetrics holds a long of 0.2 BTC at a flat 83000 across the
// 16:00 UTC funding settlement with a rate of 0.0001: the long pays
// 0.2 * 83000 * 0.0001 = 1.66 USDT, which the metrics show as funding
// paid; the position is open at every sample (100 % exposure) and buy and
// hold of BTCUSDT over a flat price is 0 %.
func TestFundingInMetrics(t *testing.T) {
	dir := t.TempDir()
	rules := "rules:\n  - name: never\n    when: position(\"BTCUSDT\", \"long\").size > 1\n    actions:\n      - close_positions: {symbol: BTCUSDT, side: long}\n"
	if err := os.WriteFile(filepath.Join(dir, "never.yaml"), []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	scenario := strings.NewReplacer("clock: {start: 2026-03-10T14:00:00Z, end: 2026-03-10T15:00:00Z, step: 1s}",
		"clock: {start: 2026-03-10T15:30:00Z, end: 2026-03-10T16:30:00Z, step: 1s}\nsettings: {funding_rate: \"0.0001\"}",
		"      - {at: 2026-03-10T14:00:00Z, price: \"83000\"}\n      - {at: 2026-03-10T14:20:00Z, price: \"83000\"}\n      - {at: 2026-03-10T15:00:00Z, price: \"78000\"}",
		"      - {at: 2026-03-10T15:00:00Z, price: \"83000\"}\n      - {at: 2026-03-10T17:00:00Z, price: \"83000\"}").Replace(heldScenario)
	sc, err := sim.ParseScenario([]byte(scenario), "funding.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Scenario: sc, RuleDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Summary.Accounts[0].Metrics
	for _, c := range []struct{ name, got, want string }{
		{"funding paid", m.FundingPaid, "1.66"},
		{"exposure", m.ExposurePct, "100"},
		{"buy and hold", m.BuyAndHoldPct, "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("%s = %q, want %q (metrics %+v)", c.name, c.got, c.want, m)
			}
		})
	}
}
