package exchange

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
)

// Distinctive credentials: the secrets test searches every output for them.
var testCreds = Credentials{APIKey: "key-Q7ZK2", Secret: "secret-X9WV4", Passphrase: "pass-M3HT8"}

const testChannel = "chan-R5"

// testNow is the virtual time of the client tests; ACCESS-TIMESTAMP is its ms.
var testNow = time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)

// recorded is one request as the test server saw it.
type recorded struct {
	method, path, rawQuery string
	body                   []byte
	header                 http.Header
}

// testServer is an httptest server on 127.0.0.1 that records every request
// and answers with respond (by default the fixture of the operation).
type testServer struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []recorded
	respond func(n int, w http.ResponseWriter, r *http.Request) // n counts from 1
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{}
	ts.respond = ts.fixture
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts.mu.Lock()
		ts.reqs = append(ts.reqs, recorded{r.Method, r.URL.Path, r.URL.RawQuery, body, r.Header.Clone()})
		n, respond := len(ts.reqs), ts.respond
		ts.mu.Unlock()
		respond(n, w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// fixtureFor names the default answer of each operation.
var fixtureFor = map[Op]string{
	OpMarketStates:        "states-array.json",
	OpHistoryCandles:      "candles.json",
	OpHistoryMarkCandles:  "candles.json",
	OpHistoryIndexCandles: "candles.json",
}

func (ts *testServer) fixture(_ int, w http.ResponseWriter, r *http.Request) {
	info, ok := OpForPath(r.Method, r.URL.Path)
	if !ok {
		http.Error(w, "no such path", http.StatusNotFound)
		return
	}
	name := fixtureFor[info.Op]
	if name == "" {
		name = string(info.Op) + ".json"
	}
	for _, fx := range responseFixtures {
		if fx.file == name {
			body, err := os.ReadFile(filepath.Join("testdata", "responses", name))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
			return
		}
	}
	http.Error(w, "no fixture "+name, http.StatusInternalServerError)
}

func (ts *testServer) requests() []recorded {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]recorded(nil), ts.reqs...)
}

func (ts *testServer) setRespond(f func(n int, w http.ResponseWriter, r *http.Request)) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.respond = f
}

