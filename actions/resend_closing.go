package actions

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// A closing order (reduceOnly YES in one-way mode, tradeSide close in hedge
// mode) and a reversal (click-backhand) carry a client order id, so Settle
// sends one again once the venue confirms it absent. Unlike an opening
// order, each acts on a position that is already there: the reversal first
// closes the position it finds. After a restart, or lookups retried while
// the venue failed, that position may be one the trader opened after the
// firing, and the re-send would cut it. So before such an order is sent
// again, the venue's positions are read and it goes out only if the
// position it acts on existed at the firing (cTime <= Plan.At), as resend
// does for closes.

// closingTarget is the position a closing order or a reversal acts on:
// side is empty for a one-way reversal, which reverses the symbol's one
// position whatever its direction.
type closingTarget struct {
	symbol string
	side   exchange.HoldSide
}

func (t closingTarget) String() string {
	return strings.TrimSpace(t.symbol + " " + string(t.side))
}

// closedSide is the position that a closing order of side closes, or ""
// when the order opens. One-way mode (reduceOnly YES): a sell reduces the
// long. Hedge mode (tradeSide close): the side names the position, buy the
// long (see Map).
func closedSide(side exchange.Side, ts exchange.TradeSide, reduceOnly exchange.YesNo) exchange.HoldSide {
	long := side == exchange.Buy
	switch {
	case ts == exchange.Close:
	case reduceOnly == exchange.Yes:
		long = !long
	default:
		return ""
	}
	if long {
		return exchange.Long
	}
	return exchange.Short
}

// closingTargets maps each client order id of p that closes or reverses a
// position to that position; opening orders are not in it.
func closingTargets(p Plan) (map[string]closingTarget, error) {
	targets := map[string]closingTarget{}
	switch p.Op {
	case exchange.OpPlaceOrder:
		req, err := requestOf[exchange.PlaceOrderRequest](p)
		if side := closedSide(req.Side, req.TradeSide, req.ReduceOnly); err == nil && side != "" {
			targets[req.ClientOID] = closingTarget{req.Symbol, side}
		}
		return targets, err
	case exchange.OpBatchPlaceOrder:
		req, err := requestOf[exchange.BatchPlaceOrderRequest](p)
		for _, it := range req.OrderList {
			if side := closedSide(it.Side, it.TradeSide, it.ReduceOnly); side != "" {
				targets[it.ClientOID] = closingTarget{req.Symbol, side}
			}
		}
		return targets, err
	case exchange.OpClickBackhand:
		req, err := requestOf[exchange.ClickBackhandRequest](p)
		t := closingTarget{symbol: req.Symbol}
		// Hedge mode (tradeSide open): the side names the position
		// reversed (ReverseSide). One-way: the venue reverses the symbol's
		// one position, whatever the side says.
		if req.TradeSide != "" {
			t.side = exchange.Long
			if req.Side == exchange.Sell {
				t.side = exchange.Short
			}
		}
		targets[req.ClientOID] = t
		return targets, err
	case exchange.OpPlaceTPSLOrder:
		// A protection of a position: sent again only if the position
		// existed at the firing.
		req, err := requestOf[exchange.PlaceTPSLOrderRequest](p)
		side := exchange.Long
		if req.HoldSide == "short" || req.HoldSide == "sell" {
			side = exchange.Short
		}
		targets[req.ClientOID] = closingTarget{req.Symbol, side}
		return targets, err
	}
	return targets, nil
}

// holdClosing narrows absent, the client order ids of p that the venue
// confirmed it does not have and that Settle is about to send again, to
// those that are safe to send: every opening order, and each closing order
// or reversal whose position existed at the firing. The others end here in
// a leg each: done with a note when the position is gone (nothing to
// close), done with a warning naming the position when only one created
// after the firing is open (left alone), failed with an error log when the
// venue gives no creation time or the positions cannot be read.
func (x *Executor) holdClosing(ctx context.Context, p Plan, absent []string) (send []string, legs []Leg) {
	d := x.opts.Dispatcher
	targets, err := closingTargets(p)
	leg := func(oid string) Leg {
		return Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: []string{oid}, Reconciled: true}
	}
	var closing []string
	for _, oid := range absent {
		if _, ok := targets[oid]; ok || err != nil {
			closing = append(closing, oid)
		} else {
			send = append(send, oid)
		}
	}
	if len(closing) == 0 {
		return send, nil
	}
	var ps []exchange.Position
	switch {
	case err != nil:
	case p.At.IsZero():
		err = fmt.Errorf("the firing's time is not recorded, so whether its position existed at the firing cannot be told")
	default:
		ps, err = x.readPositions(ctx, p.ProductType)
	}
	if err != nil && ctx.Err() != nil {
		// Shutting down: the journal keeps them for the next start.
		return send, []Leg{x.stillUnsettled(p, closing, err)}
	}
	if err != nil {
		for _, oid := range closing {
			legs = append(legs, d.fail(leg(oid), fmt.Errorf("closing order not sent again, the trader must check: %w", err)))
		}
		return send, legs
	}
	for _, oid := range closing {
		t := targets[oid]
		var n narrowed
		existed, found := false, false
		for _, pos := range ps {
			if openPosition(pos, t.symbol, t.side) {
				found = true
				existed = x.existedAtFiring(&n, p, positionName(pos), pos.CTime) || existed
			}
		}
		l := leg(oid)
		switch {
		case existed:
			send = append(send, oid)
			continue
		case !found:
			l.Outcome, l.Note = OK, fmt.Sprintf("nothing to close: no %s position is open (closed by hand or by a stop); not sent", t)
		case len(n.undone) > 0:
			l = d.fail(l, fmt.Errorf("closing order not sent again, the trader must check: %s", strings.Join(n.undone, "; ")))
		default:
			l.Outcome, l.Note = OK, "not sent: left alone, created after the firing: "+strings.Join(n.leftAlone, "; ")
		}
		legs = append(legs, l)
	}
	return send, legs
}

// readPositions reads the open positions of pt, trying again (every
// LookupEvery, up to maxResends times) while the venue fails, as a cancel
// or close sent again does.
func (x *Executor) readPositions(ctx context.Context, pt exchange.ProductType) ([]exchange.Position, error) {
	d := x.opts.Dispatcher
	for try := 1; ; try++ {
		ps, err := d.opts.Venue.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
		if err == nil {
			return ps, nil
		}
		err = fmt.Errorf("read the %s positions: %w", pt, err)
		if try == maxResends {
			return nil, fmt.Errorf("%w (%d tries)", err, try)
		}
		x.opts.Logger.Error("cannot read the venue to send a closing order again safely; trying again", zap.Error(err))
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", err, ctx.Err())
		case <-d.opts.Clock.After(d.opts.LookupEvery):
		}
	}
}
