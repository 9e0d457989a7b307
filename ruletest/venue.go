package ruletest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// recorder is the venue behind a test's actions: it checks each request with
// the spec's client-side validation (a request the exchange would reject
// fails the leg, as it would in production) and accepts the rest with a
// made-up order id. It changes nothing: a test's State moves only by its
// changes. The requests themselves are recorded by the actions package in
// each Leg.
type recorder struct {
	now  func() time.Time
	next int
	// modified maps the newClientOid of each accepted modify-order to the
	// new order's made-up id: the venue's answer to a modify carries no new
	// id, so the dispatcher looks the new order up by newClientOid.
	modified map[string]exchange.OrderDetail
}

func (r *recorder) id() string {
	r.next++
	return fmt.Sprintf("test-%d", r.next)
}

type validator interface{ Validate(now time.Time) error }

func (r *recorder) ack(req validator, clientOID string) (exchange.OrderAck, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.OrderAck{}, err
	}
	return exchange.OrderAck{OrderID: r.id(), ClientOID: clientOID}, nil
}

// PlaceOrder accepts a valid order.
func (r *recorder) PlaceOrder(_ context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	return r.ack(req, req.ClientOID)
}

// ClickBackhand accepts a valid reversal.
func (r *recorder) ClickBackhand(_ context.Context, req exchange.ClickBackhandRequest) (exchange.OrderAck, error) {
	return r.ack(req, req.ClientOID)
}

// BatchPlaceOrder accepts every order of a valid batch.
func (r *recorder) BatchPlaceOrder(_ context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.BatchPlaceOrderResult{}, err
	}
	res := exchange.BatchPlaceOrderResult{Result: true, FailureList: []exchange.BatchFailure{}}
	for _, o := range req.OrderList {
		res.SuccessList = append(res.SuccessList, exchange.OrderAck{OrderID: r.id(), ClientOID: o.ClientOID})
	}
	return res, nil
}

// ModifyOrder accepts a valid modification. As the venue, it answers
// without the new order's id; OrderDetail finds the new order by its
// newClientOid.
func (r *recorder) ModifyOrder(_ context.Context, req exchange.ModifyOrderRequest) (exchange.OrderAck, error) {
	ack, err := r.ack(req, req.NewClientOID)
	if err != nil {
		return ack, err
	}
	if r.modified == nil {
		r.modified = map[string]exchange.OrderDetail{}
	}
	r.modified[req.NewClientOID] = exchange.OrderDetail{Symbol: req.Symbol, OrderID: ack.OrderID, ClientOID: req.NewClientOID,
		Size: req.NewSize, Price: req.NewPrice, State: exchange.StateLive}
	return exchange.OrderAck{ClientOID: req.NewClientOID}, nil
}

// CancelOrder accepts a valid cancellation.
func (r *recorder) CancelOrder(_ context.Context, req exchange.CancelOrderRequest) (exchange.OrderAck, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.OrderAck{}, err
	}
	return exchange.OrderAck{OrderID: req.OrderID, ClientOID: req.ClientOID}, nil
}

// BatchCancelOrders accepts a valid batch cancellation.
func (r *recorder) BatchCancelOrders(_ context.Context, req exchange.BatchCancelOrdersRequest) (exchange.BatchResult, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.BatchResult{}, err
	}
	res := exchange.BatchResult{FailureList: []exchange.BatchFailure{}}
	for _, o := range req.OrderIDList {
		res.SuccessList = append(res.SuccessList, exchange.OrderAck(o))
	}
	return res, nil
}

// ClosePositions accepts a valid close.
func (r *recorder) ClosePositions(_ context.Context, req exchange.ClosePositionsRequest) (exchange.ClosePositionsResult, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.ClosePositionsResult{}, err
	}
	return exchange.ClosePositionsResult{SuccessList: []exchange.CloseAck{}, FailureList: []exchange.BatchFailure{}}, nil
}

// CancelAllOrders accepts a valid cancel-all.
func (r *recorder) CancelAllOrders(_ context.Context, req exchange.CancelAllOrdersRequest) (exchange.BatchResult, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.BatchResult{}, err
	}
	return exchange.BatchResult{SuccessList: []exchange.OrderAck{}, FailureList: []exchange.BatchFailure{}}, nil
}

// SetPositionMode is not an action; the executor never calls it.
func (r *recorder) SetPositionMode(context.Context, exchange.SetPositionModeRequest) (exchange.SetPositionModeResult, error) {
	return exchange.SetPositionModeResult{}, errors.New("rule tests: set-position-mode is not an action")
}

// OrderDetail finds the new order of a modify by its newClientOid; any
// other lookup follows an ambiguous outcome, which the recorder never
// gives.
func (r *recorder) OrderDetail(_ context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	if o, ok := r.modified[req.ClientOID]; ok && req.ClientOID != "" {
		return o, nil
	}
	return exchange.OrderDetail{}, errors.New("rule tests: no order lookups")
}

// instantWaits is the dispatcher's clock in a rule test: the test's time,
// and waits that end at once. The dispatcher waits a moment before it looks
// an order up (a real venue can take that long to show a new order); the
// recorder shows it at once, and a test's clock moves only between ticks,
// so a wait on it inside a tick would last until the dispatcher gave up
// (15 s of real time per modify_order, and the leg failed).
type instantWaits struct{ now func() time.Time }

// Now returns the test's time.
func (c instantWaits) Now() time.Time { return c.now() }

// After fires at once, with the test's time.
func (c instantWaits) After(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.now()
	return ch
}

// AllPositions is asked only to send a close again after an ambiguous
// outcome, which the recorder never gives.
func (r *recorder) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	return nil, errors.New("rule tests: no position reads")
}

// PendingOrders is asked only to send a cancel again after an ambiguous
// outcome, which the recorder never gives.
func (r *recorder) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	return exchange.PendingOrdersPage{}, errors.New("rule tests: no order reads")
}

// PlaceTPSLOrder accepts a valid take-profit, stop-loss or trailing stop.
func (r *recorder) PlaceTPSLOrder(_ context.Context, req exchange.PlaceTPSLOrderRequest) (exchange.OrderAck, error) {
	return r.ack(req, req.ClientOID)
}

// PlacePlanOrder accepts a valid trigger order.
func (r *recorder) PlacePlanOrder(_ context.Context, req exchange.PlacePlanOrderRequest) (exchange.OrderAck, error) {
	return r.ack(req, req.ClientOID)
}

// CancelPlanOrder accepts a valid cancellation of plan orders.
func (r *recorder) CancelPlanOrder(_ context.Context, req exchange.CancelPlanOrderRequest) (exchange.BatchResult, error) {
	if err := req.Validate(r.now()); err != nil {
		return exchange.BatchResult{}, err
	}
	res := exchange.BatchResult{SuccessList: []exchange.OrderAck{}, FailureList: []exchange.BatchFailure{}}
	for _, o := range req.OrderIDList {
		res.SuccessList = append(res.SuccessList, exchange.OrderAck(o))
	}
	return res, nil
}

// PlanOrders is asked only after an ambiguous outcome, which the recorder
// never gives.
func (r *recorder) PlanOrders(context.Context, exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, errors.New("rule tests: no plan order reads")
}

// PlanHistory is never called: see PlanOrders.
func (r *recorder) PlanHistory(context.Context, exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, errors.New("rule tests: no plan order reads")
}
