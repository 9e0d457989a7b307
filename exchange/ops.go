package exchange

import "time"

// Op names one operation of the exchange interface, as the last path segment
// of its endpoint (place-order, orders-pending, stock-orderbook, ...).
type Op string

// The spec's 21 operations, the six outside it (exchange notes), and the
// two the live venue needs (server time, single account).
const (
	OpPlaceOrder        Op = "place-order"
	OpClickBackhand     Op = "click-backhand"
	OpBatchPlaceOrder   Op = "batch-place-order"
	OpModifyOrder       Op = "modify-order"
	OpCancelOrder       Op = "cancel-order"
	OpBatchCancelOrders Op = "batch-cancel-orders"
	OpClosePositions    Op = "close-positions"
	OpCancelAllOrders   Op = "cancel-all-orders"
	OpOrderDetail       Op = "detail"
	OpFills             Op = "fills"
	OpFillHistory       Op = "fill-history"
	OpOrdersPending     Op = "orders-pending"
	OpOrdersHistory     Op = "orders-history"
	OpStockOrderBook    Op = "stock-orderbook"
	OpStockFills        Op = "stock-fills"
	OpStockInfo         Op = "stock-info"
	OpMarketStates      Op = "states"
	OpMarketCalendar    Op = "calendar"
	OpStrategyOrders    Op = "unfilled-strategy-orders"
	OpDiscountRate      Op = "eligible-discount-rate"
	OpSpotRecord        Op = "spot-record"

	OpAllPositions    Op = "all-position"
	OpSinglePosition  Op = "single-position"
	OpContracts       Op = "contracts"
	OpTicker          Op = "ticker"
	OpSetPositionMode Op = "set-position-mode"
	OpAccounts        Op = "accounts"

	// OpServerTime and OpSingleAccount are live-venue operations the client
	// needs beyond the notes: the venue's clock (signing must stay within
	// 30 s of it) and the single account, the only account answer that
	// carries posMode on the live venue.
	OpServerTime    Op = "time"
	OpSingleAccount Op = "account"

	// The market-history operations (candles.go): public, for the local
	// store of downloaded history, never polled by the engine.
	OpCandles             Op = "candles"
	OpHistoryCandles      Op = "history-candles"
	OpHistoryMarkCandles  Op = "history-mark-candles"
	OpHistoryIndexCandles Op = "history-index-candles"
	OpHistoryFundRate     Op = "history-fund-rate"
	// The orders that rest on the exchange (plan.go): position
	// take-profit/stop-loss and trailing stops, trigger orders, their
	// cancel and their list.
	OpPlaceTPSLOrder    Op = "place-tpsl-order"
	OpPlacePlanOrder    Op = "place-plan-order"
	OpCancelPlanOrder   Op = "cancel-plan-order"
	OpPlanOrdersPending Op = "orders-plan-pending"
	OpPlanOrdersHistory Op = "orders-plan-history"
	// OpMergeDepth is the order book of a futures contract (exchange notes,
	// "Futures book and ticker").
	OpMergeDepth Op = "merge-depth"
	// OpHistoryPosition is the history of closed positions
	// (position_history.go): closed trades, their realised P&L, fees and
	// funding.
	OpHistoryPosition Op = "history-position"
)

// Scope is what a rate limit is counted per.
type Scope string

// Rate-limit scopes.
const (
	PerUID Scope = "uid"
	PerIP  Scope = "ip"
)

// Permission is an API-key permission an operation requires.
type Permission string

// Permissions. The spec states them for the unified-account and stock
// operations; for the classic futures operations and spot-record it says "not
// shown", and the simulator uses the futures and spot read/trade split that
// the exchange's key settings offer.
const (
	PermNone               Permission = ""
	PermFuturesRead        Permission = "futures_read"
	PermFuturesTrade       Permission = "futures_trade"
	PermUnifiedTradeRead   Permission = "unified_trade_read" // read-only or read-write
	PermUnifiedManageRead  Permission = "unified_manage_read"
	PermStockWhitelist     Permission = "stock_whitelist" // granted in advance for stock book and fills
	PermSpotRecordsRead    Permission = "spot_read"
	PermUnifiedTradeWrite  Permission = "unified_trade_write"
	PermUnifiedManageWrite Permission = "unified_manage_write"
)

