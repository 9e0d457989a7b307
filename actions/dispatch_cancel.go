package actions

import (
	"context"
	"errors"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
)

// Cancels, closes and cancel-all are idempotent at the exchange: sending one
// twice cancels or closes nothing more. So an ambiguous outcome is settled by
// sending the same request once more, and "nothing to cancel" or "no position"
// after that counts as done. Modify is not idempotent in the same way and is
// settled by looking the new order up by its newClientOid.

// gone reports the errors that mean the target no longer exists: already
// cancelled or filled, or no position to close.
func gone(err error) bool {
	var ae *exchange.APIError
	return errors.As(err, &ae) && ae.IsNotFound()
}

// idempotent runs send; an ambiguous outcome is followed by exactly one more
// send. A not-found answer on the second send means the first one worked.
func (d *Dispatcher) idempotent(ctx context.Context, leg Leg, send func(context.Context) error) Leg {
	err := send(ctx)
	if err == nil {
		return d.ok(leg)
	}
	if gone(err) {
		leg.Note = "nothing to do: " + err.Error()
		return d.ok(leg)
	}
	if l, ok := d.deferred(ctx, leg, err, nil); ok {
		return l
	}
	if !Ambiguous(ctx, err) {
		return d.fail(leg, err)
	}
	leg.Reconciled = true
	rctx, cancel := d.reconcileCtx(ctx)
	defer cancel()
	select {
	case <-rctx.Done():
		return d.fail(leg, fmt.Errorf("outcome unknown: %w", err))
	case <-d.opts.Clock.After(d.opts.LookupEvery):
	}
	err2 := send(rctx)
	switch {
	case err2 == nil:
		return d.ok(leg)
	case gone(err2):
		leg.Note = "done by the first request (the repeat found nothing to do)"
		return d.ok(leg)
	}
	return d.fail(leg, fmt.Errorf("outcome unknown (%v), and the repeat failed: %w", err, err2))
}

// Cancel sends one cancel-order.
func (d *Dispatcher) Cancel(ctx context.Context, kind string, req exchange.CancelOrderRequest) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpCancelOrder, Request: req}
	if req.OrderID != "" {
		leg.OrderIDs = []string{req.OrderID}
	}
	if req.ClientOID != "" {
		leg.ClientOIDs = []string{req.ClientOID}
	}
	return d.idempotent(ctx, leg, func(ctx context.Context) error {
		_, err := d.opts.Venue.CancelOrder(ctx, req)
		return err
	})
}

// BatchCancel sends batch-cancel-orders in chunks of at most 50 ids; without
// ids it cancels every order of the symbol in one request. Items that failed
// because the order is already gone are not failures.
func (d *Dispatcher) BatchCancel(ctx context.Context, kind string, req exchange.BatchCancelOrdersRequest) []Leg {
	if len(req.OrderIDList) == 0 {
		return []Leg{d.batchCancelChunk(ctx, kind, req)}
	}
	var legs []Leg
	for _, c := range chunks(len(req.OrderIDList)) {
		chunk := req
		chunk.OrderIDList = req.OrderIDList[c[0]:c[1]]
		legs = append(legs, d.batchCancelChunk(ctx, kind, chunk))
	}
	return legs
}

func (d *Dispatcher) batchCancelChunk(ctx context.Context, kind string, req exchange.BatchCancelOrdersRequest) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpBatchCancelOrders, Request: req}
	return idempotentBatch(ctx, d, leg, req, d.opts.Venue.BatchCancelOrders)
}

// idempotentBatch sends an idempotent batch operation (batch-cancel,
// cancel-all) and records its per-item results.
func idempotentBatch[Req any](ctx context.Context, d *Dispatcher, leg Leg, req Req, send func(context.Context, Req) (exchange.BatchResult, error)) Leg {
	var res exchange.BatchResult
	leg = d.idempotent(ctx, leg, func(ctx context.Context) error {
		var err error
		res, err = send(ctx, req)
		return err
	})
	return d.batchFailures(leg, res)
}

// batchFailures records the per-item results of a cancel batch.
func (d *Dispatcher) batchFailures(leg Leg, res exchange.BatchResult) Leg {
	for _, s := range res.SuccessList {
		leg.OrderIDs = append(leg.OrderIDs, s.OrderID)
	}
	for _, f := range res.FailureList {
		if f.Gone() {
			continue
		}
		leg.Failures = append(leg.Failures, f)
	}
	if leg.Outcome == OK && len(leg.Failures) > 0 {
		return d.fail(leg, fmt.Errorf("%d items failed", len(leg.Failures)))
	}
	return leg
}

// ClosePositions sends close-positions.
func (d *Dispatcher) ClosePositions(ctx context.Context, kind string, req exchange.ClosePositionsRequest) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpClosePositions, Request: req}
	var res exchange.ClosePositionsResult
	leg = d.idempotent(ctx, leg, func(ctx context.Context) error {
		var err error
		res, err = d.opts.Venue.ClosePositions(ctx, req)
		return err
	})
	for _, s := range res.SuccessList {
		leg.OrderIDs = append(leg.OrderIDs, s.OrderID)
	}
	return d.batchFailures(leg, exchange.BatchResult{FailureList: res.FailureList})
}

// CancelAll sends cancel-all-orders.
func (d *Dispatcher) CancelAll(ctx context.Context, kind string, req exchange.CancelAllOrdersRequest) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpCancelAllOrders, Request: req}
	return idempotentBatch(ctx, d, leg, req, d.opts.Venue.CancelAllOrders)
}

// Modify sends modify-order. The exchange answers asynchronously without the
// new order id, so the new order is always looked up by NewClientOID. An
// ambiguous outcome whose new order is confirmed absent is sent once more
// with the same NewClientOID. A change of size or price replaces the order
// by a new one at the exchange, so check (the new order) goes through the
// risk guard like a placement; a change of the presets alone opens nothing
// and is not checked, so a stop-loss can still be moved under the kill switch.
func (d *Dispatcher) Modify(ctx context.Context, kind string, req exchange.ModifyOrderRequest, check OrderCheck) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpModifyOrder, Request: req, ClientOIDs: []string{req.NewClientOID}}
	if req.NewClientOID == "" {
		return d.fail(leg, errors.New("no newClientOid: refusing to modify an order that cannot be reconciled"))
	}
	if req.NewSize == "" && req.NewPrice == "" {
		// Only the presets change; the order keeps its id and nothing new appears.
		return d.idempotent(ctx, leg, func(ctx context.Context) error {
			_, err := d.opts.Venue.ModifyOrder(ctx, req)
			return err
		})
	}
	if !d.guard(&leg, check) {
		return leg
	}
	return d.placeOnce(ctx, leg, req.Symbol, req.ProductType, func(ctx context.Context) (string, error) {
		ack, err := d.opts.Venue.ModifyOrder(ctx, req)
		if err == nil {
			// The id in the answer, if any, is the old order's; the new
			// order is found by newClientOid.
			return "", nil
		}
		return ack.OrderID, err
	})
}
