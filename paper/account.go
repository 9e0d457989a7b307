package paper

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

// Account is the venue of a dry run. Every write and every read of the
// account itself (orders, plan orders, fills, positions, balances) goes to
// the paper account, which triggers the dry run's take-profits, stop-losses,
// trailing stops and trigger orders on the live prices; market data, the
// unified account's strategy orders, discount tiers and spot records are
// read from the live venue through a Reader, which has no write methods.
type Account struct {
	*sim.Account
	live exchange.Reader
}

// NewAccount joins a paper account and the live reader.
func NewAccount(paper *sim.Account, live exchange.Reader) *Account {
	return &Account{Account: paper, live: live}
}

var _ exchange.Venue = (*Account)(nil)

// StockOrderBook reads the live book.
func (a *Account) StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	return a.live.StockOrderBook(ctx, req)
}

// StockFills reads the live platform fills.
func (a *Account) StockFills(ctx context.Context, req exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	return a.live.StockFills(ctx, req)
}

// StockInfo reads the live stock pairs.
func (a *Account) StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	return a.live.StockInfo(ctx, req)
}

// MarketStates reads the live market states.
func (a *Account) MarketStates(ctx context.Context) ([]exchange.MarketState, error) {
	return a.live.MarketStates(ctx)
}

// MarketCalendar reads the live calendar.
func (a *Account) MarketCalendar(ctx context.Context) (exchange.Calendar, error) {
	return a.live.MarketCalendar(ctx)
}

// Contracts reads the live contracts.
func (a *Account) Contracts(ctx context.Context, req exchange.ContractsRequest) ([]exchange.Contract, error) {
	return a.live.Contracts(ctx, req)
}

// Ticker reads the live ticker.
func (a *Account) Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error) {
	return a.live.Ticker(ctx, req)
}

// MergeDepth reads the live book of a contract, not the paper market's
// synthetic one.
func (a *Account) MergeDepth(ctx context.Context, req exchange.MergeDepthRequest) (exchange.MergeDepth, error) {
	return a.live.MergeDepth(ctx, req)
}

// StrategyOrders reads the live strategy orders. The dry run's own orders
// that rest on the exchange (protect, place_trigger) stay on the paper
// account: PlanOrders, which the embedded paper account answers, lists them.
func (a *Account) StrategyOrders(ctx context.Context, req exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error) {
	return a.live.StrategyOrders(ctx, req)
}

// DiscountRates reads the live discount tiers.
func (a *Account) DiscountRates(ctx context.Context, req exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error) {
	return a.live.DiscountRates(ctx, req)
}

// SpotRecords reads the live spot records.
func (a *Account) SpotRecords(ctx context.Context, req exchange.SpotRecordRequest) ([]exchange.SpotRecord, error) {
	return a.live.SpotRecords(ctx, req)
}