func newTestClient(t *testing.T, url string, mod func(*ClientOptions)) (*Client, *clock.Virtual) {
	t.Helper()
	clk := clock.NewVirtual(testNow)
	opts := ClientOptions{
		BaseURL: url, Credentials: testCreds, ChannelAPICode: testChannel, Clock: clk,
		Rand: rand.New(rand.NewPCG(1, 2)), ClockSync: -1, StockPaths: PathsSpec,
	}
	if mod != nil {
		mod(&opts)
	}
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

// exactCase is one Reader or Trader method and the exact request it must send.
type exactCase struct {
	op      Op
	call    func(ctx context.Context, c *Client) (any, error)
	query   string // exact raw query
	body    string // exact body bytes
	fixture string // the answer whose decoding the result must equal
}

// msAt is testNow plus d as Millis.
func msAt(d time.Duration) Millis { return MillisOf(testNow.Add(d)) }

func exactCases() []exactCase {
	return []exactCase{
		{op: OpPlaceOrder, fixture: "place-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PlaceOrder(ctx, PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: "crossed", MarginCoin: "USDT",
					Size: "2", Price: "230.5", Side: Buy, TradeSide: Open, OrderType: "limit", Force: PostOnly, ClientOID: "tr-flatten-1-0",
					PresetStopLossPrice: "210", Mode: HedgeMode})
			},
			body: `{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"2","price":"230.5","side":"buy","tradeSide":"open","orderType":"limit","force":"post_only","clientOid":"tr-flatten-1-0","presetStopLossPrice":"210"}`},
		{op: OpClickBackhand, fixture: "click-backhand.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ClickBackhand(ctx, ClickBackhandRequest{Symbol: "TSLAUSDT", MarginCoin: "USDT", ProductType: USDTFutures, Side: Sell, ClientOID: "tr-reverse-1-0"})
			},
			body: `{"symbol":"TSLAUSDT","marginCoin":"USDT","productType":"USDT-FUTURES","side":"sell","clientOid":"tr-reverse-1-0"}`},
		{op: OpBatchPlaceOrder, fixture: "batch-place-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.BatchPlaceOrder(ctx, BatchPlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginCoin: "USDT", MarginMode: "isolated",
					OrderList: []BatchOrder{
						{Size: "1", Price: "229", Side: Buy, OrderType: "limit", ClientOID: "tr-ladder-1-0"},
						{Size: "1", Side: Sell, OrderType: "market", ReduceOnly: Yes, ClientOID: "tr-ladder-1-1"},
					}})
			},
			body: `{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginCoin":"USDT","marginMode":"isolated","orderList":[{"size":"1","price":"229","side":"buy","orderType":"limit","clientOid":"tr-ladder-1-0"},{"size":"1","side":"sell","orderType":"market","clientOid":"tr-ladder-1-1","reduceOnly":"YES"}]}`},
		{op: OpModifyOrder, fixture: "modify-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ModifyOrder(ctx, ModifyOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, NewClientOID: "tr-move-2-0", OrderID: "1100000000000000001", NewSize: "3", NewPrice: "231"})
			},
			body: `{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","newClientOid":"tr-move-2-0","orderId":"1100000000000000001","newSize":"3","newPrice":"231"}`},
		{op: OpCancelOrder, fixture: "cancel-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CancelOrder(ctx, CancelOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginCoin: "USDT", ClientOID: "tr-cancel-1-0"})
			},
			body: `{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginCoin":"USDT","clientOid":"tr-cancel-1-0"}`},
		{op: OpBatchCancelOrders, fixture: "batch-cancel-orders.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.BatchCancelOrders(ctx, BatchCancelOrdersRequest{ProductType: USDTFutures, Symbol: "TSLAUSDT",
					OrderIDList: []OrderRef{{OrderID: "1100000000000000007"}, {ClientOID: "tr-ladder-1-1"}}})
			},
			body: `{"productType":"USDT-FUTURES","orderIdList":[{"orderId":"1100000000000000007"},{"clientOid":"tr-ladder-1-1"}],"symbol":"TSLAUSDT"}`},
		{op: OpClosePositions, fixture: "close-positions.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ClosePositions(ctx, ClosePositionsRequest{ProductType: USDTFutures, Symbol: "TSLAUSDT", HoldSide: Long})
			},
			body: `{"productType":"USDT-FUTURES","symbol":"TSLAUSDT","holdSide":"long"}`},
		{op: OpCancelAllOrders, fixture: "cancel-all-orders.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CancelAllOrders(ctx, CancelAllOrdersRequest{ProductType: USDTFutures, MarginCoin: "USDT", RequestTime: msAt(0), ReceiveWindow: "60000"})
			},
			body: `{"productType":"USDT-FUTURES","marginCoin":"USDT","requestTime":"` + string(msAt(0)) + `","receiveWindow":"60000"}`},
		{op: OpSetPositionMode, fixture: "set-position-mode.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SetPositionMode(ctx, SetPositionModeRequest{ProductType: USDTFutures, PosMode: HedgeMode})
			},
			body: `{"productType":"USDT-FUTURES","posMode":"hedge_mode"}`},
		{op: OpOrderDetail, fixture: "detail.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.OrderDetail(ctx, OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, ClientOID: "tr-flatten-1-0"})
			},
			query: "clientOid=tr-flatten-1-0&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpFills, fixture: "fills.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Fills(ctx, FillsRequest{ProductType: USDTFutures, Symbol: "TSLAUSDT", IDLessThan: "1200000000000000009", Limit: 100})
			},
			query: "idLessThan=1200000000000000009&limit=100&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpFillHistory, fixture: "fill-history.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FillHistory(ctx, FillHistoryRequest{ProductType: USDCFutures, StartTime: msAt(-7 * 24 * time.Hour), EndTime: msAt(0)})
			},
			query: "endTime=" + string(msAt(0)) + "&productType=USDC-FUTURES&startTime=" + string(msAt(-7*24*time.Hour))},
		{op: OpOrdersPending, fixture: "orders-pending.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PendingOrders(ctx, PendingOrdersRequest{ProductType: USDTFutures, Status: StatePartiallyFilled, Limit: 50})
			},
			query: "limit=50&productType=USDT-FUTURES&status=partially_filled"},
		{op: OpOrdersHistory, fixture: "orders-history.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.OrderHistory(ctx, OrderHistoryRequest{ProductType: USDTFutures, OrderSource: "normal", StartTime: msAt(-24 * time.Hour)})
			},
			query: "orderSource=normal&productType=USDT-FUTURES&startTime=" + string(msAt(-24*time.Hour))},
		{op: OpStockOrderBook, fixture: "stock-orderbook.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StockOrderBook(ctx, StockOrderBookRequest{Symbol: "TSLAUSDT"})
			},
			query: "symbol=TSLAUSDT"},
		{op: OpStockFills, fixture: "stock-fills.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StockFills(ctx, StockFillsRequest{Symbol: "TSLAUSDT", Limit: 20})
			},
			query: "limit=20&symbol=TSLAUSDT"},
		{op: OpStockInfo, fixture: "stock-info.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StockInfo(ctx, StockInfoRequest{})
			}},
		{op: OpMarketStates, fixture: "states-array.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.MarketStates(ctx) }},
		{op: OpMarketCalendar, fixture: "calendar.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.MarketCalendar(ctx) }},
		{op: OpStrategyOrders, fixture: "unfilled-strategy-orders.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StrategyOrders(ctx, StrategyOrdersRequest{Category: "usdt-futures", Type: StrategyTWAP})
			},
			query: "category=USDT-FUTURES&type=twap"},
		{op: OpDiscountRate, fixture: "eligible-discount-rate.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.DiscountRates(ctx, DiscountRateRequest{Coin: "BTC"})
			},
			query: "coin=BTC"},
		{op: OpSpotRecord, fixture: "spot-record.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SpotRecords(ctx, SpotRecordRequest{Coin: "USDT", StartTime: msAt(-30 * 24 * time.Hour), EndTime: msAt(0), Limit: 500, IDLessThan: "1400000000000000003"})
			},
			query: "coin=USDT&endTime=" + string(msAt(0)) + "&idLessThan=1400000000000000003&limit=500&startTime=" + string(msAt(-30*24*time.Hour))},
		{op: OpAllPositions, fixture: "all-position.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.AllPositions(ctx, AllPositionsRequest{ProductType: USDTFutures, MarginCoin: "USDT"})
			},
			query: "marginCoin=USDT&productType=USDT-FUTURES"},
		{op: OpSinglePosition, fixture: "single-position.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SinglePosition(ctx, SinglePositionRequest{ProductType: USDTFutures, Symbol: "TSLAUSDT", MarginCoin: "USDT"})
			},
			query: "marginCoin=USDT&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpContracts, fixture: "contracts.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Contracts(ctx, ContractsRequest{ProductType: USDTFutures, Symbol: "TSLAUSDT"})
			},
			query: "productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpTicker, fixture: "ticker.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Ticker(ctx, TickerRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures})
			},
			query: "productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpMergeDepth, fixture: "merge-depth.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MergeDepth(ctx, MergeDepthRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, Limit: "15"})
			},
			query: "limit=15&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpHistoryPosition, fixture: "history-position.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PositionHistory(ctx, PositionHistoryRequest{ProductType: USDTFutures, StartTime: "1771286400000", EndTime: "1771329600000", Limit: 100})
			},
			query: "endTime=1771329600000&limit=100&productType=USDT-FUTURES&startTime=1771286400000"},
		{op: OpAccounts, fixture: "accounts.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Accounts(ctx, AccountsRequest{ProductType: COINFutures})
			},
			query: "productType=COIN-FUTURES"},
		{op: OpCandles, fixture: "candles.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Candles(ctx, CandlesRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, Granularity: Gran1m, KLineType: KindMark, Limit: 1000})
			},
			query: "granularity=1m&kLineType=MARK&limit=1000&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpHistoryCandles, fixture: "candles.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.HistoryCandles(ctx, KindTrade, CandlesRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, Granularity: Gran1m,
					StartTime: msAt(-200 * time.Minute), EndTime: msAt(0), Limit: 200})
			},
			query: "endTime=" + string(msAt(0)) + "&granularity=1m&limit=200&productType=USDT-FUTURES&startTime=" + string(msAt(-200*time.Minute)) + "&symbol=TSLAUSDT"},
		{op: OpHistoryMarkCandles, fixture: "candles.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				// kLineType is not a parameter of the history queries: not sent.
				return c.HistoryCandles(ctx, KindMark, CandlesRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, Granularity: Gran1H, KLineType: KindMark})
			},
			query: "granularity=1H&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpHistoryIndexCandles, fixture: "candles.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.HistoryCandles(ctx, KindIndex, CandlesRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, Granularity: Gran1D})
			},
			query: "granularity=1D&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpHistoryFundRate, fixture: "history-fund-rate.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FundingHistory(ctx, FundingHistoryRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, PageSize: 100, PageNo: 2})
			},
			query: "pageNo=2&pageSize=100&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpServerTime, fixture: "time.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return do[ServerTime](ctx, c, OpServerTime, nil)
			}},
		{op: OpSingleAccount, fixture: "account.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SingleAccount(ctx, SingleAccountRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginCoin: "USDT"})
			},
			query: "marginCoin=USDT&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{op: OpPlaceTPSLOrder, fixture: "place-tpsl-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PlaceTPSLOrder(ctx, PlaceTPSLOrderRequest{MarginCoin: "USDT", ProductType: USDTFutures, Symbol: "TSLAUSDT", PlanType: PlanMoving,
					TriggerPrice: "250", TriggerType: TriggerMarkPrice, HoldSide: "long", Size: "2", RangeRate: "2", ClientOID: "tr-protect-1-0"})
			},
			body: `{"marginCoin":"USDT","productType":"USDT-FUTURES","symbol":"TSLAUSDT","planType":"moving_plan","triggerPrice":"250","triggerType":"mark_price","holdSide":"long","size":"2","rangeRate":"2","clientOid":"tr-protect-1-0"}`},
		{op: OpPlacePlanOrder, fixture: "place-plan-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PlacePlanOrder(ctx, PlacePlanOrderRequest{PlanType: PlanNormal, Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: Crossed, MarginCoin: "USDT",
					Size: "1", TriggerPrice: "260", TriggerType: TriggerFillPrice, Side: Buy, TradeSide: Open, OrderType: Market, ClientOID: "tr-breakout-1-0", Mode: HedgeMode})
			},
			body: `{"planType":"normal_plan","symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"1","triggerPrice":"260","triggerType":"fill_price","side":"buy","tradeSide":"open","orderType":"market","clientOid":"tr-breakout-1-0"}`},
		{op: OpCancelPlanOrder, fixture: "cancel-plan-order.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CancelPlanOrder(ctx, CancelPlanOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginCoin: "USDT", PlanType: PlanPosLoss})
			},
			body: `{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginCoin":"USDT","planType":"pos_loss"}`},
		{op: OpPlanOrdersPending, fixture: "orders-plan-pending.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PlanOrders(ctx, PlanOrdersRequest{ProductType: USDTFutures, PlanType: PlanProfitLoss, ClientOID: "tr-protect-1-0"})
			},
			query: "clientOid=tr-protect-1-0&planType=profit_loss&productType=USDT-FUTURES"},
		{op: OpPlanOrdersHistory, fixture: "orders-plan-history.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PlanHistory(ctx, PlanHistoryRequest{ProductType: USDTFutures, PlanType: PlanNormal, Symbol: "TSLAUSDT", ClientOID: "tr-breakout-1-0"})
			},
			query: "clientOid=tr-breakout-1-0&planType=normal_plan&productType=USDT-FUTURES&symbol=TSLAUSDT"},
	}
}

