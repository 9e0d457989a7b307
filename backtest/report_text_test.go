package backtest

import (
	"strings"
	"testing"
)

func TestWriteSummaryTable(t *testing.T) {
	used := AccountSummary{ProductType: "USDT-FUTURES", MarginCoin: "USDT", EquityStart: "100000", EquityEnd: "99936.4553486",
		ReturnPct: "-0.0635", RealisedPnL: "-28.60058", Fees: "35.37993765", MaxDrawdown: "88.72888634", MaxDrawdownPct: "0.0887",
		Fills: 35, Trades: 6, WinRatePct: "50", ProfitFactor: "0.17", Metrics: Metrics{Sharpe: "-1.25", BuyAndHoldPct: "-0.389"}}
	unused := AccountSummary{ProductType: "USDC-FUTURES", MarginCoin: "USDC", EquityStart: "100000", EquityEnd: "100000", MaxDrawdown: "0"}
	noLoser := used
	noLoser.ProductType, noLoser.ProfitFactor, noLoser.WinRatePct = "COIN-FUTURES", "", "100"
	noLoser.Metrics = Metrics{} // too short a run for Sharpe, no symbol for buy and hold
	cases := []struct {
		name     string
		accounts []AccountSummary
		want     string
	}{
		{"used and unused", []AccountSummary{used, unused}, "" +
			"account            return     max drawdown  trades  win rate  profit factor  realised P&L  fees paid    Sharpe  buy and hold\n" +
			"USDT-FUTURES USDT  -0.0635 %  0.0887 %      6       50 %      0.17           -28.60058     35.37993765  -1.25   -0.389 %\n"},
		{"no losing trade", []AccountSummary{noLoser}, "" +
			"account            return     max drawdown  trades  win rate  profit factor  realised P&L  fees paid    Sharpe  buy and hold\n" +
			"COIN-FUTURES USDT  -0.0635 %  0.0887 %      6       100 %     n/a            -28.60058     35.37993765  n/a     n/a\n"},
		{"nothing traded", []AccountSummary{unused}, "No account traded.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Report{Summary: Summary{Accounts: c.accounts}}
			var b strings.Builder
			if err := r.WriteSummaryTable(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("table:\n%s\nwant:\n%s", b.String(), c.want)
			}
		})
	}
}
