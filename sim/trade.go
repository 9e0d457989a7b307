package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// intent is an order about to be admitted: a user's place-order or batch
// item after the stateless checks, or an order the exchange creates itself
// (close-positions, click-backhand, the new order of a modify).
type intent struct {
	op          exchange.Op
	c           *contract
	side        exchange.Side
	open        bool // hedge mode: tradeSide open
	reduce      bool // one-way mode: reduceOnly YES
	orderType   exchange.OrderType
	force       exchange.Force
	price, size decimal.Decimal
	clientOID   string
	margin      exchange.MarginMode
	stp         exchange.STPMode
	source      exchange.OrderSource
	presets     [4]exchange.Num // take-profit, stop-loss, and their execute prices
	// user intents get the minimum-value rule; exchange-made ones do not.
	user bool
}

// PlaceOrder places one order (POST place-order).
func (a *Account) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	return a.place(exchange.OpPlaceOrder, req, exchange.OSNormal)
}

func (a *Account) place(op exchange.Op, req exchange.PlaceOrderRequest, src exchange.OrderSource) (exchange.OrderAck, error) {
	in, err := a.parsePlace(op, req, src)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	o, hideID, err := a.admit(in)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	a.submit(o)
	ack := exchange.OrderAck{OrderID: o.id, ClientOID: o.clientOID}
	if hideID {
		ack.OrderID = ""
	}
	return ack, nil
}

// modeTradeSide applies the one-way tradeSide setting: reject (40774) or
// drop it. It returns the tradeSide to use.
func (a *Account) modeTradeSide(op exchange.Op, mode exchange.PosMode, ts exchange.TradeSide) (exchange.TradeSide, error) {
	if mode != exchange.OneWayMode || ts == "" {
		return ts, nil
	}
	if a.x.set.OneWayTradeSide == TradeSideIgnore {
		return "", nil
	}
	return "", apiErr(op, exchange.CodeTradeSideOneWay, "The order type for unilateral position must also be the unilateral position type (tradeSide must not be sent in one-way mode)")
}

func (a *Account) parsePlace(op exchange.Op, req exchange.PlaceOrderRequest, src exchange.OrderSource) (intent, error) {
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		if verr := validate(op, req, a.x.now); verr != nil {
			return intent{}, verr
		}
		return intent{}, err
	}
	mode := a.mode[c.productType]
	if req.TradeSide, err = a.modeTradeSide(op, mode, req.TradeSide); err != nil {
		return intent{}, err
	}
	req.Mode = mode
	if err := validate(op, req, a.x.now); err != nil {
		return intent{}, err
	}
	if err := a.checkMarginCoin(op, c, req.MarginCoin); err != nil {
		return intent{}, err
	}
	in := intent{
		op: op, c: c, side: req.Side, open: req.TradeSide == exchange.Open, reduce: req.ReduceOnly == exchange.Yes,
		orderType: req.OrderType, force: req.Force, size: req.Size.MustDecimal(), clientOID: req.ClientOID,
		margin: req.MarginMode, stp: req.STPMode, source: src, user: true,
		presets: [4]exchange.Num{req.PresetStopSurplusPrice, req.PresetStopLossPrice, req.PresetStopSurplusExecutePrice, req.PresetStopLossExecutePrice},
	}
	if in.orderType == exchange.Limit {
		in.price = req.Price.MustDecimal()
	}
	return in, nil
}

func (a *Account) checkMarginCoin(op exchange.Op, c *contract, coin string) error {
	if coin != "" && coin != c.marginCoin {
		return apiErr(op, exchange.CodeParamVerify, fmt.Sprintf("marginCoin %s is not the margin coin of %s (%s)", coin, c.spec.Symbol, c.marginCoin))
	}
	return nil
}

// tradable rejects new orders on a contract that is not trading now.
func (a *Account) tradable(op exchange.Op, c *contract) error {
	switch c.spec.SymbolStatus {
	case exchange.SymbolNormal, exchange.SymbolListed, exchange.SymbolLimitOpen:
	case exchange.SymbolOff:
		return apiErr(op, exchange.CodeSymbolInvalid, fmt.Sprintf("symbol %s is off-line", c.spec.Symbol))
	default:
		return apiErr(op, CodeMarketClosed, fmt.Sprintf("symbol %s is in status %s and accepts no new orders", c.spec.Symbol, c.spec.SymbolStatus))
	}
	if !a.x.mkt.FuturesOpen(a.x.now, c.rwa) {
		return apiErr(op, CodeMarketClosed, fmt.Sprintf("the market of %s is closed; new orders are rejected, cancels still work", c.spec.Symbol))
	}
	return nil
}

