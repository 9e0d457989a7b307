package rules

import (
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
)

// repeatWarnings warns about a rule that trades at market each time its
// condition turns true, with nothing to stop it doing so again: no once,
// no cooldown and no position test in the condition. A condition that
// flickers (true, false, true within seconds, as a spread or a price near
// its threshold does) then sends a market order, a reversal or a close of
// everything on every flicker. A limit order is left alone: it rests on the
// book, and rules usually test the open orders before placing another.
func (f *fileLoader) repeatWarnings(r *Rule) {
	if !r.Enabled || r.Once != "" || r.Cooldown > 0 || r.Condition == nil {
		return
	}
	if r.Condition.Reads.Parts.Has(marketdata.PartPositions) {
		return // the condition sees the position the firing opened or closed
	}
	for _, a := range r.Actions {
		what := repeatingAction(a)
		if what == "" {
			continue
		}
		msg := fmt.Sprintf("rule %s %s each time its condition turns true, and nothing stops it firing again: "+
			"a condition that flickers (true, false, true) does it on every flicker", ruleLabel(r), what)
		hint := "add once: per_session (or per_day), a cooldown such as cooldown: 10m, " +
			"or a test of the position to the condition, such as position(\"TSLAUSDT\", \"long\").size == 0"
		f.errs = append(f.errs, f.errorAtPosition(a.Pos, rulefmt.SeverityWarning, msg, hint))
		return // one warning per rule: the fix is the same for every action
	}
}

// repeatingAction says what a action does at market that would repeat on
// every firing ("sends a market order"), or "" when it does not trade at
// market or the order type is a formula (unknown until the rule fires).
func repeatingAction(a *Action) string {
	switch a.Def.Op {
	case exchange.OpPlaceOrder:
		if isMarket(a.Params) {
			return "sends a market order"
		}
	case exchange.OpBatchPlaceOrder:
		for _, o := range a.Orders {
			if isMarket(o) {
				return "sends a market order"
			}
		}
	case exchange.OpClickBackhand:
		return "reverses a position at market"
	case exchange.OpClosePositions:
		if a.Params["symbol"] == nil {
			return "closes every position of the product type"
		}
	}
	return ""
}

// isMarket reports an order whose type is the literal market.
func isMarket(p Params) bool {
	v := p["type"]
	if v == nil {
		return false
	}
	s, ok := v.Literal.(string)
	return ok && s == "market"
}
