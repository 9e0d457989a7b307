package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// CancelOrder is the key of cancel_order in a rule file.
const CancelOrder rules.ActionKind = "cancel_order"

// cancelOrderKind cancels one order; it never opens anything.
func cancelOrderKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: CancelOrder, Op: exchange.OpCancelOrder,
			Doc:    "Cancel one order.",
			Params: []rulefmt.ParamDef{pSymbol, pOrderID, pClientOID, pProductType, pMarginCoin},
			Example: `cancel_order:
  symbol: TSLAUSDT
  client_oid: my-order-1`,
			Check: func(c *rules.ActionCheck) { c.ExactlyOne("order_id", "client_oid") },
		},
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			c, err := f.contract(p)
			if err != nil {
				return f.failed(a, err)
			}
			req := exchange.CancelOrderRequest{Symbol: c.symbol, ProductType: c.pt, MarginCoin: c.coin}
			if req.OrderID, err = p.text("order_id"); err == nil {
				req.ClientOID, err = p.text("client_oid")
			}
			if err != nil {
				return f.failed(a, err)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, nil)
		},
		decode: decodeAs[exchange.CancelOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.CancelOrderRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Intent = symbolOr(r.Symbol, r.ProductType), "cancel"
			return []Shown{s}
		},
	}
}
