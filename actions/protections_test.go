package actions

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// protectionsStart is 10:00 New York time (EDT) on Monday 2026-03-09.
var protectionsStart = time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)

// close is a position of symbol closed at closedAt with a net P&L of pnl.
func closeOf(symbol, pnl string, closedAt time.Time) exchange.HistoryPosition {
	return exchange.HistoryPosition{PositionID: symbol + closedAt.Format("150405"), MarginCoin: "USDT", Symbol: symbol, HoldSide: "long",
		CloseTotalPos: "1", NetProfit: exchange.Num(pnl), Pnl: exchange.Num(pnl),
		CTime: exchange.MillisOf(closedAt.Add(-time.Hour)), UTime: exchange.MillisOf(closedAt)}
}

// protectionState is the State at now with the closes and, when upl is not
// empty, an open TSLAUSDT long with that unrealised P&L.
func protectionState(t *testing.T, now time.Time, closes []exchange.HistoryPosition, upl string) *marketdata.State {
	t.Helper()
	var open []exchange.Position
	if upl != "" {
		open = append(open, exchange.Position{Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: "long", Total: "1", Available: "1",
			OpenPriceAvg: "250", MarkPrice: "240", UnrealizedPL: exchange.Num(upl), MarginSize: "25", Leverage: "10",
			MarginMode: exchange.Crossed, PosMode: exchange.OneWayMode, CTime: exchange.MillisOf(now.Add(-time.Hour))})
	}
	st, err := marketdata.NewState(marketdata.BuildInput{Now: now,
		Contracts:    []marketdata.ProductContract{{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures}, {Symbol: "NVDAUSDT", ProductType: exchange.USDTFutures}},
		Positions:    []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, Positions: open, At: now}},
		ClosedTrades: []marketdata.ClosedTradesInput{{ProductType: exchange.USDTFutures, Positions: closes, At: now}}}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestProtections(t *testing.T) {
	opening := func(sym string) OrderCheck { return OrderCheck{Symbol: sym, Size: decimal.NewFromInt(1)} }
	closing := func(sym string) OrderCheck {
		return OrderCheck{Symbol: sym, Size: decimal.NewFromInt(1), Reducing: true}
	}
	day := protectionsStart
	tests := []struct {
		name       string
		p          Protections
		closes     []exchange.HistoryPosition
		upl        string
		at         time.Time
		blocked    []string // symbols whose entries are refused
		wantErr    error
		protection string // the halt tripped ("" none)
		until      time.Time
	}{
		{"daily loss at the limit: not below it", Protections{MaxDailyLoss: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(500)}},
			[]exchange.HistoryPosition{closeOf("NVDAUSDT", "-400", day.Add(-time.Hour))}, "-100", day, nil, nil, "", time.Time{}},
		{"daily loss below the limit: halted until 00:00 New York", Protections{MaxDailyLoss: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(500)}},
			[]exchange.HistoryPosition{closeOf("NVDAUSDT", "-400", day.Add(-time.Hour))}, "-100.01", day, []string{"TSLAUSDT", "NVDAUSDT"}, ErrKillSwitch,
			"max_daily_loss", time.Date(2026, 3, 10, 4, 0, 0, 0, time.UTC)},
		{"yesterday's loss does not count today", Protections{MaxDailyLoss: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(500)}},
			[]exchange.HistoryPosition{closeOf("NVDAUSDT", "-900", time.Date(2026, 3, 9, 3, 59, 0, 0, time.UTC))}, "", day, nil, nil, "", time.Time{}},
		{"two losses of three: no stop", Protections{StopAfterLosses: &LossStreak{Count: 3, Within: 24 * time.Hour}},
			[]exchange.HistoryPosition{closeOf("NVDAUSDT", "-1", day.Add(-2*time.Hour)), closeOf("TSLAUSDT", "-1", day.Add(-time.Hour)), closeOf("TSLAUSDT", "5", day.Add(-30*time.Minute))},
			"", day, nil, nil, "", time.Time{}},
		{"three losses within a day: stopped by hand", Protections{StopAfterLosses: &LossStreak{Count: 3, Within: 24 * time.Hour}},
			[]exchange.HistoryPosition{closeOf("NVDAUSDT", "-1", day.Add(-20*time.Hour)), closeOf("TSLAUSDT", "-1", day.Add(-time.Hour)), closeOf("TSLAUSDT", "-2", day.Add(-30*time.Minute))},
			"", day, []string{"TSLAUSDT", "NVDAUSDT"}, ErrKillSwitch, "stop_after_losses", time.Time{}},
		{"cooldown after a loss blocks that symbol only", Protections{CooldownAfterLoss: 30 * time.Minute},
			[]exchange.HistoryPosition{closeOf("TSLAUSDT", "-1", day.Add(-29*time.Minute))}, "", day, []string{"TSLAUSDT"}, ErrCooldownLoss, "", time.Time{}},
		{"cooldown over", Protections{CooldownAfterLoss: 30 * time.Minute},
			[]exchange.HistoryPosition{closeOf("TSLAUSDT", "-1", day.Add(-30*time.Minute))}, "", day, nil, nil, "", time.Time{}},
		{"no cooldown after a win", Protections{CooldownAfterLoss: 30 * time.Minute},
			[]exchange.HistoryPosition{closeOf("TSLAUSDT", "3", day.Add(-time.Minute))}, "", day, nil, nil, "", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var saved, tripped []Halt
			g := NewGuard(GuardOptions{Safety: &Safety{Protections: tt.p}, Now: func() time.Time { return tt.at },
				SaveHalt: func(h Halt) error { saved = append(saved, h); return nil }, OnTrip: func(h Halt) { tripped = append(tripped, h) }})
			g.Observe(protectionState(t, tt.at, tt.closes, tt.upl))
			for _, sym := range []string{"TSLAUSDT", "NVDAUSDT"} {
				err := g.Allow(opening(sym))
				if want := slices.Contains(tt.blocked, sym); want != (err != nil) || want && !errors.Is(err, tt.wantErr) {
					t.Errorf("an entry on %s: %v; want blocked %v by %v", sym, err, want, tt.wantErr)
				}
				if err := g.Allow(closing(sym)); err != nil {
					t.Errorf("a close of %s: %v, want it to pass", sym, err)
				}
			}
			switch {
			case tt.protection == "" && len(tripped) > 0:
				t.Errorf("tripped %+v", tripped)
			case tt.protection != "" && (len(tripped) != 1 || len(saved) != 1 || tripped[0].Protection != tt.protection || !tripped[0].Until.Equal(tt.until)):
				t.Errorf("tripped %+v, saved %+v; want one %s until %s", tripped, saved, tt.protection, tt.until)
			}
		})
	}
}

