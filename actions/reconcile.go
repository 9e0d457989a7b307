package actions

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// maxResends bounds how many times Settle sends an order again after the
// venue confirmed it absent; every re-send carries the same client order
// id, so the venue itself refuses a second order under it.
const maxResends = 5

// deferred ends a leg whose outcome is unknown, or that the venue refused
// unread with a 429, as Unsettled when the dispatcher defers (Defer): oids
// are the client order ids to look up; err is nil when the venue answered
// success without an order id. It reports false when the leg is not
// deferred and the caller goes on.
func (d *Dispatcher) deferred(ctx context.Context, leg Leg, err error, oids []string) (Leg, bool) {
	if !d.opts.Defer {
		return leg, false
	}
	refused := RateLimited(err)
	if !refused && err != nil && !Ambiguous(ctx, err) {
		return leg, false
	}
	leg.Outcome, leg.Unsettled, leg.Accepted, leg.Refused = Unsettled, oids, err == nil, refused
	if err != nil {
		leg.Error = err.Error()
	}
	d.opts.Logger.Warn("outcome unknown or rate limited; settling it off the tick loop", zap.String("kind", leg.Kind),
		zap.String("op", string(leg.Op)), zap.Strings("clientOid", oids), zap.NamedError("cause", err))
	return leg, true
}

// RateLimited reports a 429: the venue refused the request before acting
// on it, so it may be sent again as it is.
func RateLimited(err error) bool {
	var ae *exchange.APIError
	return errors.As(err, &ae) && ae.IsRateLimited()
}

func batchOIDs(req exchange.BatchPlaceOrderRequest) []string {
	oids := make([]string, 0, len(req.OrderList))
	for _, it := range req.OrderList {
		oids = append(oids, it.ClientOID)
	}
	return oids
}

// Settle finds out what happened to the Unsettled legs of p (prior, as Send
// returned them; nil after a restart, when every order of p is in doubt)
// and returns p's final legs. Orders with a client order id are looked up
// until the venue gives a definite answer; those it does not have are sent
// again with the same id (at most maxResends times), those it has are ok;
// a closing order or a reversal among them only if the position it acts on
// existed at the firing (holdClosing).
// Cancels, closes and preset-only modifies have no id to look up: they are
// sent again only narrowed to the positions and orders that existed at the
// firing (resend), so that nothing opened or placed since is touched.
// Orders refused with a 429 are sent again without a lookup, within
// RateLimitBudget. It runs off the tick loop and waits on the clock; it
// gives up only when ctx ends, and then returns the legs still Unsettled.
func (x *Executor) Settle(ctx context.Context, p Plan, prior []Leg) []Leg {
	if p.Done != nil {
		return []Leg{*p.Done}
	}
	var out []Leg
	doubt, refused, accepted, open := classify(prior, &out)
	if prior == nil {
		doubt, open = slices.Clone(p.ClientOIDs), true
	}
	d := x.opts.Dispatcher
	since := d.opts.Clock.Now()
	for resends := 0; open; {
		var send []string
		if p.Lookupable() {
			var found Leg
			var err error
			if send, found, err = d.lookupOIDs(ctx, p, doubt); err != nil {
				return append(out, x.stillUnsettled(p, append(doubt, refused...), err))
			}
			if len(found.ClientOIDs) > 0 {
				out = append(out, d.ok(found))
			}
			switch {
			case len(send) > 0 && accepted:
				out = append(out, d.fail(Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: send, Reconciled: true},
					errors.New("accepted without an order id and not found by clientOid (not re-sent)")))
				send = nil
			case len(send) > 0 && resends == maxResends:
				out = append(out, d.fail(Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: send, Reconciled: true},
					fmt.Errorf("still not at the venue after %d re-sends with the same clientOid", maxResends)))
				send = nil
			case len(send) > 0:
				// A closing order or reversal goes out only if its
				// position existed at the firing (holdClosing).
				var held []Leg
				send, held = x.holdClosing(ctx, p, send)
				out = append(out, held...)
				if len(send) > 0 {
					resends++
					d.opts.Logger.Warn("orders confirmed absent at the venue; sending them with the same clientOid", zap.String("kind", p.Kind), zap.Strings("clientOid", send))
				}
			}
			if len(refused) > 0 && d.opts.Clock.Now().Sub(since) > x.opts.RateLimitBudget {
				out = append(out, d.fail(Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: refused},
					fmt.Errorf("rate limited (429) for over %s; not sent", x.opts.RateLimitBudget)))
				refused = nil
			}
			send = append(send, refused...)
			if len(send) == 0 {
				return out
			}
		} else if len(refused) == 0 && resends == maxResends {
			return append(out, d.fail(Leg{Kind: p.Kind, Op: p.Op, Request: p.Request}, fmt.Errorf("outcome still unknown after %d repeats", maxResends)))
		} else if len(refused) > 0 && d.opts.Clock.Now().Sub(since) > x.opts.RateLimitBudget {
			return append(out, d.fail(Leg{Kind: p.Kind, Op: p.Op, Request: p.Request}, fmt.Errorf("rate limited (429) for over %s; not sent", x.opts.RateLimitBudget)))
		} else if len(refused) == 0 {
			resends++
		}
		select {
		case <-ctx.Done():
			return append(out, x.stillUnsettled(p, append(send, refused...), ctx.Err()))
		case <-d.opts.Clock.After(d.opts.LookupEvery):
		}
		if !p.Lookupable() {
			doubt, refused, accepted, open = classify(x.resend(ctx, p), &out)
			continue
		}
		again, err := p.only(send)
		if err != nil {
			return append(out, d.fail(Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: send}, err))
		}
		doubt, refused, accepted, open = classify(sendPlan(ctx, d, again), &out)
	}
	return out
}

