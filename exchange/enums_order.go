package exchange

import (
	"encoding/json"
	"strings"
)

// ProductType is the futures product type of the classic account.
type ProductType string

// Product types of the futures operations.
const (
	USDTFutures ProductType = "USDT-FUTURES" // USDT-margined
	COINFutures ProductType = "COIN-FUTURES" // coin-margined
	USDCFutures ProductType = "USDC-FUTURES" // USDC-margined
)

var productTypes = enum[ProductType]{"productType", []ProductType{USDTFutures, COINFutures, USDCFutures}}

// Valid reports whether p is a product type of the spec.
func (p ProductType) Valid() bool { return productTypes.has(p) }

// Category returns the unified-account category that covers the futures
// product type (USDT-FUTURES is usdt-futures): the strategy orders of a
// product type are fetched by it.
func (p ProductType) Category() Category { return Category(strings.ToLower(string(p))) }

// ProductTypes returns every product type in the spec's order.
func ProductTypes() []ProductType { return append([]ProductType(nil), productTypes.values...) }

// ProductTypeOfCoin is the product type whose positions are margined in
// coin: USDT-FUTURES for USDT, USDC-FUTURES for USDC, COIN-FUTURES for any
// other coin (BTC, ETH...).
func ProductTypeOfCoin(coin string) ProductType {
	switch coin {
	case "USDT":
		return USDTFutures
	case "USDC":
		return USDCFutures
	}
	return COINFutures
}

// Category is the product category of unified-account operations. The
// spec writes it in lower case, and the constants are the spec's; the live
// venue's v3 operations take it in upper case (USDT-FUTURES), as the venue's
// docs and the bitget-api npm SDK's types write it (exchange notes, "v3
// category case"). Either case is valid, and the client sends the upper
// case (Upper).
type Category string

// Categories of the unified-account operations.
const (
	CategorySpot        Category = "spot"
	CategoryMargin      Category = "margin"
	CategoryUSDTFutures Category = "usdt-futures"
	CategoryCOINFutures Category = "coin-futures"
	CategoryUSDCFutures Category = "usdc-futures"
)

var categories = enum[Category]{"category", []Category{CategorySpot, CategoryMargin, CategoryUSDTFutures, CategoryCOINFutures, CategoryUSDCFutures}}

// Valid reports whether c is a category, in either case.
func (c Category) Valid() bool { return categories.has(c.lower()) }

func (c Category) lower() Category { return Category(strings.ToLower(string(c))) }

// Upper returns c in the venue's upper case.
func (c Category) Upper() Category { return Category(strings.ToUpper(string(c))) }

// MarginMode is isolated or crossed.
type MarginMode string

// Margin modes.
const (
	Isolated MarginMode = "isolated"
	Crossed  MarginMode = "crossed"
)

var marginModes = enum[MarginMode]{"marginMode", []MarginMode{Isolated, Crossed}}

// Valid reports whether m is a margin mode of the spec.
func (m MarginMode) Valid() bool { return marginModes.has(m) }

// Side is buy or sell. In one-way mode it is the direction of the trade; in
// hedge mode it names the position: buy is the long side, sell the short side.
type Side string

// Sides.
const (
	Buy  Side = "buy"
	Sell Side = "sell"
)

var sides = enum[Side]{"side", []Side{Buy, Sell}}

// Valid reports whether s is a side of the spec.
func (s Side) Valid() bool { return sides.has(s) }

// Opposite returns sell for buy and buy for sell.
func (s Side) Opposite() Side {
	if s == Buy {
		return Sell
	}
	return Buy
}

// OrderType is limit or market.
type OrderType string

// Order types.
const (
	Limit  OrderType = "limit"
	Market OrderType = "market"
)

var orderTypes = enum[OrderType]{"orderType", []OrderType{Limit, Market}}

// Valid reports whether t is an order type of the spec.
func (t OrderType) Valid() bool { return orderTypes.has(t) }

// Force is the time in force of a limit order.
type Force string

// Times in force.
const (
	IOC      Force = "ioc"       // unfillable part cancelled
	FOK      Force = "fok"       // cancelled unless fully filled at once
	GTC      Force = "gtc"       // stays until filled or cancelled
	PostOnly Force = "post_only" // maker only
)

var forces = enum[Force]{"force", []Force{IOC, FOK, GTC, PostOnly}}

// Valid reports whether f is a time in force of the spec.
func (f Force) Valid() bool { return forces.has(f) }

// UnmarshalJSON reads a time in force in either case: public clients send
// GTC, IOC, FOK and POST_ONLY and the live venue accepts them (exchange
// notes, "Enumerations"), so a request decoded by the simulator, and a
// record, hold the spec's lower-case value.
func (f *Force) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*f = Force(strings.ToLower(s))
	return nil
}

