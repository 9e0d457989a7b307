package backtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestBacktestProtectionsTripAtKnownTimes runs each protection of the
// safety file, and a rule's halt, through the backtest on the conformance
// scenario, built so that it trips at a time worked out by hand. The
// account holds 1,000 USDT; rule enter buys 0.01 BTCUSDT at market
// whenever there is no long (at most once a minute), filling at the ask,
// 5 above the price; rule exit sells it when its unrealised P&L is below
// -4 (-1 for stop_after_losses). BTCUSDT is 50000 until 15:00 UTC and
// falls 1000 an hour to 16:00, so the long bought at 14:00 at 50005 is
// at -3 when the price is below 49705, 1062 s after 15:00 (15:17:43), and
// exit sells at 15:23:43 (below 49605). Each case checks that the
// protection trips when it should, that the entry after it is blocked
// while the exit goes, and when entries go again.
func TestBacktestProtectionsTripAtKnownTimes(t *testing.T) {
	skipUnderRace(t)
	const none = ""
	tests := []struct {
		name, safety, extraRule, exitBelow string
		// trip is when the protection tripped (none: no trip is listed,
		// as for a rule's halt and the per-symbol cooldown), until its
		// end (none: only by hand, so never within the run).
		trip, until, reason string
		// exitAt is the exit's close; blockedAt the first entry refused;
		// resumedAt the first entry that went after it (none: none did).
		exitAt, blockedAt, resumedAt string
	}{
		{name: "max_daily_loss: until the next New York day",
			safety: "protections: {max_daily_loss: {USDT: 3}}", exitBelow: "4",
			// P&L today is the unrealised P&L at 15:17:43, at the mark
			// 49704.7 (49704.72 to the contract's 0.1): -3.003.
			trip: "15:17:43", until: "2026-03-14T04:00:00Z", reason: "USDT P&L today is -3.003, below the limit of -3",
			// At 00:00 New York (04:00 UTC) the day's loss is yesterday's:
			// enter, refused each minute at :44, goes at 04:00:44.
			exitAt: "15:23:43", blockedAt: "15:23:44", resumedAt: "2026-03-14T04:00:44Z"},
		{name: "max_drawdown: by hand only",
			safety: "protections: {max_drawdown: {USDT: {percent: 0.3, within: 24h}}}", exitBelow: "4",
			// The peak is 1000, before the entry; the equity, 1000 less
			// the entry's fee of 0.30003 plus 0.01 x (price - 50005), is
			// below 997 from 49735, 954 s after 15:00: 996.99997, a fall
			// of 0.300003%.
			trip: "15:15:54", until: none, reason: "USDT equity 996.99997 is 0.300003% below its peak of 1000 within 24h0m0s (the limit is 0.3%)",
			exitAt: "15:23:43", blockedAt: "15:23:44", resumedAt: none},
		{name: "stop_after_losses: by hand only",
			safety: "protections: {stop_after_losses: {count: 2, within: 24h}}", exitBelow: "1",
			// Losing closes at 15:05:44 and 15:11:30; the position history
			// is read with the positions that show the close (poll.FollowUp),
			// so the stop trips on the next tick, before enter buys again.
			trip: "15:11:31", until: none, reason: "2 positions closed at a loss within 24h0m0s (the limit is 2)",
			exitAt: "15:11:30", blockedAt: "15:11:32", resumedAt: none},
		{name: "cooldown_after_loss: that symbol, 30 minutes from the close",
			safety: "protections: {cooldown_after_loss: 30m}", exitBelow: "4",
			exitAt: "15:23:44", blockedAt: "15:23:46", resumedAt: "2026-03-13T15:53:46Z"},
		{name: "a rule's halt for 30 minutes",
			safety:    "max_orders_per_minute: 100",
			extraRule: `  - {name: stop, when: 'position("BTCUSDT", "long").unrealized_pnl < -2', once: per_day, actions: [{halt: {until: 30m, reason: lost 2}}]}` + "\n",
			// stop fires at 15:11:43 (below -2); the halt ends at 15:41:43.
			exitBelow: "4", exitAt: "15:23:43", blockedAt: "15:23:44", resumedAt: "2026-03-13T15:41:44Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rules := `
rules:
  - name: enter
    when: position("BTCUSDT", "long").size == 0
    cooldown: 1m
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
  - name: exit
    when: position("BTCUSDT", "long").unrealized_pnl < -` + tt.exitBelow + `
    actions:
      - close_positions: {symbol: BTCUSDT, side: long}
` + tt.extraRule
			if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(rules), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "safety.yaml")
			if err := os.WriteFile(path, []byte(tt.safety), 0o644); err != nil {
				t.Fatal(err)
			}
			safety, err := actions.LoadSafety(path)
			if err != nil {
				t.Fatal(err)
			}
			sc := simtest.Scenario()
			sc.StrategyOrders = nil
			for i := range sc.Accounts {
				sc.Accounts[i].StrategyOrders = nil
				sc.Accounts[i].Balances["USDT"] = decimal.NewFromInt(1000)
			}
			from := sc.Clock.Start
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep, err := Run(ctx, Options{Scenario: sc, APIKey: simtest.OneWayKey, RuleDirs: []string{dir}, From: from, To: from.Add(15 * time.Hour), Safety: safety})
			if err != nil {
				t.Fatal(err)
			}
			day := func(clock string) string { return "2026-03-13T" + clock + "Z" }
			switch {
			case tt.trip == none && len(rep.Protections) > 0:
				t.Errorf("protections tripped: %+v", rep.Protections)
			case tt.trip != none && (len(rep.Protections) != 1 || rep.Protections[0].Time != day(tt.trip) || rep.Protections[0].Until != tt.until ||
				!strings.Contains(rep.Protections[0].Reason, tt.reason)):
				t.Errorf("protections tripped: %+v; want one at %s until %q: %s", rep.Protections, day(tt.trip), tt.until, tt.reason)
			}
			if tt.trip != none {
				// The terminal summary and report.html say it too.
				var text strings.Builder
				if err := rep.WriteSummaryTable(&text); err != nil {
					t.Fatal(err)
				}
				html := string(rep.HTML())
				if !strings.Contains(text.String(), " tripped at "+day(tt.trip)+": "+tt.reason) || !strings.Contains(html, "<h2>Protections tripped</h2>") {
					t.Errorf("the summary does not show the trip:\n%s", text.String())
				}
			}
			// exitAt is the last exit before the first refused entry: the
			// one that went while the protection held (but for the
			// cooldown and the stop after losses, which that exit
			// started).
			var exitAt, blockedAt, resumedAt string
			for _, f := range rep.Firings {
				switch a := f.Actions[0]; {
				case f.Rule == "exit" && a.Outcome == "ok" && blockedAt == "":
					exitAt = f.Time
				case f.Rule == "enter" && a.Outcome == "blocked" && blockedAt == "":
					blockedAt = f.Time
				case f.Rule == "enter" && a.Outcome == "ok" && blockedAt != "" && resumedAt == "":
					resumedAt = f.Time
				}
			}
			if exitAt != day(tt.exitAt) || blockedAt != day(tt.blockedAt) || resumedAt != tt.resumedAt {
				t.Errorf("exit went at %s, enter was first refused at %s and went again at %q; want %s, %s, %q",
					exitAt, blockedAt, resumedAt, day(tt.exitAt), day(tt.blockedAt), tt.resumedAt)
			}
		})
	}
}