// classify appends the settled legs to out and returns the client order
// ids of the unsettled ones: in doubt, and refused unread (429).
func classify(legs []Leg, out *[]Leg) (doubt, refused []string, accepted, open bool) {
	for _, l := range legs {
		if l.Outcome != Unsettled {
			*out = append(*out, l)
			continue
		}
		open = true
		if l.Refused {
			refused = append(refused, l.Unsettled...)
		} else {
			doubt = append(doubt, l.Unsettled...)
		}
		accepted = accepted || l.Accepted
	}
	return doubt, refused, accepted, open
}

// lookupOIDs looks every order of oids up until the venue answers; it
// returns the ids the venue does not have and a leg of those it has.
func (d *Dispatcher) lookupOIDs(ctx context.Context, p Plan, oids []string) ([]string, Leg, error) {
	found := Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, Outcome: OK, Reconciled: true}
	var absent []string
	for _, oid := range oids {
		o, err := d.settleLookup(ctx, p, oid)
		switch {
		case err == nil:
			found.ClientOIDs, found.OrderIDs = append(found.ClientOIDs, oid), append(found.OrderIDs, o)
		case errors.Is(err, errAbsent):
			absent = append(absent, oid)
		default:
			return nil, found, err
		}
	}
	return absent, found, nil
}

// settleLookup looks the order oid of p up until the venue answers found or
// absent: a failed round of lookups (a 5xx, a timeout) is tried again,
// until ctx ends. It returns the order id.
func (d *Dispatcher) settleLookup(ctx context.Context, p Plan, oid string) (string, error) {
	for {
		id, err := d.find(ctx, p.Op, p.Request, p.Symbol, p.ProductType, oid)
		if err == nil {
			return id, nil
		}
		if errors.Is(err, errAbsent) || ctx.Err() != nil {
			return "", err
		}
		// Until the venue answers, the rules trading this symbol wait.
		d.opts.Logger.Error("cannot look the order up by clientOid; its outcome is unknown, trying again", zap.String("clientOid", oid),
			zap.String("symbol", p.Symbol), zap.Error(err))
	}
}

// stillUnsettled is the leg of the orders whose outcome Settle could not
// learn before ctx ended: the engine keeps them in its journal.
func (x *Executor) stillUnsettled(p Plan, oids []string, err error) Leg {
	return Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, Outcome: Unsettled, Unsettled: oids, Reconciled: true, Error: err.Error()}
}