// TradeSide is the trade direction. Requests (hedge mode only) send open or
// close; order and fill records carry one of the longer record values.
type TradeSide string

// Trade sides that a request may send (hedge mode only).
const (
	Open  TradeSide = "open"
	Close TradeSide = "close"
)

// Trade sides that appear in order and fill records.
const (
	ReduceCloseLong           TradeSide = "reduce_close_long"
	ReduceCloseShort          TradeSide = "reduce_close_short"
	OffsetCloseLong           TradeSide = "offset_close_long"
	OffsetCloseShort          TradeSide = "offset_close_short"
	BurstCloseLong            TradeSide = "burst_close_long"
	BurstCloseShort           TradeSide = "burst_close_short"
	DeliveryCloseLong         TradeSide = "delivery_close_long"
	DeliveryCloseShort        TradeSide = "delivery_close_short"
	DteSysAdlCloseLong        TradeSide = "dte_sys_adl_close_long"
	DteSysAdlCloseShort       TradeSide = "dte_sys_adl_close_short"
	BuySingle                 TradeSide = "buy_single"
	SellSingle                TradeSide = "sell_single"
	ReduceBuySingle           TradeSide = "reduce_buy_single"
	ReduceSellSingle          TradeSide = "reduce_sell_single"
	BurstBuySingle            TradeSide = "burst_buy_single"
	BurstSellSingle           TradeSide = "burst_sell_single"
	DeliverySellSingle        TradeSide = "delivery_sell_single"
	DeliveryBuySingle         TradeSide = "delivery_buy_single"
	DteSysAdlBuyInSingleMode  TradeSide = "dte_sys_adl_buy_in_single_side_mode"
	DteSysAdlSellInSingleMode TradeSide = "dte_sys_adl_sell_in_single_side_mode"
)

var requestTradeSides = enum[TradeSide]{"tradeSide", []TradeSide{Open, Close}}

var recordTradeSides = enum[TradeSide]{"tradeSide (records)", []TradeSide{
	Open, Close, ReduceCloseLong, ReduceCloseShort, OffsetCloseLong, OffsetCloseShort,
	BurstCloseLong, BurstCloseShort, DeliveryCloseLong, DeliveryCloseShort,
	DteSysAdlCloseLong, DteSysAdlCloseShort, BuySingle, SellSingle, ReduceBuySingle,
	ReduceSellSingle, BurstBuySingle, BurstSellSingle, DeliverySellSingle, DeliveryBuySingle,
	DteSysAdlBuyInSingleMode, DteSysAdlSellInSingleMode,
}}

// ValidRequest reports whether t may be sent in a request (open or close).
func (t TradeSide) ValidRequest() bool { return requestTradeSides.has(t) }

// ValidRecord reports whether t is a trade side that order and fill records carry.
func (t TradeSide) ValidRecord() bool { return recordTradeSides.has(t) }

// YesNo is the YES/NO flag of reduceOnly.
type YesNo string

// reduceOnly values.
const (
	Yes YesNo = "YES"
	No  YesNo = "NO"
)

var reduceOnlys = enum[YesNo]{"reduceOnly", []YesNo{Yes, No}}

// Valid reports whether y is YES or NO.
func (y YesNo) Valid() bool { return reduceOnlys.has(y) }

// STPMode is the self-trade prevention mode.
type STPMode string

// Self-trade prevention modes.
const (
	STPNone        STPMode = "none"
	STPCancelTaker STPMode = "cancel_taker"
	STPCancelMaker STPMode = "cancel_maker"
	STPCancelBoth  STPMode = "cancel_both"
)

var stpModes = enum[STPMode]{"stpMode", []STPMode{STPNone, STPCancelTaker, STPCancelMaker, STPCancelBoth}}

// Valid reports whether m is a self-trade prevention mode of the spec.
func (m STPMode) Valid() bool { return stpModes.has(m) }

// HoldSide is the direction of a position: long or short.
type HoldSide string

// Position directions.
const (
	Long  HoldSide = "long"
	Short HoldSide = "short"
)

var holdSides = enum[HoldSide]{"holdSide", []HoldSide{Long, Short}}

// Valid reports whether h is long or short.
func (h HoldSide) Valid() bool { return holdSides.has(h) }

// PosSide is the position side in records: long and short in hedge mode, net
// in one-way mode.
type PosSide string

// Position sides in records.
const (
	PosLong  PosSide = "long"
	PosShort PosSide = "short"
	PosNet   PosSide = "net"
)

