package backtest

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestMetrics measures small equity series whose figures are computed by
// hand in each case's comment. Samples are a third of a year apart (year
// / 3 = 121 d 16 h = 10,512,000 s), so four samples span exactly a year:
// CAGR is then the plain return and the annualising factor of Sharpe and
// Sortino is sqrt(3) = 1.7320508.
func TestMetrics(t *testing.T) {
	period := year / 3
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := decimal.RequireFromString
	cases := []struct {
		name   string
		equity []float64
		want   Metrics
	}{
		{
			// Returns +0.1, -0.1, +0.1; mean 0.1/3 = 0.0333333.
			// Sample variance: deviations 0.0666667, -0.1333333, 0.0666667,
			// squares 0.0044444 + 0.0177778 + 0.0044444 = 0.0266667, / 2 =
			// 0.0133333, sd 0.1154701. Sharpe = 0.0333333 / 0.1154701 *
			// sqrt(3) = 0.2886751 * 1.7320508 = 0.5.
			// Sortino: downside sum 0.01 / 3 = 0.0033333, sqrt 0.0577350;
			// 0.0333333 / 0.0577350 * 1.7320508 = 1.0.
			// CAGR over one year: 108.9 / 100 - 1 = 8.9 %. Max drawdown
			// (110 - 99) / 110 = 10 %, Calmar 0.089 / 0.1 = 0.89. Under
			// water from the high at the second sample to the end: 2
			// periods = 21,024,000 s.
			"a gain with a drawdown not recovered",
			[]float64{100, 110, 99, 108.9},
			Metrics{CAGRPct: "8.9", Sharpe: "0.5", Sortino: "1", Calmar: "0.89", MaxDrawdownSeconds: 21024000},
		},
		{
			// Returns -0.1, +1/9 = 0.1111111, -0.05; mean -0.0388889 / 3 =
			// -0.0129630. Deviations -0.0870370, 0.1240741, -0.0370370,
			// squares 0.0075754 + 0.0153944 + 0.0013717 = 0.0243416, / 2 =
			// 0.0121708, sd 0.1103213: Sharpe = -0.0129630 / 0.1103213 *
			// 1.7320508 = -0.2035 -> -0.2. Sortino: (0.01 + 0.0025) / 3 =
			// 0.0041667, sqrt 0.0645497; -0.0129630 / 0.0645497 *
			// 1.7320508 = -0.3478 -> -0.35. CAGR 95 / 100 - 1 = -5 %; max
			// drawdown 10 % (100 to 90), Calmar -0.05 / 0.1 = -0.5. Under
			// water 2 periods (the high of the first sample is reached again
			// at the third), then 1 period at the end: the longest is 2.
			"a loss, a recovered drawdown and a later one",
			[]float64{100, 90, 100, 95},
			Metrics{CAGRPct: "-5", Sharpe: "-0.2", Sortino: "-0.35", Calmar: "-0.5", MaxDrawdownSeconds: 21024000},
		},
		{
			// Flat: no variance (no Sharpe), no losing return (no Sortino),
			// no drawdown (no Calmar); CAGR 0.
			"flat",
			[]float64{100, 100, 100},
			Metrics{CAGRPct: "0"},
		},
		{
			// One sample spans no time: nothing can be annualised.
			"one sample",
			[]float64{100},
			Metrics{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m equityMetrics
			for i, e := range c.equity {
				m.add(start.Add(time.Duration(i)*period), e)
			}
			got := m.metrics(nil, decimal.Zero, decimal.Zero, decimal.Zero, 0, nil)
			got.ExposurePct, got.FundingPaid = "", "" // measured in TestMetricsOfTrades
			if got != c.want {
				t.Errorf("metrics:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}

	t.Run("trades, exposure, funding and buy and hold", func(t *testing.T) {
		var m equityMetrics
		for i, e := range []float64{100, 101, 102, 108.5} {
			m.add(start.Add(time.Duration(i)*period), e)
		}
		trades := []Trade{{NetPnL: "19.58"}, {NetPnL: "-10.19"}, {Open: true, Fees: "0.3"}}
		// Expectancy: (19.58 - 10.19) / 2 closed trades = 4.695.
		// Exposure: 3 of 4 samples with a position = 75 %.
		// Funding: realised 10 - fees 1 = 9 explained by fills; the
		// balance moved 8.5: 0.5 paid in funding.
		// Buy and hold: mean of +10 % and -5 % = 2.5 %.
		got := m.metrics(trades, d("10"), d("1"), d("8.5"), 3, []float64{0.1, -0.05})
		want := Metrics{Expectancy: "4.695", ExposurePct: "75", FundingPaid: "0.5", BuyAndHoldPct: "2.5"}
		if got.Expectancy != want.Expectancy || got.ExposurePct != want.ExposurePct || got.FundingPaid != want.FundingPaid || got.BuyAndHoldPct != want.BuyAndHoldPct {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
}

// TestRuleFigures: orders are counted from the firings' order ids, the
// closed trades and their net P&L go to the rule that opened them; an
// open trade and a trade held at the start go to no rule.
func TestRuleFigures(t *testing.T) {
	rep := &Report{
		Firings: []Firing{
			{Rule: "buy", Actions: []Action{{OrderIDs: []string{"1"}}, {OrderIDs: []string{"2", "3"}}}},
			{Rule: "buy", Actions: []Action{{OrderIDs: []string{"4"}}}},
			{Rule: "sell", Actions: []Action{{OrderIDs: []string{"5"}}}},
		},
		Trades: []Trade{
			{EntryRule: "buy", ExitRule: "sell", NetPnL: "5.5"},
			{EntryRule: "buy", ExitBy: "stop-loss", NetPnL: "-2.25"},
			{EntryRule: "buy", Open: true},
			{EntryBy: heldAtStart, ExitRule: "sell", NetPnL: "100"},
		},
		Summary: Summary{Rules: []RuleSummary{{Rule: "buy"}, {Rule: "idle"}, {Rule: "sell"}}},
	}
	ruleFigures(rep)
	// buy: 4 orders, 2 closed trades, 5.5 - 2.25 = 3.25. sell: 1 order,
	// opened nothing.
	want := []RuleSummary{{Rule: "buy", Orders: 4, Trades: 2, NetPnL: "3.25"}, {Rule: "idle", NetPnL: "0"}, {Rule: "sell", Orders: 1, NetPnL: "0"}}
	for i, w := range want {
		t.Run(w.Rule, func(t *testing.T) {
			if rep.Summary.Rules[i] != w {
				t.Errorf("got %+v, want %+v", rep.Summary.Rules[i], w)
			}
		})
	}
}

// TestDurationText writes drawdown durations for a trader.
func TestDurationText(t *testing.T) {
	for in, want := range map[int64]string{40: "40 s", 600: "10 min", 7500: "2 h 5 min", 21024000: "243 d 8 h"} {
		t.Run(want, func(t *testing.T) {
			if got := durationText(in); got != want {
				t.Errorf("durationText(%d) = %q, want %q", in, got, want)
			}
		})
	}
}
