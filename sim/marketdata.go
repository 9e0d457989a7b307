package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/market"
)

// The market-data operations are the same for an account and for the
// public reader; they are written once on the exchange.

func (x *Exchange) contractList(req exchange.ContractsRequest) ([]exchange.Contract, error) {
	if req.Symbol == "" && oldDemoProductType(req.ProductType) {
		return []exchange.Contract{}, nil
	}
	if err := validate(exchange.OpContracts, req, x.now); err != nil {
		return nil, err
	}
	out := []exchange.Contract{}
	for _, c := range x.contracts {
		if c.productType == req.ProductType && (req.Symbol == "" || c.spec.Symbol == req.Symbol) {
			out = append(out, c.spec)
		}
	}
	if req.Symbol != "" && len(out) == 0 {
		return nil, apiErr(exchange.OpContracts, exchange.CodeSymbolInvalid, fmt.Sprintf("symbol %s is not a %s contract", req.Symbol, req.ProductType))
	}
	return out, nil
}

// ticker reads the last price from the path and the top of the synthetic
// book. Mark and index price are the last price, or the scenario's mark
// and index paths of the symbol when it has them (MarkPathName, a backtest
// on stored mark and index candles); fundingRate is the scenario's
// (Settings.FundingRate, see funding.go), or with a FundingHistory the rate
// of the symbol's last settlement at or before now; change24h is the path's change
// since 24 hours before, as a fraction to 4 places like the venue's
// (within a path's first day, since its first price).
func (x *Exchange) ticker(req exchange.TickerRequest) ([]exchange.Ticker, error) {
	op := exchange.OpTicker
	if err := validate(op, req, x.now); err != nil {
		return nil, err
	}
	c, last, err := x.lastPrice(req)
	if err != nil {
		return nil, err
	}
	t := exchange.Ticker{Symbol: c.spec.Symbol, LastPr: last, MarkPrice: last, IndexPrice: last, FundingRate: x.tickerFundingRate(c.spec.Symbol), TS: exchange.MillisOf(x.now)}
	if c.markSymbol != c.spec.Symbol {
		if p, ok := x.markPrice(c); ok {
			t.MarkPrice = num(p)
		}
	}
	if p, ok := x.mkt.PriceAt(IndexPathName(c.spec.Symbol), x.now); ok {
		t.IndexPrice = num(p)
	}
	bids, asks := x.mkt.Book(c.spec.Symbol, x.now, 1)
	if len(bids) > 0 {
		t.BidPr, t.BidSz = bids[0].Price(), bids[0].Size()
	}
	if len(asks) > 0 {
		t.AskPr, t.AskSz = asks[0].Price(), asks[0].Size()
	}
	t.Change24h = "0"
	if now, ok := x.price(c); ok {
		if then, ok := x.mkt.PriceAt(c.spec.Symbol, x.now.Add(-24*time.Hour)); ok && then.IsPositive() {
			t.Change24h = num(now.Sub(then).Div(then).Round(4))
		}
	}
	return []exchange.Ticker{t}, nil
}

// lastPrice is the ticker's LastPr of the contract req names, validated
// as the ticker is (req's errors are the ticker's).
func (x *Exchange) lastPrice(req exchange.TickerRequest) (*contract, exchange.Num, error) {
	op := exchange.OpTicker
	c, err := x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return nil, "", err
	}
	if c.markSymbol != c.spec.Symbol {
		// The mark has a path of its own (stored mark candles): the
		// contract's cached price is the mark, not the last price.
		d, ok := x.price(c)
		if !ok {
			return nil, "", apiErr(op, exchange.CodeSymbolInvalid, fmt.Sprintf("%s has no price", c.spec.Symbol))
		}
		return c, num(d), nil
	}
	last, ok := fixedKind{}.price(x, c)
	if !ok {
		return nil, "", apiErr(op, exchange.CodeSymbolInvalid, fmt.Sprintf("%s has no price", c.spec.Symbol))
	}
	if !last.OK() { // a price past fixed's range: written from its decimal
		d, _ := x.price(c)
		return c, num(d), nil
	}
	return c, fixedKind{}.num(last), nil
}

