package sim

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// pendingModify is the new order of an accepted size/price modify, waiting
// to appear: the exchange creates it asynchronously (modify rule 2).
type pendingModify struct {
	acct *Account
	in   intent
	due  time.Time
}

// ModifyOrder modifies an unfilled limit order (POST modify-order).
//
// Size and price (sent together) cancel the order now and create a new one
// under newClientOid after Settings.ModifyDelay; the response then has no
// orderId and the presets sent are ignored (rule 4). Presets alone change the
// order in place: an empty preset keeps its value unless only the other one
// is sent (then it is cancelled, rule 5), "0" deletes it; the order takes
// newClientOid and the response names it.
func (a *Account) ModifyOrder(ctx context.Context, req exchange.ModifyOrderRequest) (exchange.OrderAck, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op, x := exchange.OpModifyOrder, a.x
	if err := validate(op, req, x.now); err != nil {
		return exchange.OrderAck{}, err
	}
	c, err := x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	o, ok := a.find(req.OrderID, req.ClientOID)
	if !ok || o.c != c {
		return exchange.OrderAck{}, apiErr(op, exchange.CodeOrderNotExist2, "Order does not exist")
	}
	if o.orderType != exchange.Limit || o.state != exchange.StateLive || o.filled.IsPositive() {
		return exchange.OrderAck{}, apiErr(op, exchange.CodeModifyOnlyUnfilled, fmt.Sprintf("only unfilled limit orders can be modified (order %s is a %s order, %s)", o.id, o.orderType, o.state))
	}
	if req.NewClientOID != o.clientOID {
		if _, dup := a.byCOID[req.NewClientOID]; dup {
			return exchange.OrderAck{}, apiErr(op, CodeDuplicateClientOID, fmt.Sprintf("duplicate clientOid %s", req.NewClientOID))
		}
	}
	if req.NewSize == "" { // presets only
		var tp, sl exchange.Num
		switch {
		case req.NewPresetStopSurplusPrice != "" && req.NewPresetStopLossPrice != "":
			tp, sl = presetValue(req.NewPresetStopSurplusPrice), presetValue(req.NewPresetStopLossPrice)
		case req.NewPresetStopSurplusPrice != "":
			tp, sl = presetValue(req.NewPresetStopSurplusPrice), ""
		default:
			tp, sl = "", presetValue(req.NewPresetStopLossPrice)
		}
		for _, p := range []exchange.Num{tp, sl} {
			if p == "" {
				continue
			}
			if code, msg := c.checkPrice(p.MustDecimal()); code != "" {
				return exchange.OrderAck{}, apiErr(op, code, "preset "+msg)
			}
		}
		o.presetTP, o.presetSL = tp, sl
		if tp == "" {
			o.presetTPExec = ""
		}
		if sl == "" {
			o.presetSLExec = ""
		}
		a.renameClientOID(o, req.NewClientOID)
		o.uTime = x.now
		return exchange.OrderAck{OrderID: o.id, ClientOID: o.clientOID}, nil
	}
	size, price := req.NewSize.MustDecimal(), req.NewPrice.MustDecimal()
	if size.Equal(o.size) && price.Equal(o.price) {
		return exchange.OrderAck{}, apiErr(op, exchange.CodeModifyUnchanged, "size and price are unchanged")
	}
	in := intent{
		op: op, c: c, side: o.side, open: o.open, reduce: o.reduce, orderType: exchange.Limit, force: o.force,
		price: price, size: size, clientOID: req.NewClientOID, margin: o.margin, stp: o.stp, source: o.source, user: true,
		presets: [4]exchange.Num{o.presetTP, o.presetSL, o.presetTPExec, o.presetSLExec},
	}
	// The checks of the new order run now, against the state without the
	// old one, so that a modify that cannot succeed is refused at once.
	uTime := o.uTime
	a.cancel(o, exchange.NormalCancel)
	if _, _, err := a.dryAdmit(in); err != nil {
		a.restore(o, uTime)
		return exchange.OrderAck{}, err
	}
	x.modifies = append(x.modifies, &pendingModify{acct: a, in: in, due: x.now.Add(x.set.ModifyDelay)})
	a.reserveClientOID(req.NewClientOID)
	return exchange.OrderAck{OrderID: "", ClientOID: req.NewClientOID}, nil
}

// presetValue maps the modify convention ("0" deletes) to the stored value.
func presetValue(n exchange.Num) exchange.Num {
	if n.IsZero() {
		return ""
	}
	return n
}

func (a *Account) renameClientOID(o *order, coid string) {
	if coid == o.clientOID {
		return
	}
	delete(a.byCOID, o.clientOID)
	o.clientOID = coid
	a.byCOID[coid] = o
}

// reserveClientOID keeps a modify's newClientOid from being taken before
// the new order appears; a nil entry is "reserved, not visible yet".
func (a *Account) reserveClientOID(coid string) { a.byCOID[coid] = nil }

// dryAdmit runs admit's checks without cancelling anything.
func (a *Account) dryAdmit(in intent) (*order, bool, error) {
	if in.closes(a.mode[in.c.productType]) {
		long := in.side == exchange.Buy
		if a.mode[in.c.productType] == exchange.OneWayMode {
			long = in.side == exchange.Sell
		}
		if in.size.GreaterThan(a.posSize(in.c, long).Sub(a.held(in.c, long, nil))) {
			return nil, false, apiErr(in.op, CodeInsufficientPosition, fmt.Sprintf("size %s is more than the position that is not held by other close orders", in.size))
		}
	}
	saved := in.clientOID
	in.clientOID = "" // uniqueness was checked by the caller
	o, hide, err := a.admit(in)
	if o != nil {
		o.clientOID = saved
	}
	return o, hide, err
}

func (in intent) closes(mode exchange.PosMode) bool {
	if mode == exchange.HedgeMode {
		return !in.open
	}
	return in.reduce
}

// restore puts a cancelled order back as it was (a refused modify).
func (a *Account) restore(o *order, uTime time.Time) {
	pending := a.livePending() // drops o, which the cancel made final
	o.state, o.cancelReason, o.uTime = exchange.StateLive, "", uTime
	a.pending = append(pending, o)
	sortBySeq(a.pending)
	a.reserve(o)
	o.c.book.add(o)
}

// applyModifies creates the new orders of modifies that are due.
func (x *Exchange) applyModifies() {
	if len(x.modifies) == 0 {
		return
	}
	keep := x.modifies[:0]
	for _, m := range x.modifies {
		if m.due.After(x.now) {
			keep = append(keep, m)
			continue
		}
		x.changed() // even when the order cannot be placed: its clientOid is freed
		a := m.acct
		delete(a.byCOID, m.in.clientOID)
		o, _, err := a.admit(m.in)
		if err != nil {
			x.log.Warn("modified order could not be placed", zap.String("uid", a.uid), zap.String("clientOid", m.in.clientOID), zap.Error(err))
			continue
		}
		a.submit(o)
	}
	x.modifies = keep
}
