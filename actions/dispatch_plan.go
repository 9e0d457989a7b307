package actions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tickrules/tickrules/exchange"
)

// Orders that rest on the exchange (protect, place_trigger) are placed like
// orders: each has a deterministic client order id, and an ambiguous outcome
// is settled by looking it up by that id, here among the pending plan
// orders (orders-plan-pending) instead of the order detail. Their cancel
// (cancel-plan-order) is idempotent like the other cancels.
//
// A plan order that triggered (or was cancelled) between the send and the
// lookup is no longer pending: the lookup then reads the plan-order history
// (orders-plan-history) by the same client order id, so that a trigger
// order that opened a position at once is not sent a second time. Only an
// order in neither list reads as absent and is sent again.

// PlaceTPSL sends one place-tpsl-order. A take-profit, stop-loss or
// trailing stop can only close its position: it goes through the guard as
// a reducing order, so that the kill switch never keeps a protection off.
func (d *Dispatcher) PlaceTPSL(ctx context.Context, kind string, req exchange.PlaceTPSLOrderRequest, check OrderCheck) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpPlaceTPSLOrder, Request: req, ClientOIDs: []string{req.ClientOID}}
	if req.ClientOID == "" {
		return d.fail(leg, errors.New("no client order id: refusing to send an order that cannot be reconciled"))
	}
	check.Reducing = true
	if !d.guard(&leg, check) {
		return leg
	}
	return d.placeOnce(ctx, leg, req.Symbol, req.ProductType, func(ctx context.Context) (string, error) {
		ack, err := d.opts.Venue.PlaceTPSLOrder(ctx, req)
		return ack.OrderID, err
	})
}

// PlacePlan sends one place-plan-order. The order it rests is an order
// that opens when it triggers (unless it closes), so it is checked by the
// guard as the order it will become, when it is sent.
func (d *Dispatcher) PlacePlan(ctx context.Context, kind string, req exchange.PlacePlanOrderRequest, check OrderCheck) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpPlacePlanOrder, Request: req, ClientOIDs: []string{req.ClientOID}}
	if req.ClientOID == "" {
		return d.fail(leg, errors.New("no client order id: refusing to send an order that cannot be reconciled"))
	}
	if !d.guard(&leg, check) {
		return leg
	}
	return d.placeOnce(ctx, leg, req.Symbol, req.ProductType, func(ctx context.Context) (string, error) {
		ack, err := d.opts.Venue.PlacePlanOrder(ctx, req)
		return ack.OrderID, err
	})
}

// CancelPlan sends one cancel-plan-order; an ambiguous outcome is settled
// by sending it once more, as for the other cancels.
func (d *Dispatcher) CancelPlan(ctx context.Context, kind string, req exchange.CancelPlanOrderRequest) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpCancelPlanOrder, Request: req}
	return idempotentBatch(ctx, d, leg, req, d.opts.Venue.CancelPlanOrder)
}

// find looks the order with client order id oid, sent by a request of op,
// up at the venue and returns its order id, or errAbsent: a plan order among
// the pending plan orders of its type, any other by its detail.
func (d *Dispatcher) find(ctx context.Context, op exchange.Op, req Request, symbol string, pt exchange.ProductType, oid string) (string, error) {
	var planType exchange.PlanType
	switch r := req.(type) {
	case exchange.PlaceTPSLOrderRequest:
		planType = exchange.PlanProfitLoss
	case exchange.PlacePlanOrderRequest:
		planType = r.PlanType
	default:
		o, err := d.lookup(ctx, symbol, pt, oid)
		return o.OrderID, err
	}
	var last error
	for i := 0; i < d.opts.Lookups; i++ {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("look up %s: %w", oid, ctx.Err())
		case <-d.opts.Clock.After(d.opts.LookupEvery):
		}
		id, err := d.findPlan(ctx, planType, symbol, pt, oid)
		if err == nil {
			return id, nil
		}
		last = fmt.Errorf("%s: %w", op, err)
		if errors.Is(err, errAbsent) {
			last = errAbsent
		}
	}
	return "", last
}

