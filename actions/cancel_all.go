package actions

import (
	"context"
	"slices"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// CancelAll is the key of cancel_all in a rule file.
const CancelAll rules.ActionKind = "cancel_all"

// cancelAllKind cancels every pending order of a product type, or of each of a
// list (one request each), and with include: [strategy] the orders resting
// on the exchange too (cancel-plan-order, one request per plan type); it
// never opens anything.
func cancelAllKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: CancelAll, Op: exchange.OpCancelAllOrders,
			Doc: "Cancel every pending order of the product type, or of each product type of a list (one request each).",
			Params: []rulefmt.ParamDef{{Name: "product_type", Type: rulefmt.ParamChoice, Values: enumValues("productType"), Formula: true, Many: true,
				Doc:     "Overrides the file's defaults.product_type; a list cancels on each product type in turn.",
				Example: "[USDT-FUTURES, USDC-FUTURES]"}, pMarginCoin,
				{Name: "include", Type: rulefmt.ParamChoice, Values: []string{"strategy"}, Many: true,
					Doc:     "strategy also cancels the orders that rest on the exchange (take-profits, stop-losses, trailing stops and trigger orders, as cancel_strategy_orders with type all); without it they stay.",
					Example: "[strategy]"}},
			Example: `cancel_all: { include: [strategy] }`,
			Check:   checkCancelAll,
		},
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			return f.cancelAll(a)
		},
		decode: decodeAs[exchange.CancelAllOrdersRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.CancelAllOrdersRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Intent = string(r.ProductType), "cancel all"
			return []Shown{s}
		},
	}
}

// cancelAll plans one cancel-all-orders request per product type: one, or
// each of a list. With a list, a margin coin inherited from the file's
// defaults is not sent: it belongs to one product type only (the loader
// rejects one written on the action).
func (f *firing) cancelAll(a *rules.Action) []Plan {
	p := params{f: f, ps: a.Params}
	pts := []exchange.ProductType{}
	if v := a.Params["product_type"]; v != nil && !v.IsFormula() {
		if list, ok := v.Literal.([]string); ok {
			for _, s := range list {
				pts = append(pts, exchange.ProductType(s))
			}
		}
	}
	coin, err := p.text("margin_coin")
	if err != nil {
		return f.failed(a, err)
	}
	if len(pts) == 0 {
		pt, err := f.productType(p)
		if err != nil {
			return f.failed(a, err)
		}
		pts = append(pts, pt)
	} else if len(pts) > 1 {
		coin = ""
	}
	var include []string
	if v := a.Params["include"]; v != nil {
		include, _ = v.Literal.([]string)
	}
	plans := make([]Plan, 0, len(pts))
	for _, pt := range pts {
		plans = append(plans, newPlan(a, exchange.CancelAllOrdersRequest{ProductType: pt, MarginCoin: coin}, "", pt, nil)...)
		if slices.Contains(include, "strategy") {
			// The orders resting on the exchange are not pending orders:
			// cancel-all-orders leaves them, so each type is cancelled too.
			plans = append(plans, strategyCancels(a, "", pt, coin, nil)...)
		}
	}
	return plans
}

// checkCancelAll rejects a margin coin written beside a list of product
// types: one coin cannot belong to USDT- and USDC-margined futures at once.
func checkCancelAll(c *rules.ActionCheck) {
	v := c.Params()["product_type"]
	if v == nil {
		return
	}
	if pts, ok := v.Literal.([]string); ok && len(pts) > 1 && len(c.Given("margin_coin")) > 0 {
		c.Errorf(c.Where("margin_coin"), "leave margin_coin out, or write one cancel_all per product type",
			"margin_coin applies to one product type, but product_type lists %d", len(pts))
	}
}