// admit applies every state-dependent rule to in and returns the order to
// submit. hideID is one-way rule 2: the new reduce-only order displaced
// older ones, and its response carries no orderId. Orders that the rules
// cancel (rules 2 and 4) are cancelled only once everything else passed.
func (a *Account) admit(in intent) (o *order, hideID bool, err error) {
	c, op, x := in.c, in.op, a.x
	if err := a.tradable(op, c); err != nil {
		return nil, false, err
	}
	mode := a.mode[c.productType]
	if code, msg := c.checkSize(in.size); code != "" {
		return nil, false, apiErr(op, code, msg)
	}
	if in.orderType == exchange.Limit {
		if code, msg := c.checkPrice(in.price); code != "" {
			return nil, false, apiErr(op, code, msg)
		}
	}
	if in.size.LessThan(c.minTradeNum) {
		return nil, false, apiErr(op, exchange.CodeSizeBelowMin, fmt.Sprintf("size %s is below the minimum %s of %s", in.size, c.minTradeNum, c.spec.Symbol))
	}
	if c.maxOrderQty.IsPositive() && in.size.GreaterThan(c.maxOrderQty) {
		return nil, false, apiErr(op, exchange.CodeSizeAboveMax, fmt.Sprintf("size %s is above the maximum %s of %s", in.size, c.maxOrderQty, c.spec.Symbol))
	}
	if in.orderType == exchange.Market && c.maxMarketOrderQty.IsPositive() && in.size.GreaterThan(c.maxMarketOrderQty) {
		return nil, false, apiErr(op, exchange.CodeSizeAboveMax, fmt.Sprintf("size %s is above the market order maximum %s of %s", in.size, c.maxMarketOrderQty, c.spec.Symbol))
	}
	ref := in.price
	if in.orderType == exchange.Market {
		p, ok := x.price(c)
		if !ok {
			return nil, false, apiErr(op, CodeMarketClosed, fmt.Sprintf("%s has no price yet", c.spec.Symbol))
		}
		ref = p
	}
	if in.user && c.minTradeUSDT.IsPositive() && in.size.Mul(ref).LessThan(c.minTradeUSDT) {
		return nil, false, apiErr(op, exchange.CodeValueBelowMin, fmt.Sprintf("order value %s is below the minimum %s USDT of %s", in.size.Mul(ref), c.minTradeUSDT, c.spec.Symbol))
	}
	if in.clientOID != "" {
		if _, dup := a.byCOID[in.clientOID]; dup {
			return nil, false, apiErr(op, CodeDuplicateClientOID, fmt.Sprintf("duplicate clientOid %s", in.clientOID))
		}
	}
	o = &order{
		acct: a, c: c, clientOID: in.clientOID, side: in.side, open: in.open, posMode: mode, orderType: in.orderType,
		force: in.force, price: in.price, size: in.size, reduce: in.reduce && mode == exchange.OneWayMode, margin: in.margin,
		leverage: a.leverageOf(c.spec.Symbol), stp: in.stp, source: in.source,
		presetTP: in.presets[0], presetSL: in.presets[1], presetTPExec: in.presets[2], presetSLExec: in.presets[3],
	}
	if o.force == "" {
		o.force = exchange.GTC
	}
	if o.stp == "" {
		o.stp = exchange.STPNone
	}
	var displaced []*order
	if o.closes() {
		long := !o.buys() // direction of the position being closed
		pos := a.posSize(c, long)
		if !pos.IsPositive() {
			return nil, false, apiErr(op, exchange.CodeNoPosition, fmt.Sprintf("no %s position of %s to close", holdSide(long), c.spec.Symbol))
		}
		held := a.held(c, long, nil)
		switch {
		case mode == exchange.HedgeMode:
			if held.IsPositive() && held.Equal(pos) { // rule 4
				displaced, held = a.heldOrders(c, long), decimal.Zero
			}
			free := pos.Sub(held)
			if o.size.GreaterThan(free) {
				if o.orderType != exchange.Market || held.IsZero() || !free.IsPositive() {
					return nil, false, apiErr(op, CodeInsufficientPosition, fmt.Sprintf("size %s is more than the %s of the position that is not held by other close orders", o.size, free))
				}
				o.size = free // rule 3: only position minus held is closed
			}
		default: // one-way reduce-only, rule 2
			if o.size.GreaterThan(pos) {
				return nil, false, apiErr(op, CodeInsufficientPosition, fmt.Sprintf("reduce-only size %s is more than the position %s", o.size, pos))
			}
			for _, h := range a.heldOrders(c, long) {
				if !held.Add(o.size).GreaterThan(pos) {
					break
				}
				displaced = append(displaced, h)
				held = held.Sub(h.remaining())
			}
			hideID = len(displaced) > 0
		}
	} else {
		open := o.size
		if mode == exchange.OneWayMode {
			open = decimal.Max(decimal.Zero, open.Sub(a.posSize(c, !o.buys())))
		}
		if open.IsPositive() {
			value := c.value(open, ref)
			need := value.DivRound(o.leverage, 12).Add(value.Mul(c.takerFee))
			if avail := a.funds(c.marginCoin).avail; need.GreaterThan(avail) {
				return nil, false, apiErr(op, exchange.CodeBalanceNotEnough, fmt.Sprintf("insufficient balance: the order needs %s %s, %s is available", need.Round(8), c.marginCoin, avail.Round(8)))
			}
		}
	}
	for _, d := range displaced {
		a.cancel(d, exchange.NormalCancel)
	}
	return o, hideID, nil
}

