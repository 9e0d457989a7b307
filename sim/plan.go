package sim

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// planOrder is an order that rests on the exchange until its trigger: a
// take-profit, stop-loss or trailing stop of a position (place-tpsl-order)
// or a trigger order (place-plan-order). The simulator's mark price is its
// last price, so fill_price and mark_price trigger alike.
//
// How each type triggers (the venue's docs, exchange/plan.go):
//   - profit_plan, pos_profit: a long's when the price rises to the
//     trigger, a short's when it falls to it;
//   - loss_plan, pos_loss: the other way;
//   - moving_plan: active once the price reaches the trigger (the
//     activation price); then it follows the best price since (the
//     high-water mark of a long, the low of a short) and fires on a
//     retrace of rangeRate percent from it;
//   - normal_plan: when the price reaches the trigger from the side it
//     was on when the order was placed;
//   - track_plan: active once the price reaches the trigger; a sell then
//     fires on a retrace of callbackRatio percent from the high, a buy on a
//     rise of callbackRatio percent from the low.
//
// A take-profit or stop-loss closes its position (the pos_ types the whole
// of it, the others size); it goes when the position goes. A trigger order
// places its order and goes.
type planOrder struct {
	id, clientOID string
	acct          *Account
	c             *contract
	planType      exchange.PlanType
	triggerType   exchange.PlanTrigger
	trigger       decimal.Decimal
	exec          decimal.Decimal // limit price of the order it places; zero for market
	size          decimal.Decimal // zero: the whole position
	callback      decimal.Decimal // percent, for moving_plan and track_plan
	long          bool            // tpsl: the position it protects
	above         bool            // normal_plan: the trigger was above the price when placed
	active        bool            // moving_plan, track_plan: the activation price was reached
	extreme       decimal.Decimal // moving_plan, track_plan: the best price since activation
	order         exchange.PlacePlanOrderRequest
	cTime, uTime  time.Time
	// status is "live" while pending, then exchange.PlanExecuted or
	// exchange.PlanCancelled; executeID the order it placed when it
	// triggered.
	status, executeID string
}

// retire moves p from the pending plan orders to the history with status,
// and executeID the order it placed (empty when cancelled).
func (x *Exchange) retire(p *planOrder, status, executeID string) {
	p.status, p.executeID, p.uTime = status, executeID, x.now
	x.planHistory = append(x.planHistory, p)
}

// PlaceTPSLOrder places a take-profit, stop-loss or trailing stop of an open
// position (POST place-tpsl-order). A pos_profit or pos_loss replaces the
// position's earlier one of the same type, as at the venue.
func (a *Account) PlaceTPSLOrder(ctx context.Context, req exchange.PlaceTPSLOrderRequest) (exchange.OrderAck, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpPlaceTPSLOrder
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.OrderAck{}, err
	}
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	long := req.HoldSide == "long" || req.HoldSide == "buy"
	if a.position(c, long) == nil {
		return exchange.OrderAck{}, apiErr(op, CodeInsufficientPosition, "no "+string(holdSide(long))+" position of "+c.spec.Symbol+" to protect")
	}
	if err := a.newClientOID(op, req.ClientOID); err != nil {
		return exchange.OrderAck{}, err
	}
	p := &planOrder{acct: a, c: c, planType: req.PlanType, triggerType: req.TriggerType, long: long, clientOID: req.ClientOID,
		trigger: req.TriggerPrice.MustDecimal()}
	if req.ExecutePrice != "" {
		p.exec = req.ExecutePrice.MustDecimal()
	}
	if req.Size != "" {
		p.size = req.Size.MustDecimal()
	}
	if req.RangeRate != "" {
		p.callback = req.RangeRate.MustDecimal()
	}
	if req.PlanType == exchange.PlanPosProfit || req.PlanType == exchange.PlanPosLoss {
		a.x.plans = slices.DeleteFunc(a.x.plans, func(q *planOrder) bool {
			if q.acct == a && q.c == c && q.long == long && q.planType == req.PlanType {
				a.x.retire(q, exchange.PlanCancelled, "")
				return true
			}
			return false
		})
	}
	return a.x.addPlan(p), nil
}