// hmacSign recomputes ACCESS-SIGN from what the server received, without
// Prehash or Sign, the way a server written from the notes would.
func hmacSign(secret string, r recorded, ts string) string {
	msg := ts + r.method + r.path
	if r.rawQuery != "" {
		msg += "?" + r.rawQuery
	}
	msg += string(r.body)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func TestClientExactRequests(t *testing.T) {
	ts := newTestServer(t)
	c, _ := newTestClient(t, ts.URL, nil)
	wantTS := strconv.FormatInt(testNow.UnixMilli(), 10)
	covered := map[Op]bool{}
	for _, tc := range exactCases() {
		covered[tc.op] = true
		info, _ := LookupOp(tc.op)
		t.Run(string(tc.op), func(t *testing.T) {
			before := len(ts.requests())
			got, err := tc.call(context.Background(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := ts.requests()[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			want(t, r.method, info.Method)
			want(t, r.path, info.Path)
			want(t, r.rawQuery, tc.query)
			want(t, string(r.body), tc.body)

			h := r.header
			want(t, h.Get("Content-Type"), "application/json")
			want(t, h.Get("locale"), "en-US")
			want(t, h.Values("paptrading"), []string(nil))
			if info.Channel {
				want(t, h.Get("X-CHANNEL-API-CODE"), testChannel)
			} else {
				want(t, h.Values("X-CHANNEL-API-CODE"), []string(nil))
			}
			auth := []string{"ACCESS-KEY", "ACCESS-SIGN", "ACCESS-TIMESTAMP", "ACCESS-PASSPHRASE"}
			if info.Public {
				for _, k := range auth {
					if v := h.Values(k); v != nil {
						t.Errorf("public operation sent %s", k)
					}
				}
			} else {
				want(t, h.Get("ACCESS-KEY"), testCreds.APIKey)
				want(t, h.Get("ACCESS-PASSPHRASE"), testCreds.Passphrase)
				want(t, h.Get("ACCESS-TIMESTAMP"), wantTS)
				want(t, h.Get("ACCESS-SIGN"), hmacSign(testCreds.Secret, r, wantTS))
			}

			// The result is the fixture's decoding.
			wantVal := reflect.New(reflect.TypeOf(got))
			if err := decodeResponse(tc.op, 200, readFixture(t, tc.fixture), wantVal.Interface()); err != nil {
				t.Fatal(err)
			}
			want(t, got, wantVal.Elem().Interface())
			if reflect.ValueOf(got).IsZero() {
				t.Error("result is empty")
			}
		})
	}
	for _, info := range Ops() {
		if !covered[info.Op] {
			t.Errorf("operation %s has no exact-request case", info.Op)
		}
	}
	if len(covered) != len(Ops()) {
		t.Errorf("%d operations covered, want %d", len(covered), len(Ops()))
	}
}

func TestClientHeaderOptions(t *testing.T) {
	ts := newTestServer(t)
	c, _ := newTestClient(t, ts.URL+"/", func(o *ClientOptions) { o.Locale = ZhCN; o.Demo = true; o.ChannelAPICode = "" })
	if _, err := c.PlaceOrder(context.Background(), PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: "crossed",
		MarginCoin: "USDT", Size: "1", Side: Buy, OrderType: "market"}); err != nil {
		t.Fatal(err)
	}
	h := ts.requests()[0].header
	want(t, h.Get("locale"), "zh-CN")
	want(t, h.Get("paptrading"), "1")
	// Public requests go without it.
	if _, err := c.Contracts(context.Background(), ContractsRequest{ProductType: USDTFutures}); err != nil {
		t.Fatal(err)
	}
	reqs := ts.requests()
	want(t, reqs[len(reqs)-1].header.Values("paptrading"), []string(nil))
	want(t, h.Values("X-CHANNEL-API-CODE"), []string(nil)) // no code configured
}

func TestNewClientOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    ClientOptions
		wantErr string
	}{
		{"ok", ClientOptions{BaseURL: "https://api.example.com"}, ""},
		{"ok trailing slash", ClientOptions{BaseURL: "http://127.0.0.1:8080/"}, ""},
		{"missing", ClientOptions{}, "base URL is required"},
		{"scheme", ClientOptions{BaseURL: "ftp://x"}, "scheme"},
		{"no host", ClientOptions{BaseURL: "http://"}, "host"},
		{"path", ClientOptions{BaseURL: "http://x/api"}, "path"},
		{"query", ClientOptions{BaseURL: "http://x?a=1"}, "query"},
		{"user info", ClientOptions{BaseURL: "https://u:" + testCreds.Secret + "@x"}, "user info"},
		{"unparsable", ClientOptions{BaseURL: "http://x y:" + testCreds.Secret + "/%zz"}, "base URL"},
		{"locale", ClientOptions{BaseURL: "http://x", Locale: "de-DE"}, "locale"},
		{"partial credentials", ClientOptions{BaseURL: "http://x", Credentials: Credentials{APIKey: testCreds.APIKey, Secret: testCreds.Secret}}, "Passphrase is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.opts)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.BaseURL() != strings.TrimSuffix(tt.opts.BaseURL, "/") {
					t.Errorf("BaseURL = %s", c.BaseURL())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
			}
			assertNoSecret(t, "NewClient error", err.Error())
		})
	}
}

