package sim

import (
	"context"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

const defaultPageLimit = 100

// page walks items (ascending id) newest first, keeping those that match
// and whose id is below idLessThan (exclusive), up to limit. endID is the
// oldest id on the page, the caller's next idLessThan.
func page[T any](items []T, id func(T) string, match func(T) bool, idLessThan string, limit int) (out []T, endID string) {
	if limit <= 0 || limit > defaultPageLimit*5 {
		limit = defaultPageLimit
	}
	out = []T{}
	for i := len(items) - 1; i >= 0 && len(out) < limit; i-- {
		it := items[i]
		if idLessThan != "" && compareIDs(id(it), idLessThan) >= 0 {
			continue
		}
		if match(it) {
			out = append(out, it)
			endID = id(it)
		}
	}
	return out, endID
}

// inRange reports whether t is within [start, end]; zero bounds are open.
func inRange(t time.Time, start, end exchange.Millis) bool {
	ms := t.UnixMilli()
	return (start == "" || ms >= start.Int()) && (end == "" || ms <= end.Int())
}

func (a *Account) visible(o *order) bool { return !o.visibleAt.After(a.x.now) }

// OrderDetail returns one order's record (GET detail), field state.
func (a *Account) OrderDetail(ctx context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	op := exchange.OpOrderDetail
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.OrderDetail{}, err
	}
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.OrderDetail{}, err
	}
	o, ok := a.find(req.OrderID, req.ClientOID)
	if !ok || o.c != c || !a.visible(o) {
		return exchange.OrderDetail{}, apiErr(op, exchange.CodeOrderNotExist2, "Order does not exist")
	}
	return o.detail(), nil
}

// orderFilter is what the pending and history queries share.
type orderFilter struct {
	pt                 exchange.ProductType
	symbol             string
	orderID, clientOID string
	start, end         exchange.Millis
}

func (a *Account) matchOrder(o *order, f orderFilter) bool {
	if o.c.productType != f.pt || !a.visible(o) || (f.symbol != "" && o.c.spec.Symbol != f.symbol) {
		return false
	}
	switch {
	case f.orderID != "":
		if o.id != f.orderID {
			return false
		}
	case f.clientOID != "":
		if o.clientOID != f.clientOID {
			return false
		}
	}
	return inRange(o.cTime, f.start, f.end)
}

func orderID(o *order) string { return o.id }

// PendingOrders lists live and partially filled orders (GET orders-pending).
// The answer is memoised: its EntrustedList is shared and read-only.
func (a *Account) PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpOrdersPending, req, a.x.now); err != nil {
		return exchange.PendingOrdersPage{}, err
	}
	// Without a visibility delay every order is visible at once: the answer
	// does not depend on the time.
	key := a.x.stateKey(false, a.x.faults.VisibilityDelay > 0)
	return memoised(a.x, &a.memo.pendingOrders, req, key, func() (exchange.PendingOrdersPage, error) {
		return a.pendingPage(req), nil
	})
}

// pendingPage is the orders-pending answer to req.
func (a *Account) pendingPage(req exchange.PendingOrdersRequest) exchange.PendingOrdersPage {
	f := orderFilter{req.ProductType, req.Symbol, req.OrderID, req.ClientOID, req.StartTime, req.EndTime}
	orders, end := page(a.livePending(), orderID, func(o *order) bool {
		return a.matchOrder(o, f) && (req.Status == "" || o.state == req.Status)
	}, req.IDLessThan, req.Limit)
	out := exchange.PendingOrdersPage{EntrustedList: make([]exchange.PendingOrder, len(orders)), EndID: end}
	for i, o := range orders {
		out.EntrustedList[i] = o.pendingRecord()
	}
	return out
}

// OrderHistory lists filled and cancelled orders of the last 90 days (GET
// orders-history).
func (a *Account) OrderHistory(ctx context.Context, req exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpOrdersHistory, req, a.x.now); err != nil {
		return exchange.OrderHistoryPage{}, err
	}
	oldest := a.x.now.Add(-exchange.OrderHistoryMaxAge)
	f := orderFilter{req.ProductType, req.Symbol, req.OrderID, req.ClientOID, req.StartTime, req.EndTime}
	orders, end := page(a.orders, orderID, func(o *order) bool {
		return o.state.Final() && !o.cTime.Before(oldest) && a.matchOrder(o, f) && (req.OrderSource == "" || o.source == req.OrderSource)
	}, req.IDLessThan, req.Limit)
	out := exchange.OrderHistoryPage{EntrustedList: make([]exchange.HistoryOrder, len(orders)), EndID: end}
	for i, o := range orders {
		out.EntrustedList[i] = o.historyRecord()
	}
	return out, nil
}

func (a *Account) fillPage(req exchange.FillsRequest) exchange.FillPage {
	fills, end := page(a.fills, func(f *fill) string { return f.rec.TradeID }, func(f *fill) bool {
		return f.o.c.productType == req.ProductType && (req.Symbol == "" || f.o.c.spec.Symbol == req.Symbol) &&
			(req.OrderID == "" || f.o.id == req.OrderID) && inRange(f.t, req.StartTime, req.EndTime)
	}, req.IDLessThan, req.Limit)
	out := exchange.FillPage{FillList: make([]exchange.Fill, len(fills)), EndID: end}
	for i, f := range fills {
		out.FillList[i] = f.rec
		out.FillList[i].FeeDetail = slices.Clone(f.rec.FeeDetail)
	}
	return out
}

// Fills lists the account's fills, newest first (GET fills).
func (a *Account) Fills(ctx context.Context, req exchange.FillsRequest) (exchange.FillPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpFills, req, a.x.now); err != nil {
		return exchange.FillPage{}, err
	}
	return a.fillPage(req), nil
}

// FillHistory lists fills within a span of at most one week (GET
// fill-history): endTime omitted ends the span a week after startTime,
// startTime omitted starts it a week before endTime, both omitted mean the
// last week.
func (a *Account) FillHistory(ctx context.Context, req exchange.FillHistoryRequest) (exchange.FillPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpFillHistory, req, a.x.now); err != nil {
		return exchange.FillPage{}, err
	}
	week := exchange.MaxFillHistorySpan.Milliseconds()
	switch {
	case req.StartTime == "" && req.EndTime == "":
		req.EndTime = exchange.MillisOf(a.x.now)
		req.StartTime = exchange.Millis(itoa(req.EndTime.Int() - week))
	case req.EndTime == "":
		req.EndTime = exchange.Millis(itoa(req.StartTime.Int() + week))
	case req.StartTime == "":
		req.StartTime = exchange.Millis(itoa(req.EndTime.Int() - week))
	}
	return a.fillPage(exchange.FillsRequest(req)), nil
}
