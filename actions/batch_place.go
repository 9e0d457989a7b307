package actions

import (
	"context"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// BatchPlace is the key of batch_place in a rule file.
const BatchPlace rules.ActionKind = "batch_place"

// batchPlaceKind places several orders on one contract in one request (the
// dispatcher sends them 50 at a time); each order is guarded like a
// place_order.
func batchPlaceKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: BatchPlace, Op: exchange.OpBatchPlaceOrder,
			Doc: "Place several orders on one contract at once (any number; the engine sends them 50 at a time).",
			Params: []rulefmt.ParamDef{pSymbol,
				{Name: "orders", Type: rulefmt.ParamOrders, Required: true, Items: orderItemParams,
					Doc: "The orders; each item has the fields of place_order except symbol and the overrides."},
				pProductType, pMarginCoin, pMarginMode},
			Example: `batch_place:
  symbol: TSLAUSDT
  orders:
    - { open: long, type: limit, size: 1, price: 240 }
    - { open: long, type: limit, size: 1, price: 238 }`,
		},
		Opens: true,
		plan: func(ctx context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			c, err := f.contract(p)
			if err != nil {
				return f.failed(a, err)
			}
			req := exchange.BatchPlaceOrderRequest{Symbol: c.symbol, ProductType: c.pt, MarginCoin: c.coin, MarginMode: c.marginMode, Mode: c.mode}
			var checks []OrderCheck
			var oids []string
			for i, item := range a.Orders {
				one, check, err := f.order(ctx, p, params{f: f, ps: item}, fmt.Sprintf("orders[%d].", i))
				if err != nil {
					return f.failed(a, err)
				}
				req.OrderList = append(req.OrderList, exchange.BatchOrder{Size: one.Size, Price: one.Price, Side: one.Side, TradeSide: one.TradeSide,
					OrderType: one.OrderType, Force: one.Force, ClientOID: one.ClientOID, ReduceOnly: one.ReduceOnly,
					PresetStopSurplusPrice: one.PresetStopSurplusPrice, PresetStopLossPrice: one.PresetStopLossPrice, STPMode: one.STPMode})
				checks = append(checks, check)
				oids = append(oids, one.ClientOID)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, checks, oids...)
		},
		decode: decodeAs[exchange.BatchPlaceOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.BatchPlaceOrderRequest) // zero for a leg that was never built
			var out []Shown
			for i, o := range r.OrderList {
				one := firstIDs(l)
				one.ClientOID, one.OrderID = o.ClientOID, ""
				if len(l.OrderIDs) == len(r.OrderList) {
					one.OrderID = l.OrderIDs[i]
				}
				out = append(out, shownOrder(one, r.Symbol, o.Side, o.TradeSide, o.ReduceOnly, o.OrderType, o.Size, o.Price))
			}
			return out
		},
	}
}