func holdSide(long bool) exchange.HoldSide {
	if long {
		return exchange.Long
	}
	return exchange.Short
}

// submit gives o its id and runs its taker phase: self-trade prevention,
// then the time in force against the synthetic book. What is left of a gtc
// limit order rests.
func (a *Account) submit(o *order) {
	x := a.x
	x.changed()
	o.id = x.nextOrderID()
	o.seq = x.orderSeq
	o.cTime, o.uTime = x.now, x.now
	o.visibleAt = x.now.Add(x.faults.VisibilityDelay)
	o.state = exchange.StateLive
	if o.clientOID == "" {
		o.clientOID = o.id
	}
	a.orders = append(a.orders, o)
	a.pending = append(a.pending, o)
	a.reserve(o)
	a.byID[o.id] = o
	a.byCOID[o.clientOID] = o

	levels := x.takerLevels(o)
	if makers := a.selfTrades(o, levels); len(makers) > 0 {
		if o.stp == exchange.STPCancelMaker || o.stp == exchange.STPCancelBoth {
			for _, m := range makers {
				a.cancel(m, exchange.STPCancel)
			}
		}
		if o.stp == exchange.STPCancelTaker || o.stp == exchange.STPCancelBoth {
			a.cancel(o, exchange.STPCancel)
			return
		}
	}
	switch {
	case o.orderType == exchange.Market:
		a.take(o, levels)
	case o.force == exchange.PostOnly:
		if len(levels) > 0 { // would take: a maker-only order is cancelled
			a.cancel(o, exchange.NormalCancel)
			return
		}
	case o.force == exchange.FOK:
		if depth(levels).LessThan(a.fillable(o, o.size)) || a.fillable(o, o.size).LessThan(o.size) {
			a.cancel(o, exchange.NormalCancel)
			return
		}
		a.take(o, levels)
	default:
		a.take(o, levels)
	}
	if !o.pending() {
		return
	}
	if o.orderType == exchange.Market || o.force == exchange.IOC || o.force == exchange.FOK {
		a.cancel(o, exchange.NormalCancel)
		return
	}
	o.c.book.add(o)
}

// selfTrades returns a's resting orders on the other side of o's contract
// that o would trade with, when o's stpMode asks for prevention. Own orders
// are not liquidity of the synthetic book, so with stpMode none they are
// simply not matched.
func (a *Account) selfTrades(o *order, levels []level) []*order {
	if o.stp == exchange.STPNone {
		return nil
	}
	worst := o.price
	if o.orderType == exchange.Market {
		if len(levels) == 0 {
			return nil
		}
		worst = levels[len(levels)-1].price
	}
	var out []*order
	for _, p := range a.livePending() {
		if p == o || p.c != o.c || p.buys() == o.buys() || p.orderType != exchange.Limit {
			continue
		}
		if (o.buys() && p.price.LessThanOrEqual(worst)) || (!o.buys() && p.price.GreaterThanOrEqual(worst)) {
			out = append(out, p)
		}
	}
	return out
}

