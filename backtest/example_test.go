package backtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/sim"
)

// Run a rule set over the first hour of the demo scenario's regular session
// and read the summary. Report.WriteFiles would write report.json and
// report.html.
func ExampleRun() {
	sc := sim.Demo()
	open := sc.Clock.Start.Add(30 * time.Minute) // 09:30 New York
	rep, err := backtest.Run(context.Background(), backtest.Options{
		Scenario: sc,
		RuleDirs: []string{"testdata/rules"},
		From:     open,
		To:       open.Add(time.Hour),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Ticks, "ticks")
	for _, r := range rep.Summary.Rules {
		fmt.Printf("%s: %d firings, %d errors\n", r.Rule, r.Firings, r.Errors)
	}
	fmt.Println(rep.Firings[0].Time, rep.Firings[0].Rule, rep.Firings[0].Actions[0].Outcome)
	// Output:
	// 3601 ticks
	// cut-loss-btc: 2 firings, 0 errors
	// eth-below-minimum: 0 firings, 0 errors
	// open-btc-when-flat: 3 firings, 0 errors
	// take-profit-btc: 0 firings, 0 errors
	// tsla-bid-in-session: 1 firings, 0 errors
	// 2026-03-09T13:30:00Z open-btc-when-flat ok
}
