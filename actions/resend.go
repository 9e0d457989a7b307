package actions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// A cancel, a close or a preset-only modify names no order of its own: it
// acts on whatever the account holds when it arrives. Sent again after an
// unclear answer or a restart, as recorded, it would also act on what
// appeared after its firing: a position the trader opened by hand once the
// first close had gone through, an order placed since. So Settle never
// sends one again as recorded. resend reads the venue's positions and
// pending orders and closes or cancels only those the venue created at or
// before the firing (cTime <= Plan.At), each by its own symbol and side or
// order id; what is younger is left alone and named in a warning. What
// cannot be told apart is not sent, and an error log says so (fail closed).

// maxResendOrders bounds the pending orders read to narrow one cancel; past
// it the cancel is not sent again (the read counts as failed).
const maxResendOrders = 2000

// narrowed is what a cancel or close in doubt comes down to once the venue
// has been read: the requests still to send (none when everything it aimed
// at is gone), what was left alone because the venue created it after the
// firing, and what could not be told apart and is not acted on.
type narrowed struct {
	plans     []Plan
	leftAlone []string
	undone    []string
}

// resend sends the cancel, close or preset-only modify p again, narrowed
// to what existed at its firing (see above). A read of the venue that
// fails gives an Unsettled leg, so Settle tries again later.
func (x *Executor) resend(ctx context.Context, p Plan) []Leg {
	d := x.opts.Dispatcher
	base := Leg{Kind: p.Kind, Op: p.Op, Request: p.Request, ClientOIDs: p.ClientOIDs, Reconciled: true}
	if p.At.IsZero() {
		return []Leg{d.fail(base, errors.New("the firing's time is not recorded, so what existed before it cannot be told apart: not sent again"))}
	}
	var n narrowed
	var err error
	switch p.Op {
	case exchange.OpClosePositions:
		n, err = x.narrowClose(ctx, p)
	case exchange.OpCancelOrder, exchange.OpBatchCancelOrders, exchange.OpCancelAllOrders:
		n, err = x.narrowCancel(ctx, p)
	case exchange.OpModifyOrder:
		n, err = x.narrowModify(ctx, p)
	case exchange.OpCancelPlanOrder:
		n, err = x.narrowPlanCancel(ctx, p)
	default:
		err = errNotResendable
	}
	var bad *recordedError
	switch {
	case errors.As(err, &bad) || errors.Is(err, errNotResendable):
		return []Leg{d.fail(base, fmt.Errorf("%w: not sent again", err))}
	case err != nil:
		x.opts.Logger.Error("cannot read the venue to send a cancel or close again safely; trying again", zap.String("kind", p.Kind),
			zap.String("op", string(p.Op)), zap.Error(err))
		base.Outcome, base.Error = Unsettled, err.Error()
		return []Leg{base}
	}
	var legs []Leg
	for _, np := range n.plans {
		for _, l := range sendPlan(ctx, d, np) {
			l.Reconciled = true
			legs = append(legs, l)
		}
	}
	if len(n.plans) == 0 && len(n.undone) == 0 {
		base.Outcome, base.Note = OK, "nothing it aimed at is left at the venue: the first request did it"
		legs = append(legs, base)
	}
	if len(n.leftAlone) > 0 {
		note := "left alone, created after the firing: " + strings.Join(n.leftAlone, "; ")
		for i := range legs {
			legs[i].Note = strings.TrimPrefix(legs[i].Note+"; "+note, "; ")
		}
	}
	if len(n.undone) > 0 {
		legs = append(legs, d.fail(base, fmt.Errorf("not sent again, the trader must check: %s", strings.Join(n.undone, "; "))))
	}
	return legs
}

// errNotResendable refuses an operation resend does not know how to narrow.
var errNotResendable = errors.New("not an operation that can be sent again safely")

// recordedError is a recorded request that is not the request its
// operation takes: nothing is sent from it.
type recordedError struct{ err error }

func (e *recordedError) Error() string { return "recorded request: " + e.err.Error() }
func (e *recordedError) Unwrap() error { return e.err }

// requestOf returns the request of p as the type R its operation takes (the
// journal decoded it by operation when it was read).
func requestOf[R any](p Plan) (R, error) {
	req, ok := p.Request.(R)
	if !ok {
		return req, &recordedError{fmt.Errorf("%s wants a %T, the plan holds a %T", p.Op, req, p.Request)}
	}
	return req, nil
}