func TestClientRejectsBeforeSending(t *testing.T) {
	ts := newTestServer(t)
	c, _ := newTestClient(t, ts.URL, nil)
	public, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.Credentials = Credentials{} })
	ctx := context.Background()
	tests := []struct {
		name  string
		call  func() error
		check func(error) bool
	}{
		{"validation names the op and field", func() error {
			_, err := c.PlaceOrder(ctx, PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: "crossed", MarginCoin: "USDT", Size: "1", Side: Buy, OrderType: "limit"})
			return err
		}, func(err error) bool {
			var ve *ValidationError
			return errors.As(err, &ve) && ve.Op == OpPlaceOrder && ve.Field == "price" && errors.Is(err, ErrInvalid)
		}},
		{"unsafe query value", func() error {
			_, err := c.OrderDetail(ctx, OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, ClientOID: "a&b"})
			return err
		}, func(err error) bool {
			var ve *ValidationError
			return errors.As(err, &ve) && ve.Op == OpOrderDetail && ve.Field == "clientOid"
		}},
		{"private op without credentials", func() error {
			_, err := public.Accounts(ctx, AccountsRequest{ProductType: USDTFutures})
			return err
		}, func(err error) bool {
			return errors.Is(err, ErrNoCredentials) && strings.HasPrefix(err.Error(), "accounts: ")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !tt.check(err) {
				t.Fatalf("unexpected error %v", err)
			}
		})
	}
	if n := len(ts.requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
	// A public operation works without credentials.
	if _, err := public.MarketCalendar(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestNilLimiterMeansNoLimiting(t *testing.T) {
	ts := newTestServer(t)
	var lim *Limiter
	c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.Limiter = lim })
	if _, err := c.MarketCalendar(context.Background()); err != nil {
		t.Fatal(err)
	}
	want(t, len(ts.requests()), 1)
}
