package exchange

import "context"

// Reader is every query of the exchange interface: the futures order queries,
// the stock-pair market data, strategy orders, discount tiers, spot records,
// and the positions, contracts, tickers and accounts the engine needs.
// *Client and the simulator satisfy it; the engine's pollers depend on it.
type Reader interface {
	OrderDetail(ctx context.Context, req OrderDetailRequest) (OrderDetail, error)
	Fills(ctx context.Context, req FillsRequest) (FillPage, error)
	FillHistory(ctx context.Context, req FillHistoryRequest) (FillPage, error)
	PendingOrders(ctx context.Context, req PendingOrdersRequest) (PendingOrdersPage, error)
	OrderHistory(ctx context.Context, req OrderHistoryRequest) (OrderHistoryPage, error)

	StockOrderBook(ctx context.Context, req StockOrderBookRequest) (StockOrderBook, error)
	StockFills(ctx context.Context, req StockFillsRequest) ([]StockFill, error)
	StockInfo(ctx context.Context, req StockInfoRequest) ([]StockInfo, error)
	MarketStates(ctx context.Context) ([]MarketState, error)
	MarketCalendar(ctx context.Context) (Calendar, error)

	StrategyOrders(ctx context.Context, req StrategyOrdersRequest) ([]StrategyOrder, error)
	DiscountRates(ctx context.Context, req DiscountRateRequest) ([]DiscountCoin, error)
	SpotRecords(ctx context.Context, req SpotRecordRequest) ([]SpotRecord, error)

	AllPositions(ctx context.Context, req AllPositionsRequest) ([]Position, error)
	SinglePosition(ctx context.Context, req SinglePositionRequest) ([]Position, error)
	Contracts(ctx context.Context, req ContractsRequest) ([]Contract, error)
	Ticker(ctx context.Context, req TickerRequest) ([]Ticker, error)
	Accounts(ctx context.Context, req AccountsRequest) ([]Account, error)

	PlanOrders(ctx context.Context, req PlanOrdersRequest) (PlanOrdersPage, error)
	PlanHistory(ctx context.Context, req PlanHistoryRequest) (PlanOrdersPage, error)
	MergeDepth(ctx context.Context, req MergeDepthRequest) (MergeDepth, error)
	PositionHistory(ctx context.Context, req PositionHistoryRequest) (PositionHistoryPage, error)
}

// Trader is every operation that changes account state. Dry-run holds a
// Reader and a paper Trader, never a Trader that reaches the exchange: the
// type split is what makes that guarantee checkable.
type Trader interface {
	PlaceOrder(ctx context.Context, req PlaceOrderRequest) (OrderAck, error)
	ClickBackhand(ctx context.Context, req ClickBackhandRequest) (OrderAck, error)
	BatchPlaceOrder(ctx context.Context, req BatchPlaceOrderRequest) (BatchPlaceOrderResult, error)
	ModifyOrder(ctx context.Context, req ModifyOrderRequest) (OrderAck, error)
	CancelOrder(ctx context.Context, req CancelOrderRequest) (OrderAck, error)
	BatchCancelOrders(ctx context.Context, req BatchCancelOrdersRequest) (BatchResult, error)
	ClosePositions(ctx context.Context, req ClosePositionsRequest) (ClosePositionsResult, error)
	CancelAllOrders(ctx context.Context, req CancelAllOrdersRequest) (BatchResult, error)
	SetPositionMode(ctx context.Context, req SetPositionModeRequest) (SetPositionModeResult, error)

	PlaceTPSLOrder(ctx context.Context, req PlaceTPSLOrderRequest) (OrderAck, error)
	PlacePlanOrder(ctx context.Context, req PlacePlanOrderRequest) (OrderAck, error)
	CancelPlanOrder(ctx context.Context, req CancelPlanOrderRequest) (BatchResult, error)
}

// Venue is a Reader and a Trader: the live exchange or the simulator.
type Venue interface {
	Reader
	Trader
}