// findPlan looks the plan order with client order id oid up among the
// pending plan orders, then among those that left that list (triggered,
// failed or cancelled); errAbsent when it is in neither.
func (d *Dispatcher) findPlan(ctx context.Context, planType exchange.PlanType, symbol string, pt exchange.ProductType, oid string) (string, error) {
	pending, err := d.opts.Venue.PlanOrders(ctx, exchange.PlanOrdersRequest{ProductType: pt, PlanType: planType, Symbol: symbol, ClientOID: oid})
	if err != nil {
		return "", err
	}
	if id := planOrderID(pending, oid); id != "" {
		return id, nil
	}
	past, err := d.opts.Venue.PlanHistory(ctx, exchange.PlanHistoryRequest{ProductType: pt, PlanType: planType, Symbol: symbol, ClientOID: oid})
	if err != nil {
		return "", fmt.Errorf("plan-order history: %w", err)
	}
	if id := planOrderID(past, oid); id != "" {
		return id, nil
	}
	return "", errAbsent
}

// planOrderID is the order id of the plan order of page with client order
// id oid ("" when none).
func planOrderID(page exchange.PlanOrdersPage, oid string) string {
	for _, o := range page.EntrustedList {
		if o.ClientOID == oid && o.OrderID != "" {
			return o.OrderID
		}
	}
	return ""
}

// narrowPlanCancel turns a cancel of plan orders in doubt (after an unclear
// answer or a restart) into a cancel, by id, of the plan orders of its type
// (and symbol, and ids) that existed at the firing and are still pending:
// a protection placed after the firing is left alone. It reads the first
// page of pending plan orders (100), as the poller does.
func (x *Executor) narrowPlanCancel(ctx context.Context, p Plan) (narrowed, error) {
	var n narrowed
	req, err := requestOf[exchange.CancelPlanOrderRequest](p)
	if err != nil {
		return n, err
	}
	planType := cmp.Or(req.PlanType, exchange.PlanNormal)
	query := planType
	if planType.IsTPSL() {
		query = exchange.PlanProfitLoss
	}
	page, err := x.opts.Dispatcher.opts.Venue.PlanOrders(ctx, exchange.PlanOrdersRequest{ProductType: req.ProductType, PlanType: query, Symbol: req.Symbol})
	if err != nil {
		return n, fmt.Errorf("read the pending %s plan orders of %s: %w", planType, req.ProductType, err)
	}
	listed := func(o exchange.PlanOrder) bool {
		return len(req.OrderIDList) == 0 || slices.ContainsFunc(req.OrderIDList, func(r exchange.OrderRef) bool {
			return (r.OrderID != "" && r.OrderID == o.OrderID) || (r.OrderID == "" && r.ClientOID == o.ClientOID)
		})
	}
	bySymbol := map[string][]exchange.OrderRef{}
	for _, o := range page.EntrustedList {
		if o.PlanType != planType || !listed(o) || (req.MarginCoin != "" && o.MarginCoin != "" && !strings.EqualFold(o.MarginCoin, req.MarginCoin)) {
			continue
		}
		what := fmt.Sprintf("%s %s %s (clientOid %s)", o.PlanType, o.Symbol, o.OrderID, o.ClientOID)
		if x.existedAtFiring(&n, p, what, o.CTime) {
			bySymbol[o.Symbol] = append(bySymbol[o.Symbol], exchange.OrderRef{OrderID: o.OrderID})
		}
	}
	symbols := slices.Sorted(maps.Keys(bySymbol))
	for _, sym := range symbols {
		one := exchange.CancelPlanOrderRequest{OrderIDList: bySymbol[sym], Symbol: sym, ProductType: req.ProductType, MarginCoin: req.MarginCoin, PlanType: planType}
		n.plans = append(n.plans, x.narrowPlan(p, exchange.OpCancelPlanOrder, one, sym))
	}
	return n, nil
}