// existedAtFiring files what, created at cTime, as existing at p's firing (true), left
// alone because the venue created it later, or undone because the venue
// gives no creation time; the last two are logged.
func (x *Executor) existedAtFiring(n *narrowed, p Plan, what string, cTime exchange.Millis) bool {
	ms := cTime.Int()
	switch {
	case ms <= 0:
		n.undone = append(n.undone, what+": the venue gives no creation time, so it cannot be told whether it existed at the firing")
		return false
	case ms > p.At.UnixMilli():
		created := time.UnixMilli(ms).UTC()
		n.leftAlone = append(n.leftAlone, what)
		x.opts.Logger.Warn("left alone: created after the firing whose "+p.Kind+" is being sent again, so it is not the firing's to touch",
			zap.String("what", what), zap.Time("created", created), zap.Time("firing", p.At.UTC()))
		return false
	}
	return true
}

// narrowClose turns a close in doubt into one close per position that
// existed at the firing and is still open. A position created after the
// firing (the first close went through and a new one was opened) is left
// open. A position the trader added to after the firing is still the one
// the rule meant to close, and is closed whole.
func (x *Executor) narrowClose(ctx context.Context, p Plan) (narrowed, error) {
	var n narrowed
	req, err := requestOf[exchange.ClosePositionsRequest](p)
	if err != nil {
		return n, err
	}
	ps, err := x.opts.Dispatcher.opts.Venue.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: req.ProductType})
	if err != nil {
		return n, fmt.Errorf("read the %s positions: %w", req.ProductType, err)
	}
	for _, pos := range ps {
		// In one-way mode the venue ignores holdSide: the request closed
		// the symbol's one position whatever its direction.
		side := req.HoldSide
		if pos.PosMode == exchange.OneWayMode {
			side = ""
		}
		if !openPosition(pos, req.Symbol, side) {
			continue
		}
		if !x.existedAtFiring(&n, p, positionName(pos), pos.CTime) {
			continue
		}
		// holdSide names this position alone in hedge mode; in one-way
		// mode the venue ignores it.
		one := exchange.ClosePositionsRequest{ProductType: req.ProductType, Symbol: pos.Symbol, HoldSide: pos.HoldSide}
		n.plans = append(n.plans, x.narrowPlan(p, exchange.OpClosePositions, one, pos.Symbol))
	}
	return n, nil
}

// openPosition reports whether pos is open and is the position of symbol
// on side ("" for either: any symbol, any side).
func openPosition(pos exchange.Position, symbol string, side exchange.HoldSide) bool {
	size, err := pos.Total.Decimal()
	// A size that does not parse is counted as open: not acting on it
	// would hide a position the rule meant.
	return (err != nil || size.IsPositive()) && (symbol == "" || pos.Symbol == symbol) && (side == "" || pos.HoldSide == side)
}

// positionName names pos in logs and notes.
func positionName(pos exchange.Position) string {
	return fmt.Sprintf("position %s %s %s", pos.Symbol, pos.HoldSide, pos.Total)
}

// narrowPlan is the request req of op, sent again in place of p.
func (x *Executor) narrowPlan(p Plan, op exchange.Op, req Request, symbol string) Plan {
	return Plan{Kind: p.Kind, Op: op, Request: req, Symbol: symbol, ProductType: p.ProductType, At: p.At}
}

// cancelScope is what a recorded cancel aims at: every pending order of a
// product type, of a margin coin or of a symbol, or the orders named by id.
type cancelScope struct {
	pt     exchange.ProductType
	symbol string
	coin   string
	refs   []exchange.OrderRef // none: every order in scope
}

// matches reports whether o is one the recorded cancel aimed at.
func (s cancelScope) matches(o exchange.PendingOrder) bool {
	if (s.symbol != "" && o.Symbol != s.symbol) || (s.coin != "" && o.MarginCoin != "" && o.MarginCoin != s.coin) {
		return false
	}
	if len(s.refs) == 0 {
		return true
	}
	// orderId wins over clientOid when a reference carries both.
	return slices.ContainsFunc(s.refs, func(r exchange.OrderRef) bool {
		if r.OrderID != "" {
			return r.OrderID == o.OrderID
		}
		return r.ClientOID != "" && r.ClientOID == o.ClientOID
	})
}

// scopeOf reads what the recorded cancel p aimed at.
func scopeOf(p Plan) (cancelScope, error) {
	switch p.Op {
	case exchange.OpCancelAllOrders:
		req, err := requestOf[exchange.CancelAllOrdersRequest](p)
		return cancelScope{pt: req.ProductType, coin: req.MarginCoin}, err
	case exchange.OpBatchCancelOrders:
		req, err := requestOf[exchange.BatchCancelOrdersRequest](p)
		return cancelScope{pt: req.ProductType, symbol: req.Symbol, coin: req.MarginCoin, refs: req.OrderIDList}, err
	}
	req, err := requestOf[exchange.CancelOrderRequest](p)
	return cancelScope{pt: req.ProductType, symbol: req.Symbol, coin: req.MarginCoin,
		refs: []exchange.OrderRef{{OrderID: req.OrderID, ClientOID: req.ClientOID}}}, err
}

