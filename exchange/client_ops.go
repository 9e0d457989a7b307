package exchange

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// The Trader methods. Each validates the request, waits for the rate
// limiter and sends it once: a mutating request is never retried.

// PlaceOrder places one futures order.
func (c *Client) PlaceOrder(ctx context.Context, req PlaceOrderRequest) (OrderAck, error) {
	return do[OrderAck](ctx, c, OpPlaceOrder, &req)
}

// ClickBackhand reverses a position.
func (c *Client) ClickBackhand(ctx context.Context, req ClickBackhandRequest) (OrderAck, error) {
	return do[OrderAck](ctx, c, OpClickBackhand, &req)
}

// BatchPlaceOrder places up to 50 orders; per-item failures are in the result.
func (c *Client) BatchPlaceOrder(ctx context.Context, req BatchPlaceOrderRequest) (BatchPlaceOrderResult, error) {
	return do[BatchPlaceOrderResult](ctx, c, OpBatchPlaceOrder, &req)
}

// ModifyOrder changes an unfilled limit order; a size and price change
// answers before the new order exists (look it up by NewClientOID).
func (c *Client) ModifyOrder(ctx context.Context, req ModifyOrderRequest) (OrderAck, error) {
	return do[OrderAck](ctx, c, OpModifyOrder, &req)
}

// CancelOrder cancels one order by orderId or clientOid.
func (c *Client) CancelOrder(ctx context.Context, req CancelOrderRequest) (OrderAck, error) {
	return do[OrderAck](ctx, c, OpCancelOrder, &req)
}

// BatchCancelOrders cancels up to 50 orders, or every order of a symbol.
func (c *Client) BatchCancelOrders(ctx context.Context, req BatchCancelOrdersRequest) (BatchResult, error) {
	return do[BatchResult](ctx, c, OpBatchCancelOrders, &req)
}

// ClosePositions closes positions at market price.
func (c *Client) ClosePositions(ctx context.Context, req ClosePositionsRequest) (ClosePositionsResult, error) {
	return do[ClosePositionsResult](ctx, c, OpClosePositions, &req)
}

// CancelAllOrders cancels every order of a product type.
func (c *Client) CancelAllOrders(ctx context.Context, req CancelAllOrdersRequest) (BatchResult, error) {
	return do[BatchResult](ctx, c, OpCancelAllOrders, &req)
}

// SetPositionMode switches between one-way and hedge mode.
func (c *Client) SetPositionMode(ctx context.Context, req SetPositionModeRequest) (SetPositionModeResult, error) {
	return do[SetPositionModeResult](ctx, c, OpSetPositionMode, &req)
}

// PlaceTPSLOrder places a take-profit, stop-loss or trailing stop that rests
// on the exchange.
func (c *Client) PlaceTPSLOrder(ctx context.Context, req PlaceTPSLOrderRequest) (OrderAck, error) {
	return do[OrderAck](ctx, c, OpPlaceTPSLOrder, &req)
}

// PlacePlanOrder places a trigger order that rests on the exchange.
func (c *Client) PlacePlanOrder(ctx context.Context, req PlacePlanOrderRequest) (OrderAck, error) {
	return do[OrderAck](ctx, c, OpPlacePlanOrder, &req)
}

// CancelPlanOrder cancels plan orders by id, or every one of a plan type.
func (c *Client) CancelPlanOrder(ctx context.Context, req CancelPlanOrderRequest) (BatchResult, error) {
	return do[BatchResult](ctx, c, OpCancelPlanOrder, &req)
}

// PlanOrders returns one page of pending plan orders of a plan type.
func (c *Client) PlanOrders(ctx context.Context, req PlanOrdersRequest) (PlanOrdersPage, error) {
	return do[PlanOrdersPage](ctx, c, OpPlanOrdersPending, &req)
}

// PlanHistory returns one page of plan orders that left the pending list.
func (c *Client) PlanHistory(ctx context.Context, req PlanHistoryRequest) (PlanOrdersPage, error) {
	return do[PlanOrdersPage](ctx, c, OpPlanOrdersHistory, &req)
}

// The Reader methods. Each validates the request, waits for the rate
// limiter and retries under the client's RetryPolicy.

// OrderDetail returns one futures order by orderId or clientOid.
func (c *Client) OrderDetail(ctx context.Context, req OrderDetailRequest) (OrderDetail, error) {
	return do[OrderDetail](ctx, c, OpOrderDetail, &req)
}

