package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// This file tests the client's answers to where the live venue differs
// from the spec (exchange notes, "Live venue differences").

// timeAnswer answers GET /api/v2/public/time with now() plus offset and
// every other path with its fixture.
func timeAnswer(ts *testServer, now func() time.Time, offset time.Duration) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v2/public/time" {
			ms := now().Add(offset).UnixMilli()
			fmt.Fprintf(w, `{"code":"00000","msg":"success","requestTime":%d,"data":{"serverTime":"%d"}}`, ms, ms)
			return
		}
		ts.fixture(n, w, r)
	}
}

func TestSyncClock(t *testing.T) {
	tests := []struct {
		name     string
		offset   time.Duration
		wantSkew bool
	}{
		{"in step", 0, false},
		{"venue 2s ahead", 2 * time.Second, false},
		{"venue 20s ahead: near the 30s limit", 20 * time.Second, true},
		{"venue 25s behind", -25 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			c, clk := newTestClient(t, ts.URL, nil)
			ts.setRespond(timeAnswer(ts, clk.Now, tt.offset))
			got, err := c.SyncClock(context.Background())
			if got != tt.offset || c.ClockOffset() != tt.offset {
				t.Fatalf("offset %s (stored %s), want %s", got, c.ClockOffset(), tt.offset)
			}
			var skew *ClockSkewError
			if tt.wantSkew != errors.As(err, &skew) || tt.wantSkew != errors.Is(err, ErrClockSkew) {
				t.Fatalf("err = %v, want a skew error: %v", err, tt.wantSkew)
			}
			if !tt.wantSkew && err != nil {
				t.Fatal(err)
			}
			// The next signed request carries the corrected time.
			if _, err := c.Accounts(context.Background(), AccountsRequest{ProductType: USDTFutures}); err != nil {
				t.Fatal(err)
			}
			reqs := ts.requests()
			last := reqs[len(reqs)-1]
			want(t, last.header.Get("ACCESS-TIMESTAMP"), strconv.FormatInt(testNow.Add(tt.offset).UnixMilli(), 10))
			want(t, last.header.Get("ACCESS-SIGN"), hmacSign(testCreds.Secret, last, last.header.Get("ACCESS-TIMESTAMP")))
		})
	}
}

// TestClockSyncedBeforeSignedRequests shows the measuring schedule: before
// the first signed request, not again within the period, again after it;
// public requests never measure.
func TestClockSyncedBeforeSignedRequests(t *testing.T) {
	ts := newTestServer(t)
	c, clk := newTestClient(t, ts.URL, func(o *ClientOptions) { o.ClockSync = time.Minute })
	ts.setRespond(timeAnswer(ts, clk.Now, 3*time.Second))
	ctx := context.Background()
	paths := func() []string {
		var out []string
		for _, r := range ts.requests() {
			out = append(out, r.path)
		}
		return out
	}
	if _, err := c.Contracts(ctx, ContractsRequest{ProductType: USDTFutures}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.Accounts(ctx, AccountsRequest{ProductType: USDTFutures}); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(time.Minute)
	if _, err := c.Accounts(ctx, AccountsRequest{ProductType: USDTFutures}); err != nil {
		t.Fatal(err)
	}
	want(t, paths(), []string{
		"/api/v2/mix/market/contracts",
		"/api/v2/public/time", "/api/v2/mix/account/accounts", "/api/v2/mix/account/accounts",
		"/api/v2/public/time", "/api/v2/mix/account/accounts",
	})
	want(t, c.ClockOffset(), 3*time.Second)
}

// TestClockSyncFailureDoesNotBlock: a venue without the time endpoint costs
// one failed request per retry interval, and signed requests go on with the
// local clock.
func TestClockSyncFailureDoesNotBlock(t *testing.T) {
	ts := newTestServer(t)
	ts.setRespond(func(n int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v2/public/time" {
			http.NotFound(w, r)
			return
		}
		ts.fixture(n, w, r)
	})
	c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.ClockSync = 0 })
	for range 3 {
		if _, err := c.Accounts(context.Background(), AccountsRequest{ProductType: USDTFutures}); err != nil {
			t.Fatal(err)
		}
	}
	want(t, len(ts.requests()), 4) // one failed clock reading, three accounts
	want(t, c.ClockOffset(), time.Duration(0))
}

