package paper

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/market"
)

// errNotServed is returned for stock data: in a dry run the State reads it
// from the venue, never from the paper account.
var errNotServed = errors.New("paper account: stock market data comes from the venue")

// TickerReader reads live prices.
type TickerReader interface {
	Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error)
}

// LiveMarket prices the paper account from the venue's tickers. The book
// the paper orders walk is a deep synthetic ladder around the last price,
// one price step apart: dry runs check rule logic, not market impact.
type LiveMarket struct {
	r      TickerReader
	ticks  map[string]decimal.Decimal // symbol -> price step
	pts    map[string]exchange.ProductType
	cal    *market.Market
	log    *zap.Logger
	mu     sync.Mutex
	prices map[string]decimal.Decimal
}

// ladderSize is the size of every level of the synthetic book.
var ladderSize = decimal.NewFromInt(1_000_000)

// NewLiveMarket returns a market for the given symbols (with their price
// steps and product types). The US calendar comes from the simulator's
// calendar with the exchange holidays.
func NewLiveMarket(r TickerReader, ticks map[string]decimal.Decimal, pts map[string]exchange.ProductType, now time.Time, log *zap.Logger) (*LiveMarket, error) {
	// The holiday list is generated for the years a dry run can span.
	cal, err := market.New(market.Options{Calendar: market.CalendarSpec{USHolidays: true}, Start: now.AddDate(0, 0, -7), End: now.AddDate(3, 0, 0)})
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &LiveMarket{r: r, ticks: ticks, pts: pts, cal: cal, log: log, prices: map[string]decimal.Decimal{}}, nil
}

// Refresh reads the last price of each symbol.
func (m *LiveMarket) Refresh(ctx context.Context, symbols []string) error {
	var errs []error
	for _, s := range symbols {
		ts, err := m.r.Ticker(exchange.WithPriority(ctx, exchange.PriorityLow), exchange.TickerRequest{Symbol: s, ProductType: m.pts[s]})
		if err != nil || len(ts) == 0 {
			errs = append(errs, err)
			continue
		}
		p, err := ts[0].LastPr.Decimal()
		if err != nil || !p.IsPositive() {
			continue
		}
		m.mu.Lock()
		m.prices[s] = p
		m.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Run refreshes symbols every `every` until ctx is done.
func (m *LiveMarket) Run(ctx context.Context, symbols []string, every time.Duration, after func(time.Duration) <-chan time.Time) {
	for {
		if err := m.Refresh(ctx, symbols); err != nil && ctx.Err() == nil {
			m.log.Warn("paper prices: ticker read failed", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-after(every):
		}
	}
}

// PriceAt returns the last price read for symbol.
func (m *LiveMarket) PriceAt(symbol string, _ time.Time) (decimal.Decimal, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prices[symbol]
	return p, ok
}

// Book is a ladder of levels around the last price.
func (m *LiveMarket) Book(symbol string, t time.Time, levels int) (bids, asks []exchange.PriceLevel) {
	p, ok := m.PriceAt(symbol, t)
	step := m.ticks[symbol]
	if !ok || !step.IsPositive() {
		return nil, nil
	}
	size := exchange.NumOf(ladderSize)
	for i := 1; i <= levels; i++ {
		d := step.Mul(decimal.NewFromInt(int64(i)))
		if b := p.Sub(d); b.IsPositive() {
			bids = append(bids, exchange.PriceLevel{exchange.NumOf(b), size})
		}
		asks = append(asks, exchange.PriceLevel{exchange.NumOf(p.Add(d)), size})
	}
	return bids, asks
}

// FuturesOpen follows the simulator's calendar (stock futures closed on
// weekends and US holidays).
func (m *LiveMarket) FuturesOpen(t time.Time, isRwa bool) bool { return m.cal.FuturesOpen(t, isRwa) }

// StockOrderBook is not served by the paper account.
func (m *LiveMarket) StockOrderBook(string, time.Time) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{}, errNotServed
}

// StockFills is not served by the paper account.
func (m *LiveMarket) StockFills(string, time.Time, int) ([]exchange.StockFill, error) {
	return nil, errNotServed
}

// StockInfo is not served by the paper account.
func (m *LiveMarket) StockInfo(string) ([]exchange.StockInfo, error) { return nil, errNotServed }

// States are the simulator calendar's.
func (m *LiveMarket) States(t time.Time) []exchange.MarketState { return m.cal.States(t) }

// Calendar is the simulator calendar's.
func (m *LiveMarket) Calendar() exchange.Calendar { return m.cal.Calendar() }
