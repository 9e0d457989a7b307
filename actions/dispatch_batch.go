package actions

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// MaxBatch is the most items one batch request may carry (spec: 50).
const MaxBatch = 50

// chunks splits n items into [start, end) ranges of at most MaxBatch.
func chunks(n int) [][2]int {
	var out [][2]int
	for start := 0; start < n; start += MaxBatch {
		out = append(out, [2]int{start, min(start+MaxBatch, n)})
	}
	return out
}

// errMissingCheck refuses a batch item that came without its guard check.
var errMissingCheck = errors.New("no risk-guard description of the order: not sent")

// BatchPlace sends req.OrderList in chunks of at most 50, one leg per chunk.
// checks[i] describes req.OrderList[i] for the risk guard; a blocked item is
// not sent and is reported as a failure of its chunk. Every item must carry
// its deterministic clientOid: an ambiguous chunk is settled item by item by
// client order id, and only the items confirmed absent are sent again, once.
func (d *Dispatcher) BatchPlace(ctx context.Context, kind string, req exchange.BatchPlaceOrderRequest, checks []OrderCheck) []Leg {
	var legs []Leg
	for _, c := range chunks(len(req.OrderList)) {
		chunk := req
		chunk.OrderList = nil
		var blocked []exchange.BatchFailure
		for i := c[0]; i < c[1]; i++ {
			item := req.OrderList[i]
			if item.ClientOID == "" {
				blocked = append(blocked, exchange.BatchFailure{ErrorMsg: fmt.Sprintf("orderList[%d]: no client order id", i)})
				continue
			}
			if d.opts.Guard != nil {
				// An item without its description is refused: the guard
				// cannot pass what it was not shown.
				err := errMissingCheck
				if i < len(checks) {
					err = d.opts.Guard.Allow(checks[i])
				}
				if err != nil {
					blocked = append(blocked, exchange.BatchFailure{ClientOID: item.ClientOID, ErrorMsg: err.Error()})
					d.opts.Logger.Warn("order blocked by risk guard", zap.String("kind", kind), zap.String("clientOid", item.ClientOID), zap.Error(err))
					continue
				}
			}
			chunk.OrderList = append(chunk.OrderList, item)
		}
		legs = append(legs, d.batchChunk(ctx, kind, chunk, blocked))
	}
	return legs
}

func (d *Dispatcher) batchChunk(ctx context.Context, kind string, req exchange.BatchPlaceOrderRequest, blocked []exchange.BatchFailure) Leg {
	leg := Leg{Kind: kind, Op: exchange.OpBatchPlaceOrder, Request: req, Failures: blocked}
	for _, it := range req.OrderList {
		leg.ClientOIDs = append(leg.ClientOIDs, it.ClientOID)
	}
	for _, b := range blocked {
		if b.ClientOID != "" {
			leg.ClientOIDs = append(leg.ClientOIDs, b.ClientOID)
		}
	}
	if len(req.OrderList) == 0 {
		return d.settleBatch(leg)
	}
	pending := req
	for attempt := 0; attempt < 2; attempt++ {
		res, err := d.opts.Venue.BatchPlaceOrder(ctx, pending)
		if err == nil {
			for _, s := range res.SuccessList {
				if s.OrderID != "" {
					leg.OrderIDs = append(leg.OrderIDs, s.OrderID)
				}
			}
			leg.Failures = append(leg.Failures, res.FailureList...)
			// Successes without an order id are settled like ambiguous items.
			missing := map[string]bool{}
			for _, s := range res.SuccessList {
				if s.OrderID == "" {
					missing[s.ClientOID] = true
				}
			}
			if len(missing) == 0 {
				return d.settleBatch(leg)
			}
			pending.OrderList = filterItems(pending.OrderList, missing)
			absent, lerr := d.lookupAll(ctx, &leg, pending)
			if lerr != nil || len(absent.OrderList) > 0 {
				for _, it := range absent.OrderList {
					leg.Failures = append(leg.Failures, exchange.BatchFailure{ClientOID: it.ClientOID, ErrorMsg: "accepted without an order id and not found by clientOid (not re-sent)"})
				}
				if lerr != nil {
					leg.Error = lerr.Error()
				}
			}
			return d.settleBatch(leg)
		}
		if l, ok := d.deferred(ctx, leg, err, batchOIDs(pending)); ok {
			return l
		}
		if !Ambiguous(ctx, err) {
			leg.Error = err.Error()
			return d.settleBatch(leg)
		}
		d.opts.Logger.Warn("ambiguous batch outcome; looking items up by clientOid", zap.Int("items", len(pending.OrderList)), zap.NamedError("cause", err))
		absent, lerr := d.lookupAll(ctx, &leg, pending)
		if lerr != nil {
			leg.Error = fmt.Sprintf("outcome unknown and the lookup failed: %v (not re-sent)", lerr)
			return d.settleBatch(leg)
		}
		if len(absent.OrderList) == 0 {
			return d.settleBatch(leg)
		}
		if ctx.Err() != nil {
			leg.Error = fmt.Sprintf("cancelled before the outcome was known; %d orders not found (not re-sent)", len(absent.OrderList))
			return d.settleBatch(leg)
		}
		pending = absent
	}
	leg.Error = fmt.Sprintf("%d orders: outcome still unknown after a re-send", len(pending.OrderList))
	return d.settleBatch(leg)
}

// lookupAll looks every item of req up by client order id, adds the found
// ones to leg, and returns req with only the items confirmed absent.
func (d *Dispatcher) lookupAll(ctx context.Context, leg *Leg, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderRequest, error) {
	leg.Reconciled = true
	rctx, cancel := d.reconcileCtx(ctx)
	defer cancel()
	absent := req
	absent.OrderList = nil
	for _, it := range req.OrderList {
		o, err := d.lookup(rctx, req.Symbol, req.ProductType, it.ClientOID)
		switch {
		case err == nil:
			leg.OrderIDs = append(leg.OrderIDs, o.OrderID)
		case errors.Is(err, errAbsent):
			absent.OrderList = append(absent.OrderList, it)
		default:
			return absent, fmt.Errorf("look up %s: %w", it.ClientOID, err)
		}
	}
	return absent, nil
}

func filterItems(items []exchange.BatchOrder, keep map[string]bool) []exchange.BatchOrder {
	var out []exchange.BatchOrder
	for _, it := range items {
		if keep[it.ClientOID] {
			out = append(out, it)
		}
	}
	return out
}

// settleBatch sets the outcome: ok only when every item has an order id.
func (d *Dispatcher) settleBatch(leg Leg) Leg {
	if leg.Error == "" && len(leg.Failures) == 0 {
		return d.ok(leg)
	}
	if leg.Error == "" {
		leg.Error = fmt.Sprintf("%d of %d orders failed", len(leg.Failures), len(leg.ClientOIDs)+countNoOID(leg.Failures))
	}
	return d.fail(leg, errors.New(leg.Error))
}

func countNoOID(fs []exchange.BatchFailure) int {
	n := 0
	for _, f := range fs {
		if f.ClientOID == "" {
			n++
		}
	}
	return n
}
