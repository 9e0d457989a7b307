package exchange

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Orders that rest on the exchange (the venue's "plan" orders): position
// take-profit and stop-loss, trailing stops and trigger orders. They are
// outside the spec; paths, parameters and limits are those of the venue's
// docs (exchange notes; testdata/venue/SOURCES.md):
//   - place-tpsl-order: https://www.bitget.com/api-doc/contract/plan/Place-Tpsl-Order
//   - place-plan-order: https://www.bitget.com/api-doc/contract/plan/Place-Plan-Order
//   - cancel-plan-order: https://www.bitget.com/api-doc/contract/plan/Cancel-Plan-Order
//   - orders-plan-pending: https://www.bitget.com/api-doc/contract/plan/get-orders-plan-pending
//   - orders-plan-history: https://www.bitget.com/api-doc/contract/plan/orders-plan-history
//     (and bitget.ng; the bitget-api npm client's
//     FuturesGetHistoryPlanOrdersRequestV2 and FuturesHistoryPlanOrderV2
//     name the same query and fields)
//
// orders-plan-pending is not unfilled-strategy-orders: that one is the v3
// unified account's list, this one the classic futures account's, the
// account the engine trades.

// PlanType is the kind of an order that rests on the exchange.
type PlanType string

// Plan types. The first five are placed with place-tpsl-order, the last two
// with place-plan-order.
const (
	PlanProfit    PlanType = "profit_plan" // take-profit of part of a position
	PlanLoss      PlanType = "loss_plan"   // stop-loss of part of a position
	PlanMoving    PlanType = "moving_plan" // trailing stop of part of a position
	PlanPosProfit PlanType = "pos_profit"  // take-profit of the whole position
	PlanPosLoss   PlanType = "pos_loss"    // stop-loss of the whole position
	PlanNormal    PlanType = "normal_plan" // trigger order
	PlanTrack     PlanType = "track_plan"  // trailing trigger order
)

// PlanProfitLoss is the query filter of orders-plan-pending for every
// take-profit/stop-loss type (the first five above).
const PlanProfitLoss PlanType = "profit_loss"

var (
	tpslPlanTypes    = enum[PlanType]{"planType (tpsl)", []PlanType{PlanProfit, PlanLoss, PlanMoving, PlanPosProfit, PlanPosLoss}}
	triggerPlanTypes = enum[PlanType]{"planType (trigger)", []PlanType{PlanNormal, PlanTrack}}
	planQueryTypes   = enum[PlanType]{"planType (query)", []PlanType{PlanNormal, PlanTrack, PlanProfitLoss}}
	planTypes        = enum[PlanType]{"planType", []PlanType{PlanProfit, PlanLoss, PlanMoving, PlanPosProfit, PlanPosLoss, PlanNormal, PlanTrack}}
)

// IsTPSL reports whether t is placed with place-tpsl-order (and listed under
// profit_loss).
func (t PlanType) IsTPSL() bool { return tpslPlanTypes.has(t) }

// PlanTrigger is the price a plan order triggers on.
type PlanTrigger string

// Plan trigger prices.
const (
	TriggerFillPrice PlanTrigger = "fill_price" // the last traded price
	TriggerMarkPrice PlanTrigger = "mark_price"
)

var planTriggers = enum[PlanTrigger]{"triggerType", []PlanTrigger{TriggerFillPrice, TriggerMarkPrice}}

// MaxCallbackRatio is the venue's largest trailing callback, in percent
// ("the rate cannot be greater than 10", Place-Plan-Order). Public clients
// send callbackRatio "3.00" for 3% (timtim-hub/bitgettrading,
// EXCHANGE_TRAILING_TP_IMPLEMENTATION.md); rangeRate of moving_plan is
// taken in the same unit, which its docs do not state.
const MaxCallbackRatio = 10

// PlaceTPSLOrderRequest is the body of POST /api/v2/mix/order/place-tpsl-order.
// HoldSide names the position: long or short in hedge mode, buy (the long
// position) or sell in one-way mode.
type PlaceTPSLOrderRequest struct {
	MarginCoin   string      `json:"marginCoin"`
	ProductType  ProductType `json:"productType"`
	Symbol       string      `json:"symbol"`
	PlanType     PlanType    `json:"planType"`
	TriggerPrice Num         `json:"triggerPrice"`
	TriggerType  PlanTrigger `json:"triggerType,omitempty"`
	// ExecutePrice empty or 0 executes at market; never with moving_plan.
	ExecutePrice Num    `json:"executePrice,omitempty"`
	HoldSide     string `json:"holdSide"`
	// Size is required for profit_plan, loss_plan and moving_plan; the
	// position types close the whole position and take none.
	Size Num `json:"size,omitempty"`
	// RangeRate is the trailing callback of moving_plan, in percent.
	RangeRate Num     `json:"rangeRate,omitempty"`
	ClientOID string  `json:"clientOid,omitempty"`
	STPMode   STPMode `json:"stpMode,omitempty"`
}

// Validate checks the place-tpsl-order rules before sending.
func (r PlaceTPSLOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpPlaceTPSLOrder}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.required("marginCoin", r.MarginCoin)
	p.upper("marginCoin", r.MarginCoin)
	p.required("planType", string(r.PlanType))
	p.addEnum(tpslPlanTypes.check("planType", r.PlanType))
	p.decimal("triggerPrice", r.TriggerPrice, true, false)
	if r.TriggerType != "" {
		p.addEnum(planTriggers.check("triggerType", r.TriggerType))
	}
	p.decimal("executePrice", r.ExecutePrice, false, true)
	switch r.HoldSide {
	case "long", "short", "buy", "sell":
	case "":
		p.add("holdSide", CodeParamEmpty, "required")
	default:
		p.add("holdSide", CodeParamVerify, "must be long or short (hedge mode) or buy or sell (one-way mode) (got %q)", r.HoldSide)
	}
	switch r.PlanType {
	case PlanProfit, PlanLoss, PlanMoving:
		p.decimal("size", r.Size, true, false)
	case PlanPosProfit, PlanPosLoss:
		if r.Size != "" {
			p.add("size", CodeParamVerify, "not sent with %s: it closes the whole position", r.PlanType)
		}
	}
	if r.PlanType == PlanMoving {
		p.callback("rangeRate", r.RangeRate)
		if r.ExecutePrice != "" {
			p.add("executePrice", CodeParamVerify, "not sent with moving_plan: a trailing stop executes at market")
		}
	} else if r.RangeRate != "" {
		p.add("rangeRate", CodeParamVerify, "only with moving_plan")
	}
	p.clientOID("clientOid", r.ClientOID)
	return p.err()
}

