package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Plan is one request of a firing, built and rounded but not sent: what the
// engine records in its journal before the first order of the firing
// leaves, and what Send and Settle send from, after a restart too. Request
// is the exact JSON body; ClientOIDs are the deterministic ids that find the
// orders again at the venue.
type Plan struct {
	Kind        string               `json:"kind"` // the action as written in the rule file
	Op          exchange.Op          `json:"op"`
	Request     json.RawMessage      `json:"request,omitempty"`
	Symbol      string               `json:"symbol,omitempty"`
	ProductType exchange.ProductType `json:"productType,omitempty"`
	// Checks describe the orders for the risk guard, one per order (a
	// batch has one per item); they are checked again on every send.
	Checks     []OrderCheck `json:"checks,omitempty"`
	ClientOIDs []string     `json:"clientOids,omitempty"`
	// Done is set when nothing is to be sent: a log action, or an action
	// that could not be built (its leg says why).
	Done *Leg `json:"done,omitempty"`
	// At is the venue time of the firing that built p. A cancel or close
	// sent again after an unclear answer or a restart acts only on the
	// orders and positions the venue created at or before At (see resend).
	At time.Time `json:"at,omitzero"`
}

func newPlan(kind string, op exchange.Op, req any, symbol string, pt exchange.ProductType, checks []OrderCheck, oids ...string) Plan {
	return Plan{Kind: kind, Op: op, Request: mustJSON(req), Symbol: symbol, ProductType: pt, Checks: checks, ClientOIDs: oids}
}

// Lookupable reports whether the outcome of p can be found at the venue by
// client order id: new orders (place, batch place, reverse) and modifies
// that replace the order. Cancels, closes and preset-only modifies have no
// id of their own: Settle never sends them again as recorded, but narrows
// them to what existed at the firing (resend).
func (p Plan) Lookupable() bool {
	switch p.Op {
	case exchange.OpPlaceOrder, exchange.OpBatchPlaceOrder, exchange.OpClickBackhand:
		return len(p.ClientOIDs) > 0
	case exchange.OpModifyOrder:
		var req exchange.ModifyOrderRequest
		if err := json.Unmarshal(p.Request, &req); err != nil {
			return false
		}
		return req.NewClientOID != "" && (req.NewSize != "" || req.NewPrice != "")
	}
	return false
}

// only returns p reduced to the orders with the given client order ids (a
// batch keeps those items; a single order is kept whole).
func (p Plan) only(oids []string) (Plan, error) {
	if p.Op != exchange.OpBatchPlaceOrder {
		return p, nil
	}
	var req exchange.BatchPlaceOrderRequest
	if err := json.Unmarshal(p.Request, &req); err != nil {
		return p, fmt.Errorf("%s: recorded request: %w", p.Op, err)
	}
	items, checks := req.OrderList[:0:0], []OrderCheck(nil)
	for i, it := range req.OrderList {
		if slices.Contains(oids, it.ClientOID) {
			items = append(items, it)
			if i < len(p.Checks) {
				checks = append(checks, p.Checks[i])
			}
		}
	}
	req.OrderList = items
	out := p
	out.Request, out.Checks, out.ClientOIDs = mustJSON(req), checks, oids
	return out, nil
}

// Send sends p through the executor's dispatcher (guards, then the venue)
// and returns its legs; a done Plan returns its leg.
func (x *Executor) Send(ctx context.Context, p Plan) []Leg {
	return sendPlan(ctx, x.opts.Dispatcher, p)
}

// sendPlan decodes the recorded request of p and hands it to d.
func sendPlan(ctx context.Context, d *Dispatcher, p Plan) []Leg {
	if p.Done != nil {
		return []Leg{*p.Done}
	}
	check := func(i int) OrderCheck {
		if i < len(p.Checks) {
			return p.Checks[i]
		}
		// A plan without its check (recorded by an older version) is
		// refused by any size limit rather than passed as size zero.
		return OrderCheck{Symbol: p.Symbol, SizeUnknown: true}
	}
	var legs []Leg
	var err error
	switch p.Op {
	case exchange.OpPlaceOrder:
		legs, err = decoded(p, func(r exchange.PlaceOrderRequest) []Leg { return []Leg{d.Place(ctx, p.Kind, r, check(0))} })
	case exchange.OpBatchPlaceOrder:
		legs, err = decoded(p, func(r exchange.BatchPlaceOrderRequest) []Leg { return d.BatchPlace(ctx, p.Kind, r, p.Checks) })
	case exchange.OpModifyOrder:
		legs, err = decoded(p, func(r exchange.ModifyOrderRequest) []Leg { return []Leg{d.Modify(ctx, p.Kind, r, check(0))} })
	case exchange.OpCancelOrder:
		legs, err = decoded(p, func(r exchange.CancelOrderRequest) []Leg { return []Leg{d.Cancel(ctx, p.Kind, r)} })
	case exchange.OpBatchCancelOrders:
		legs, err = decoded(p, func(r exchange.BatchCancelOrdersRequest) []Leg { return d.BatchCancel(ctx, p.Kind, r) })
	case exchange.OpClickBackhand:
		legs, err = decoded(p, func(r exchange.ClickBackhandRequest) []Leg { return []Leg{d.Reverse(ctx, p.Kind, r, check(0))} })
	case exchange.OpClosePositions:
		legs, err = decoded(p, func(r exchange.ClosePositionsRequest) []Leg { return []Leg{d.ClosePositions(ctx, p.Kind, r)} })
	case exchange.OpCancelAllOrders:
		legs, err = decoded(p, func(r exchange.CancelAllOrdersRequest) []Leg { return []Leg{d.CancelAll(ctx, p.Kind, r)} })
	default:
		err = fmt.Errorf("operation %q is not one an action sends", p.Op)
	}
	if err == nil {
		return legs
	}
	leg := Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: p.ClientOIDs}
	return []Leg{d.fail(leg, fmt.Errorf("recorded request: %w (not sent)", err))}
}

// decoded decodes the recorded request of p as R and hands it to send.
func decoded[R any](p Plan, send func(R) []Leg) ([]Leg, error) {
	var req R
	if err := json.Unmarshal(p.Request, &req); err != nil {
		return nil, err
	}
	return send(req), nil
}
