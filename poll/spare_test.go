package poll

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll/polltest"
)

// TestPollerGivesSpareBudget: the live poller polls the parts that move
// with trading as often as their operation's share of the rate limit
// allows, down to MinInterval; the plain plan (a backtest's) keeps the
// table's intervals.
func TestPollerGivesSpareBudget(t *testing.T) {
	pairs := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("P%dUSDT", i)
		}
		return out
	}
	tests := []struct {
		name      string
		part      marketdata.Part
		pairs     int
		intervals map[marketdata.Part]time.Duration
		minIv     time.Duration
		want      time.Duration // the live poller's
		wantPlain time.Duration // the plain plan's
	}{
		{"trades of 3 pairs", marketdata.PartStockTrades, 3, nil, 0, time.Second, 2 * time.Second},
		{"trades of 8 pairs: the share of the limit binds", marketdata.PartStockTrades, 8, nil, 0, 1600 * time.Millisecond, 2 * time.Second},
		{"balances", marketdata.PartBalances, 0, nil, 0, time.Second, 5 * time.Second},
		{"strategy orders", marketdata.PartStrategyOrders, 0, nil, 0, time.Second, 2 * time.Second},
		{"stock info changes rarely", marketdata.PartStockInfo, 0, nil, 0, time.Minute, time.Minute},
		{"the market changes rarely", marketdata.PartMarket, 0, nil, 0, time.Minute, time.Minute},
		{"an interval set by the user stays", marketdata.PartStockTrades, 3, map[marketdata.Part]time.Duration{marketdata.PartStockTrades: 3 * time.Second}, 0, 3 * time.Second, 3 * time.Second},
		{"never under MinInterval", marketdata.PartBalances, 0, nil, 3 * time.Second, 3 * time.Second, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Demand{Parts: marketdata.PartSet(0).Add(tt.part), StockPairs: pairs(tt.pairs),
				ProductTypes: []exchange.ProductType{exchange.USDTFutures}, Categories: []exchange.Category{exchange.CategoryUSDTFutures}}
			p, err := New(Options{Reader: polltest.NewReader(), Clock: clock.NewVirtual(polltest.Start), Demand: d, Intervals: tt.intervals, MinInterval: tt.minIv})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Interval(tt.part); got != tt.want {
				t.Errorf("live poller: every %v, want %v", got, tt.want)
			}
			plain, err := NewPlan(PlanOptions{Demand: d, Intervals: tt.intervals, MinInterval: tt.minIv})
			if err != nil {
				t.Fatal(err)
			}
			if got := plain.Interval(tt.part); got != tt.wantPlain {
				t.Errorf("plain plan: every %v, want %v", got, tt.wantPlain)
			}
			for op, perSecond := range p.Budget() {
				info, _ := exchange.LookupOp(op)
				if limit := 0.5 * float64(info.Rate) / info.Per.Seconds(); perSecond > limit+1e-9 {
					t.Errorf("%s: %.2f requests/s, over the headroom's %.2f", op, perSecond, limit)
				}
			}
		})
	}
}

// TestOperationSharesStayUnderTheIPLimit: the operations the poller calls
// have limits of their own that add up to less than the venue's overall
// limit per IP, so the spare budget of one part never takes from
// another's (WithSpareBudget). The parts that keep their own interval
// are not given the spare budget, so they do not count here.
func TestOperationSharesStayUnderTheIPLimit(t *testing.T) {
	seen := map[exchange.Op]int{} // the part that calls op, plus one
	total := 0.0
	for part, row := range parts {
		if row.ownInterval {
			continue // never given the spare budget
		}
		for _, op := range row.ops {
			if by := seen[op]; by == part+1 {
				continue // one part calling op twice a fetch (pending orders, once per state)
			} else if by != 0 {
				t.Errorf("%s is called by two parts (%s and %s): their spare budgets would compete", op, marketdata.Part(by-1), marketdata.Part(part))
			}
			seen[op] = part + 1
			info, _ := exchange.LookupOp(op)
			total += float64(info.Rate) / info.Per.Seconds()
		}
	}
	if overall := float64(exchange.IPLimitPerMinute) / 60; total >= overall {
		t.Errorf("the polled operations' limits add up to %.0f requests/s, not under the %.0f of the overall limit per IP", total, overall)
	}
}
