package actions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// Venue is what the dispatcher needs: every mutating operation, the order
// detail query to settle ambiguous outcomes by client order id, and the
// positions and pending orders that a cancel or close sent again is
// narrowed to (Executor.Settle).
type Venue interface {
	exchange.Trader
	OrderDetail(ctx context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error)
	AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error)
	PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error)
	// PlanOrders and PlanHistory find an order that rests on the exchange
	// by client order id after an ambiguous outcome, pending or already
	// triggered or cancelled (dispatch_plan.go).
	PlanOrders(ctx context.Context, req exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error)
	PlanHistory(ctx context.Context, req exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error)
}

// Clock is the time source the dispatcher waits on between lookups.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// DispatcherOptions configure a Dispatcher.
type DispatcherOptions struct {
	Venue  Venue
	Guard  *Guard // nil: no guard
	Clock  Clock
	Logger *zap.Logger
	// Lookups is how many times an ambiguous order is looked up by client
	// order id before it is considered absent (default 3), LookupEvery the
	// wait before each lookup (default 1s): a new order can take a moment to
	// become visible.
	Lookups     int
	LookupEvery time.Duration
	// ReconcileTimeout bounds the reconciliation, which runs even when the
	// caller's context is cancelled (default 15s).
	ReconcileTimeout time.Duration
	// Defer, when set, returns an ambiguous outcome or a 429 at once as an
	// Unsettled leg instead of looking it up or retrying here: the engine settles it with
	// Executor.Settle off the tick loop, so that no lookup holds up the
	// evaluation of the other rules.
	Defer bool
}

// Dispatcher sends the requests of actions, one leg at a time, and never sends
// the same order twice: an ambiguous outcome is looked up by client order id
// and re-sent, with the same client order id, only when the lookup says the
// exchange does not have it.
type Dispatcher struct {
	opts DispatcherOptions
}

// NewDispatcher returns a dispatcher for opts.
func NewDispatcher(opts DispatcherOptions) *Dispatcher {
	if opts.Lookups <= 0 {
		opts.Lookups = 3
	}
	if opts.LookupEvery <= 0 {
		opts.LookupEvery = time.Second
	}
	if opts.ReconcileTimeout <= 0 {
		opts.ReconcileTimeout = 15 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Dispatcher{opts: opts}
}

// errAbsent is the lookup's answer that the exchange has no such order.
var errAbsent = errors.New("order not found by client order id")

// lookup asks for the order with clientOID, waiting LookupEvery before each
// of up to Lookups tries. It returns the order, errAbsent when every try said
// not found, or another error when the lookups themselves failed.
func (d *Dispatcher) lookup(ctx context.Context, symbol string, pt exchange.ProductType, clientOID string) (exchange.OrderDetail, error) {
	var last error
	for i := 0; i < d.opts.Lookups; i++ {
		select {
		case <-ctx.Done():
			return exchange.OrderDetail{}, fmt.Errorf("look up %s: %w", clientOID, ctx.Err())
		case <-d.opts.Clock.After(d.opts.LookupEvery):
		}
		o, err := d.opts.Venue.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: symbol, ProductType: pt, ClientOID: clientOID})
		if err == nil && o.OrderID != "" {
			return o, nil
		}
		var ae *exchange.APIError
		if err == nil || (errors.As(err, &ae) && ae.IsNotFound()) {
			last = errAbsent
			continue
		}
		last = err
	}
	return exchange.OrderDetail{}, last
}

// reconcileCtx outlives the caller's cancellation, bounded in time: a
// shutdown in the middle of a request must still find out what happened.
func (d *Dispatcher) reconcileCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d.opts.ReconcileTimeout)
}

// guard asks the risk guard about one order; a refusal is the leg's
// outcome, logged, and nothing is sent.
func (d *Dispatcher) guard(leg *Leg, check OrderCheck) bool {
	if d.opts.Guard == nil {
		return true
	}
	err := d.opts.Guard.Allow(check)
	if err == nil {
		return true
	}
	leg.Outcome, leg.Error = Blocked, err.Error()
	d.opts.Logger.Warn("order blocked by risk guard", zap.String("kind", leg.Kind), zap.String("op", string(leg.Op)),
		zap.Strings("clientOid", leg.ClientOIDs), zap.Error(err))
	return false
}

