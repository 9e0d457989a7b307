package exchange

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// venueFixture is one documented real answer of the venue (testdata/venue,
// sources in SOURCES.md), the client call that receives it and the key
// values the client must read from it.
type venueFixture struct {
	file   string
	op     Op
	status int // HTTP status the answer came with; 0 means 200
	// paths is the stock-pair path family the client is set to; empty
	// lets the client find it (it asks the live venue's family first).
	paths PathFamily
	call  func(ctx context.Context, c *Client) (any, error)
	check func(t *testing.T, got any, err error, body []byte)
}

// result returns got as T after checking that the call succeeded.
func result[T any](t *testing.T, got any, err error) T {
	t.Helper()
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	v, ok := got.(T)
	if !ok {
		t.Fatalf("result is %T", got)
	}
	return v
}

// wantAPIError checks that err is the venue's refusal with code and that it
// matches the sentinel the callers branch on.
func wantAPIError(t *testing.T, err error, code string, sentinel error) {
	t.Helper()
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != code || !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want code %s matching %v", err, code, sentinel)
	}
}

// The requests below are valid, so that the client sends them; what they
// ask for does not matter: the server answers with the fixture.

func placeMarket(ctx context.Context, c *Client) (any, error) {
	return c.PlaceOrder(ctx, PlaceOrderRequest{Symbol: "ETHUSDT", ProductType: USDTFutures, MarginMode: "isolated",
		MarginCoin: "USDT", Size: "0.1", Side: Sell, OrderType: "market", ClientOID: "121211212122"})
}

func orderDetail(ctx context.Context, c *Client) (any, error) {
	return c.OrderDetail(ctx, OrderDetailRequest{Symbol: "ETHUSDT", ProductType: USDTFutures, OrderID: "1323031696869281794"})
}

func allPositions(ctx context.Context, c *Client) (any, error) {
	return c.AllPositions(ctx, AllPositionsRequest{ProductType: USDTFutures, MarginCoin: "USDT"})
}

// historyCandles1D asks history-candles for daily candles of BTCUSDT.
func historyCandles1D(ctx context.Context, c *Client) (any, error) {
	return c.HistoryCandles(ctx, KindTrade, CandlesRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, Granularity: Gran1D})
}