// PlacePlanOrderRequest is the body of POST /api/v2/mix/order/place-plan-order:
// an order that the venue places when the trigger price is reached.
type PlacePlanOrderRequest struct {
	PlanType    PlanType    `json:"planType"`
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	MarginMode  MarginMode  `json:"marginMode"`
	MarginCoin  string      `json:"marginCoin"`
	Size        Num         `json:"size"`
	// Price is the limit price of a normal_plan limit order; empty for a
	// market order and for track_plan.
	Price Num `json:"price,omitempty"`
	// CallbackRatio is the trailing callback of track_plan, in percent.
	CallbackRatio Num         `json:"callbackRatio,omitempty"`
	TriggerPrice  Num         `json:"triggerPrice"`
	TriggerType   PlanTrigger `json:"triggerType"`
	Side          Side        `json:"side"`
	TradeSide     TradeSide   `json:"tradeSide,omitempty"`
	OrderType     OrderType   `json:"orderType"`
	ClientOID     string      `json:"clientOid,omitempty"`
	ReduceOnly    YesNo       `json:"reduceOnly,omitempty"`

	// Mode is the account's position mode as the caller knows it; when
	// set, tradeSide and reduceOnly are checked against it. Not sent.
	Mode PosMode `json:"-"`
}

// Validate checks the place-plan-order rules before sending.
func (r PlacePlanOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpPlacePlanOrder}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.required("marginCoin", r.MarginCoin)
	p.upper("marginCoin", r.MarginCoin)
	p.required("marginMode", string(r.MarginMode))
	p.addEnum(marginModes.check("marginMode", r.MarginMode))
	p.required("planType", string(r.PlanType))
	p.addEnum(triggerPlanTypes.check("planType", r.PlanType))
	p.decimal("size", r.Size, true, false)
	p.decimal("triggerPrice", r.TriggerPrice, true, false)
	p.required("triggerType", string(r.TriggerType))
	p.addEnum(planTriggers.check("triggerType", r.TriggerType))
	p.required("side", string(r.Side))
	p.addEnum(sides.check("side", r.Side))
	p.required("orderType", string(r.OrderType))
	p.addEnum(orderTypes.check("orderType", r.OrderType))
	switch {
	case r.PlanType == PlanTrack:
		if r.Price != "" {
			p.add("price", CodeParamVerify, "must be empty for track_plan")
		}
		p.callback("callbackRatio", r.CallbackRatio)
	case r.OrderType == Limit:
		p.decimal("price", r.Price, true, false)
	case r.Price != "":
		p.add("price", CodeParamVerify, "must be empty for a market order")
	}
	if r.PlanType != PlanTrack && r.CallbackRatio != "" {
		p.add("callbackRatio", CodeParamVerify, "only with track_plan")
	}
	if r.Mode != "" {
		p.modeRules("", r.Mode, r.TradeSide, r.ReduceOnly)
	}
	p.clientOID("clientOid", r.ClientOID)
	return p.err()
}

