package marketdata

import (
	"fmt"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Order is a pending (live or partially filled) futures order. Price is 0 for
// a market order (order_type tells which); sizes are in base coin.
type Order struct {
	ID          string  `expr:"id" json:"id"`
	ClientOID   string  `expr:"client_oid" json:"client_oid"`
	Symbol      string  `expr:"symbol" json:"symbol"`
	ProductType string  `expr:"product_type" json:"product_type"`
	Side        string  `expr:"side" json:"side"`
	TradeSide   string  `expr:"trade_side" json:"trade_side"`
	PosSide     string  `expr:"pos_side" json:"pos_side"`
	OrderType   string  `expr:"order_type" json:"order_type"`
	Force       string  `expr:"force" json:"force"`
	Price       float64 `expr:"price" json:"price"`
	Size        float64 `expr:"size" json:"size"`
	Filled      float64 `expr:"filled" json:"filled"`
	Remaining   float64 `expr:"remaining" json:"remaining"`
	Status      string  `expr:"status" json:"status"`
	TakeProfit  float64 `expr:"take_profit" json:"take_profit"`
	StopLoss    float64 `expr:"stop_loss" json:"stop_loss"`
	AgeSeconds  float64 `expr:"age_seconds" json:"age_seconds"`
	// Modifications is how often the engine moved this order (modify_order
	// replaces an order under a new client order id; the engine follows
	// it). 0 in a State until the engine sets it.
	Modifications int `expr:"modifications" json:"modifications"`

	born time.Time // when it was created, for AgeSeconds (zero: not known)
}

// OrdersInput is one fetch of pending orders: every order of ProductType, or
// of one Symbol. All pages must be included: a partial list would make
// orders_count too small.
type OrdersInput struct {
	ProductType exchange.ProductType
	Symbol      string
	Orders      []exchange.PendingOrder
	At          time.Time
}

// parseOrder reads a pending order without its age, and returns when it
// was created (zero when not known).
func parseOrder(w *exchange.PendingOrder, pt exchange.ProductType) (*Order, time.Time, error) {
	var p numParser
	o := &Order{
		ID: w.OrderID, ClientOID: w.ClientOID, Symbol: w.Symbol, ProductType: string(pt),
		Side: string(w.Side), TradeSide: string(w.TradeSide), PosSide: string(w.PosSide),
		OrderType: string(w.OrderType), Force: string(w.Force),
		Price:      p.num("price", w.Price),
		Size:       p.num("size", w.Size),
		Filled:     p.num("baseVolume", w.BaseVolume),
		Status:     string(w.Status),
		TakeProfit: p.num("presetStopSurplusPrice", w.PresetStopSurplusPrice),
		StopLoss:   p.num("presetStopLossPrice", w.PresetStopLossPrice),
	}
	if p.err != nil {
		return nil, time.Time{}, fmt.Errorf("order %s: %w", w.OrderID, p.err)
	}
	o.Remaining = o.Size - o.Filled
	o.born = w.CTime.Time()
	return o, o.born, nil
}

// Orders returns the pending orders of symbol, oldest first, or an error when
// the orders of its product type were not fetched. A fetched symbol without
// orders gives an empty list.
func (s *State) Orders(symbol string) ([]*Order, error) {
	if lo, hi, ok := s.ordersRuns.run(symbol); ok {
		return s.orders[lo:hi:hi], nil
	}
	pt, ok := s.product(symbol)
	if !ok {
		return nil, missing("orders of "+symbol, "the symbol is not a known futures contract")
	}
	if _, ok := covered(s.ordersScope, pt, symbol); !ok {
		return nil, missing("orders of "+symbol, "the pending orders of "+string(pt)+" were not fetched")
	}
	return nil, nil
}

// StrategyOrder is a pending strategy order (take-profit/stop-loss, trigger,
// OCO, trailing stop, iceberg or TWAP). Only the parameter list of its type is
// non-empty. Prices are in quote coin, Size in base coin.
type StrategyOrder struct {
	ID                string  `expr:"id" json:"id"`
	ClientOID         string  `expr:"client_oid" json:"client_oid"`
	Symbol            string  `expr:"symbol" json:"symbol"`
	Category          string  `expr:"category" json:"category"`
	Type              string  `expr:"type" json:"type"`
	Side              string  `expr:"side" json:"side"`
	Size              float64 `expr:"size" json:"size"`
	Status            string  `expr:"status" json:"status"`
	TakeProfit        float64 `expr:"take_profit" json:"take_profit"`
	StopLoss          float64 `expr:"stop_loss" json:"stop_loss"`
	TPTriggerBy       string  `expr:"tp_trigger_by" json:"tp_trigger_by"`
	SLTriggerBy       string  `expr:"sl_trigger_by" json:"sl_trigger_by"`
	TPOrderType       string  `expr:"tp_order_type" json:"tp_order_type"`
	SLOrderType       string  `expr:"sl_order_type" json:"sl_order_type"`
	TPLimitPrice      float64 `expr:"tp_limit_price" json:"tp_limit_price"`
	SLLimitPrice      float64 `expr:"sl_limit_price" json:"sl_limit_price"`
	TriggerBy         string  `expr:"trigger_by" json:"trigger_by"`
	TriggerPrice      float64 `expr:"trigger_price" json:"trigger_price"`
	TriggerOrderType  string  `expr:"trigger_order_type" json:"trigger_order_type"`
	TriggerOrderPrice float64 `expr:"trigger_order_price" json:"trigger_order_price"`
	AgeSeconds        float64 `expr:"age_seconds" json:"age_seconds"`

	OCO          []*OCOLeg       `expr:"oco" json:"oco"`
	TrailingStop []*TrailingStop `expr:"trailing_stop" json:"trailing_stop"`
	Iceberg      []*Iceberg      `expr:"iceberg" json:"iceberg"`
	TWAP         []*TWAP         `expr:"twap" json:"twap"`

	born time.Time // when it was created, for AgeSeconds (zero: not known)
}

// OCOLeg is one leg of an OCO strategy order.
type OCOLeg struct {
	LimitPrice   float64 `expr:"limit_price" json:"limit_price"`
	TriggerPrice float64 `expr:"trigger_price" json:"trigger_price"`
	OrderType    string  `expr:"order_type" json:"order_type"`
	OrderPrice   float64 `expr:"order_price" json:"order_price"`
}

// TrailingStop holds the parameters of a trailing-stop strategy order.
type TrailingStop struct {
	ActivationPrice float64 `expr:"activation_price" json:"activation_price"`
	ActivationType  string  `expr:"activation_type" json:"activation_type"`
	TrailType       string  `expr:"trail_type" json:"trail_type"`
	TrailVariance   float64 `expr:"trail_variance" json:"trail_variance"`
	OrderType       string  `expr:"order_type" json:"order_type"`
	OrderPrice      float64 `expr:"order_price" json:"order_price"`
}

// Iceberg holds the parameters of an iceberg strategy order.
type Iceberg struct {
	SplitMode         string  `expr:"split_mode" json:"split_mode"`
	QtyPerOrder       float64 `expr:"qty_per_order" json:"qty_per_order"`
	SplitOrderNumbers float64 `expr:"split_order_numbers" json:"split_order_numbers"`
	OrderPreference   string  `expr:"order_preference" json:"order_preference"`
	ExecutionStrategy string  `expr:"execution_strategy" json:"execution_strategy"`
	Distance          float64 `expr:"distance" json:"distance"`
	FixedPrice        float64 `expr:"fixed_price" json:"fixed_price"`
	PriceLimit        float64 `expr:"price_limit" json:"price_limit"`
}

// TWAP holds the parameters of a TWAP strategy order.
type TWAP struct {
	DurationMinutes float64 `expr:"duration_minutes" json:"duration_minutes"`
	IntervalSeconds float64 `expr:"interval_seconds" json:"interval_seconds"`
	OrderType       string  `expr:"order_type" json:"order_type"`
	TriggerPrice    float64 `expr:"trigger_price" json:"trigger_price"`
	TerminatePrice  float64 `expr:"termination_price" json:"termination_price"`
}

// StrategyOrdersInput is one fetch of strategy orders of a category.
type StrategyOrdersInput struct {
	Category exchange.Category
	Orders   []exchange.StrategyOrder
	At       time.Time
}

// parseStrategyOrder reads a strategy order without its age, and returns
// when it was created (zero when not known).
func parseStrategyOrder(w *exchange.StrategyOrder) (*StrategyOrder, time.Time, error) {
	var p numParser
	o := &StrategyOrder{
		ID: w.OrderID, ClientOID: w.ClientOID, Symbol: w.Symbol, Category: string(w.Category),
		Type: string(w.Type()), Side: string(w.PosSide), Size: p.num("qty", w.Qty),
		Status:     string(w.Status),
		TakeProfit: p.num("takeProfit", w.TakeProfit), StopLoss: p.num("stopLoss", w.StopLoss),
		TPTriggerBy: string(w.TPTriggerBy), SLTriggerBy: string(w.SLTriggerBy),
		TPOrderType: string(w.TPOrderType), SLOrderType: string(w.SLOrderType),
		TPLimitPrice: p.num("tpLimitPrice", w.TPLimitPrice), SLLimitPrice: p.num("slLimitPrice", w.SLLimitPrice),
		TriggerBy: string(w.TriggerBy), TriggerPrice: p.num("triggerPrice", w.TriggerPrice),
		TriggerOrderType: string(w.TriggerOrderType), TriggerOrderPrice: p.num("triggerOrderPrice", w.TriggerOrderPrice),
	}
	for i := range w.OCOParams {
		x := &w.OCOParams[i]
		o.OCO = append(o.OCO, &OCOLeg{
			LimitPrice: p.num("ocoLimitPrice", x.OCOLimitPrice), TriggerPrice: p.num("ocoTriggerPrice", x.OCOTriggerPrice),
			OrderType: string(x.OCOOrderType), OrderPrice: p.num("ocoOrderPrice", x.OCOOrderPrice),
		})
	}
	for i := range w.TrailingStopParams {
		x := &w.TrailingStopParams[i]
		o.TrailingStop = append(o.TrailingStop, &TrailingStop{
			ActivationPrice: p.num("activationPrice", x.ActivationPrice), ActivationType: string(x.ActivationType),
			TrailType: string(x.TrailType), TrailVariance: p.num("trailVariance", x.TrailVariance),
			OrderType: string(x.PreOrderType), OrderPrice: p.num("preOrderPrice", x.PreOrderPrice),
		})
	}
	for i := range w.IcebergParams {
		x := &w.IcebergParams[i]
		o.Iceberg = append(o.Iceberg, &Iceberg{
			SplitMode: string(x.SplitMode), QtyPerOrder: p.num("qtyPerOrder", x.QtyPerOrder),
			SplitOrderNumbers: p.num("splitOrderNumbers", x.SplitOrderNumbers),
			OrderPreference:   string(x.OrderPreference), ExecutionStrategy: string(x.ExecutionStrategy),
			Distance: p.num("distance", x.Distance), FixedPrice: p.num("fixedPrice", x.FixedPrice),
			PriceLimit: p.num("priceLimit", x.PriceLimit),
		})
	}
	for i := range w.TWAPParams {
		x := &w.TWAPParams[i]
		o.TWAP = append(o.TWAP, &TWAP{
			DurationMinutes: p.num("duration", x.Duration), IntervalSeconds: p.num("interval", x.Interval),
			OrderType:      string(x.OrderType),
			TriggerPrice:   p.num("twapTriggerPrice", exchange.Num(x.TWAPTriggerPrice)),
			TerminatePrice: p.num("twapTerminationPrice", exchange.Num(x.TWAPTerminationPrice)),
		})
	}
	if p.err != nil {
		return nil, time.Time{}, fmt.Errorf("strategy order %s: %w", w.OrderID, p.err)
	}
	o.born = w.CreatedTime.Time()
	return o, o.born, nil
}

// StrategyOrders returns the pending strategy orders of symbol, or an error
// when the strategy orders of its category were not fetched.
func (s *State) StrategyOrders(symbol string) ([]*StrategyOrder, error) {
	if lo, hi, ok := s.strategyRuns.run(symbol); ok {
		return s.strategy[lo:hi:hi], nil
	}
	what := "strategy orders of " + symbol
	pt, ok := s.product(symbol)
	if !ok {
		return nil, missing(what, "the symbol is not a known futures contract")
	}
	if !slices.Contains(s.strategyScope, pt.Category()) {
		return nil, missing(what, "the strategy orders of "+string(pt.Category())+" were not fetched")
	}
	return nil, nil
}

// HasStrategyStop reports whether symbol has a pending strategy order on side
// (long or short; empty for any) with a stop-loss (stopLoss == true) or a
// take-profit price.
func (s *State) HasStrategyStop(symbol, side string, stopLoss bool) (bool, error) {
	os, err := s.StrategyOrders(symbol)
	if err != nil {
		return false, err
	}
	for _, o := range os {
		if side != "" && o.Side != side {
			continue
		}
		// A strategy order that can no longer trigger protects nothing; an
		// empty status is taken as pending, which is all this endpoint lists.
		switch exchange.StrategyStatus(o.Status) {
		case exchange.StrategySuccess, exchange.StrategyFailed, exchange.StrategyCancelled:
			continue
		}
		if (stopLoss && o.StopLoss != 0) || (!stopLoss && o.TakeProfit != 0) {
			return true, nil
		}
	}
	return false, nil
}
