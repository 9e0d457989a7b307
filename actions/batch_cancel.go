package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// batchCancelKind cancels several orders of one contract, or every pending
// order of it when no ids are written; it never opens anything.
func batchCancelKind() Kind {
	return Kind{
		Name: rules.BatchCancel,
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			c, err := f.contract(p)
			if err != nil {
				return f.failed(a, err)
			}
			req := exchange.BatchCancelOrdersRequest{ProductType: c.pt, Symbol: c.symbol, MarginCoin: c.coin}
			ids, err := p.ids("orders")
			if err != nil {
				return f.failed(a, err)
			}
			oids, err := p.ids("client_oids")
			if err != nil {
				return f.failed(a, err)
			}
			for _, id := range ids {
				req.OrderIDList = append(req.OrderIDList, exchange.OrderRef{OrderID: id})
			}
			for _, id := range oids {
				req.OrderIDList = append(req.OrderIDList, exchange.OrderRef{ClientOID: id})
			}
			// A request without ids cancels every pending order of the
			// contract: ids formulas that found nothing must send nothing.
			if len(req.OrderIDList) == 0 && (p.has("orders") || p.has("client_oids")) {
				kind, op := string(a.Kind), exchange.OpBatchCancelOrders
				return []Plan{{Kind: kind, Op: op, Done: &Leg{Kind: kind, Op: op, Outcome: OK, Note: "no order ids to cancel: nothing sent"}}}
			}
			return newPlan(a, req, req.Symbol, req.ProductType, nil)
		},
		decode: decodeAs[exchange.BatchCancelOrdersRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.BatchCancelOrdersRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Intent = symbolOr(r.Symbol, r.ProductType), "cancel"
			return []Shown{s}
		},
	}
}
