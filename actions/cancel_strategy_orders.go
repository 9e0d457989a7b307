package actions

import (
	"context"
	"fmt"
	"slices"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// CancelStrategyOrders is the key of cancel_strategy_orders in a rule file.
const CancelStrategyOrders rules.ActionKind = "cancel_strategy_orders"

// cancelStrategyOrdersKind cancels orders that rest on the exchange
// (cancel-plan-order), one request per plan type; it never opens anything.
func cancelStrategyOrdersKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: CancelStrategyOrders, Op: exchange.OpCancelPlanOrder,
			Doc: "Cancel orders that rest on the exchange (placed by protect, place_trigger or by hand): of one contract or, without symbol, of the whole product type; of some types or all. One request per type.",
			Params: []rulefmt.ParamDef{{Name: "symbol", Type: rulefmt.ParamSymbol, Doc: "The contract; without it, those of every contract of the product type.", Example: "TSLAUSDT"},
				{Name: "type", Type: rulefmt.ParamChoice, Values: []string{"all", "take_profit", "stop_loss", "trailing_stop", "trigger"}, Many: true,
					Doc: "Which ones: take_profit, stop_loss (of part or the whole position), trailing_stop (of a position, and trailing triggers), trigger, or all (default).", Example: "[stop_loss, trailing_stop]"},
				pProductType, pMarginCoin},
			Example: `cancel_strategy_orders:
  symbol: TSLAUSDT
  type: all`,
		},
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			var types []string
			if v := a.Params["type"]; v != nil {
				types, _ = v.Literal.([]string)
				if s, ok := v.Literal.(string); ok {
					types = []string{s}
				}
			}
			symbol, pt, coin, err := f.strategyScope(p)
			if err != nil {
				return f.failed(a, err)
			}
			return strategyCancels(a, symbol, pt, coin, types)
		},
		decode: decodeAs[exchange.CancelPlanOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.CancelPlanOrderRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Intent, s.Type = symbolOr(r.Symbol, r.ProductType), "cancel "+string(r.PlanType), string(r.PlanType)
			return []Shown{s}
		},
	}
}

// strategyScope is the contract a cancel of strategy orders is limited to
// (the written symbol or the for_each symbol; none: the whole product
// type), its product type and margin coin.
func (f *firing) strategyScope(p params) (symbol string, pt exchange.ProductType, coin string, err error) {
	sym, err := p.text("symbol")
	if err != nil {
		return "", "", "", err
	}
	if sym != "" || f.rule.Symbol != "" {
		c, err := f.contract(p)
		return c.symbol, c.pt, c.coin, err
	}
	if pt, err = f.productType(p); err != nil {
		return "", "", "", err
	}
	coin, err = p.text("margin_coin")
	return "", pt, coin, err
}

// strategyPlanTypes are the plan types each type of cancel_strategy_orders
// names.
var strategyPlanTypes = map[string][]exchange.PlanType{
	"take_profit":   {exchange.PlanPosProfit, exchange.PlanProfit},
	"stop_loss":     {exchange.PlanPosLoss, exchange.PlanLoss},
	"trailing_stop": {exchange.PlanMoving, exchange.PlanTrack},
	"trigger":       {exchange.PlanNormal},
}

// strategyCancels plans one cancel-plan-order per plan type that types
// name (none or "all": every plan type), for action a, which may be a
// cancel_all with include: [strategy]. Without an id list, the venue cancels
// every plan order of the type, of the symbol when one is sent.
func strategyCancels(a *rules.Action, symbol string, pt exchange.ProductType, coin string, types []string) []Plan {
	var pts []exchange.PlanType
	for _, t := range []string{"take_profit", "stop_loss", "trailing_stop", "trigger"} {
		if len(types) == 0 || slices.Contains(types, "all") || slices.Contains(types, t) {
			pts = append(pts, strategyPlanTypes[t]...)
		}
	}
	plans := make([]Plan, 0, len(pts))
	for _, t := range pts {
		req := exchange.CancelPlanOrderRequest{Symbol: symbol, ProductType: pt, MarginCoin: coin, PlanType: t}
		plans = append(plans, Plan{Kind: string(a.Kind), Op: exchange.OpCancelPlanOrder, Request: req, Symbol: symbol, ProductType: pt})
	}
	if len(plans) == 0 {
		return []Plan{{Kind: string(a.Kind), Op: exchange.OpCancelPlanOrder, Done: &Leg{Kind: string(a.Kind), Op: exchange.OpCancelPlanOrder,
			Outcome: Failed, Error: fmt.Sprintf("type: none of %v is a type of strategy order", types)}}}
	}
	return plans
}
