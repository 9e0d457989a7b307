package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// ModifyOrder is the key of modify_order in a rule file.
const ModifyOrder rules.ActionKind = "modify_order"

// modifyOrderKind changes an unfilled limit order. A new size or price is a new
// order at the exchange and can grow exposure (modifyCheck); a change of
// the presets alone opens nothing.
func modifyOrderKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: ModifyOrder, Op: exchange.OpModifyOrder,
			Doc: "Change an unfilled limit order: size and price together, or the preset take-profit/stop-loss.",
			Params: []rulefmt.ParamDef{pSymbol, pOrderID, pClientOID,
				{Name: "new_size", Type: rulefmt.ParamNumber, Positive: true, Unit: "base coin", Doc: "New size; only together with new_price.", Example: "3"},
				{Name: "new_price", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin", Doc: "New price; only together with new_size.", Example: "=stock(\"TSLA\").bid"},
				{Name: "new_take_profit", Type: rulefmt.ParamNumber, Unit: "quote currency per base coin", Doc: "New preset take-profit price; 0 deletes it.", Example: "260"},
				{Name: "new_stop_loss", Type: rulefmt.ParamNumber, Unit: "quote currency per base coin", Doc: "New preset stop-loss price; 0 deletes it.", Example: "230"},
				pProductType},
			Example: `modify_order:
  symbol: TSLAUSDT
  client_oid: my-order-1
  new_size: 2
  new_price: =stock("TSLA").bid`,
			Check: func(c *rules.ActionCheck) {
				c.ExactlyOne("order_id", "client_oid")
				c.Together("new_size", "new_price")
				c.AtLeastOne("new_size", "new_price", "new_take_profit", "new_stop_loss")
			},
		},
		Opens: true,
		plan: func(ctx context.Context, f *firing, a *rules.Action) []Plan {
			req, err := f.modify(params{f: f, ps: a.Params})
			if err != nil {
				return f.failed(a, err)
			}
			check, err := f.modifyCheck(ctx, req)
			if err != nil {
				return f.failed(a, err)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, []OrderCheck{check}, req.NewClientOID)
		},
		decode: decodeAs[exchange.ModifyOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.ModifyOrderRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Intent, s.Size, s.Price = symbolOr(r.Symbol, r.ProductType), "modify", string(r.NewSize), string(r.NewPrice)
			return []Shown{s}
		},
	}
}