// pathsAnswer serves the stock-pair operations on the given family only;
// the other family's paths answer 404 with 40404, as the live venue does for
// the spec's paths.
func pathsAnswer(ts *testServer, serve PathFamily) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		for _, info := range Ops() {
			if info.RealityPath == "" {
				continue
			}
			other := info.PathFor(PathsSpec)
			if serve == PathsSpec {
				other = info.RealityPath
			}
			if r.URL.Path == other {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, `{"code":"40404","msg":"Request URL NOT FOUND","requestTime":1700000000000,"data":null}`)
				return
			}
		}
		ts.fixture(n, w, r)
	}
}

func TestStockPathFamily(t *testing.T) {
	for _, serve := range []PathFamily{PathsReality, PathsSpec} {
		t.Run(string(serve), func(t *testing.T) {
			ts := newTestServer(t)
			ts.setRespond(pathsAnswer(ts, serve))
			c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.StockPaths = "" })
			ctx := context.Background()
			if _, err := c.StockOrderBook(ctx, StockOrderBookRequest{Symbol: "TSLAUSDT"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.StockFills(ctx, StockFillsRequest{Symbol: "TSLAUSDT"}); err != nil {
				t.Fatal(err)
			}
			f, err := c.StockPathFamily(ctx)
			if err != nil || f != serve {
				t.Fatalf("family %q, %v; want %q", f, err, serve)
			}
			var paths []string
			for _, r := range ts.requests() {
				paths = append(paths, r.path)
			}
			book, _ := LookupOp(OpStockOrderBook)
			fills, _ := LookupOp(OpStockFills)
			wantPaths := []string{book.RealityPath, fills.RealityPath}
			if serve == PathsSpec {
				// The first operation asks the live path, meets 40404 and
				// goes to the spec's; after that only the spec's is asked.
				wantPaths = []string{book.RealityPath, book.Path, fills.Path}
			}
			want(t, paths, wantPaths)
		})
	}
}