var venueFixtures = []venueFixture{
	{file: "history-fund-rate.json", op: OpHistoryFundRate,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.FundingHistory(ctx, FundingHistoryRequest{Symbol: "BTCUSDT", ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[[]FundingRate](t, got, err), []FundingRate{
				{Symbol: "BTCUSDT", FundingRate: "0.0005", FundingTime: "1695776400000"},
				{Symbol: "BTCUSDT", FundingRate: "0.000013", FundingTime: "1695715200000"},
			})
		}},
	{file: "history-candles-v3-example.json", op: OpHistoryCandles,
		call: historyCandles1D,
		check: func(t *testing.T, got any, err error, _ []byte) {
			rows := result[[]Candle](t, got, err)
			want(t, len(rows), 2)
			want(t, rows[1], Candle{TS: "1688313600000", Open: "27177.43", High: "27177.43", Low: "24000", Close: "24001", BaseVol: "2989.1", QuoteVol: "72450031.0448"})
		}},
	{file: "history-candles-spot-8-columns.json", op: OpHistoryCandles,
		call: historyCandles1D,
		check: func(t *testing.T, got any, err error, _ []byte) {
			rows := result[[]Candle](t, got, err)
			want(t, len(rows), 5)
			want(t, rows[1].QuoteVol, Num("1726993402150.991724")) // the seventh column; the eighth is dropped
			want(t, rows[2].TS, rows[3].TS)                        // the venue's repeated ts is decoded as sent
		}},
	{file: "time.json", op: OpServerTime,
		call: func(ctx context.Context, c *Client) (any, error) { return c.ServerTime(ctx) },
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[time.Time](t, got, err), time.UnixMilli(1688008631614).UTC())
		}},
	{file: "account.json", op: OpSingleAccount,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.SingleAccount(ctx, SingleAccountRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, MarginCoin: "USDT"})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			a := result[SingleAccount](t, got, err)
			want(t, a.PosMode, HedgeMode)
			want(t, a.MarginMode, Crossed)
			want(t, a.CrossedMarginLeverage, Num("20"))
			want(t, a.MaxTransferOut, Num("13168.86110692"))
			want(t, a.UnrealizedPL, Num(""))
		}},
	{file: "account-numeric-leverage.json", op: OpSingleAccount,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.AccountPositionMode(ctx, USDTFutures, "BTCUSDT", "USDT")
		},
		check: func(t *testing.T, got any, err error, body []byte) {
			// The leverages come as bare numbers here and as strings in
			// account.json: Num takes both.
			want(t, result[PosMode](t, got, err), HedgeMode)
			var a SingleAccount
			if err := decodeResponse(OpSingleAccount, http.StatusOK, body, &a); err != nil {
				t.Fatal(err)
			}
			want(t, a.CrossedMarginLeverage, Num("14"))
			want(t, a.IsolatedShortLever, Num("14"))
			want(t, a.Available, Num("-4500.10469626"))
		}},
	{file: "accounts.json", op: OpAccounts,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.Accounts(ctx, AccountsRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			as := result[[]Account](t, got, err)
			if len(as) != 1 {
				t.Fatalf("%d accounts", len(as))
			}
			a := as[0]
			want(t, a.PosMode, PosMode("")) // the live list carries none
			want(t, a.MaxTransferOut, Num("10572.92904289"))
			want(t, a.CrossedMaxAvailable, Num("10580.56434289"))
			want(t, a.UnionTotal(), Num("111,1")) // sic: the docs' value, kept as text
			want(t, a.AssetMode, "union")
			want(t, a.AccountEquity, Num("10582.90265771"))
		}},
	{file: "contracts.json", op: OpContracts,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.Contracts(ctx, ContractsRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			c := result[[]Contract](t, got, err)[0]
			want(t, c.Symbol, "BTCUSDT")
			want(t, c.SymbolType, "perpetual")
			want(t, c.SupportMarginCoins, []string{"USDT"})
			want(t, c.MinTradeUSDT, Num("5"))
			want(t, c.SizeMultiplier, Num("0.01"))
			want(t, c.SymbolStatus, SymbolStatus("normal"))
		}},
	{file: "detail.json", op: OpOrderDetail, call: orderDetail,
		check: func(t *testing.T, got any, err error, _ []byte) {
			d := result[OrderDetail](t, got, err)
			want(t, d.OrderID, "123456")
			want(t, d.ClientOID, "77777")
			want(t, d.State, StateFilled)
			want(t, d.Force, GTC)
			want(t, d.PosMode, OneWayMode)
			// The docs write "cross", "yes" and "api" where the spec has
			// crossed, YES and API: kept as sent.
			want(t, d.MarginMode, MarginMode("cross"))
			want(t, d.ReduceOnly, YesNo("yes"))
			want(t, d.StopSurplusTriggerType(), "")
		}},
	{file: "detail-live-one-way.json", op: OpOrderDetail, call: orderDetail,
		check: func(t *testing.T, got any, err error, _ []byte) {
			// A live answer: upper-case API and NO, the record trade side
			// buy_single and posSide net of one-way mode.
			d := result[OrderDetail](t, got, err)
			want(t, d.OrderID, "1323031696869281794")
			want(t, d.State, StateFilled)
			want(t, d.EnterPointSource, EnterPointSource("API"))
			want(t, d.ReduceOnly, No)
			want(t, d.TradeSide, TradeSide("buy_single"))
			want(t, d.PosSide, PosSide("net"))
			want(t, d.PosMode, OneWayMode)
		}},
	{file: "detail-preset-types.json", op: OpOrderDetail, call: orderDetail,
		check: func(t *testing.T, got any, err error, _ []byte) {
			d := result[OrderDetail](t, got, err)
			want(t, d.StopSurplusTriggerType(), "fill_price")
			want(t, d.StopLossTriggerType(), "fill_price")
			want(t, d.PresetStopSurplusExecutePrice, Num("1911"))
			want(t, d.PresetStopLossExecutePrice, Num("1989"))
		}},
	{file: "detail-40109.json", op: OpOrderDetail, status: http.StatusBadRequest, call: orderDetail,
		check: func(t *testing.T, _ any, err error, _ []byte) {
			// The live "order not found" (here in zh-CN, with the
			// client's httpCode beside the venue's fields).
			wantAPIError(t, err, CodeOrderNotFound, ErrNotFound)
		}},
	{file: "cancel-order.json", op: OpCancelOrder,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.CancelOrder(ctx, CancelOrderRequest{Symbol: "ETHUSDT", ProductType: USDTFutures, OrderID: "123"})
		},
		check: func(t *testing.T, got any, err error, body []byte) {
			want(t, result[OrderAck](t, got, err), OrderAck{OrderID: "123"})
			// requestTime comes as a string here, as a number elsewhere.
			env, err := parseEnvelope(OpCancelOrder, http.StatusOK, body)
			if err != nil || env.RequestTime.Int() != 1627293504612 {
				t.Errorf("requestTime %q, %v", env.RequestTime, err)
			}
		}},
	{file: "ticker.json", op: OpTicker,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.Ticker(ctx, TickerRequest{Symbol: "ETHUSD_231229", ProductType: COINFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			tk := result[[]Ticker](t, got, err)[0]
			want(t, tk.LastPr, Num("1829.3"))
			want(t, tk.AskPr, Num("1829.8"))
			want(t, tk.MarkPrice, Num("1829"))
			want(t, tk.TS.Int(), int64(1695794098184))
			want(t, tk.Change24h, Num("0"))
		}},
	{file: "merge-depth.json", op: OpMergeDepth,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.MergeDepth(ctx, MergeDepthRequest{Symbol: "BTCUSDT", ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			d := result[MergeDepth](t, got, err)
			// Bare JSON numbers in the venue's answer read as their text.
			want(t, d.Asks[0], PriceLevel{"26347.5", "0.25"})
			want(t, d.Bids[1], PriceLevel{"26346.0", "0.32"})
			want(t, d.TS.Int(), int64(1695870968804))
			want(t, d.IsMaxPrecision, "NO")
		}},
	{file: "history-position.json", op: OpHistoryPosition,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.PositionHistory(ctx, PositionHistoryRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			p := result[PositionHistoryPage](t, got, err)
			want(t, len(p.List), 1)
			want(t, p.List[0].HoldSide, Long)
			want(t, p.List[0].Pnl, Num("14.1"))
			want(t, p.List[0].NetProfit, Num("12.1"))
			want(t, p.List[0].TotalFunding, Num("0.1"))
			want(t, p.List[0].UTime.Int(), int64(1988824171000))
			want(t, p.EndID, "23423432423423234")
		}},
	{file: "history-position-live.json", op: OpHistoryPosition,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.PositionHistory(ctx, PositionHistoryRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			// Lower-case ctime and utime on the live venue.
			h := result[PositionHistoryPage](t, got, err).List[0]
			want(t, h.CTime.Int(), int64(1709590322199))
			want(t, h.UTime.Int(), int64(1709667583395))
			want(t, h.NetProfit, Num("-0.65356802"))
			want(t, h.OpenFee, Num("-0.00389802"))
			want(t, h.PositionID, "")
		}},
	{file: "single-position.json", op: OpSinglePosition,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.SinglePosition(ctx, SinglePositionRequest{ProductType: USDTFutures, Symbol: "BTCUSDT", MarginCoin: "USDT"})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			p := result[[]Position](t, got, err)[0]
			want(t, p.PosMode, OneWayMode)
			want(t, p.HoldSide, Long)
			want(t, p.Total, Num("0.01"))
			want(t, p.LiquidationPrice, Num("-9880613.7641839999"))
			want(t, p.CTime.Int(), int64(1739431888793))
		}},

	// The trading operations.
	{file: "place-order.json", op: OpPlaceOrder, call: placeMarket,
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[OrderAck](t, got, err), OrderAck{OrderID: "121211212122", ClientOID: "121211212122"})
		}},
	{file: "place-order-live.json", op: OpPlaceOrder, call: placeMarket,
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[OrderAck](t, got, err), OrderAck{OrderID: "1323031696869281794", ClientOID: "1750958278008"})
		}},
	{file: "click-backhand.json", op: OpClickBackhand,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.ClickBackhand(ctx, ClickBackhandRequest{Symbol: "ETHUSDT", MarginCoin: "USDT", ProductType: USDTFutures, Side: Buy, Size: "30", ClientOID: "12345"})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[OrderAck](t, got, err), OrderAck{OrderID: "1", ClientOID: "121211212122"})
		}},
	{file: "batch-place-order.json", op: OpBatchPlaceOrder,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.BatchPlaceOrder(ctx, BatchPlaceOrderRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, MarginCoin: "USDT", MarginMode: Crossed,
				OrderList: []BatchOrder{{Size: "1", Side: Buy, OrderType: "market", ClientOID: "123456"}}})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			// The venue's own clientOid carries '#'; result is absent from
			// the docs' answer and so reads false.
			r := result[BatchPlaceOrderResult](t, got, err)
			want(t, r.SuccessList, []OrderAck{{OrderID: "121211212122", ClientOID: "BITGET#121211212122"}})
			want(t, len(r.FailureList), 0)
			want(t, r.Result, false)
		}},
	{file: "modify-order.json", op: OpModifyOrder,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.ModifyOrder(ctx, ModifyOrderRequest{Symbol: "ETHUSDT", ProductType: USDTFutures, OrderID: "1", NewClientOID: "1212112121223",
				NewSize: "0.04", NewPrice: "1800.00"})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[OrderAck](t, got, err), OrderAck{OrderID: "121212121212", ClientOID: "BITGET#121212121212"})
		}},
	{file: "batch-cancel-orders.json", op: OpBatchCancelOrders,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.BatchCancelOrders(ctx, BatchCancelOrdersRequest{ProductType: USDTFutures, Symbol: "BTCUSDT", MarginCoin: "USDT",
				OrderIDList: []OrderRef{{OrderID: "121211212122"}}})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			r := result[BatchResult](t, got, err)
			want(t, r.SuccessList, []OrderAck{{OrderID: "121211212122", ClientOID: "BITGET#121211212122"}})
			want(t, r.FailureList, []BatchFailure{{OrderID: "232", ClientOID: "321342", ErrorMsg: "notExistend"}})
			// The docs' failure item has no errorCode: its message alone says the order is gone.
			want(t, r.FailureList[0].Gone(), true)
		}},
	{file: "close-positions.json", op: OpClosePositions,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.ClosePositions(ctx, ClosePositionsRequest{ProductType: USDTFutures, Symbol: "BTCUSDT", HoldSide: Long})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			r := result[ClosePositionsResult](t, got, err)
			want(t, r.SuccessList, []CloseAck{{OrderID: "123", ClientOID: "xxxxx", Symbol: "BTCUSDT"}})
			want(t, r.FailureList, []BatchFailure{{OrderID: "1234", ClientOID: "321", Symbol: "BTCUSDT", ErrorMsg: "xxx", ErrorCode: "xxxx"}})
		}},
	{file: "cancel-all-orders.json", op: OpCancelAllOrders,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.CancelAllOrders(ctx, CancelAllOrdersRequest{ProductType: USDTFutures, MarginCoin: "USDT"})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			r := result[BatchResult](t, got, err)
			want(t, r.SuccessList[0].ClientOID, "BITGET#121211212122")
			want(t, r.FailureList[0].OrderID, "232")
			want(t, r.FailureList[0].ErrorMsg, "notExistend")
			want(t, r.FailureList[0].Gone(), true)
		}},
	{file: "set-position-mode.json", op: OpSetPositionMode,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.SetPositionMode(ctx, SetPositionModeRequest{ProductType: USDTFutures, PosMode: OneWayMode})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			want(t, result[SetPositionModeResult](t, got, err), SetPositionModeResult{PosMode: OneWayMode})
		}},

	// The order and fill queries.
	{file: "fills.json", op: OpFills,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.Fills(ctx, FillsRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			p := result[FillPage](t, got, err)
			f := p.FillList[0]
			want(t, p.EndID, "123")
			want(t, f.TradeID, "123")
			want(t, f.BaseVolume, Num("1"))
			want(t, f.TradeSide, Close)
			want(t, f.FeeDetail[0].TotalFee, Num("-0.017118519726"))
		}},
	{file: "fill-history.json", op: OpFillHistory,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.FillHistory(ctx, FillHistoryRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			// enterPointSource in lower case ("ios") and the one-way
			// record trade side sell_single.
			p := result[FillPage](t, got, err)
			f := p.FillList[0]
			want(t, p.EndID, "123456789")
			want(t, f.Price, Num("1801.33"))
			want(t, f.TradeSide, TradeSide("sell_single"))
			want(t, f.EnterPointSource, EnterPointSource("ios"))
			want(t, f.PosMode, OneWayMode)
		}},
	{file: "orders-pending.json", op: OpOrdersPending,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.PendingOrders(ctx, PendingOrdersRequest{ProductType: USDTFutures, Status: StatePartiallyFilled})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			// The docs' pending orders use the detail's trigger-type keys
			// (presetStopSurplusType), not the spec's.
			p := result[PendingOrdersPage](t, got, err)
			o := p.EntrustedList[0]
			want(t, p.EndID, "123")
			want(t, o.Status, StatePartiallyFilled)
			want(t, o.BaseVolume, Num("12.1"))
			want(t, o.StopSurplusTriggerType(), "mark_price")
			want(t, o.StopLossTriggerType(), "mark_price")
			want(t, o.PresetStopLossExecutePrice, Num("1900"))
		}},
	{file: "orders-history.json", op: OpOrdersHistory,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.OrderHistory(ctx, OrderHistoryRequest{ProductType: USDTFutures})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			p := result[OrderHistoryPage](t, got, err)
			o := p.EntrustedList[0]
			want(t, o.Status, StateFilled)
			want(t, o.Fee, Num("-0.00854"))
			want(t, o.PosAvg, Num(""))
			want(t, o.UTime.Int(), int64(1627293505612))
		}},
	{file: "all-position.json", op: OpAllPositions, call: allPositions,
		check: func(t *testing.T, got any, err error, _ []byte) {
			p := result[[]Position](t, got, err)[0]
			want(t, p.HoldSide, Long)
			want(t, p.PosMode, HedgeMode)
			want(t, p.Locked, Num("0.09"))
			want(t, p.BreakEvenPrice, Num("24778.97"))
		}},
	{file: "all-position-live.json", op: OpAllPositions, call: allPositions,
		check: func(t *testing.T, got any, err error, _ []byte) {
			// A live answer without breakEvenPrice or uTime.
			ps := result[[]Position](t, got, err)
			want(t, len(ps), 2)
			want(t, ps[1].Symbol, "BTCUSDT")
			want(t, ps[1].Total, Num("0.0004"))
			want(t, ps[1].BreakEvenPrice, Num(""))
		}},
	{file: "spot-record.json", op: OpSpotRecord,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.SpotRecords(ctx, SpotRecordRequest{StartTime: msAt(-24 * time.Hour), EndTime: msAt(0)})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			r := result[[]SpotRecord](t, got, err)[0]
			want(t, r.SpotTaxType, SpotTaxType("Interest"))
			want(t, r.SpotTaxType.Valid(), true)
			want(t, r.Amount, Num("6018333.33333333"))
			want(t, r.BizOrderID, "1333333333333333333")
		}},

	// The stock-pair operations, on the live venue's paths.
	{file: "stock-info.json", op: OpStockInfo,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.StockInfo(ctx, StockInfoRequest{})
		},
		check: func(t *testing.T, got any, err error, _ []byte) {
			// Sessions in any order, overnight among them; a null name.
			ss := result[[]StockInfo](t, got, err)
			want(t, len(ss), 4)
			want(t, ss[1].Name, "")
			want(t, ss[1].TradingPeriod[3], TradingPeriod("overnight"))
			want(t, ss[3].Code, "GLW")
			want(t, ss[3].WeekendTradable, YesNoLower("yes"))
		}},
	{file: "states-object.json", op: OpMarketStates, paths: PathsReality,
		call: func(ctx context.Context, c *Client) (any, error) { return c.MarketStates(ctx) },
		check: func(t *testing.T, got any, err error, _ []byte) {
			// The live venue answers one object where the docs have a list.
			ms := result[[]MarketState](t, got, err)
			want(t, len(ms), 1)
			want(t, ms[0].DaylightType, DaylightType("standard"))
			want(t, ms[0].StateList[1], SessionWindow{State: "regular", TimeZone: "EST", StartTime: "09:30", EndTime: "16:00"})
		}},
	{file: "calendar.json", op: OpMarketCalendar, paths: PathsReality,
		call: func(ctx context.Context, c *Client) (any, error) { return c.MarketCalendar(ctx) },
		check: func(t *testing.T, got any, err error, _ []byte) {
			cal := result[Calendar](t, got, err)
			want(t, cal.TimeZone, "EST")
			want(t, cal.RegularConfig, []string{"SATURDAY", "SUNDAY"})
			want(t, cal.SpecificConfig[2].StartTime, "2026-09-06 20:00")
		}},
	{file: "reality-orderbook-40404-demo.json", op: OpStockOrderBook, status: http.StatusNotFound, paths: PathsReality,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.StockOrderBook(ctx, StockOrderBookRequest{Symbol: "RNVDAUSDT"})
		},
		check: func(t *testing.T, _ any, err error, _ []byte) { wantAPIError(t, err, CodeURLNotFound, ErrUnavailable) }},
	{file: "reality-fills-40404-demo.json", op: OpStockFills, status: http.StatusNotFound, paths: PathsReality,
		call: func(ctx context.Context, c *Client) (any, error) {
			return c.StockFills(ctx, StockFillsRequest{Symbol: "RNVDAUSDT"})
		},
		check: func(t *testing.T, _ any, err error, _ []byte) { wantAPIError(t, err, CodeURLNotFound, ErrUnavailable) }},
	{file: "eligible-discount-rate-40404-demo.json", op: OpDiscountRate, status: http.StatusNotFound,
		call:  func(ctx context.Context, c *Client) (any, error) { return c.DiscountRates(ctx, DiscountRateRequest{}) },
		check: func(t *testing.T, _ any, err error, _ []byte) { wantAPIError(t, err, CodeURLNotFound, ErrUnavailable) }},
}

