// Package polltest holds what the tests of the sources of States share: a
// venue that answers every poll with fixed data and counts the requests.
package polltest

import (
	"context"
	"sync"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Start is 2026-03-09 19:50 UTC, 15:50 EDT on the Monday after the DST
// change: ten minutes before the regular session closes.
var Start = time.Date(2026, 3, 9, 19, 50, 0, 0, time.UTC)

// USStates is the US market's sessions as the states answer gives them.
var USStates = []exchange.MarketState{{Market: "US", DaylightType: exchange.DST, StateList: []exchange.SessionWindow{
	{State: exchange.PreMarket, TimeZone: "EST", StartTime: "04:00", EndTime: "09:30"},
	{State: exchange.Regular, TimeZone: "EST", StartTime: "09:30", EndTime: "16:00"},
	{State: exchange.AfterHours, TimeZone: "EST", StartTime: "16:00", EndTime: "20:00"},
	{State: exchange.Overnight, TimeZone: "EST", StartTime: "20:00", EndTime: "04:00"},
}}}

// Reader answers every poll with fixed data (one pair, no positions or
// orders), counts the requests per operation and fails those told to.
type Reader struct {
	mu    sync.Mutex
	calls map[exchange.Op]int
	fail  map[exchange.Op]error
}

// NewReader returns a Reader that has answered nothing yet.
func NewReader() *Reader {
	return &Reader{calls: map[exchange.Op]int{}, fail: map[exchange.Op]error{}}
}

// Hit counts a request of op and returns the error op is told to fail with.
func (r *Reader) Hit(op exchange.Op) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[op]++
	return r.fail[op]
}

// Count returns how many requests of op were made.
func (r *Reader) Count(op exchange.Op) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[op]
}

// Fail makes every later request of op fail with err (nil: succeed).
func (r *Reader) Fail(op exchange.Op, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail[op] = err
}

// MarketStates answers USStates.
func (r *Reader) MarketStates(context.Context) ([]exchange.MarketState, error) {
	return USStates, r.Hit(exchange.OpMarketStates)
}

// MarketCalendar answers a calendar of weekends only.
func (r *Reader) MarketCalendar(context.Context) (exchange.Calendar, error) {
	return exchange.Calendar{TimeZone: "EST", RegularConfig: []string{"SATURDAY", "SUNDAY"}}, r.Hit(exchange.OpMarketCalendar)
}

// StockInfo answers TSLAUSDT.
func (r *Reader) StockInfo(context.Context, exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	return []exchange.StockInfo{{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla", TradingPeriod: exchange.TradingPeriods()}}, r.Hit(exchange.OpStockInfo)
}

// StockOrderBook answers a one-level book.
func (r *Reader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{Symbol: req.Symbol, Asks: []exchange.PriceLevel{{"250.10", "5"}}, Bids: []exchange.PriceLevel{{"250.00", "7"}}}, r.Hit(exchange.OpStockOrderBook)
}

// StockFills answers none.
func (r *Reader) StockFills(context.Context, exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	return nil, r.Hit(exchange.OpStockFills)
}

// AllPositions answers none.
func (r *Reader) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	return nil, r.Hit(exchange.OpAllPositions)
}

// PendingOrders answers none.
func (r *Reader) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	return exchange.PendingOrdersPage{}, r.Hit(exchange.OpOrdersPending)
}

// PlanOrders answers none.
func (r *Reader) PlanOrders(context.Context, exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, r.Hit(exchange.OpPlanOrdersPending)
}

// StrategyOrders answers none.
func (r *Reader) StrategyOrders(context.Context, exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error) {
	return nil, r.Hit(exchange.OpStrategyOrders)
}

// DiscountRates answers none.
func (r *Reader) DiscountRates(context.Context, exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error) {
	return nil, r.Hit(exchange.OpDiscountRate)
}

// SpotRecords answers none.
func (r *Reader) SpotRecords(context.Context, exchange.SpotRecordRequest) ([]exchange.SpotRecord, error) {
	return nil, r.Hit(exchange.OpSpotRecord)
}

// Accounts answers none.
func (r *Reader) Accounts(context.Context, exchange.AccountsRequest) ([]exchange.Account, error) {
	return nil, r.Hit(exchange.OpAccounts)
}

// Ticker answers none.
func (r *Reader) Ticker(context.Context, exchange.TickerRequest) ([]exchange.Ticker, error) {
	return nil, r.Hit(exchange.OpTicker)
}

// PositionHistory answers no closed position.
func (r *Reader) PositionHistory(context.Context, exchange.PositionHistoryRequest) (exchange.PositionHistoryPage, error) {
	return exchange.PositionHistoryPage{}, r.Hit(exchange.OpHistoryPosition)
}

// OrderHistory answers no orders.
func (r *Reader) OrderHistory(context.Context, exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error) {
	return exchange.OrderHistoryPage{}, r.Hit(exchange.OpOrdersHistory)
}

// MergeDepth answers an empty book.
func (r *Reader) MergeDepth(context.Context, exchange.MergeDepthRequest) (exchange.MergeDepth, error) {
	return exchange.MergeDepth{}, r.Hit(exchange.OpMergeDepth)
}