// BatchPlaceOrder places up to 50 orders; each item fails or succeeds on its
// own, and Result is false when one failed.
func (a *Account) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpBatchPlaceOrder
	// Only the request-level problems fail the call; item problems are
	// answered per item by the place-order rules below.
	if err := requestLevel(req.Validate(a.x.now)); err != nil {
		return exchange.BatchPlaceOrderResult{}, asAPIError(op, err)
	}
	res := exchange.BatchPlaceOrderResult{SuccessList: []exchange.OrderAck{}, FailureList: []exchange.BatchFailure{}, Result: true}
	for _, it := range req.OrderList {
		ack, err := a.place(op, exchange.PlaceOrderRequest{
			Symbol: req.Symbol, ProductType: req.ProductType, MarginMode: req.MarginMode, MarginCoin: req.MarginCoin,
			Size: it.Size, Price: it.Price, Side: it.Side, TradeSide: it.TradeSide, OrderType: it.OrderType, Force: it.Force,
			ClientOID: it.ClientOID, ReduceOnly: it.ReduceOnly, PresetStopSurplusPrice: it.PresetStopSurplusPrice,
			PresetStopLossPrice: it.PresetStopLossPrice, STPMode: it.STPMode,
		}, exchange.OSNormal)
		if err != nil {
			res.FailureList = append(res.FailureList, failure(err, exchange.OrderAck{ClientOID: it.ClientOID}, ""))
			res.Result = false
			continue
		}
		res.SuccessList = append(res.SuccessList, ack)
	}
	return res, nil
}

// requestLevel keeps the validation problems that are not about one item of
// a batch list.
func requestLevel(err error) error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var keep []error
	for _, e := range errs {
		var ve *exchange.ValidationError
		if errors.As(e, &ve) && len(ve.Field) > len("orderList[") && ve.Field[:len("orderList[")] == "orderList[" {
			continue
		}
		keep = append(keep, e)
	}
	return errors.Join(keep...)
}

// ClickBackhand reverses a position (POST click-backhand). One-way: the whole
// position, size ignored. Hedge: side names the position being reversed,
// tradeSide is open, and min(size, position) is closed and opened the other
// way. The response names the opening order.
func (a *Account) ClickBackhand(ctx context.Context, req exchange.ClickBackhandRequest) (exchange.OrderAck, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpClickBackhand
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	mode := a.mode[c.productType]
	if req.TradeSide, err = a.modeTradeSide(op, mode, req.TradeSide); err != nil {
		return exchange.OrderAck{}, err
	}
	req.Mode = mode
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.OrderAck{}, err
	}
	if err := a.checkMarginCoin(op, c, req.MarginCoin); err != nil {
		return exchange.OrderAck{}, err
	}
	if mode == exchange.HedgeMode && req.TradeSide != exchange.Open {
		return exchange.OrderAck{}, apiErr(op, exchange.CodeParamVerify, "tradeSide: a reversal in hedge mode is sent with tradeSide open")
	}
	base := intent{op: op, c: c, orderType: exchange.Market, margin: exchange.Crossed, source: exchange.OSReverse}
	if mode == exchange.OneWayMode {
		long := a.posSize(c, true).IsPositive()
		pos := a.posSize(c, long)
		if !pos.IsPositive() {
			return exchange.OrderAck{}, apiErr(op, exchange.CodeNoPosition, fmt.Sprintf("no position of %s to reverse", c.spec.Symbol))
		}
		in := base
		in.side, in.size, in.clientOID = exchange.Buy, pos.Mul(decimal.NewFromInt(2)), req.ClientOID
		if long {
			in.side = exchange.Sell
		}
		in.margin = a.position(c, long).marginMode
		o, _, err := a.admit(in)
		if err != nil {
			return exchange.OrderAck{}, err
		}
		a.submit(o)
		return exchange.OrderAck{OrderID: o.id, ClientOID: o.clientOID}, nil
	}
	long := req.Side == exchange.Buy
	p := a.position(c, long)
	if p == nil {
		return exchange.OrderAck{}, apiErr(op, exchange.CodeNoPosition, fmt.Sprintf("no %s position of %s to reverse", holdSide(long), c.spec.Symbol))
	}
	qty := p.size
	if s := req.Size.MustDecimal(); s.IsPositive() && s.LessThan(qty) { // rules 3-5
		qty = s
	}
	if a.held(c, long, nil).GreaterThan(p.size.Sub(qty)) {
		// Close orders hold what the reversal must close: they give way.
		for _, h := range a.heldOrders(c, long) {
			a.cancel(h, exchange.NormalCancel)
		}
	}
	closing := base
	closing.side, closing.size, closing.margin = req.Side, qty, p.marginMode
	co, _, err := a.admit(closing)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	opening := base
	opening.side, opening.open, opening.size, opening.clientOID, opening.margin = req.Side.Opposite(), true, qty, req.ClientOID, p.marginMode
	if opening.clientOID != "" {
		if _, dup := a.byCOID[opening.clientOID]; dup {
			return exchange.OrderAck{}, apiErr(op, CodeDuplicateClientOID, fmt.Sprintf("duplicate clientOid %s", opening.clientOID))
		}
	}
	a.submit(co)
	oo, _, err := a.admit(opening)
	if err != nil {
		// The close stands; say so, under the code of what failed.
		var ae *exchange.APIError
		if !errors.As(err, &ae) {
			return exchange.OrderAck{}, err
		}
		wrapped := *ae
		wrapped.Msg = "the position was closed but the reverse position was not opened: " + ae.Msg
		return exchange.OrderAck{}, &wrapped
	}
	a.submit(oo)
	return exchange.OrderAck{OrderID: oo.id, ClientOID: oo.clientOID}, nil
}

