package actions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// equityState is the State at now with a USDT-FUTURES account of that
// equity ("" : no account fetched).
func equityState(t *testing.T, now time.Time, equity string) *marketdata.State {
	t.Helper()
	in := marketdata.BuildInput{Now: now, Contracts: []marketdata.ProductContract{{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures}}}
	if equity != "" {
		in.Balances = []marketdata.BalancesInput{{ProductType: exchange.USDTFutures, At: now, Accounts: []exchange.Account{
			{MarginCoin: "USDT", Available: exchange.Num(equity), Locked: "0", AccountEquity: exchange.Num(equity), UnrealizedPL: "0"}}}}
	}
	st, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestMaxDrawdown walks an equity path an hour at a time and checks the
// hour at which a 10% fall from the week's peak trips, what it blocks,
// that a restart keeps the peak, and that the peak counts from a resume.
func TestMaxDrawdown(t *testing.T) {
	limits := Protections{MaxDrawdown: map[string]Drawdown{"USDT": {Percent: decimal.NewFromInt(10), Within: 7 * 24 * time.Hour}}}
	now := protectionsStart
	var saved EquityPeaks
	var halts []Halt
	newGuard := func(peaks EquityPeaks, halt Halt) *Guard {
		return NewGuard(GuardOptions{Safety: &Safety{Protections: limits}, Now: func() time.Time { return now }, Halt: halt, EquityPeaks: peaks,
			SaveEquityPeaks: func(p EquityPeaks) error { saved = p; return nil },
			SaveHalt:        func(h Halt) error { halts = append(halts, h); return nil }})
	}
	g := newGuard(nil, Halt{})
	step := func(equity string) {
		t.Helper()
		g.Observe(equityState(t, now, equity))
		now = now.Add(time.Hour)
	}
	step("10000")
	step("11000") // the peak
	step("10500")
	// Restart: a new guard from what was saved keeps the peak of 11000.
	g = newGuard(saved, Halt{})
	step("")     // no account fetched: nothing is measured
	step("9901") // 9.99% below 11000: not yet
	if on, why := g.Killed(); on {
		t.Fatalf("halted at 9901 (less than 10%% below 11000): %s", why)
	}
	tripAt := now
	step("9899") // 10.01% below
	on, why := g.Killed()
	if !on || !strings.Contains(why, "max_drawdown") || !strings.Contains(why, "peak of 11000 ") {
		t.Fatalf("Killed() = %v, %q; want max_drawdown from the peak of 11000", on, why)
	}
	if len(halts) != 1 || !halts[0].At.Equal(tripAt) || !halts[0].Until.IsZero() {
		t.Fatalf("halts kept %+v; want one at %s, until lifted by hand", halts, tripAt)
	}
	if err := g.Allow(OrderCheck{Symbol: "TSLAUSDT", Size: decimal.NewFromInt(1)}); !errors.Is(err, ErrKillSwitch) {
		t.Errorf("an entry while tripped: %v, want ErrKillSwitch", err)
	}
	if err := g.Allow(OrderCheck{Symbol: "TSLAUSDT", Size: decimal.NewFromInt(1), Reducing: true}); err != nil {
		t.Errorf("an exit while tripped: %v, want it to pass", err)
	}
	// A restart while tripped (the halt file and the peaks) still halts.
	g = newGuard(saved, halts[len(halts)-1])
	step("9800")
	if on, _ := g.Killed(); !on {
		t.Fatal("a restart lifted the drawdown halt")
	}
	// Resumed by hand: the peak counts from now, so the same equity does
	// not trip again; a further 10% fall from the new peak does.
	if err := g.Resume(); err != nil {
		t.Fatal(err)
	}
	if len(saved) != 0 {
		t.Errorf("after the resume the peaks kept are %+v, want none", saved)
	}
	step("9800")
	if on, why := g.Killed(); on {
		t.Fatalf("tripped again on the fall before the resume: %s", why)
	}
	step("8819") // 10.01% below 9800
	if on, why := g.Killed(); !on || !strings.Contains(why, "peak of 9800 ") {
		t.Errorf("Killed() = %v, %q; want a trip from the new peak of 9800", on, why)
	}
}

// TestMaxDrawdownWindow: a peak older than the window no longer counts.
func TestMaxDrawdownWindow(t *testing.T) {
	limits := Protections{MaxDrawdown: map[string]Drawdown{"USDT": {Percent: decimal.NewFromInt(10), Within: 24 * time.Hour}}}
	now := protectionsStart
	g := NewGuard(GuardOptions{Safety: &Safety{Protections: limits}, Now: func() time.Time { return now }})
	g.Observe(equityState(t, now, "11000"))
	for range 24 {
		now = now.Add(time.Hour)
		g.Observe(equityState(t, now, "10000"))
	}
	now = now.Add(time.Hour)
	g.Observe(equityState(t, now, "9500")) // 13.6% below 11000 of 25 hours ago, 5% below 10000
	if on, why := g.Killed(); on {
		t.Errorf("a peak older than 24h tripped: %s", why)
	}
}

func TestMaxDrawdownInTheSafetyFile(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"ok", "USDT: {percent: 10, within: 168h}", ""},
		{"percent missing", "USDT: {within: 168h}", "percent must be above 0"},
		{"percent 100", "USDT: {percent: 100, within: 168h}", "below 100"},
		{"window under an hour", "USDT: {percent: 5, within: 30m}", "1h or more"},
		{"misspelt", "USDT: {percnt: 5, within: 24h}", "did you mean percent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := loadSafetyText(t, "protections:\n  max_drawdown: {"+tt.yaml+"}\n")
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && !s.Protections.MaxDrawdown["USDT"].Percent.Equal(decimal.NewFromInt(10)):
				t.Errorf("read %+v", s.Protections.MaxDrawdown)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// loadSafetyText loads a safety file holding text.
func loadSafetyText(t *testing.T, text string) (*Safety, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "safety.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadSafety(path)
}
