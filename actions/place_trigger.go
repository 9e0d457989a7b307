package actions

import (
	"context"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// PlaceTrigger is the key of place_trigger in a rule file.
const PlaceTrigger rules.ActionKind = "place_trigger"

// placeTriggerKind places a trigger order that rests on the exchange
// (place-plan-order). When it triggers it is an order like place_order's:
// one that opens can grow exposure, so the kill switch and the safety
// limits apply to it when it is sent; one that closes passes them.
func placeTriggerKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: PlaceTrigger, Op: exchange.OpPlacePlanOrder,
			Doc: "Place a trigger order that rests on the exchange: when the price reaches trigger_price, the exchange places the order (with trailing_ratio, when the price then comes back that many percent). An order that opens is checked by the kill switch and the safety limits when it is sent, like place_order.",
			Params: concatParams([]rulefmt.ParamDef{pSymbol,
				{Name: "trigger_price", Type: rulefmt.ParamNumber, Required: true, Positive: true, Unit: "quote currency per base coin",
					Doc: "The price that triggers the order, from either side: above the price when placed, it triggers on a rise to it; below, on a fall.", Example: "260"},
				{Name: "trigger", Type: rulefmt.ParamChoice, Values: []string{"mark", "last"},
					Doc: "The price compared with trigger_price: mark (default) or last.", Example: "last"},
				{Name: "trailing_ratio", Type: rulefmt.ParamNumber, Positive: true, Unit: "percent",
					Doc: "Makes it a trailing trigger: active at trigger_price, it places a market order once the price comes back this many percent from its best since. At most 10; only with type: market.", Example: "1.5"}},
				pickParams(orderItemParams, "open", "close", "side", "trade_side", "reduce_only", "type", "size", "price"),
				[]rulefmt.ParamDef{pProductType, pMarginCoin, pMarginMode}),
			Example: `place_trigger:
  symbol: TSLAUSDT
  open: long
  type: market
  size: 1
  trigger_price: 260`,
			Check: func(c *rules.ActionCheck) { c.CheckOrderItem(); checkTrigger(c) },
		},
		Opens: true,
		plan: func(ctx context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			req, check, err := f.trigger(ctx, p)
			if err != nil {
				return f.failed(a, err)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, []OrderCheck{check}, req.ClientOID)
		},
		decode: decodeAs[exchange.PlacePlanOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.PlacePlanOrderRequest) // zero for a leg that was never built
			s := shownOrder(firstIDs(l), r.Symbol, r.Side, r.TradeSide, r.ReduceOnly, r.OrderType, r.Size, r.Price)
			s.Intent = "on trigger at " + string(r.TriggerPrice) + ": " + s.Intent
			if r.CallbackRatio != "" {
				s.Intent += ", trailing " + string(r.CallbackRatio) + "%"
			}
			return []Shown{s}
		},
	}
}

// trigger builds the trigger order of a place_trigger action: the order it
// places, as place_order builds it, and when and how it triggers.
func (f *firing) trigger(ctx context.Context, p params) (exchange.PlacePlanOrderRequest, OrderCheck, error) {
	o, check, err := f.order(ctx, p, p, "")
	if err != nil {
		return exchange.PlacePlanOrderRequest{}, check, err
	}
	c, err := f.contract(p)
	if err != nil {
		return exchange.PlacePlanOrderRequest{}, check, err
	}
	at, err := p.number("trigger_price")
	if err == nil {
		at, err = c.prec.RoundPriceNearest(at)
	}
	if err != nil {
		return exchange.PlacePlanOrderRequest{}, check, fmt.Errorf("trigger_price: %w", err)
	}
	by := exchange.TriggerMarkPrice
	if t, _ := p.text("trigger"); t == "last" {
		by = exchange.TriggerFillPrice
	}
	req := exchange.PlacePlanOrderRequest{
		PlanType: exchange.PlanNormal, Symbol: o.Symbol, ProductType: o.ProductType, MarginMode: o.MarginMode, MarginCoin: o.MarginCoin,
		Size: o.Size, Price: o.Price, TriggerPrice: exchange.NumOf(at), TriggerType: by, Side: o.Side, TradeSide: o.TradeSide,
		OrderType: o.OrderType, ClientOID: o.ClientOID, ReduceOnly: o.ReduceOnly, Mode: o.Mode,
	}
	if p.has("trailing_ratio") {
		ratio, err := p.number("trailing_ratio")
		if err != nil {
			return req, check, err
		}
		req.PlanType, req.CallbackRatio = exchange.PlanTrack, exchange.NumOf(ratio.Round(ratioPlaces))
	}
	if req.OrderType == exchange.Market {
		// The order is placed near the trigger price, not today's price:
		// that is the price the notional limit weighs.
		check.Price = at
	}
	return req, check, nil
}

// checkTrigger checks a trailing trigger: a market order, at most 10 percent.
func checkTrigger(c *rules.ActionCheck) {
	if len(c.Given("trailing_ratio")) == 0 {
		return
	}
	if typ, _ := c.Params().Text("type"); typ == string(exchange.Limit) || len(c.Given("price")) > 0 {
		c.Errorf(c.Where("trailing_ratio"), "use type: market without price, or remove trailing_ratio",
			"a trailing trigger places a market order")
	}
	c.MaxRatio("trailing_ratio")
}