func TestStockPathFamilyNeither(t *testing.T) {
	ts := newTestServer(t)
	ts.setRespond(func(n int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"code":"40404","msg":"Request URL NOT FOUND","requestTime":1700000000000,"data":null}`)
	})
	c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.StockPaths = "" })
	_, err := c.StockPathFamily(context.Background())
	if !errors.Is(err, ErrNoStockPaths) {
		t.Fatalf("err = %v, want ErrNoStockPaths", err)
	}
	// Nothing is cached: the next call asks again.
	_, err = c.StockInfo(context.Background(), StockInfoRequest{})
	if !errors.Is(err, ErrNoStockPaths) {
		t.Fatalf("err = %v, want ErrNoStockPaths", err)
	}
	want(t, len(ts.requests()), 4)
}

func TestErrorFamiliesOfTheLiveVenue(t *testing.T) {
	tests := []struct {
		name                string
		err                 *APIError
		notFound, forbidden bool
	}{
		{"40109 order detail", &APIError{Op: OpOrderDetail, HTTPStatus: 400, Code: CodeOrderNotFound}, true, false},
		{"43001 order does not exist", &APIError{Op: OpOrderDetail, HTTPStatus: 400, Code: CodeOrderNotExist}, true, false},
		{"bare HTTP 404 is not an absent order", &APIError{Op: OpOrderDetail, HTTPStatus: 404}, false, false},
		{"40014 permission", &APIError{Op: OpStockOrderBook, HTTPStatus: 400, Code: CodePermission}, false, true},
		{"40006 on the stock book: not whitelisted", &APIError{Op: OpStockOrderBook, HTTPStatus: 400, Code: CodeKeyInvalid}, false, true},
		{"40006 on the stock fills: not whitelisted", &APIError{Op: OpStockFills, HTTPStatus: 400, Code: CodeKeyInvalid}, false, true},
		{"40006 elsewhere: an invalid key", &APIError{Op: OpAccounts, HTTPStatus: 400, Code: CodeKeyInvalid}, false, false},
		{"HTTP 403", &APIError{Op: OpStockFills, HTTPStatus: 403}, false, true},
		// The live venue's answer to a key without stock data access
		// (exchange notes, "Stock data refused").
		{"40025 on the stock book: no permission", &APIError{Op: OpStockOrderBook, HTTPStatus: 400, Code: CodeNoPermission, Msg: "The user does not have this permission"}, false, true},
		{"40025 on the stock fills: no permission", &APIError{Op: OpStockFills, HTTPStatus: 400, Code: CodeNoPermission, Msg: "The user does not have this permission"}, false, true},
	}
	for _, e := range []*APIError{{Op: OpDiscountRate, HTTPStatus: 404, Code: CodeURLNotFound}, {Op: OpDiscountRate, HTTPStatus: 404}} {
		if !errors.Is(fmt.Errorf("w: %w", e), ErrUnavailable) {
			t.Errorf("%v does not match ErrUnavailable", e)
		}
	}
	if errors.Is(&APIError{Op: OpOrderDetail, HTTPStatus: 400, Code: CodeOrderNotFound}, ErrUnavailable) {
		t.Error("40109 matches ErrUnavailable: an absent order is not an absent operation")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error = fmt.Errorf("wrapped: %w", tt.err)
			want(t, errors.Is(err, ErrNotFound), tt.notFound)
			want(t, errors.Is(err, ErrForbidden), tt.forbidden)
		})
	}
}

// TestClientOIDWithHashAndPlus: the venue's own clientOids (BITGET#...+...)
// are percent-encoded on the wire and signed unencoded.
func TestClientOIDWithHashAndPlus(t *testing.T) {
	ts := newTestServer(t)
	c, _ := newTestClient(t, ts.URL, nil)
	const coid = "BITGET#1234+abc"
	if _, err := c.OrderDetail(context.Background(), OrderDetailRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, ClientOID: coid}); err != nil {
		t.Fatal(err)
	}
	r := ts.requests()[0]
	want(t, r.rawQuery, "clientOid=BITGET%231234%2Babc&productType=USDT-FUTURES&symbol=BTCUSDT")
	q, err := url.ParseQuery(r.rawQuery)
	if err != nil || q.Get("clientOid") != coid {
		t.Fatalf("server decodes clientOid %q, %v", q.Get("clientOid"), err)
	}
	signed := r
	signed.rawQuery = "clientOid=" + coid + "&productType=USDT-FUTURES&symbol=BTCUSDT"
	ts0 := r.header.Get("ACCESS-TIMESTAMP")
	want(t, r.header.Get("ACCESS-SIGN"), hmacSign(testCreds.Secret, signed, ts0))
}

func TestPendingOrdersWithoutStatusAsksBoth(t *testing.T) {
	order := func(id string, st OrderState) PendingOrder {
		return PendingOrder{ListOrder: ListOrder{OrderID: id, Status: st, Symbol: "BTCUSDT"}}
	}
	ts := newTestServer(t)
	ts.setRespond(func(n int, w http.ResponseWriter, r *http.Request) {
		var list []PendingOrder
		switch r.URL.Query().Get("status") {
		case "live":
			list = []PendingOrder{order("1009", StateLive), order("1005", StateLive), order("1003", StateLive)}
		case "partially_filled":
			list = []PendingOrder{order("1007", StatePartiallyFilled), order("1003", StatePartiallyFilled), order("999", StatePartiallyFilled)}
		}
		data, _ := json.Marshal(PendingOrdersPage{EntrustedList: list, EndID: "x"})
		fmt.Fprintf(w, `{"code":"00000","msg":"success","requestTime":1,"data":%s}`, data)
	})
	c, _ := newTestClient(t, ts.URL, nil)
	page, err := c.PendingOrders(context.Background(), PendingOrdersRequest{ProductType: USDTFutures, Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range page.EntrustedList {
		got = append(got, o.OrderID+" "+string(o.Status))
	}
	want(t, got, []string{"1009 live", "1007 partially_filled", "1005 live", "1003 partially_filled"})
	want(t, page.EndID, "1003")
	var queries []string
	for _, r := range ts.requests() {
		queries = append(queries, r.rawQuery)
	}
	want(t, queries, []string{"limit=4&productType=USDT-FUTURES&status=live", "limit=4&productType=USDT-FUTURES&status=partially_filled"})

	// With a status, one request as asked.
	if _, err := c.PendingOrders(context.Background(), PendingOrdersRequest{ProductType: USDTFutures, Status: StateLive}); err != nil {
		t.Fatal(err)
	}
	want(t, len(ts.requests()), 3)
}

func TestLiveEnumerationCases(t *testing.T) {
	ts := newTestServer(t)
	c, _ := newTestClient(t, ts.URL, nil)
	if _, err := c.StrategyOrders(context.Background(), StrategyOrdersRequest{Category: "usdt-futures"}); err != nil {
		t.Fatal(err)
	}
	want(t, ts.requests()[0].rawQuery, "category=USDT-FUTURES")
	for _, f := range []string{"GTC", "IOC", "FOK", "POST_ONLY", "gtc", "post_only"} {
		var req PlaceOrderRequest
		if err := json.Unmarshal([]byte(`{"force":"`+f+`"}`), &req); err != nil || !req.Force.Valid() {
			t.Errorf("force %q decodes to %q (%v), want a valid time in force", f, req.Force, err)
		}
	}
}
