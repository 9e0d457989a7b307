package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// BatchCancel is the key of batch_cancel in a rule file.
const BatchCancel rules.ActionKind = "batch_cancel"

// batchCancelKind cancels several orders of one contract, or every pending
// order of it when no ids are written; it never opens anything.
func batchCancelKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: BatchCancel, Op: exchange.OpBatchCancelOrders,
			Doc: "Cancel several orders of one contract; without orders and client_oids, every pending order of the contract.",
			Params: []rulefmt.ParamDef{pSymbol,
				{Name: "orders", Type: rulefmt.ParamIDList, Doc: "Order ids to cancel. A formula giving an empty list cancels nothing (never every order).", Example: `=map(filter(orders("TSLAUSDT"), .age_seconds > 600), .id)`},
				{Name: "client_oids", Type: rulefmt.ParamIDList, Doc: "Client order ids to cancel. A formula giving an empty list cancels nothing.", Example: "[my-order-1, my-order-2]"},
				pProductType, pMarginCoin},
			Example: `batch_cancel:
  symbol: TSLAUSDT`,
		},
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