// Fills returns a page of recent fills, newest first.
func (c *Client) Fills(ctx context.Context, req FillsRequest) (FillPage, error) {
	return do[FillPage](ctx, c, OpFills, &req)
}

// FillHistory returns a page of fills of at most one week, newest first.
func (c *Client) FillHistory(ctx context.Context, req FillHistoryRequest) (FillPage, error) {
	return do[FillPage](ctx, c, OpFillHistory, &req)
}

// PendingOrders returns a page of live and partially filled orders. The
// spec says orders-pending without status returns both; the live venue's
// docs say it returns live orders (exchange notes). So a request without
// Status is sent twice, once per status, and the two answers are merged
// newest first (by orderId, descending) into one page of at most Limit
// orders whose EndID is the oldest kept: paging on with IDLessThan = EndID
// then continues both streams where the page stopped. An order that turned
// partially filled between the two requests is kept once, as the second
// answer (the later one) shows it.
func (c *Client) PendingOrders(ctx context.Context, req PendingOrdersRequest) (PendingOrdersPage, error) {
	if req.Status != "" {
		return do[PendingOrdersPage](ctx, c, OpOrdersPending, &req)
	}
	var pages [2]PendingOrdersPage
	for i, st := range [2]OrderState{StateLive, StatePartiallyFilled} {
		r := req
		r.Status = st
		page, err := do[PendingOrdersPage](ctx, c, OpOrdersPending, &r)
		if err != nil {
			return PendingOrdersPage{}, err
		}
		pages[i] = page
	}
	return mergePending(pages[0].EntrustedList, pages[1].EntrustedList, req.Limit), nil
}

// mergePending merges the live and partially filled answers into one page.
func mergePending(live, partial []PendingOrder, limit int) PendingOrdersPage {
	if limit <= 0 {
		limit = MaxPageLimit
	}
	seen := make(map[string]bool, len(partial))
	all := make([]PendingOrder, 0, len(live)+len(partial))
	for _, o := range partial {
		seen[o.OrderID] = true
		all = append(all, o)
	}
	for _, o := range live {
		if !seen[o.OrderID] {
			all = append(all, o)
		}
	}
	slices.SortStableFunc(all, func(a, b PendingOrder) int { return -compareIDs(a.OrderID, b.OrderID) })
	if len(all) > limit {
		all = all[:limit]
	}
	page := PendingOrdersPage{EntrustedList: all}
	if len(all) > 0 {
		page.EndID = all[len(all)-1].OrderID
	}
	return page
}

// compareIDs orders the venue's numeric ids: a shorter id is smaller, ids
// of one length compare as text.
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}

// OrderHistory returns a page of orders of the last 90 days.
func (c *Client) OrderHistory(ctx context.Context, req OrderHistoryRequest) (OrderHistoryPage, error) {
	return do[OrderHistoryPage](ctx, c, OpOrdersHistory, &req)
}

// StockOrderBook returns the order-book snapshot of a stock pair.
func (c *Client) StockOrderBook(ctx context.Context, req StockOrderBookRequest) (StockOrderBook, error) {
	return do[StockOrderBook](ctx, c, OpStockOrderBook, &req)
}

// StockFills returns the platform fills of a stock pair.
func (c *Client) StockFills(ctx context.Context, req StockFillsRequest) ([]StockFill, error) {
	return do[[]StockFill](ctx, c, OpStockFills, &req)
}

// StockInfo returns the stock pairs, or one.
func (c *Client) StockInfo(ctx context.Context, req StockInfoRequest) ([]StockInfo, error) {
	return do[[]StockInfo](ctx, c, OpStockInfo, &req)
}

// MarketStates returns the US market sessions; a single-object answer is
// returned as a one-item slice.
func (c *Client) MarketStates(ctx context.Context) ([]MarketState, error) {
	return do[[]MarketState](ctx, c, OpMarketStates, nil)
}

// MarketCalendar returns the closure calendar.
func (c *Client) MarketCalendar(ctx context.Context) (Calendar, error) {
	return do[Calendar](ctx, c, OpMarketCalendar, nil)
}

// StrategyOrders returns the pending strategy orders of the unified account.
// The category is sent in the venue's upper case whatever case it was given in.
func (c *Client) StrategyOrders(ctx context.Context, req StrategyOrdersRequest) ([]StrategyOrder, error) {
	req.Category = req.Category.Upper()
	return do[[]StrategyOrder](ctx, c, OpStrategyOrders, &req)
}

// DiscountRates returns the discount tiers per coin.
func (c *Client) DiscountRates(ctx context.Context, req DiscountRateRequest) ([]DiscountCoin, error) {
	return do[[]DiscountCoin](ctx, c, OpDiscountRate, &req)
}