// ClosePositions market-closes positions (POST close-positions). One-way
// ignores holdSide; hedge closes holdSide or both. Close orders that hold
// the position are cancelled first so the whole position closes.
func (a *Account) ClosePositions(ctx context.Context, req exchange.ClosePositionsRequest) (exchange.ClosePositionsResult, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpClosePositions
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.ClosePositionsResult{}, err
	}
	if req.Symbol != "" {
		if _, err := a.x.contract(op, req.ProductType, req.Symbol); err != nil {
			return exchange.ClosePositionsResult{}, err
		}
	}
	hedge := a.mode[req.ProductType] == exchange.HedgeMode
	var targets []*position
	for _, p := range a.positions {
		if p.c.productType != req.ProductType || (req.Symbol != "" && p.c.spec.Symbol != req.Symbol) {
			continue
		}
		if hedge && req.HoldSide != "" && holdSide(p.long) != req.HoldSide {
			continue
		}
		targets = append(targets, p)
	}
	if len(targets) == 0 {
		return exchange.ClosePositionsResult{}, apiErr(op, exchange.CodeNoPosition, "no position to close")
	}
	res := exchange.ClosePositionsResult{SuccessList: []exchange.CloseAck{}, FailureList: []exchange.BatchFailure{}}
	for _, p := range targets {
		c := p.c
		if err := a.tradable(op, c); err != nil {
			res.FailureList = append(res.FailureList, failure(err, exchange.OrderAck{}, c.spec.Symbol))
			continue
		}
		for _, h := range a.heldOrders(c, p.long) {
			a.cancel(h, exchange.NormalCancel)
		}
		o, _, err := a.admit(closingIntent(op, p, hedge, exchange.OSMarket))
		if err != nil {
			res.FailureList = append(res.FailureList, failure(err, exchange.OrderAck{}, c.spec.Symbol))
			continue
		}
		a.submit(o)
		res.SuccessList = append(res.SuccessList, exchange.CloseAck{OrderID: o.id, ClientOID: o.clientOID, Symbol: c.spec.Symbol})
	}
	return res, nil
}

// closingIntent is a market order closing the whole of p: in hedge mode
// side names the position (buy closes a long), in one-way mode it is the
// opposite side, reduce-only.
func closingIntent(op exchange.Op, p *position, hedge bool, src exchange.OrderSource) intent {
	in := intent{op: op, c: p.c, orderType: exchange.Market, size: p.size, margin: p.marginMode, source: src}
	if hedge {
		in.side = exchange.Buy
		if !p.long {
			in.side = exchange.Sell
		}
	} else {
		in.side, in.reduce = exchange.Sell, true
		if !p.long {
			in.side = exchange.Buy
		}
	}
	return in
}

// SetPositionMode switches one product type between one-way and hedge mode;
// 40920 while the product type has positions or pending orders.
func (a *Account) SetPositionMode(ctx context.Context, req exchange.SetPositionModeRequest) (exchange.SetPositionModeResult, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpSetPositionMode
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.SetPositionModeResult{}, err
	}
	for _, p := range a.positions {
		if p.c.productType == req.ProductType {
			return exchange.SetPositionModeResult{}, apiErr(op, exchange.CodePosModeLocked, "the position mode cannot be changed while positions exist")
		}
	}
	for _, o := range a.livePending() {
		if o.c.productType == req.ProductType {
			return exchange.SetPositionModeResult{}, apiErr(op, exchange.CodePosModeLocked, "the position mode cannot be changed while orders exist")
		}
	}
	a.mode[req.ProductType] = req.PosMode
	return exchange.SetPositionModeResult{PosMode: req.PosMode}, nil
}