var posSides = enum[PosSide]{"posSide", []PosSide{PosLong, PosShort, PosNet}}

// Valid reports whether p is a position side of the spec.
func (p PosSide) Valid() bool { return posSides.has(p) }

// PosMode is the position mode of an account for one product type.
type PosMode string

// Position modes.
const (
	OneWayMode PosMode = "one_way_mode"
	HedgeMode  PosMode = "hedge_mode"
)

var posModes = enum[PosMode]{"posMode", []PosMode{OneWayMode, HedgeMode}}

// Valid reports whether m is a position mode of the spec.
func (m PosMode) Valid() bool { return posModes.has(m) }

// EnterPointSource is where an order was created.
type EnterPointSource string

// Order origins.
const (
	SourceWeb     EnterPointSource = "WEB"
	SourceAPI     EnterPointSource = "API"
	SourceSys     EnterPointSource = "SYS" // system-managed, usually forced liquidation
	SourceAndroid EnterPointSource = "ANDROID"
	SourceIOS     EnterPointSource = "IOS"
)

var enterPointSources = enum[EnterPointSource]{"enterPointSource", []EnterPointSource{SourceWeb, SourceAPI, SourceSys, SourceAndroid, SourceIOS}}

// Valid reports whether s is an order origin of the spec.
func (s EnterPointSource) Valid() bool { return enterPointSources.has(s) }

// CancelReason says why an order was cancelled.
type CancelReason string

// Cancel reasons.
const (
	NormalCancel CancelReason = "normal_cancel"
	STPCancel    CancelReason = "stp_cancel"
)

var cancelReasons = enum[CancelReason]{"cancelReason", []CancelReason{NormalCancel, STPCancel}}

// Valid reports whether r is a cancel reason of the spec.
func (r CancelReason) Valid() bool { return cancelReasons.has(r) }

// OrderSource is the source of an order.
type OrderSource string

// Order sources. The first eighteen are also the values the orders-history
// filter accepts.
const (
	OSNormal              OrderSource = "normal"
	OSMarket              OrderSource = "market"
	OSProfitMarket        OrderSource = "profit_market"
	OSLossMarket          OrderSource = "loss_market"
	OSTraderDelegate      OrderSource = "Trader_delegate"
	OSTraderProfit        OrderSource = "trader_profit"
	OSTraderLoss          OrderSource = "trader_loss"
	OSReverse             OrderSource = "reverse"
	OSTraderReverse       OrderSource = "trader_reverse"
	OSProfitLimit         OrderSource = "profit_limit"
	OSLossLimit           OrderSource = "loss_limit"
	OSLiquidation         OrderSource = "liquidation"
	OSDeliveryCloseLong   OrderSource = "delivery_close_long"
	OSDeliveryCloseShort  OrderSource = "delivery_close_short"
	OSPosProfitLimit      OrderSource = "pos_profit_limit"
	OSPosProfitMarket     OrderSource = "pos_profit_market"
	OSPosLossLimit        OrderSource = "pos_loss_limit"
	OSPosLossMarket       OrderSource = "pos_loss_market"
	OSProfitChase         OrderSource = "profit_chase"
	OSLossChase           OrderSource = "loss_chase"
	OSFollowerDelegate    OrderSource = "follower_delegate"
	OSReduceOffset        OrderSource = "reduce_offset"
	OSMarketRisk          OrderSource = "market_risk"
	OSPlanLimit           OrderSource = "plan_limit"
	OSPlanMarket          OrderSource = "plan_market"
	OSStrategyPositive    OrderSource = "strategy_positive"
	OSStrategyReverse     OrderSource = "strategy_reverse"
	OSStrategyUnlimited   OrderSource = "strategy_unlimited"
	OSMoveLimit           OrderSource = "move_limit"
	OSMoveMarket          OrderSource = "move_market"
	OSTrackingLimit       OrderSource = "tracking_limit"
	OSTrackingMarket      OrderSource = "tracking_market"
	OSStrategyDCAPositive OrderSource = "strategy_dca_positive"
	OSStrategyDCAReverse  OrderSource = "strategy_dca_reverse"
	OSStrategyOCOLimit    OrderSource = "strategy_oco_limit"
	OSStrategyOCOTrigger  OrderSource = "strategy_oco_trigger"
	OSModifyOrderLimit    OrderSource = "modify_order_limit"
	OSStrategyRegularBuy  OrderSource = "strategy_regular_buy"
	OSStrategyGridMiddle  OrderSource = "strategy_grid_middle"
)

