package server

import (
	"context"
	"net/http"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// decodeFunc fills dst (a pointer to an exchange request struct) from the
// request: the JSON body of a POST or the query string of a GET.
type decodeFunc func(dst any) error

// target is what an operation runs against: the account's venue for private
// operations, the public reader (and no trader) for public ones.
type target struct {
	reader exchange.Reader
	trader exchange.Trader
	// authNow is the time the server checks ACCESS-TIMESTAMP against, what
	// GET /api/v2/public/time answers: a client correcting its signing
	// clock by it then passes the check whatever the simulated time is.
	authNow time.Time
}

// singleAccountReader is the venue method behind GET
// /api/v2/mix/account/account (*sim.Account has it); it is not part of
// exchange.Reader.
type singleAccountReader interface {
	SingleAccount(ctx context.Context, req exchange.SingleAccountRequest) (exchange.SingleAccount, error)
}

// serverTime answers GET /api/v2/public/time.
func serverTime(_ context.Context, t target, _ decodeFunc) (any, error) {
	return exchange.ServerTime{ServerTime: exchange.MillisOf(t.authNow)}, nil
}

// singleAccount answers GET /api/v2/mix/account/account from a venue that
// has it, and 40404 (as for an unknown path) from one that has not.
func singleAccount(ctx context.Context, t target, decode decodeFunc) (any, error) {
	r, ok := t.reader.(singleAccountReader)
	if !ok {
		return nil, &exchange.APIError{HTTPStatus: http.StatusNotFound, Code: exchange.CodeURLNotFound, Msg: msgNotFound}
	}
	var req exchange.SingleAccountRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	return r.SingleAccount(ctx, req)
}

// history answers a market-history operation from a venue that has the
// history queries (the simulator's readers have them), and 40404 from one
// that has not.
func history[Req, Resp any](m func(exchange.HistoryReader, context.Context, Req) (Resp, error)) handlerFunc {
	return func(ctx context.Context, t target, decode decodeFunc) (any, error) {
		r, ok := t.reader.(exchange.HistoryReader)
		if !ok {
			return nil, &exchange.APIError{HTTPStatus: http.StatusNotFound, Code: exchange.CodeURLNotFound, Msg: msgNotFound}
		}
		var req Req
		if err := decode(&req); err != nil {
			return nil, err
		}
		return m(r, ctx, req)
	}
}

// historyCandles is exchange.HistoryReader.HistoryCandles of one kind.
func historyCandles(kind exchange.CandleKind) func(exchange.HistoryReader, context.Context, exchange.CandlesRequest) ([]exchange.Candle, error) {
	return func(r exchange.HistoryReader, ctx context.Context, req exchange.CandlesRequest) ([]exchange.Candle, error) {
		req.KLineType = "" // not a parameter of the history queries
		return r.HistoryCandles(ctx, kind, req)
	}
}

// handlerFunc decodes the request of one operation, calls the venue and
// returns the response data to put in the envelope.
type handlerFunc func(ctx context.Context, t target, decode decodeFunc) (any, error)

// read adapts a Reader method (given as a method expression such as
// exchange.Reader.OrderDetail) to a handlerFunc.
func read[Req, Resp any](m func(exchange.Reader, context.Context, Req) (Resp, error)) handlerFunc {
	return func(ctx context.Context, t target, decode decodeFunc) (any, error) {
		var req Req
		if err := decode(&req); err != nil {
			return nil, err
		}
		return m(t.reader, ctx, req)
	}
}

// write adapts a Trader method to a handlerFunc.
func write[Req, Resp any](m func(exchange.Trader, context.Context, Req) (Resp, error)) handlerFunc {
	return func(ctx context.Context, t target, decode decodeFunc) (any, error) {
		var req Req
		if err := decode(&req); err != nil {
			return nil, err
		}
		return m(t.trader, ctx, req)
	}
}

// noParams adapts a Reader method without a request (states, calendar).
// Query parameters sent anyway are ignored.
func noParams[Resp any](m func(exchange.Reader, context.Context) (Resp, error)) handlerFunc {
	return func(ctx context.Context, t target, _ decodeFunc) (any, error) {
		return m(t.reader, ctx)
	}
}

// handlers maps every operation of exchange.Ops to the venue method serving
// it. TestEveryOpHasAHandler keeps the two tables in step.
var handlers = map[exchange.Op]handlerFunc{
	exchange.OpPlaceOrder:        write(exchange.Trader.PlaceOrder),
	exchange.OpClickBackhand:     write(exchange.Trader.ClickBackhand),
	exchange.OpBatchPlaceOrder:   write(exchange.Trader.BatchPlaceOrder),
	exchange.OpModifyOrder:       write(exchange.Trader.ModifyOrder),
	exchange.OpCancelOrder:       write(exchange.Trader.CancelOrder),
	exchange.OpBatchCancelOrders: write(exchange.Trader.BatchCancelOrders),
	exchange.OpClosePositions:    write(exchange.Trader.ClosePositions),
	exchange.OpCancelAllOrders:   write(exchange.Trader.CancelAllOrders),
	exchange.OpSetPositionMode:   write(exchange.Trader.SetPositionMode),

	exchange.OpOrderDetail:   read(exchange.Reader.OrderDetail),
	exchange.OpFills:         read(exchange.Reader.Fills),
	exchange.OpFillHistory:   read(exchange.Reader.FillHistory),
	exchange.OpOrdersPending: read(exchange.Reader.PendingOrders),
	exchange.OpOrdersHistory: read(exchange.Reader.OrderHistory),

	exchange.OpStockOrderBook: read(exchange.Reader.StockOrderBook),
	exchange.OpStockFills:     read(exchange.Reader.StockFills),
	exchange.OpStockInfo:      read(exchange.Reader.StockInfo),
	exchange.OpMarketStates:   noParams(exchange.Reader.MarketStates),
	exchange.OpMarketCalendar: noParams(exchange.Reader.MarketCalendar),

	exchange.OpStrategyOrders: read(exchange.Reader.StrategyOrders),
	exchange.OpDiscountRate:   read(exchange.Reader.DiscountRates),
	exchange.OpSpotRecord:     read(exchange.Reader.SpotRecords),

	exchange.OpAllPositions:   read(exchange.Reader.AllPositions),
	exchange.OpSinglePosition: read(exchange.Reader.SinglePosition),
	exchange.OpContracts:      read(exchange.Reader.Contracts),
	exchange.OpTicker:         read(exchange.Reader.Ticker),
	exchange.OpAccounts:       read(exchange.Reader.Accounts),
	exchange.OpServerTime:     serverTime,
	exchange.OpSingleAccount:  singleAccount,

	exchange.OpCandles:             history(exchange.HistoryReader.Candles),
	exchange.OpHistoryCandles:      history(historyCandles(exchange.KindTrade)),
	exchange.OpHistoryMarkCandles:  history(historyCandles(exchange.KindMark)),
	exchange.OpHistoryIndexCandles: history(historyCandles(exchange.KindIndex)),
	exchange.OpHistoryFundRate:     history(exchange.HistoryReader.FundingHistory),
	exchange.OpPlaceTPSLOrder:      write(exchange.Trader.PlaceTPSLOrder),
	exchange.OpPlacePlanOrder:      write(exchange.Trader.PlacePlanOrder),
	exchange.OpCancelPlanOrder:     write(exchange.Trader.CancelPlanOrder),
	exchange.OpPlanOrdersPending:   read(exchange.Reader.PlanOrders),
	exchange.OpPlanOrdersHistory:   read(exchange.Reader.PlanHistory),
	exchange.OpMergeDepth:          read(exchange.Reader.MergeDepth),
	exchange.OpHistoryPosition:     read(exchange.Reader.PositionHistory),
}