// PlacePlanOrder places a trigger order (POST place-plan-order): the order
// it describes is placed when the price reaches the trigger (normal_plan)
// or retraces after it (track_plan), and is then checked like any order.
func (a *Account) PlacePlanOrder(ctx context.Context, req exchange.PlacePlanOrderRequest) (exchange.OrderAck, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpPlacePlanOrder
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.OrderAck{}, err
	}
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	if err := a.tradable(op, c); err != nil {
		return exchange.OrderAck{}, err
	}
	if _, err := a.modeTradeSide(op, a.mode[c.productType], req.TradeSide); err != nil {
		return exchange.OrderAck{}, err
	}
	if err := a.newClientOID(op, req.ClientOID); err != nil {
		return exchange.OrderAck{}, err
	}
	p := &planOrder{acct: a, c: c, planType: req.PlanType, triggerType: req.TriggerType, clientOID: req.ClientOID,
		trigger: req.TriggerPrice.MustDecimal(), size: req.Size.MustDecimal(), order: req}
	if req.Price != "" {
		p.exec = req.Price.MustDecimal()
	}
	if req.CallbackRatio != "" {
		p.callback = req.CallbackRatio.MustDecimal()
	}
	if price, ok := a.x.price(c); ok {
		p.above = p.trigger.GreaterThan(price)
	}
	return a.x.addPlan(p), nil
}

// newClientOID rejects a clientOid the account already used for an order or
// a plan order.
func (a *Account) newClientOID(op exchange.Op, coid string) error {
	if coid == "" {
		return nil
	}
	_, used := a.byCOID[coid]
	mine := func(p *planOrder) bool { return p.acct == a && p.clientOID == coid }
	used = used || slices.ContainsFunc(a.x.plans, mine) || slices.ContainsFunc(a.x.planHistory, mine)
	if used {
		return apiErr(op, CodeDuplicateClientOID, "Duplicate clientOid "+coid)
	}
	return nil
}

func (x *Exchange) addPlan(p *planOrder) exchange.OrderAck {
	x.changed()
	x.strategySeq++
	p.id = strconv.FormatUint(strategyIDBase+x.strategySeq, 10)
	if p.clientOID == "" {
		p.clientOID = p.id
	}
	p.cTime, p.uTime, p.status = x.now, x.now, "live"
	x.plans = append(x.plans, p)
	return exchange.OrderAck{OrderID: p.id, ClientOID: p.clientOID}
}

// CancelPlanOrder cancels plan orders (POST cancel-plan-order): those of
// orderIdList, or every one of planType (default normal_plan) of the product
// type, and of symbol when sent. An id that is not pending is a failure
// item, as at the venue's batch cancels.
func (a *Account) CancelPlanOrder(ctx context.Context, req exchange.CancelPlanOrderRequest) (exchange.BatchResult, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpCancelPlanOrder
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.BatchResult{}, err
	}
	res := exchange.BatchResult{SuccessList: []exchange.OrderAck{}, FailureList: []exchange.BatchFailure{}}
	mine := func(p *planOrder) bool {
		return p.acct == a && strings.EqualFold(string(p.c.productType), string(req.ProductType)) &&
			(req.Symbol == "" || p.c.spec.Symbol == req.Symbol) && (req.MarginCoin == "" || p.c.marginCoin == req.MarginCoin)
	}
	drop := func(match func(*planOrder) bool) {
		a.x.plans = slices.DeleteFunc(a.x.plans, func(p *planOrder) bool {
			if mine(p) && match(p) {
				res.SuccessList = append(res.SuccessList, exchange.OrderAck{OrderID: p.id, ClientOID: p.clientOID})
				a.x.changed()
				a.x.retire(p, exchange.PlanCancelled, "")
				return true
			}
			return false
		})
	}
	if len(req.OrderIDList) == 0 {
		pt := cmp.Or(req.PlanType, exchange.PlanNormal)
		drop(func(p *planOrder) bool { return p.planType == pt })
		return res, nil
	}
	for _, ref := range req.OrderIDList {
		n := len(res.SuccessList)
		drop(func(p *planOrder) bool {
			if ref.OrderID != "" {
				return p.id == ref.OrderID
			}
			return p.clientOID == ref.ClientOID
		})
		if len(res.SuccessList) == n {
			res.FailureList = append(res.FailureList, exchange.BatchFailure{OrderID: ref.OrderID, ClientOID: ref.ClientOID,
				ErrorCode: exchange.CodeOrderNotFound, ErrorMsg: "plan order not found"})
		}
	}
	return res, nil
}

// PlanOrders lists the pending plan orders of a plan type, oldest first
// (GET orders-plan-pending); profit_loss lists the take-profit, stop-loss
// and trailing stop types.
func (a *Account) PlanOrders(ctx context.Context, req exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpPlanOrdersPending, req, a.x.now); err != nil {
		return exchange.PlanOrdersPage{}, err
	}
	return a.planPage(a.x.plans, req.ProductType, req.PlanType, req.Symbol, req.OrderID, req.ClientOID), nil
}

