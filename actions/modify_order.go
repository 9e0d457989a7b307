package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// modifyOrderKind changes an unfilled limit order. A new size or price is a new
// order at the exchange and can grow exposure (modifyCheck); a change of
// the presets alone opens nothing.
func modifyOrderKind() Kind {
	return Kind{
		Name: rules.ModifyOrder, Opens: true,
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
