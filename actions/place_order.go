package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// PlaceOrder is the key of place_order in a rule file.
const PlaceOrder rules.ActionKind = "place_order"

// placeOrderKind places one futures order. An open can grow exposure; a close
// (or a raw reduce-only order) is reducing and passes the guard.
func placeOrderKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: PlaceOrder, Op: exchange.OpPlaceOrder,
			Doc:    "Place one futures order.",
			Params: concatParams([]rulefmt.ParamDef{pSymbol}, orderItemParams, []rulefmt.ParamDef{pProductType, pMarginCoin, pMarginMode}),
			Example: `place_order:
  symbol: TSLAUSDT
  open: long
  type: limit
  size: 2
  price: =stock("TSLA").bid * 0.999`,
			Check: func(c *rules.ActionCheck) { c.CheckOrderItem() },
		},
		Opens: true,
		plan: func(ctx context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			req, check, err := f.order(ctx, p, p, "")
			if err != nil {
				return f.failed(a, err)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, []OrderCheck{check}, req.ClientOID)
		},
		decode: decodeAs[exchange.PlaceOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.PlaceOrderRequest) // zero for a leg that was never built
			return []Shown{shownOrder(firstIDs(l), r.Symbol, r.Side, r.TradeSide, r.ReduceOnly, r.OrderType, r.Size, r.Price)}
		},
	}
}