// PlanHistory lists the plan orders that left the pending list, triggered
// or cancelled, oldest first (GET orders-plan-history), by order id or
// client order id.
func (a *Account) PlanHistory(ctx context.Context, req exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpPlanOrdersHistory, req, a.x.now); err != nil {
		return exchange.PlanOrdersPage{}, err
	}
	return a.planPage(a.x.planHistory, req.ProductType, req.PlanType, req.Symbol, req.OrderID, req.ClientOID), nil
}

// planPage lists the plan orders of list that match a query of
// orders-plan-pending or orders-plan-history.
func (a *Account) planPage(list []*planOrder, pt exchange.ProductType, planType exchange.PlanType, symbol, orderID, clientOID string) exchange.PlanOrdersPage {
	page := exchange.PlanOrdersPage{EntrustedList: []exchange.PlanOrder{}}
	for _, p := range list {
		if p.acct != a || !strings.EqualFold(string(p.c.productType), string(pt)) ||
			(symbol != "" && !strings.EqualFold(p.c.spec.Symbol, symbol)) ||
			(orderID != "" && p.id != orderID) || (orderID == "" && clientOID != "" && p.clientOID != clientOID) {
			continue
		}
		if p.planType != planType && !(planType == exchange.PlanProfitLoss && p.planType.IsTPSL()) {
			continue
		}
		page.EntrustedList = append(page.EntrustedList, p.record())
	}
	if n := len(page.EntrustedList); n > 0 {
		page.EndID = page.EntrustedList[n-1].OrderID
	}
	return page
}

// record is p as orders-plan-pending and orders-plan-history list it.
func (p *planOrder) record() exchange.PlanOrder {
	r := exchange.PlanOrder{
		PlanType: p.planType, Symbol: p.c.spec.Symbol, OrderID: p.id, ClientOID: p.clientOID,
		TriggerPrice: num(p.trigger), TriggerType: p.triggerType, PlanStatus: p.status, ExecuteOrderID: p.executeID, MarginCoin: p.c.marginCoin,
		PosMode: p.acct.mode[p.c.productType], OrderType: exchange.Market, CTime: exchange.MillisOf(p.cTime), UTime: exchange.MillisOf(p.uTime),
	}
	if !p.size.IsZero() {
		r.Size = num(p.size)
	}
	if !p.exec.IsZero() {
		r.ExecutePrice, r.Price, r.OrderType = num(p.exec), num(p.exec), exchange.Limit
	}
	if !p.callback.IsZero() {
		r.CallbackRatio = num(p.callback)
	}
	if p.planType.IsTPSL() {
		r.PosSide = exchange.PosSide(holdSide(p.long))
		r.Side = exchange.Sell // the order that closes a long sells
		if !p.long {
			r.Side = exchange.Buy
		}
		return r
	}
	r.Side, r.TradeSide, r.MarginMode = p.order.Side, p.order.TradeSide, p.order.MarginMode
	return r
}

// fires reports whether p triggers at price now, moving its high-water mark
// first.
func (p *planOrder) fires(price decimal.Decimal) bool {
	switch p.planType {
	case exchange.PlanProfit, exchange.PlanPosProfit:
		if p.long {
			return price.GreaterThanOrEqual(p.trigger)
		}
		return price.LessThanOrEqual(p.trigger)
	case exchange.PlanLoss, exchange.PlanPosLoss:
		if p.long {
			return price.LessThanOrEqual(p.trigger)
		}
		return price.GreaterThanOrEqual(p.trigger)
	case exchange.PlanNormal:
		if p.above {
			return price.Cmp(p.trigger) >= 0
		}
		return price.Cmp(p.trigger) <= 0
	}
	// Trailing: a moving_plan of a long and a track_plan that sells trail
	// the high; the others the low.
	high := p.long
	if p.planType == exchange.PlanTrack {
		high = p.order.Side == exchange.Sell
		if p.order.TradeSide == exchange.Close && p.acct.mode[p.c.productType] == exchange.HedgeMode {
			high = p.order.Side == exchange.Buy // closing a long sells
		}
	}
	if !p.active {
		if (high && price.LessThan(p.trigger)) || (!high && price.GreaterThan(p.trigger)) {
			return false
		}
		p.active, p.extreme = true, price
	}
	if (high && price.GreaterThan(p.extreme)) || (!high && price.LessThan(p.extreme)) {
		p.extreme = price
	}
	move := p.extreme.Mul(p.callback).Div(decimal.NewFromInt(100))
	if high {
		return price.LessThanOrEqual(p.extreme.Sub(move))
	}
	return price.GreaterThanOrEqual(p.extreme.Add(move))
}