// callback checks a required trailing callback in percent: above 0, at most
// MaxCallbackRatio.
func (p *problems) callback(field string, v Num) {
	p.decimal(field, v, true, false)
	if d, err := v.Decimal(); err == nil && d.GreaterThan(decimal.NewFromInt(MaxCallbackRatio)) {
		p.add(field, CodeParamVerify, "at most %d percent (got %s)", MaxCallbackRatio, string(v))
	}
}

// CancelPlanOrderRequest is the body of POST /api/v2/mix/order/cancel-plan-order.
// Without OrderIDList it cancels every plan order of PlanType (default
// normal_plan) of the product type, or of Symbol when set.
type CancelPlanOrderRequest struct {
	OrderIDList []OrderRef  `json:"orderIdList,omitempty"`
	Symbol      string      `json:"symbol,omitempty"`
	ProductType ProductType `json:"productType"`
	MarginCoin  string      `json:"marginCoin,omitempty"`
	PlanType    PlanType    `json:"planType,omitempty"`
}

// Validate checks the cancel-plan-order rules: symbol with orderIdList, each
// item naming an order.
func (r CancelPlanOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpCancelPlanOrder}
	p.productType(r.ProductType)
	p.upper("marginCoin", r.MarginCoin)
	if r.PlanType != "" {
		p.addEnum(planTypes.check("planType", r.PlanType))
	}
	if len(r.OrderIDList) > 0 && r.Symbol == "" {
		p.add("symbol", CodeParamEmpty, "required when orderIdList is sent")
	}
	for i, ref := range r.OrderIDList {
		p.oneOfOrderIDs(fmt.Sprintf("orderIdList[%d].", i), ref.OrderID, ref.ClientOID)
	}
	return p.err()
}

// PlanOrdersRequest is the query of GET /api/v2/mix/order/orders-plan-pending.
type PlanOrdersRequest struct {
	ProductType ProductType `json:"productType"`
	PlanType    PlanType    `json:"planType"`
	OrderID     string      `json:"orderId,omitempty"`
	ClientOID   string      `json:"clientOid,omitempty"`
	Symbol      string      `json:"symbol,omitempty"`
	IDLessThan  string      `json:"idLessThan,omitempty"`
	StartTime   Millis      `json:"startTime,omitempty"`
	EndTime     Millis      `json:"endTime,omitempty"`
	Limit       int         `json:"limit,omitempty"`
}

// Validate checks the orders-plan-pending rules: a product type and one of
// the query's plan types (the docs mark planType required).
func (r PlanOrdersRequest) Validate(now time.Time) error {
	p := r.problems(OpPlanOrdersPending)
	return p.err()
}

// problems checks what both plan-order queries require, as op's.
func (r PlanOrdersRequest) problems(op Op) problems {
	p := problems{op: op}
	p.productType(r.ProductType)
	p.required("planType", string(r.PlanType))
	p.addEnum(planQueryTypes.check("planType", r.PlanType))
	p.limit(r.Limit, 100)
	return p
}

// Plan statuses of orders-plan-history: a plan order leaves the pending
// list when it triggered (its order was placed), failed to trigger or was
// cancelled. The docs' copies spell the failure fail_trigger and
// fail_execute, so the client never filters by status and reads it as text.
const (
	PlanExecuted  = "executed"
	PlanCancelled = "cancelled"
)

// PlanHistoryRequest is the query of GET
// /api/v2/mix/order/orders-plan-history: the plan orders that left the
// pending list (triggered, failed or cancelled), by client order id or in a
// time span. Its parameters are those of orders-plan-pending.
type PlanHistoryRequest PlanOrdersRequest

// Validate checks the orders-plan-history rules: a product type, one of
// the query's plan types, and an order id or client order id (the docs
// ask for one of them).
func (r PlanHistoryRequest) Validate(now time.Time) error {
	p := PlanOrdersRequest(r).problems(OpPlanOrdersHistory)
	p.oneOfOrderIDs("", r.OrderID, r.ClientOID)
	return p.err()
}