// LastPrice returns exactly the LastPr that Ticker answers for req, and
// its errors, without building the ticker (no book is read): for readers
// that want only the last price, such as a backtest's report sampler.
func (a *Account) LastPrice(ctx context.Context, req exchange.TickerRequest) (exchange.Num, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpTicker, req, a.x.now); err != nil {
		return "", err
	}
	_, last, err := a.x.lastPrice(req)
	return last, err
}

// marketErr answers sim/market's unknown-symbol error with 40034.
func marketErr(op exchange.Op, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, market.ErrUnknownSymbol) {
		return apiErr(op, exchange.CodeParamNotExist, err.Error())
	}
	return apiErr(op, exchange.CodeParamVerify, err.Error())
}

func (x *Exchange) stockOrderBook(req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	op := exchange.OpStockOrderBook
	if err := validate(op, req, x.now); err != nil {
		return exchange.StockOrderBook{}, err
	}
	b, err := x.mkt.StockOrderBook(req.Symbol, x.now)
	return b, marketErr(op, err)
}

func (x *Exchange) stockFills(req exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	op := exchange.OpStockFills
	if err := validate(op, req, x.now); err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = defaultPageLimit
	}
	f, err := x.mkt.StockFills(req.Symbol, x.now, limit)
	return f, marketErr(op, err)
}

func (x *Exchange) stockInfo(req exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	op := exchange.OpStockInfo
	if err := validate(op, req, x.now); err != nil {
		return nil, err
	}
	info, err := x.mkt.StockInfo(req.Symbol)
	return info, marketErr(op, err)
}

// Contracts lists the contracts of a product type (GET contracts).
func (a *Account) Contracts(ctx context.Context, req exchange.ContractsRequest) ([]exchange.Contract, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.contractList(req)
}

// Ticker returns the ticker of one contract (GET ticker).
func (a *Account) Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.ticker(req)
}

// StockOrderBook returns a stock pair's book (GET stock-orderbook). Within
// one step of the price path it returns the same, shared, read-only slices.
func (a *Account) StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.stockOrderBook(req)
}

// ErrNoBookNumbers is returned by StockBookNumbers when the market cannot
// give books in numbers (a recording replays decimal text): ask
// StockOrderBook instead.
var ErrNoBookNumbers = errors.New("the market gives no order books in numbers")

// bookNumbers is a Market that can give a stock pair's book in numbers
// (*market.Market can).
type bookNumbers interface {
	StockBookNumbers(symbol string, t time.Time) (market.BookNumbers, error)
}

// HasBookNumbers reports whether StockBookNumbers works on this exchange.
func (a *Account) HasBookNumbers() bool {
	_, ok := a.x.mkt.(bookNumbers)
	return ok
}

// StockBookNumbers is StockOrderBook in numbers, for in-process readers
// that would only parse the decimal text again (a backtest's pollers): the
// best levels at once and every level from Depth, each number the float64
// that parsing its text gives. Within a price step it returns the same,
// shared, read-only slices.
func (a *Account) StockBookNumbers(ctx context.Context, symbol string) (market.BookNumbers, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	op := exchange.OpStockOrderBook
	if err := validate(op, exchange.StockOrderBookRequest{Symbol: symbol}, a.x.now); err != nil {
		return market.BookNumbers{}, err
	}
	bn, ok := a.x.mkt.(bookNumbers)
	if !ok {
		return market.BookNumbers{}, ErrNoBookNumbers
	}
	b, err := bn.StockBookNumbers(symbol, a.x.now)
	return b, marketErr(op, err)
}

// StockFills returns a stock pair's platform fills (GET stock-fills). While
// the newest fill is the same it returns the same, shared, read-only slice.
func (a *Account) StockFills(ctx context.Context, req exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.stockFills(req)
}

// StockInfo returns one stock pair or all (GET stock-info).
func (a *Account) StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.stockInfo(req)
}

// MarketStates returns the US market states (GET states).
func (a *Account) MarketStates(ctx context.Context) ([]exchange.MarketState, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.mkt.States(a.x.now), nil
}

// MarketCalendar returns the closure calendar (GET calendar).
func (a *Account) MarketCalendar(ctx context.Context) (exchange.Calendar, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.mkt.Calendar(), nil
}

// Public returns the reader of the operations that need no key: stock-info,
// states, calendar, contracts and ticker. Every other query answers 40001
// (ACCESS-KEY missing).
func (x *Exchange) Public() exchange.Reader { return publicReader{x} }