// venueMissing are the operations the client parses for which no documented
// real answer has been found (SOURCES.md says where it was looked for).
var venueMissing = []Op{OpStrategyOrders, OpCandles, OpHistoryMarkCandles, OpHistoryIndexCandles, OpPlaceTPSLOrder, OpPlacePlanOrder, OpCancelPlanOrder, OpPlanOrdersPending, OpPlanOrdersHistory}

// TestVenueFixtures serves every documented real answer from a loopback
// server to the real client and checks what the client reads from it.
func TestVenueFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "venue")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sources, err := os.ReadFile(filepath.Join(dir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[Op]bool{}
	tested := map[string]bool{}
	for _, fx := range venueFixtures {
		covered[fx.op] = true
		tested[filepath.Join(dir, fx.file)] = true
		t.Run(strings.TrimSuffix(fx.file, ".json"), func(t *testing.T) {
			if !strings.Contains(string(sources), "| "+fx.file+" |") {
				t.Errorf("%s has no line in SOURCES.md", fx.file)
			}
			body, err := os.ReadFile(filepath.Join(dir, fx.file))
			if err != nil {
				t.Fatal(err)
			}
			status := fx.status
			if status == 0 {
				status = http.StatusOK
			}
			info, _ := LookupOp(fx.op)
			wantPath := info.Path
			if info.RealityPath != "" {
				wantPath = info.RealityPath // every stock-pair answer here is the live venue's
			}
			ts := newTestServer(t)
			ts.setRespond(func(_ int, w http.ResponseWriter, r *http.Request) {
				if r.Method != info.Method || r.URL.Path != wantPath {
					http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				w.Write(body)
			})
			c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.StockPaths = fx.paths })
			got, err := fx.call(context.Background(), c)
			fx.check(t, got, err, body)
			for _, r := range ts.requests() {
				if r.path != wantPath {
					t.Errorf("client asked %s %s, want %s", r.method, r.path, wantPath)
				}
			}
		})
	}
	for _, f := range files {
		if !tested[f] {
			t.Errorf("%s is not in venueFixtures", f)
		}
	}
	for _, info := range Ops() {
		if covered[info.Op] == slices.Contains(venueMissing, info.Op) {
			t.Errorf("operation %s: covered %v, listed missing %v; keep venueMissing exact", info.Op, covered[info.Op], !covered[info.Op])
		}
	}
}

// TestVenueTriggerTypeKeys shows both keys of the preset trigger types read
// by one accessor: the spec's (testdata/responses, written from the spec)
// and the venue's (testdata/venue, its docs' answers).
func TestVenueTriggerTypeKeys(t *testing.T) {
	tests := []struct {
		name, file        string
		wantTP, wantSL    string
		specKey, venueKey bool
	}{
		{"spec key", filepath.Join("responses", "orders-pending.json"), "fill_price", "mark_price", true, false},
		{"venue key", filepath.Join("venue", "orders-pending.json"), "mark_price", "mark_price", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var page PendingOrdersPage
			if err := decodeResponse(OpOrdersPending, http.StatusOK, body, &page); err != nil {
				t.Fatal(err)
			}
			o := page.EntrustedList[0]
			want(t, o.PresetStopSurplusTriggerType != "", tt.specKey)
			want(t, o.PresetStopSurplusType != "", tt.venueKey)
			want(t, o.StopSurplusTriggerType(), tt.wantTP)
			want(t, o.StopLossTriggerType(), tt.wantSL)
		})
	}
}
