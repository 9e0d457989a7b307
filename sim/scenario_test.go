package sim

import (
	"errors"
	"strings"
	"testing"
)

func TestDemoLoads(t *testing.T) {
	sc := Demo()
	if len(sc.Accounts) != 2 || len(sc.Contracts) != 7 || len(sc.StockPairs) != 3 {
		t.Fatalf("demo: %d accounts, %d contracts, %d stock pairs", len(sc.Accounts), len(sc.Contracts), len(sc.StockPairs))
	}
	if got := sc.Accounts[0].SpotRecords[0].Coin; got != "USDT" {
		t.Errorf("first spot record coin = %q", got)
	}
	if got := sc.Contracts[0].MinTradeUSDT; got != "5" {
		t.Errorf("min_trade_usdt decoded as %q", got)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "name: x\nclock: {start: 2026-01-01T00:00:00Z}\nbogus: 1\n", "bad.yaml:3: field bogus not found"},
		{"unknown contract key", "clock: {start: 2026-01-01T00:00:00Z}\ncontracts:\n  - {product_type: USDT-FUTURES, symbol: X, price_plac: \"1\"}\n", "bad.yaml:3: unknown key \"price_plac\""},
		{"missing start", "name: x\n", "bad.yaml:1: clock.start is required"},
		{"bad product type", "clock: {start: 2026-01-01T00:00:00Z}\ncontracts:\n  - {product_type: SPOT, symbol: X}\n", "bad.yaml:3: product_type \"SPOT\""},
		{"bad setting", "clock: {start: 2026-01-01T00:00:00Z}\nsettings:\n  one_way_trade_side: maybe\n", "bad.yaml:3: one_way_trade_side must be"},
		{"duplicate key", "clock: {start: 2026-01-01T00:00:00Z}\naccounts:\n  - {uid: \"1\", api_key: k}\n  - {uid: \"2\", api_key: k}\n", "bad.yaml:4: api_key \"k\" is used twice"},
		{"strategy type mismatch", "clock: {start: 2026-01-01T00:00:00Z}\nstrategy_orders:\n  - {type: oco, category: spot, take_profit: \"1\"}\n", "bad.yaml:3: type is oco but the parameters given make a tpsl order"},
		{"bad spot type", "clock: {start: 2026-01-01T00:00:00Z}\naccounts:\n  - uid: \"1\"\n    api_key: k\n    spot_records:\n      - {coin: USDT, spot_tax_type: Nope, ts: 2026-01-01T00:00:00Z}\n", "bad.yaml:6: spot_tax_type \"Nope\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario([]byte(tt.yaml), "bad.yaml", ".")
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
			if !errors.Is(err, ErrScenario) {
				t.Errorf("error does not match ErrScenario")
			}
		})
	}
}