// PlanOrder is one plan order of orders-plan-pending or
// orders-plan-history (which adds ExecuteOrderID, the order a triggered
// plan order placed).
type PlanOrder struct {
	PlanType      PlanType    `json:"planType"`
	Symbol        string      `json:"symbol"`
	Size          Num         `json:"size"`
	OrderID       string      `json:"orderId"`
	ClientOID     string      `json:"clientOid"`
	Price         Num         `json:"price"`
	ExecutePrice  Num         `json:"executePrice"`
	CallbackRatio Num         `json:"callbackRatio"`
	TriggerPrice  Num         `json:"triggerPrice"`
	TriggerType   PlanTrigger `json:"triggerType"`
	PlanStatus    string      `json:"planStatus"`
	// ExecuteOrderID is the order placed when the plan order triggered
	// (orders-plan-history only).
	ExecuteOrderID string     `json:"executeOrderId,omitempty"`
	Side           Side       `json:"side"`
	PosSide        PosSide    `json:"posSide"`
	MarginCoin     string     `json:"marginCoin"`
	MarginMode     MarginMode `json:"marginMode"`
	TradeSide      TradeSide  `json:"tradeSide"`
	PosMode        PosMode    `json:"posMode"`
	OrderType      OrderType  `json:"orderType"`
	CTime          Millis     `json:"cTime"`
	UTime          Millis     `json:"uTime"`
}

// PlanOrdersPage is the response data of orders-plan-pending and
// orders-plan-history.
type PlanOrdersPage struct {
	EntrustedList []PlanOrder `json:"entrustedList"`
	EndID         string      `json:"endId"`
}

// PlanOrderReader is what PendingPlanStrategyOrders reads.
type PlanOrderReader interface {
	PlanOrders(ctx context.Context, req PlanOrdersRequest) (PlanOrdersPage, error)
}

// PendingPlanStrategyOrders returns the pending plan orders of the futures
// category c (trigger, trailing trigger, take-profit/stop-loss: one query
// each, the first page of 100) as strategy order records, so that rules
// read them with the unified account's strategy orders; none for spot and
// margin, which have no plan orders here.
func PendingPlanStrategyOrders(ctx context.Context, r PlanOrderReader, c Category) ([]StrategyOrder, error) {
	pt := ProductType(strings.ToUpper(string(c)))
	if !productTypes.has(pt) {
		return nil, nil
	}
	var out []StrategyOrder
	for _, t := range []PlanType{PlanProfitLoss, PlanNormal, PlanTrack} {
		page, err := r.PlanOrders(ctx, PlanOrdersRequest{ProductType: pt, PlanType: t})
		if err != nil {
			return nil, fmt.Errorf("pending plan orders %s of %s: %w", t, pt, err)
		}
		for _, o := range page.EntrustedList {
			out = append(out, o.StrategyOrder(pt))
		}
	}
	return out, nil
}

// StrategyOrder is o as a strategy order record of product type pt: a
// take-profit or stop-loss as type tpsl, a trailing stop or trailing
// trigger as trailing_stop (trail by ratio; the venue's percent as a
// ratio), any other as trigger. A position take-profit or stop-loss has no
// size of its own: its qty is empty.
func (o PlanOrder) StrategyOrder(pt ProductType) StrategyOrder {
	by := TriggerMarket
	if o.TriggerType == TriggerMarkPrice {
		by = TriggerMark
	}
	exec, orderType := o.ExecutePrice, Market
	if exec == "" {
		exec = o.Price
	}
	if d, err := exec.Decimal(); err == nil && d.IsPositive() {
		orderType = Limit
	} else {
		exec = ""
	}
	rec := StrategyOrder{
		OrderID: o.OrderID, ClientOID: o.ClientOID, Category: pt, Symbol: o.Symbol, Qty: o.Size,
		Status: StrategyPending, CreatedTime: o.CTime, UpdatedTime: o.UTime,
	}
	if o.PlanType.IsTPSL() {
		rec.PosSide = Long
		if o.PosSide == PosShort || (o.PosSide != PosLong && o.Side == Buy) {
			rec.PosSide = Short // the order that closes a short buys
		}
	}
	switch o.PlanType {
	case PlanProfit, PlanPosProfit:
		rec.TakeProfit, rec.TPTriggerBy, rec.TPOrderType, rec.TPLimitPrice = o.TriggerPrice, by, orderType, exec
	case PlanLoss, PlanPosLoss:
		rec.StopLoss, rec.SLTriggerBy, rec.SLOrderType, rec.SLLimitPrice = o.TriggerPrice, by, orderType, exec
	case PlanMoving, PlanTrack:
		variance := Num("")
		if d, err := o.CallbackRatio.Decimal(); err == nil {
			variance = NumOf(d.Div(decimal.NewFromInt(100)))
		}
		rec.TrailingStopParams = []TrailingStopParams{{ActivationPrice: o.TriggerPrice, ActivationType: ActivationType(by),
			TrailType: TrailRatio, TrailVariance: variance, PreOrderType: Market}}
	default:
		rec.TriggerBy, rec.TriggerPrice, rec.TriggerOrderType, rec.TriggerOrderPrice = by, o.TriggerPrice, orderType, exec
	}
	return rec
}