// TestStopAfterLossesCountsOnlyLossesAfterAResume: resumed by hand, the
// stop does not trip again on the same losses, and trips on new ones; the
// daily loss limit does not trip again the day it was resumed.
func TestStopAfterLossesCountsOnlyLossesAfterAResume(t *testing.T) {
	now := protectionsStart
	p := Protections{StopAfterLosses: &LossStreak{Count: 2, Within: 24 * time.Hour}, MaxDailyLoss: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(10)}}
	g := NewGuard(GuardOptions{Safety: &Safety{Protections: p}, Now: func() time.Time { return now }})
	two := []exchange.HistoryPosition{closeOf("TSLAUSDT", "-6", now.Add(-2*time.Hour)), closeOf("NVDAUSDT", "-6", now.Add(-time.Hour))}
	g.Observe(protectionState(t, now, two, ""))
	if on, why := g.Killed(); !on || !strings.Contains(why, "max_daily_loss") {
		t.Fatalf("Killed() = %v, %q; want the daily loss limit first", on, why)
	}
	if err := g.Resume(); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	g.Observe(protectionState(t, now, two, ""))
	if on, why := g.Killed(); on {
		t.Fatalf("tripped again on the losses before the resume: %s", why)
	}
	now = now.Add(time.Minute)
	three := append(two, closeOf("TSLAUSDT", "-1", now.Add(-time.Second)))
	g.Observe(protectionState(t, now, three, ""))
	if on, _ := g.Killed(); on {
		t.Fatal("one loss after the resume tripped a stop after 2")
	}
	now = now.Add(time.Minute)
	four := append(three, closeOf("NVDAUSDT", "-1", now.Add(-time.Second)))
	g.Observe(protectionState(t, now, four, ""))
	if on, why := g.Killed(); !on || !strings.Contains(why, "stop_after_losses") {
		t.Errorf("Killed() = %v, %q; want the stop after two new losses", on, why)
	}
}

func TestProtectionsInTheSafetyFile(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"all", "protections:\n  max_daily_loss: {USDT: 500}\n  stop_after_losses: {count: 3, within: 24h}\n  cooldown_after_loss: 30m\n", ""},
		{"misspelt", "protections:\n  max_daily_los: {USDT: 500}\n", "did you mean max_daily_loss"},
		{"loss not positive", "protections:\n  max_daily_loss: {USDT: -500}\n", "must be above 0"},
		{"count missing", "protections:\n  stop_after_losses: {within: 24h}\n", "needs count"},
		{"duration without unit", "protections:\n  cooldown_after_loss: 30\n", "line 2: cannot unmarshal !!int `30` into time.Duration"},
		{"empty file", "", "is empty (or only comments)"},
		{"only comments", "# limits to come\n", "is empty (or only comments)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := loadSafetyText(t, tt.file)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && (!s.Protections.Any() || s.Protections.CooldownAfterLoss != 30*time.Minute || s.Protections.StopAfterLosses.Count != 3):
				t.Errorf("read %+v", s.Protections)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
