package marketdata

import (
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// TestPositionModeFromBuildOptions: the live venue's accounts list names no
// position mode, so the State takes the one BuildOptions.PositionModes gives
// (the engine reads it from the single account); a mode the answer names
// wins, and without either the mode is missing data, never a guess.
func TestPositionModeFromBuildOptions(t *testing.T) {
	hedge := func(exchange.ProductType) (exchange.PosMode, bool) { return exchange.HedgeMode, true }
	unknown := func(exchange.ProductType) (exchange.PosMode, bool) { return "", false }
	for _, c := range []struct {
		name     string
		answered exchange.PosMode // posMode in the accounts answer
		modes    func(exchange.ProductType) (exchange.PosMode, bool)
		want     string // "" for missing
	}{
		{"the answer names it", exchange.OneWayMode, hedge, "one_way_mode"},
		{"the live venue: given by the options", "", hedge, "hedge_mode"},
		{"not known anywhere", "", unknown, ""},
		{"no options", "", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := BuildInput{Now: now, Balances: []BalancesInput{{ProductType: exchange.USDTFutures, At: now,
				Accounts: []exchange.Account{{MarginCoin: "USDT", Available: "1000", PosMode: c.answered}}}}}
			s, err := NewState(in, BuildOptions{PositionModes: c.modes})
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.PositionMode(exchange.USDTFutures)
			if c.want == "" {
				if err == nil {
					t.Fatalf("position mode = %q, want missing", m)
				}
				return
			}
			if err != nil || m != c.want {
				t.Fatalf("position mode = %q, %v; want %q", m, err, c.want)
			}
			if b, err := s.Balance("USDT"); err != nil || b.PositionMode != c.want {
				t.Errorf("balance(\"USDT\").position_mode = %q, %v; want %q", b.PositionMode, err, c.want)
			}
		})
	}
}