// triggerPlans fires the plan orders that the price now triggers, in
// creation order. Like resting orders, they wait while their contract's
// market is closed.
func (x *Exchange) triggerPlans() {
	for _, p := range slices.Clone(x.plans) {
		if !slices.Contains(x.plans, p) || !x.mkt.FuturesOpen(x.now, p.c.rwa) {
			continue
		}
		price, ok := x.price(p.c)
		if !ok {
			continue
		}
		wasActive, wasExtreme := p.active, p.extreme
		if !p.fires(price) {
			if p.active != wasActive || !p.extreme.Equal(wasExtreme) {
				p.uTime = x.now
				x.changed()
			}
			continue
		}
		x.changed()
		x.plans = slices.DeleteFunc(x.plans, func(q *planOrder) bool { return q == p })
		id, err := x.placeTriggered(p)
		x.retire(p, exchange.PlanExecuted, id)
		if err != nil {
			x.log.Warn("triggered plan order could not be placed", zap.String("uid", p.acct.uid), zap.String("symbol", p.c.spec.Symbol),
				zap.String("planOrderId", p.id), zap.String("planType", string(p.planType)), zap.Error(err))
		}
	}
}

// placeTriggered places the order of a plan order that fired and returns
// its id ("" when none was placed).
func (x *Exchange) placeTriggered(p *planOrder) (string, error) {
	a, c := p.acct, p.c
	if !p.planType.IsTPSL() {
		src := exchange.OSPlanMarket
		if p.order.OrderType == exchange.Limit {
			src = exchange.OSPlanLimit
		}
		req := exchange.PlaceOrderRequest{
			Symbol: p.order.Symbol, ProductType: p.order.ProductType, MarginMode: p.order.MarginMode, MarginCoin: p.order.MarginCoin,
			Size: p.order.Size, Price: p.order.Price, Side: p.order.Side, TradeSide: p.order.TradeSide, OrderType: p.order.OrderType,
			ReduceOnly: p.order.ReduceOnly,
		}
		if p.planType == exchange.PlanTrack {
			req.OrderType, req.Price, src = exchange.Market, "", exchange.OSMoveMarket
		}
		ack, err := a.place(exchange.OpPlaceOrder, req, src)
		return ack.OrderID, err
	}
	pos := a.position(c, p.long)
	if pos == nil {
		return "", nil
	}
	whole := p.planType == exchange.PlanPosProfit || p.planType == exchange.PlanPosLoss || p.size.GreaterThanOrEqual(pos.size)
	if whole {
		// It closes the whole position: close orders holding it give way,
		// as for close-positions.
		for _, h := range a.heldOrders(c, p.long) {
			a.cancel(h, exchange.NormalCancel)
		}
	}
	src := map[exchange.PlanType]exchange.OrderSource{
		exchange.PlanProfit: exchange.OSProfitMarket, exchange.PlanLoss: exchange.OSLossMarket, exchange.PlanMoving: exchange.OSMoveMarket,
		exchange.PlanPosProfit: exchange.OSPosProfitMarket, exchange.PlanPosLoss: exchange.OSPosLossMarket,
	}[p.planType]
	in := closingIntent(exchange.OpPlaceOrder, pos, a.mode[c.productType] == exchange.HedgeMode, src)
	if !whole {
		in.size = p.size
	}
	if !p.exec.IsZero() {
		in.orderType, in.price, in.force = exchange.Limit, p.exec, exchange.GTC
	}
	o, _, err := a.admit(in)
	if err != nil {
		return "", err
	}
	a.submit(o)
	return o.id, nil
}

// dropPositionPlans removes the take-profit, stop-loss and trailing stop
// orders of a position that closed: the venue cancels them with it.
func (x *Exchange) dropPositionPlans(a *Account, c *contract, long bool) {
	x.plans = slices.DeleteFunc(x.plans, func(p *planOrder) bool {
		if p.acct == a && p.c == c && p.long == long && p.planType.IsTPSL() {
			x.changed()
			x.retire(p, exchange.PlanCancelled, "")
			return true
		}
		return false
	})
}
