package backtest

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteSummaryTable writes the summary of every used account as a table
// for a terminal: return and max drawdown in percent, closed trades, win
// rate, profit factor, realised P&L, fees paid, Sharpe and buy and hold of
// the same symbols. Unused accounts are left out.
func (r *Report) WriteSummaryTable(w io.Writer) error {
	used := 0
	for _, a := range r.Summary.Accounts {
		if a.Used() {
			used++
		}
	}
	if used == 0 {
		_, err := fmt.Fprintln(w, "No account traded.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "account\treturn\tmax drawdown\ttrades\twin rate\tprofit factor\trealised P&L\tfees paid\tSharpe\tbuy and hold")
	for _, a := range r.Summary.Accounts {
		if a.Used() {
			fmt.Fprintf(tw, "%s %s\t%s %%\t%s %%\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ProductType, a.MarginCoin, a.ReturnPct, a.MaxDrawdownPct,
				a.Trades, orNA(a.WinRatePct, " %"), orNA(a.ProfitFactor, ""), a.RealisedPnL, a.Fees, orNA(a.Metrics.Sharpe, ""), orNA(a.Metrics.BuyAndHoldPct, " %"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return r.writeProtections(w)
}

// writeProtections lists the protections of the safety file that tripped.
func (r *Report) writeProtections(w io.Writer) error {
	for _, p := range r.Protections {
		until := p.untilText(func(s string) string { return s })
		if _, err := fmt.Fprintf(w, "%s tripped at %s: %s; no new entries %s\n", p.Protection, p.Time, p.Reason, until); err != nil {
			return err
		}
	}
	return nil
}