// narrowCancel turns a cancel in doubt into batch cancels, by order id, of
// the orders it aimed at that existed at the firing and are still pending.
// An order already gone counts as done; one placed after the firing (by
// the trader, another rule or a later leg of this firing) is left alone.
func (x *Executor) narrowCancel(ctx context.Context, p Plan) (narrowed, error) {
	var n narrowed
	s, err := scopeOf(p)
	if err != nil {
		return n, err
	}
	bySymbol := map[string][]exchange.OrderRef{}
	seen := 0
	req := exchange.PendingOrdersRequest{ProductType: s.pt, Symbol: s.symbol, Limit: exchange.MaxPageLimit}
	for o, err := range exchange.IterPendingOrders(ctx, x.opts.Dispatcher.opts.Venue, req) {
		if err != nil {
			return n, fmt.Errorf("read the pending %s orders: %w", s.pt, err)
		}
		if seen++; seen > maxResendOrders {
			return n, fmt.Errorf("read the pending %s orders: more than %d", s.pt, maxResendOrders)
		}
		if !s.matches(o) {
			continue
		}
		what := fmt.Sprintf("order %s %s (clientOid %s)", o.Symbol, o.OrderID, o.ClientOID)
		if x.existedAtFiring(&n, p, what, o.CTime) {
			bySymbol[o.Symbol] = append(bySymbol[o.Symbol], exchange.OrderRef{OrderID: o.OrderID})
		}
	}
	symbols := make([]string, 0, len(bySymbol))
	for sym := range bySymbol {
		symbols = append(symbols, sym)
	}
	slices.Sort(symbols)
	for _, sym := range symbols {
		one := exchange.BatchCancelOrdersRequest{ProductType: s.pt, Symbol: sym, MarginCoin: s.coin, OrderIDList: bySymbol[sym]}
		n.plans = append(n.plans, x.narrowPlan(p, exchange.OpBatchCancelOrders, one, sym))
	}
	return n, nil
}

// narrowModify sends a preset-only modify in doubt again only when the
// order has not changed since the firing: a change after it is this
// modify's own doing (the order then carries its newClientOid, or the
// presets are as asked) or the trader's, which a re-send would overwrite,
// so it is not sent. An order no longer found under its id (gone, or
// renamed by another modify) is not touched either.
func (x *Executor) narrowModify(ctx context.Context, p Plan) (narrowed, error) {
	var n narrowed
	req, err := requestOf[exchange.ModifyOrderRequest](p)
	if err != nil {
		return n, err
	}
	detail := func(orderID, clientOID string) (exchange.OrderDetail, bool, error) {
		o, err := x.opts.Dispatcher.opts.Venue.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: req.Symbol, ProductType: req.ProductType, OrderID: orderID, ClientOID: clientOID})
		var ae *exchange.APIError
		switch {
		case (err == nil && o.OrderID == "") || (errors.As(err, &ae) && ae.IsNotFound()):
			return o, false, nil
		case err != nil:
			return o, false, fmt.Errorf("read order %s%s: %w", orderID, clientOID, err)
		}
		return o, true, nil
	}
	if _, mine, err := detail("", req.NewClientOID); err != nil || mine {
		return n, err
	}
	o, found, err := detail(req.OrderID, req.ClientOID)
	if err != nil || !found || o.State.Final() || presetsAsAsked(o, req) {
		return n, err
	}
	what := fmt.Sprintf("order %s %s (clientOid %s)", o.Symbol, o.OrderID, o.ClientOID)
	if u := o.UTime.Int(); u <= 0 || u > p.At.UnixMilli() {
		n.undone = append(n.undone, what+": changed after the firing and its take-profit/stop-loss differ from what was asked; a re-send could overwrite a change made by hand")
		return n, nil
	}
	n.plans = []Plan{p}
	return n, nil
}

// presetsAsAsked reports whether every preset the modify sets already has
// the value asked ("0" asks for none).
func presetsAsAsked(o exchange.OrderDetail, req exchange.ModifyOrderRequest) bool {
	same := func(want, have exchange.Num) bool {
		if want == "" {
			return true
		}
		w, err := want.Decimal()
		if err != nil {
			return false
		}
		// An empty value is no preset, which is what "0" asks for.
		h, err := have.Decimal()
		return err == nil && w.Equal(h)
	}
	return cmp.Or(req.NewPresetStopSurplusPrice, req.NewPresetStopLossPrice) != "" &&
		same(req.NewPresetStopSurplusPrice, o.PresetStopSurplusPrice) && same(req.NewPresetStopLossPrice, o.PresetStopLossPrice)
}
