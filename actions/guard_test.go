package actions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGuardAllow(t *testing.T) {
	safety := &Safety{
		AllowedSymbols: []string{"BTCUSDT", "TSLAUSDT"},
		Default:        Limits{MaxOrderSize: d("10"), MaxNotional: d("5000"), MaxPosition: d("20")},
		Symbols:        map[string]Limits{"BTCUSDT": {MaxOrderSize: d("0.5"), MaxNotional: d("40000")}},
	}
	g := NewGuard(GuardOptions{Safety: safety, FileExists: func(string) bool { return false }})
	tests := []struct {
		name string
		o    OrderCheck
		want error
	}{
		{"within limits", OrderCheck{Symbol: "TSLAUSDT", Size: d("2"), Price: d("250"), PositionAfter: d("2")}, nil},
		{"symbol not allowed", OrderCheck{Symbol: "ETHUSDT", Size: d("1"), Price: d("1")}, ErrSymbolNotAllow},
		{"per-symbol size overrides default", OrderCheck{Symbol: "BTCUSDT", Size: d("0.6"), Price: d("1")}, ErrOrderTooLarge},
		{"default size", OrderCheck{Symbol: "TSLAUSDT", Size: d("11"), Price: d("1")}, ErrOrderTooLarge},
		{"notional", OrderCheck{Symbol: "TSLAUSDT", Size: d("9"), Price: d("600")}, ErrNotionalTooHigh},
		{"position", OrderCheck{Symbol: "TSLAUSDT", Size: d("1"), Price: d("1"), PositionAfter: d("21")}, ErrPositionTooBig},
		{"a market order without a reference price under a notional limit", OrderCheck{Symbol: "TSLAUSDT", Size: d("1")}, ErrNoPrice},
		{"size unknown under a size limit", OrderCheck{Symbol: "TSLAUSDT", SizeUnknown: true, Price: d("1")}, ErrSizeUnknown},
		{"position unknown under a position limit", OrderCheck{Symbol: "TSLAUSDT", Size: d("1"), Price: d("1"), PositionUnknown: true}, ErrSizeUnknown},
		{"position unknown without a position limit", OrderCheck{Symbol: "BTCUSDT", Size: d("0.1"), Price: d("1"), PositionUnknown: true}, nil},
		{"reducing orders always pass", OrderCheck{Symbol: "ETHUSDT", Size: d("1000"), Price: d("1000"), Reducing: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.Allow(tt.o)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Allow = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestGuardOrdersPerMinute(t *testing.T) {
	now := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	g := NewGuard(GuardOptions{Safety: &Safety{MaxOrdersPerMinute: 2}, Now: func() time.Time { return now }})
	o := OrderCheck{Symbol: "BTCUSDT", Size: d("1"), Price: d("1")}
	for i := 0; i < 2; i++ {
		if err := g.Allow(o); err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	if err := g.Allow(o); !errors.Is(err, ErrTooManyOrders) {
		t.Fatalf("third order in a minute: %v", err)
	}
	if err := g.Allow(OrderCheck{Symbol: "BTCUSDT", Reducing: true}); err != nil {
		t.Errorf("a close was blocked by the order rate: %v", err)
	}
	now = now.Add(59 * time.Second)
	if err := g.Allow(o); !errors.Is(err, ErrTooManyOrders) {
		t.Fatalf("at 59s: %v", err)
	}
	now = now.Add(time.Second)
	if err := g.Allow(o); err != nil {
		t.Fatalf("after a minute: %v", err)
	}
}

func TestGuardKillSwitch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "STOP")
	g := NewGuard(GuardOptions{Safety: &Safety{KillSwitchFile: file}})
	open := OrderCheck{Symbol: "BTCUSDT", Size: d("1"), Price: d("1")}
	if err := g.Allow(open); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := g.Allow(open)
	if !errors.Is(err, ErrKillSwitch) || !strings.Contains(err.Error(), "STOP") {
		t.Fatalf("with the kill file: %v", err)
	}
	if err := g.Allow(OrderCheck{Symbol: "BTCUSDT", Reducing: true}); err != nil {
		t.Errorf("close blocked by the kill switch: %v", err)
	}
	os.Remove(file)
	g.Kill("SIGUSR1")
	if k, why := g.Killed(); !k || why != "SIGUSR1" {
		t.Errorf("Killed = %v %q", k, why)
	}
	if err := g.Allow(open); !errors.Is(err, ErrKillSwitch) {
		t.Errorf("after Kill: %v", err)
	}
	g.Resume()
	if err := g.Allow(open); err != nil {
		t.Errorf("after Resume: %v", err)
	}
}

func TestLoadSafety(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "allowed_symbols: [BTCUSDT]\ndefault: {max_order_size: 1.5}\nsymbols:\n  BTCUSDT: {max_notional: 50000}\nmax_orders_per_minute: 20\nkill_switch_file: /tmp/STOP\n")
	s, err := LoadSafety(good)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Default.MaxOrderSize.Equal(d("1.5")) || !s.Symbols["BTCUSDT"].MaxNotional.Equal(d("50000")) || s.MaxOrdersPerMinute != 20 {
		t.Errorf("LoadSafety = %+v", s)
	}
	for name, body := range map[string]string{
		"typo.yaml":     "max_order_per_minute: 5\n",
		"negative.yaml": "symbols:\n  X: {max_position: -1}\n",
		"rate.yaml":     "max_orders_per_minute: -2\n",
		"text.yaml":     "default: {max_order_size: lots}\n",
	} {
		if _, err := LoadSafety(write(name, body)); err == nil {
			t.Errorf("%s: accepted %q", name, body)
		}
	}
}