type publicReader struct{ x *Exchange }

var _ exchange.Reader = publicReader{}

func (p publicReader) private(op exchange.Op) error {
	return &exchange.APIError{Op: op, HTTPStatus: 400, Code: exchange.CodeKeyMissing, Msg: "ACCESS_KEY is required: " + string(op) + " is not a public operation"}
}

// Contracts lists contracts without a key.
func (p publicReader) Contracts(ctx context.Context, req exchange.ContractsRequest) ([]exchange.Contract, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.contractList(req)
}

// Ticker returns a ticker without a key.
func (p publicReader) Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.ticker(req)
}

// StockInfo returns stock pairs without a key.
func (p publicReader) StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.stockInfo(req)
}

// MarketStates returns the market states without a key.
func (p publicReader) MarketStates(ctx context.Context) ([]exchange.MarketState, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.mkt.States(p.x.now), nil
}

// MarketCalendar returns the calendar without a key.
func (p publicReader) MarketCalendar(ctx context.Context) (exchange.Calendar, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.mkt.Calendar(), nil
}

func (p publicReader) OrderDetail(context.Context, exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	return exchange.OrderDetail{}, p.private(exchange.OpOrderDetail)
}
func (p publicReader) Fills(context.Context, exchange.FillsRequest) (exchange.FillPage, error) {
	return exchange.FillPage{}, p.private(exchange.OpFills)
}
func (p publicReader) FillHistory(context.Context, exchange.FillHistoryRequest) (exchange.FillPage, error) {
	return exchange.FillPage{}, p.private(exchange.OpFillHistory)
}
func (p publicReader) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	return exchange.PendingOrdersPage{}, p.private(exchange.OpOrdersPending)
}
func (p publicReader) OrderHistory(context.Context, exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error) {
	return exchange.OrderHistoryPage{}, p.private(exchange.OpOrdersHistory)
}
func (p publicReader) StockOrderBook(context.Context, exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{}, p.private(exchange.OpStockOrderBook)
}
func (p publicReader) StockFills(context.Context, exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	return nil, p.private(exchange.OpStockFills)
}
func (p publicReader) StrategyOrders(context.Context, exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error) {
	return nil, p.private(exchange.OpStrategyOrders)
}
func (p publicReader) DiscountRates(context.Context, exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error) {
	return nil, p.private(exchange.OpDiscountRate)
}
func (p publicReader) SpotRecords(context.Context, exchange.SpotRecordRequest) ([]exchange.SpotRecord, error) {
	return nil, p.private(exchange.OpSpotRecord)
}
func (p publicReader) PositionHistory(context.Context, exchange.PositionHistoryRequest) (exchange.PositionHistoryPage, error) {
	return exchange.PositionHistoryPage{}, p.private(exchange.OpHistoryPosition)
}
func (p publicReader) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	return nil, p.private(exchange.OpAllPositions)
}
func (p publicReader) SinglePosition(context.Context, exchange.SinglePositionRequest) ([]exchange.Position, error) {
	return nil, p.private(exchange.OpSinglePosition)
}
func (p publicReader) Accounts(context.Context, exchange.AccountsRequest) ([]exchange.Account, error) {
	return nil, p.private(exchange.OpAccounts)
}

// PlanHistory needs a key.
func (p publicReader) PlanHistory(context.Context, exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, p.private(exchange.OpPlanOrdersHistory)
}

// PlanOrders needs a key.
func (p publicReader) PlanOrders(context.Context, exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, p.private(exchange.OpPlanOrdersPending)
}

// oldDemoProductType reports a product type of the venue's older demo
// trading (SUSDT-FUTURES, SCOIN-FUTURES, SUSDC-FUTURES; exchange-facts.md).
// The venue answers its public contracts query for them, and public
// clients ask it beside the three product types (ccxt's loadMarkets asks
// all six at once and fails on one refusal): the simulator, which has none
// of their contracts, answers with an empty list.
func oldDemoProductType(pt exchange.ProductType) bool {
	switch pt {
	case "SUSDT-FUTURES", "SCOIN-FUTURES", "SUSDC-FUTURES":
		return true
	}
	return false
}
