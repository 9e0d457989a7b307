package backtest

import (
	"fmt"
	"strings"
)

// writeMetrics writes the performance figures of every used account
// (Metrics), each column named as docs/backtest-report.md explains it.
func writeMetrics(b *strings.Builder, r *Report) {
	b.WriteString("<table class=\"metrics\"><tr><th>account</th><th class=num>CAGR</th><th class=num>Sharpe</th><th class=num>Sortino</th>" +
		"<th class=num>Calmar</th><th class=num>longest drawdown</th><th class=num>expectancy</th><th class=num>exposure</th>" +
		"<th class=num>fees paid</th><th class=num>funding paid</th><th class=num>buy and hold</th></tr>\n")
	for _, a := range r.Summary.Accounts {
		if !a.Used() {
			continue
		}
		m := a.Metrics
		fmt.Fprintf(b, "<tr class=\"metric\"><td>%s %s</td><td class=\"%s\">%s</td><td class=num>%s</td><td class=num>%s</td><td class=num>%s</td>"+
			"<td class=num>%s</td><td class=\"%s\">%s</td><td class=num>%s</td><td class=num>%s</td><td class=num>%s</td><td class=\"%s\">%s</td></tr>\n",
			esc(a.ProductType), esc(a.MarginCoin), signClass(m.CAGRPct), esc(orNA(m.CAGRPct, " %")), esc(orNA(m.Sharpe, "")), esc(orNA(m.Sortino, "")),
			esc(orNA(m.Calmar, "")), esc(durationText(m.MaxDrawdownSeconds)), signClass(m.Expectancy), esc(orNA(m.Expectancy, "")),
			esc(orNA(m.ExposurePct, " %")), esc(a.Fees), esc(orNA(m.FundingPaid, "")), signClass(m.BuyAndHoldPct), esc(orNA(m.BuyAndHoldPct, " %")))
	}
	b.WriteString("</table>\n<p class=\"muted\">CAGR, Sharpe, Sortino and Calmar are annualised (365 days) from every equity sample, with no risk-free rate: " +
		"over a run of hours or days they extrapolate wildly. Expectancy is the mean net P&amp;L of a closed trade; exposure the share of samples with an open position; " +
		"funding is derived from the equity; buy and hold is the mean return of the rules' symbols over the same span. " +
		"The formulas are in docs/backtest-report.md.</p>\n")
}