// SpotRecords returns spot financial records of at most 30 days.
func (c *Client) SpotRecords(ctx context.Context, req SpotRecordRequest) ([]SpotRecord, error) {
	return do[[]SpotRecord](ctx, c, OpSpotRecord, &req)
}

// AllPositions returns every open position of a product type.
func (c *Client) AllPositions(ctx context.Context, req AllPositionsRequest) ([]Position, error) {
	return do[[]Position](ctx, c, OpAllPositions, &req)
}

// SinglePosition returns the positions of one symbol (one per side in hedge mode).
func (c *Client) SinglePosition(ctx context.Context, req SinglePositionRequest) ([]Position, error) {
	return do[[]Position](ctx, c, OpSinglePosition, &req)
}

// Contracts returns the trading specifications of the contracts of a product type.
func (c *Client) Contracts(ctx context.Context, req ContractsRequest) ([]Contract, error) {
	return do[[]Contract](ctx, c, OpContracts, &req)
}

// Ticker returns the ticker of one contract (the exchange answers an array).
func (c *Client) Ticker(ctx context.Context, req TickerRequest) ([]Ticker, error) {
	return do[[]Ticker](ctx, c, OpTicker, &req)
}

// Accounts returns the balances of a product type per margin coin.
func (c *Client) Accounts(ctx context.Context, req AccountsRequest) ([]Account, error) {
	return do[[]Account](ctx, c, OpAccounts, &req)
}

// SingleAccount returns the account of one margin coin seen from one symbol
// (GET /api/v2/mix/account/account). Not part of Reader: the simulator
// serves it over HTTP, and the engine reads the position mode through
// AccountPositionMode.
func (c *Client) SingleAccount(ctx context.Context, req SingleAccountRequest) (SingleAccount, error) {
	return do[SingleAccount](ctx, c, OpSingleAccount, &req)
}

// AccountPositionMode returns the position mode of productType as the
// single account of symbol and marginCoin reports it. The live venue's
// accounts list carries no posMode (exchange notes), so this, or the posMode
// of a position record, is where the mode is read.
func (c *Client) AccountPositionMode(ctx context.Context, productType ProductType, symbol, marginCoin string) (PosMode, error) {
	a, err := c.SingleAccount(ctx, SingleAccountRequest{Symbol: symbol, ProductType: productType, MarginCoin: marginCoin})
	if err != nil {
		return "", err
	}
	if !a.PosMode.Valid() {
		return "", fmt.Errorf("%s: %w: posMode %q is neither one_way_mode nor hedge_mode", OpSingleAccount, ErrBadResponse, string(a.PosMode))
	}
	return a.PosMode, nil
}

// Every request type must carry its client-side rules: do finds them by
// interface, so a missing method would silently skip validation. These
// assertions turn that into a build failure.
var (
	_ requestValidator = PlaceOrderRequest{}
	_ requestValidator = ClickBackhandRequest{}
	_ requestValidator = BatchPlaceOrderRequest{}
	_ requestValidator = ModifyOrderRequest{}
	_ requestValidator = CancelOrderRequest{}
	_ requestValidator = BatchCancelOrdersRequest{}
	_ requestValidator = ClosePositionsRequest{}
	_ requestValidator = CancelAllOrdersRequest{}
	_ requestValidator = SetPositionModeRequest{}
	_ requestValidator = OrderDetailRequest{}
	_ requestValidator = FillsRequest{}
	_ requestValidator = FillHistoryRequest{}
	_ requestValidator = PendingOrdersRequest{}
	_ requestValidator = OrderHistoryRequest{}
	_ requestValidator = StockOrderBookRequest{}
	_ requestValidator = StockFillsRequest{}
	_ requestValidator = StockInfoRequest{}
	_ requestValidator = StrategyOrdersRequest{}
	_ requestValidator = DiscountRateRequest{}
	_ requestValidator = SpotRecordRequest{}
	_ requestValidator = AllPositionsRequest{}
	_ requestValidator = SinglePositionRequest{}
	_ requestValidator = ContractsRequest{}
	_ requestValidator = TickerRequest{}
	_ requestValidator = AccountsRequest{}
	_ requestValidator = SingleAccountRequest{}
	_ requestValidator = PlaceTPSLOrderRequest{}
	_ requestValidator = PlacePlanOrderRequest{}
	_ requestValidator = CancelPlanOrderRequest{}
	_ requestValidator = PlanOrdersRequest{}
)