// Place sends one place-order request. req.ClientOID must be set (the
// deterministic id of the firing's leg). check describes the order for the
// risk guard.
func (d *Dispatcher) Place(ctx context.Context, kind string, req exchange.PlaceOrderRequest, check OrderCheck) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpPlaceOrder, Request: req, ClientOIDs: []string{req.ClientOID}}
	if req.ClientOID == "" {
		return d.fail(leg, errors.New("no client order id: refusing to send an order that cannot be reconciled"))
	}
	if !d.guard(&leg, check) {
		return leg
	}
	return d.placeOnce(ctx, leg, req.Symbol, req.ProductType, func(ctx context.Context) (string, error) {
		ack, err := d.opts.Venue.PlaceOrder(ctx, req)
		return ack.OrderID, err
	})
}

// Reverse sends one click-backhand request, reconciled like Place. check
// describes the position it opens: a reversal is never a reducing order,
// whatever check says, so the kill switch and every limit apply to it.
func (d *Dispatcher) Reverse(ctx context.Context, kind string, req exchange.ClickBackhandRequest, check OrderCheck) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpClickBackhand, Request: req, ClientOIDs: []string{req.ClientOID}}
	if req.ClientOID == "" {
		return d.fail(leg, errors.New("no client order id: refusing to send an order that cannot be reconciled"))
	}
	check.Reducing = false
	if !d.guard(&leg, check) {
		return leg
	}
	return d.placeOnce(ctx, leg, req.Symbol, req.ProductType, func(ctx context.Context) (string, error) {
		ack, err := d.opts.Venue.ClickBackhand(ctx, req)
		return ack.OrderID, err
	})
}

// placeOnce runs send, and on an ambiguous outcome looks the order up by its
// client order id; only a confirmed absence leads to one re-send with the
// same id.
func (d *Dispatcher) placeOnce(ctx context.Context, leg Leg, symbol string, pt exchange.ProductType, send func(context.Context) (string, error)) Leg {
	oid := leg.ClientOIDs[0]
	for attempt := 0; attempt < 2; attempt++ {
		orderID, err := send(ctx)
		if err == nil && orderID != "" {
			return d.ok(leg, orderID)
		}
		if l, ok := d.deferred(ctx, leg, err, leg.ClientOIDs); ok {
			return l
		}
		if err != nil && !Ambiguous(ctx, err) {
			return d.fail(leg, err)
		}
		// Ambiguous: an error that may hide a placed order, or a success
		// without an order id (reduce-only rule 2 of the spec).
		d.opts.Logger.Warn("ambiguous outcome; looking the order up by clientOid",
			zap.String("clientOid", oid), zap.Int("attempt", attempt+1), zap.NamedError("cause", err))
		rctx, cancel := d.reconcileCtx(ctx)
		foundID, lerr := d.find(rctx, leg.Op, leg.Request, symbol, pt, oid)
		cancel()
		leg.Reconciled = true
		switch {
		case lerr == nil:
			return d.ok(leg, foundID)
		case !errors.Is(lerr, errAbsent):
			return d.fail(leg, fmt.Errorf("outcome unknown, and the lookup by clientOid %s failed: %w (not re-sent)", oid, lerr))
		case err == nil:
			// The exchange said success; the order may have been placed and
			// cancelled at once. Re-sending would be a second order.
			return d.fail(leg, fmt.Errorf("accepted without an order id and not found by clientOid %s (not re-sent)", oid))
		case ctx.Err() != nil:
			return d.fail(leg, fmt.Errorf("cancelled before the outcome was known; order %s not found (not re-sent): %w", oid, err))
		}
		d.opts.Logger.Warn("order confirmed absent; re-sending with the same clientOid", zap.String("clientOid", oid))
	}
	return d.fail(leg, fmt.Errorf("order %s: outcome still unknown after a re-send", oid))
}

func (d *Dispatcher) ok(leg Leg, orderIDs ...string) Leg {
	leg.Outcome, leg.OrderIDs = OK, append(leg.OrderIDs, orderIDs...)
	// Debug: the engine's trade log writes the trader's line for each order
	// (rule, symbol, side, size, price); this one adds the request's details.
	d.opts.Logger.Debug("request accepted", zap.String("kind", leg.Kind), zap.String("op", string(leg.Op)),
		zap.Strings("clientOid", leg.ClientOIDs), zap.Strings("orderId", leg.OrderIDs), zap.Bool("reconciled", leg.Reconciled))
	return leg
}

func (d *Dispatcher) fail(leg Leg, err error) Leg {
	leg.Outcome, leg.Error = Failed, err.Error()
	d.opts.Logger.Error("action failed", zap.String("kind", leg.Kind), zap.String("op", string(leg.Op)),
		zap.Strings("clientOid", leg.ClientOIDs), zap.Error(err))
	return leg
}
