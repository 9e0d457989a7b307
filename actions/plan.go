package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// Plan is one request of a firing, built and rounded but not sent: what the
// engine records in its journal before the first order of the firing
// leaves, and what Send and Settle send from, after a restart too. Request
// is the typed request body (JSON only in the journal file, see
// UnmarshalJSON); ClientOIDs are the deterministic ids that find the orders
// again at the venue.
type Plan struct {
	Kind        string               `json:"kind"` // the action as written in the rule file
	Op          exchange.Op          `json:"op"`
	Request     Request              `json:"request,omitempty"`
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

// newPlan is the one Plan of action a that sends req.
func newPlan(a *rules.Action, req Request, symbol string, pt exchange.ProductType, checks []OrderCheck, oids ...string) []Plan {
	kind := string(a.Kind)
	var op exchange.Op
	if k, ok := KindOf(kind); ok {
		op = k.Op()
	}
	return []Plan{{Kind: kind, Op: op, Request: req, Symbol: symbol, ProductType: pt, Checks: checks, ClientOIDs: oids}}
}

// Lookupable reports whether the outcome of p can be found at the venue by
// client order id: new orders (place, batch place, reverse) and modifies
// that replace the order. Cancels, closes and preset-only modifies have no
// id of their own: Settle never sends them again as recorded, but narrows
// them to what existed at the firing (resend).
func (p Plan) Lookupable() bool {
	switch p.Op {
	case exchange.OpPlaceOrder, exchange.OpBatchPlaceOrder, exchange.OpClickBackhand, exchange.OpPlaceTPSLOrder, exchange.OpPlacePlanOrder:
		return len(p.ClientOIDs) > 0
	case exchange.OpModifyOrder:
		req, ok := p.Request.(exchange.ModifyOrderRequest)
		return ok && req.NewClientOID != "" && (req.NewSize != "" || req.NewPrice != "")
	}
	return false
}

// only returns p reduced to the orders with the given client order ids (a
// batch keeps those items; a single order is kept whole).
func (p Plan) only(oids []string) (Plan, error) {
	if p.Op != exchange.OpBatchPlaceOrder {
		return p, nil
	}
	req, err := requestOf[exchange.BatchPlaceOrderRequest](p)
	if err != nil {
		return p, fmt.Errorf("%s: %w", p.Op, err)
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
	out.Request, out.Checks, out.ClientOIDs = req, checks, oids
	return out, nil
}

// Send sends p through the executor's dispatcher (guards, then the venue)
// and returns its legs; a done Plan returns its leg.
func (x *Executor) Send(ctx context.Context, p Plan) []Leg {
	return sendPlan(ctx, x.opts.Dispatcher, p)
}

// sendPlan hands the request of p to d.
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
	switch r := p.Request.(type) {
	case exchange.PlaceOrderRequest:
		return []Leg{d.Place(ctx, p.Kind, r, check(0))}
	case exchange.BatchPlaceOrderRequest:
		return d.BatchPlace(ctx, p.Kind, r, p.Checks)
	case exchange.ModifyOrderRequest:
		return []Leg{d.Modify(ctx, p.Kind, r, check(0))}
	case exchange.CancelOrderRequest:
		return []Leg{d.Cancel(ctx, p.Kind, r)}
	case exchange.BatchCancelOrdersRequest:
		return d.BatchCancel(ctx, p.Kind, r)
	case exchange.ClickBackhandRequest:
		return []Leg{d.Reverse(ctx, p.Kind, r, check(0))}
	case exchange.ClosePositionsRequest:
		return []Leg{d.ClosePositions(ctx, p.Kind, r)}
	case exchange.CancelAllOrdersRequest:
		return []Leg{d.CancelAll(ctx, p.Kind, r)}
	case exchange.PlaceTPSLOrderRequest:
		return []Leg{d.PlaceTPSL(ctx, p.Kind, r, check(0))}
	case exchange.PlacePlanOrderRequest:
		return []Leg{d.PlacePlan(ctx, p.Kind, r, check(0))}
	case exchange.CancelPlanOrderRequest:
		return []Leg{d.CancelPlan(ctx, p.Kind, r)}
	}
	leg := Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: p.ClientOIDs}
	return []Leg{d.fail(leg, fmt.Errorf("operation %q with a %T is not a request an action sends (not sent)", p.Op, p.Request))}
}

// UnmarshalJSON reads a Plan from the journal file: strictly (an unknown
// field is an error, as in the rest of the journal), with its request
// decoded once into the type its operation takes. Journals written before
// requests were typed have the same form and read the same way.
func (p *Plan) UnmarshalJSON(b []byte) error {
	type plain Plan // without this method
	var raw struct {
		plain
		Request json.RawMessage `json:"request,omitempty"`
	}
	if err := strictUnmarshal(b, &raw); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	req, err := decodeRequest(raw.Op, raw.Request)
	if err != nil {
		return fmt.Errorf("plan of %s: %w", raw.Kind, err)
	}
	*p = Plan(raw.plain)
	p.Request = req
	return nil
}

// strictUnmarshal decodes one JSON value into v, refusing unknown fields.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
