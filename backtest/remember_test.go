package backtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/sim/market"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestRememberExamplesAtKnownTimes backtests each worked example of "What
// a rule can remember" (docs/writing-rules.md), as written, on the
// conformance scenario with a TSLAUSDT path built so that its situation
// happens at a time worked out by hand: 400 at 14:00 UTC (10:00 New York,
// Friday 2026-03-13), 420 at 15:00, 400 at 16:00, 380 at 17:00, then flat
// (prices between points are linear, marks rounded to the contract's 0.01).
// BTCUSDT is 50000 to 15:00, 49000 at 16:00. A helper rule sets the scene
// (opens the position, places the first bid...). Each example's rules fire
// at the times given and at no other in six hours.
func TestRememberExamplesAtKnownTimes(t *testing.T) {
	skipUnderRace(t)
	const openLong = `rules:
  - {name: open-long, when: 'position("TSLAUSDT", "long").size == 0 && firings_today("open-long") < 1', actions: [{place_order: {symbol: TSLAUSDT, open: long, type: market, size: %s}}]}
`
	tests := []struct {
		name, example, helper string
		// fires are the example's rules' firings, by rule, at times of
		// 2026-03-13 UTC; blockedFrom, when set, is the first of a rule's
		// firings refused by a halt (all later ones are too).
		fires       map[string][]string
		blockedFrom map[string]string
	}{
		{name: "trailing stop", example: "remember/trailing-stop.yaml", helper: fmt.Sprintf(openLong, "1"),
			// The high since 14:00 is 420 (15:00); 2% under it is 411.6,
			// passed 1513 s after 15:00 (mark 411.59).
			fires: map[string][]string{"tsla-trailing-stop": {"15:25:13"}}},
		{name: "twice a day", example: "remember/twice-a-day.yaml",
			// The session is regular from the start; the second bid 30
			// minutes after the first; none after the second.
			fires: map[string][]string{"tsla-dip-twice-a-day": {"14:00:00", "14:30:00"}}},
		{name: "chase with a limit", example: "remember/chase.yaml",
			helper: `rules:
  - {name: first-bid, when: 'firings_today("first-bid") < 1', actions: [{place_order: {symbol: TSLAUSDT, open: long, type: limit, size: 1, price: '=stock("TSLA").bid - 1'}}]}
`,
			// The bid, 1 under the best bid at 14:00, moves when 30 s old
			// (the orders poll shows the new order a second after each
			// move, so each next move is 31 s later), three times, as the
			// price rises; 31 s after the third it is cancelled.
			fires: map[string][]string{"tsla-chase-bid": {"14:00:30", "14:01:01", "14:01:32"}, "tsla-give-up-bid": {"14:02:03"}}},
		{name: "cooldown after a loss", example: "remember/cooldown-after-loss.yaml",
			helper: `rules:
  - {name: exit-on-loss, when: 'position("TSLAUSDT", "long").unrealized_pnl < -5', actions: [{close_positions: {symbol: TSLAUSDT, side: long}}]}
`,
			// Bought at 14:00 (400.04), sold at a loss at 16:14:54 (below
			// 395.04); bought again 30 minutes later (385.07), sold at a
			// loss at 16:59:50, bought again 30 minutes later.
			fires: map[string][]string{"buy-the-dip-unless-just-lost": {"14:00:00", "16:44:54", "17:29:50"}}},
		{name: "daily loss limit", example: "remember/daily-loss-limit.yaml", helper: fmt.Sprintf(openLong, "100"),
			// 100 bought at 14:00 at about 400.13 on average are 500 USDT
			// under water at about 395.13, at 16:14:36.
			fires: map[string][]string{"daily-loss-limit": {"16:14:36"}}},
		{name: "a rule that halts the others", example: "remember/halt-on-loss.yaml", helper: fmt.Sprintf(openLong, "10"),
			// The post_only bid of 14:00 fills at 16:00:07: 11 long, 50
			// under water at 16:13:30. From then every entry is refused.
			fires:       map[string][]string{"stop-the-day": {"16:13:30"}},
			blockedFrom: map[string]string{"buy-tight-spread": "16:13:31"}},
		{name: "alert when a trigger order is 5% from the price", example: "rules/trigger-near-price.yaml",
			helper: `rules:
  - {name: place-trigger, when: 'firings_today("place-trigger") < 1', actions: [{place_trigger: {symbol: BTCUSDT, open: long, size: 0.01, trigger_price: 47000, type: market}}]}
`,
			// 47000 is within 5% of the last price from 49473.68, 1895 s
			// after 15:00; the rule fires once while it stays so.
			fires: map[string][]string{"trigger-near-btc-price": {"15:31:35"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b, err := os.ReadFile(filepath.Join("..", "examples", tt.example))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "example.yaml"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.helper != "" {
				if err := os.WriteFile(filepath.Join(dir, "helper.yaml"), []byte(tt.helper), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sc := simtest.Scenario()
			sc.StrategyOrders = nil
			for i := range sc.Accounts {
				sc.Accounts[i].StrategyOrders = nil
			}
			at := func(hour int) market.Point {
				prices := map[int]int64{14: 400, 15: 420, 16: 400, 17: 380}
				return market.Point{At: time.Date(2026, 3, 13, hour, 0, 0, 0, time.UTC), Price: decimal.NewFromInt(prices[hour])}
			}
			sc.Prices["TSLAUSDT"] = market.PathSpec{Points: []market.Point{at(14), at(15), at(16), at(17)}}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			from := sc.Clock.Start
			rep, err := Run(ctx, Options{Scenario: sc, APIKey: simtest.OneWayKey, RuleDirs: []string{dir}, From: from, To: from.Add(6 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			blocked := map[string]string{}
			for _, f := range rep.Firings {
				clock := f.Time[len("2026-03-13T") : len(f.Time)-1]
				switch _, want := tt.fires[f.Rule]; {
				case want:
					got[f.Rule] = append(got[f.Rule], clock)
				case tt.blockedFrom[f.Rule] != "":
					if f.Actions[0].Outcome == "blocked" && blocked[f.Rule] == "" {
						blocked[f.Rule] = clock
					}
					if f.Actions[0].Outcome != "blocked" && blocked[f.Rule] != "" {
						t.Errorf("%s: an entry went at %s, after the halt", f.Rule, clock)
					}
				}
			}
			for rule, want := range tt.fires {
				if !slices.Equal(got[rule], want) {
					t.Errorf("%s fired at %v, want %v", rule, got[rule], want)
				}
			}
			for rule, want := range tt.blockedFrom {
				if blocked[rule] != want {
					t.Errorf("%s was first refused at %q, want %s", rule, blocked[rule], want)
				}
			}
		})
	}
}