var orderSources = enum[OrderSource]{"orderSource", []OrderSource{
	OSNormal, OSMarket, OSProfitMarket, OSLossMarket, OSTraderDelegate, OSTraderProfit,
	OSTraderLoss, OSReverse, OSTraderReverse, OSProfitLimit, OSLossLimit, OSLiquidation,
	OSDeliveryCloseLong, OSDeliveryCloseShort, OSPosProfitLimit, OSPosProfitMarket,
	OSPosLossLimit, OSPosLossMarket, OSProfitChase, OSLossChase, OSFollowerDelegate,
	OSReduceOffset, OSMarketRisk, OSPlanLimit, OSPlanMarket, OSStrategyPositive,
	OSStrategyReverse, OSStrategyUnlimited, OSMoveLimit, OSMoveMarket, OSTrackingLimit,
	OSTrackingMarket, OSStrategyDCAPositive, OSStrategyDCAReverse, OSStrategyOCOLimit,
	OSStrategyOCOTrigger, OSModifyOrderLimit, OSStrategyRegularBuy, OSStrategyGridMiddle,
}}

// historyFilterSources is the subset the orders-history orderSource filter accepts.
var historyFilterSources = enum[OrderSource]{"orderSource", orderSources.values[:18]}

// Valid reports whether s is an order source of the spec.
func (s OrderSource) Valid() bool { return orderSources.has(s) }

// ValidHistoryFilter reports whether s is accepted by the orders-history filter.
func (s OrderSource) ValidHistoryFilter() bool { return historyFilterSources.has(s) }

// OrderState is the state of a futures order (field state in order detail,
// status in pending and history lists).
type OrderState string

// Futures order states.
const (
	StateLive            OrderState = "live"
	StatePartiallyFilled OrderState = "partially_filled"
	StateFilled          OrderState = "filled"
	StateCanceled        OrderState = "canceled"
)

var orderStates = enum[OrderState]{"state", []OrderState{StateLive, StatePartiallyFilled, StateFilled, StateCanceled}}

// pendingStatuses are the values the orders-pending status filter accepts.
var pendingStatuses = enum[OrderState]{"status (orders-pending filter)", []OrderState{StateLive, StatePartiallyFilled}}

// Valid reports whether s is an order state of the spec.
func (s OrderState) Valid() bool { return orderStates.has(s) }

// Final reports whether no further transition can happen (filled or canceled).
func (s OrderState) Final() bool { return s == StateFilled || s == StateCanceled }

// SymbolStatus is the trading status of a contract (contracts endpoint).
type SymbolStatus string

// Contract statuses.
const (
	SymbolNormal        SymbolStatus = "normal"
	SymbolMaintain      SymbolStatus = "maintain"
	SymbolLimitOpen     SymbolStatus = "limit_open"
	SymbolRestrictedAPI SymbolStatus = "restrictedAPI"
	SymbolOff           SymbolStatus = "off"
	SymbolListed        SymbolStatus = "listed"
)

var symbolStatuses = enum[SymbolStatus]{"symbolStatus", []SymbolStatus{SymbolNormal, SymbolMaintain, SymbolLimitOpen, SymbolRestrictedAPI, SymbolOff, SymbolListed}}

// Valid reports whether s is a contract status.
func (s SymbolStatus) Valid() bool { return symbolStatuses.has(s) }

// Locale is the language tag sent in the locale header.
type Locale string

// Locales the exchange answers in.
const (
	EnUS Locale = "en-US"
	ZhCN Locale = "zh-CN"
)

var locales = enum[Locale]{"locale", []Locale{EnUS, ZhCN}}

// Valid reports whether l is a supported locale.
func (l Locale) Valid() bool { return locales.has(l) }

// CloseKind names, for a trader, what an order of source s was when it is
// not an ordinary order: take-profit, stop-loss, trailing-stop (a moving
// plan), liquidation, trigger (a plan order), delivery; "" for an ordinary
// order (normal, market, a modified or reversed one), placed by a program
// or by hand. A source this list does not know is given as the venue
// writes it.
func (s OrderSource) CloseKind() string {
	src := string(s)
	switch {
	case s == "" || s == OSNormal || s == OSMarket || s == OSModifyOrderLimit || s == OSReverse:
		return ""
	case strings.HasPrefix(src, "move_") || strings.HasPrefix(src, "tracking_"):
		return "trailing-stop"
	case strings.Contains(src, "profit"):
		return "take-profit"
	case strings.Contains(src, "loss"):
		return "stop-loss"
	case s == OSLiquidation || s == OSMarketRisk || s == OSReduceOffset:
		return "liquidation"
	case strings.HasPrefix(src, "plan_"):
		return "trigger"
	case s == OSDeliveryCloseLong || s == OSDeliveryCloseShort:
		return "delivery"
	}
	return src
}