// OpInfo is everything the client, the rate limiter and the simulator need to
// know about one operation. It is the single table all three read.
type OpInfo struct {
	Op     Op
	Method string // GET or POST
	Path   string
	// Rate and Per give the limit: Rate requests per Per, counted per Scope.
	Rate  int
	Per   time.Duration
	Scope Scope
	// Public operations need no key and are not signed.
	Public bool
	// Mutating operations change account state; they are never retried
	// blindly and go first in the rate limiter.
	Mutating bool
	// Channel operations accept the X-CHANNEL-API-CODE header.
	Channel bool
	// Perms lists the permissions an API key needs (all of them).
	Perms []Permission
	// InSpec is false for the operations taken from the exchange notes.
	InSpec bool
	// RealityPath is the live venue's path of a stock-pair operation, whose
	// spec path (Path) the live venue answers with 40404 (exchange notes,
	// "Live venue differences"; the bitget-api npm SDK's getRealityOrderBook
	// and getRealityFills). Empty for every other operation.
	RealityPath string
}

// PathFor returns the path of the operation in family f: RealityPath for
// PathsReality when the operation has one, Path otherwise.
func (o OpInfo) PathFor(f PathFamily) string {
	if f == PathsReality && o.RealityPath != "" {
		return o.RealityPath
	}
	return o.Path
}

