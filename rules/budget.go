package rules

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
)

// BudgetLine is the polling of one operation: how many keys (pairs,
// product types, categories) it is called for, how often, and the share of
// the operation's rate limit that takes.
type BudgetLine struct {
	Op      exchange.Op `json:"op"`
	Part    string      `json:"part"`
	Keys    int         `json:"keys"`
	KeyKind string      `json:"key_kind,omitempty"` // "pair", "product type", "category"; empty for one call
	// Requests is how many requests one call for one key makes: 2 for the
	// pending orders, read once per state.
	Requests  int            `json:"requests"`
	Interval  time.Duration  `json:"interval_ns"`
	PerSecond float64        `json:"per_second"`
	Limit     float64        `json:"limit_per_second"`
	Scope     exchange.Scope `json:"scope"`
}

// Budget is the polling the rules imply, computed by the pollers' own
// planner (poll.NewPlan) so that it is what the engine will do.
type Budget struct {
	Lines []BudgetLine
}

// PollingBudget plans the polling of demand (assemble.Demand of a rule set,
// what engine run polls) and returns, per operation, the request rate
// against its limit.
func PollingBudget(demand poll.Demand) (Budget, error) {
	var b Budget
	for _, part := range demand.Parts.Parts() {
		one := demand
		one.Parts = marketdata.PartSet(0).Add(part)
		p, err := poll.NewPlan(poll.WithSpareBudget(poll.PlanOptions{Demand: one}))
		if err != nil {
			return Budget{}, fmt.Errorf("plan polling of %s: %w", part, err)
		}
		iv := p.Interval(part)
		rates := p.Budget()
		ops := make([]exchange.Op, 0, len(rates))
		for op := range rates {
			ops = append(ops, op)
		}
		slices.Sort(ops)
		for _, op := range ops {
			info, ok := exchange.LookupOp(op)
			if !ok {
				return Budget{}, fmt.Errorf("plan polling of %s: no rate limit for %s", part, op)
			}
			line := BudgetLine{Op: op, Part: part.String(), Interval: iv, PerSecond: rates[op],
				Limit: float64(info.Rate) / info.Per.Seconds(), Scope: info.Scope, Keys: 1}
			line.Requests = poll.RequestsPerFetch(part, op)
			if iv > 0 {
				line.Keys = int(math.Round(rates[op] * iv.Seconds() / float64(line.Requests)))
			}
			line.KeyKind = poll.KeyKind(part)
			b.Lines = append(b.Lines, line)
		}
	}
	return b, nil
}

// Write prints one line per operation, e.g.
// "stock-orderbook: 3 pairs every 1s = 3 of 10 req/s (per uid)".
func (b Budget) Write(w io.Writer) error {
	for _, l := range b.Lines {
		what := "1 call"
		if l.KeyKind != "" {
			what = plural(l.Keys, l.KeyKind)
		}
		if l.Requests > 1 {
			what += fmt.Sprintf(" (%d requests each)", l.Requests)
		}
		if _, err := fmt.Fprintf(w, "  %s: %s every %s = %s of %s req/s (per %s)\n",
			l.Op, what, l.Interval, formatRate(l.PerSecond), formatRate(l.Limit), l.Scope); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func formatRate(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