var opTable = []OpInfo{
	{Op: OpPlaceOrder, Method: "POST", Path: "/api/v2/mix/order/place-order", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Channel: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpClickBackhand, Method: "POST", Path: "/api/v2/mix/order/click-backhand", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Channel: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpBatchPlaceOrder, Method: "POST", Path: "/api/v2/mix/order/batch-place-order", Rate: 5, Per: time.Second, Scope: PerUID, Mutating: true, Channel: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpModifyOrder, Method: "POST", Path: "/api/v2/mix/order/modify-order", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	// cancel-order states no scope; counting it per uid is the conservative reading.
	{Op: OpCancelOrder, Method: "POST", Path: "/api/v2/mix/order/cancel-order", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpBatchCancelOrders, Method: "POST", Path: "/api/v2/mix/order/batch-cancel-orders", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpClosePositions, Method: "POST", Path: "/api/v2/mix/order/close-positions", Rate: 1, Per: time.Second, Scope: PerUID, Mutating: true, Channel: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpCancelAllOrders, Method: "POST", Path: "/api/v2/mix/order/cancel-all-orders", Rate: 1, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}, InSpec: true},
	{Op: OpOrderDetail, Method: "GET", Path: "/api/v2/mix/order/detail", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}, InSpec: true},
	{Op: OpFills, Method: "GET", Path: "/api/v2/mix/order/fills", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}, InSpec: true},
	{Op: OpFillHistory, Method: "GET", Path: "/api/v2/mix/order/fill-history", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}, InSpec: true},
	{Op: OpOrdersPending, Method: "GET", Path: "/api/v2/mix/order/orders-pending", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}, InSpec: true},
	{Op: OpOrdersHistory, Method: "GET", Path: "/api/v2/mix/order/orders-history", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}, InSpec: true},
	{Op: OpStockOrderBook, Method: "GET", Path: "/api/v3/account/stock-orderbook", RealityPath: "/api/v3/account/reality-orderbook", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermUnifiedTradeRead, PermStockWhitelist}, InSpec: true},
	{Op: OpStockFills, Method: "GET", Path: "/api/v3/account/stock-fills", RealityPath: "/api/v3/account/reality-fills", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermUnifiedTradeRead, PermStockWhitelist}, InSpec: true},
	{Op: OpStockInfo, Method: "GET", Path: "/api/v3/stock/market/stock-info", RealityPath: "/api/v3/reality/market/stock-info", Rate: 1, Per: time.Second, Scope: PerIP, Public: true, InSpec: true},
	{Op: OpMarketStates, Method: "GET", Path: "/api/v3/stock/market/states", RealityPath: "/api/v3/reality/market/states", Rate: 1, Per: time.Second, Scope: PerIP, Public: true, InSpec: true},
	{Op: OpMarketCalendar, Method: "GET", Path: "/api/v3/stock/market/calendar", RealityPath: "/api/v3/reality/market/calendar", Rate: 1, Per: time.Second, Scope: PerIP, Public: true, InSpec: true},
	{Op: OpStrategyOrders, Method: "GET", Path: "/api/v3/trade/unfilled-strategy-orders", Rate: 20, Per: time.Second, Scope: PerUID, Perms: []Permission{PermUnifiedTradeRead}, InSpec: true},
	{Op: OpDiscountRate, Method: "GET", Path: "/api/v3/account/eligible-discount-rate", Rate: 20, Per: time.Second, Scope: PerUID, Perms: []Permission{PermUnifiedManageRead}, InSpec: true},
	{Op: OpSpotRecord, Method: "GET", Path: "/api/v2/tax/spot-record", Rate: 1, Per: time.Second, Scope: PerUID, Perms: []Permission{PermSpotRecordsRead}, InSpec: true},

	{Op: OpAllPositions, Method: "GET", Path: "/api/v2/mix/position/all-position", Rate: 5, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
	{Op: OpSinglePosition, Method: "GET", Path: "/api/v2/mix/position/single-position", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
	{Op: OpContracts, Method: "GET", Path: "/api/v2/mix/market/contracts", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpTicker, Method: "GET", Path: "/api/v2/mix/market/ticker", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpSetPositionMode, Method: "POST", Path: "/api/v2/mix/account/set-position-mode", Rate: 5, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}},
	{Op: OpAccounts, Method: "GET", Path: "/api/v2/mix/account/accounts", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
	// The venue's docs: "Get Server Time" 20 times/1s per IP; "Get Single
	// Account" 10 times/1s per uid.
	{Op: OpServerTime, Method: "GET", Path: "/api/v2/public/time", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpSingleAccount, Method: "GET", Path: "/api/v2/mix/account/account", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
	// The venue's docs (contract/market): every candle and funding-history
	// query is "Frequency limit: 20 times/1s (IP)".
	{Op: OpCandles, Method: "GET", Path: "/api/v2/mix/market/candles", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpHistoryCandles, Method: "GET", Path: "/api/v2/mix/market/history-candles", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpHistoryMarkCandles, Method: "GET", Path: "/api/v2/mix/market/history-mark-candles", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpHistoryIndexCandles, Method: "GET", Path: "/api/v2/mix/market/history-index-candles", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	{Op: OpHistoryFundRate, Method: "GET", Path: "/api/v2/mix/market/history-fund-rate", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	// The venue's docs (plan.go): each "10 times/s (UID)".
	{Op: OpPlaceTPSLOrder, Method: "POST", Path: "/api/v2/mix/order/place-tpsl-order", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}},
	{Op: OpPlacePlanOrder, Method: "POST", Path: "/api/v2/mix/order/place-plan-order", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}},
	{Op: OpCancelPlanOrder, Method: "POST", Path: "/api/v2/mix/order/cancel-plan-order", Rate: 10, Per: time.Second, Scope: PerUID, Mutating: true, Perms: []Permission{PermFuturesTrade}},
	{Op: OpPlanOrdersPending, Method: "GET", Path: "/api/v2/mix/order/orders-plan-pending", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
	{Op: OpPlanOrdersHistory, Method: "GET", Path: "/api/v2/mix/order/orders-plan-history", Rate: 10, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
	// The venue's docs, "Get Merge Market Depth": 20 times/1s per IP.
	{Op: OpMergeDepth, Method: "GET", Path: "/api/v2/mix/market/merge-depth", Rate: 20, Per: time.Second, Scope: PerIP, Public: true},
	// The venue's docs, "Get Historical Position": 20 times/1s per uid.
	{Op: OpHistoryPosition, Method: "GET", Path: "/api/v2/mix/position/history-position", Rate: 20, Per: time.Second, Scope: PerUID, Perms: []Permission{PermFuturesRead}},
}

// IPLimitPerMinute is the overall per-IP limit besides the per-operation ones.
const IPLimitPerMinute = 6000

// Ops returns every operation, the spec's 21 first, in a fixed order.
func Ops() []OpInfo { return append([]OpInfo(nil), opTable...) }

// LookupOp returns the description of op.
func LookupOp(op Op) (OpInfo, bool) {
	for _, o := range opTable {
		if o.Op == op {
			return o, true
		}
	}
	return OpInfo{}, false
}

// OpForPath returns the operation served at method and path; a stock-pair
// operation is found under either of its paths.
func OpForPath(method, path string) (OpInfo, bool) {
	for _, o := range opTable {
		if (o.Path == path || (o.RealityPath != "" && o.RealityPath == path)) && o.Method == method {
			return o, true
		}
	}
	return OpInfo{}, false
}
