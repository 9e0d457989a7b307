package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// This file shows the simulator accepting what the live venue accepts where
// it differs from the spec (exchange notes, "Live venue differences").

func TestServesBothStockPathFamilies(t *testing.T) {
	h := newSimHarness(t, nil)
	for _, info := range exchange.Ops() {
		if info.RealityPath == "" {
			continue
		}
		for _, path := range []string{info.Path, info.RealityPath} {
			target := path
			if info.Op == exchange.OpStockOrderBook || info.Op == exchange.OpStockFills {
				target += "?symbol=TSLAUSDT"
			}
			t.Run(path, func(t *testing.T) {
				h.clk.Advance(time.Second) // both paths share the operation's 1/s limit
				h.do(call{method: "GET", target: target, unsigned: info.Public}).expect(t, http.StatusOK, exchange.CodeSuccess)
			})
		}
	}
	// Not whitelisted for the stock book: refused on either path, and the
	// client reads the refusal as ErrForbidden.
	for _, path := range []string{"/api/v3/account/stock-orderbook", "/api/v3/account/reality-orderbook"} {
		r := h.do(call{method: "GET", target: path + "?symbol=TSLAUSDT", key: readKey, secret: readSecret, passphrase: readPassphrase})
		r.expect(t, http.StatusBadRequest, exchange.CodePermission)
	}
	c, err := exchange.NewClient(exchange.ClientOptions{BaseURL: h.srv.URL, Clock: h.clk, HTTPClient: h.client,
		Credentials: exchange.Credentials{APIKey: readKey, Secret: readSecret, Passphrase: readPassphrase}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.StockOrderBook(context.Background(), exchange.StockOrderBookRequest{Symbol: "TSLAUSDT"})
	if !errors.Is(err, exchange.ErrForbidden) {
		t.Fatalf("err = %v, want ErrForbidden", err)
	}
	if f, err := c.StockPathFamily(context.Background()); err != nil || f != exchange.PathsReality {
		t.Fatalf("family %q, %v; want reality (the refusal came from a path that exists)", f, err)
	}
}

func TestServerTimeAndSingleAccount(t *testing.T) {
	h := newSimHarness(t, nil)
	r := h.do(call{method: "GET", target: "/api/v2/public/time", unsigned: true})
	r.expect(t, http.StatusOK, exchange.CodeSuccess)
	var st exchange.ServerTime
	if err := json.Unmarshal(r.env.Data, &st); err != nil || !st.ServerTime.Time().Equal(h.clk.Now()) {
		t.Fatalf("serverTime %s (%v), want %s", r.env.Data, err, h.clk.Now())
	}

	a := h.do(call{method: "GET", target: "/api/v2/mix/account/account?marginCoin=USDT&productType=USDT-FUTURES&symbol=BTCUSDT"})
	a.expect(t, http.StatusOK, exchange.CodeSuccess)
	expectFields(t, "single account", a.env.Data, []string{"marginCoin", "locked", "available", "crossedMaxAvailable",
		"isolatedMaxAvailable", "maxTransferOut", "accountEquity", "usdtEquity", "btcEquity", "crossedRiskRate",
		"crossedMarginLeverage", "isolatedLongLever", "isolatedShortLever", "marginMode", "posMode", "unrealizedPL",
		"coupon", "crossedUnrealizedPL", "isolatedUnrealizedPL", "assetMode"})
	if !strings.Contains(string(a.env.Data), `"posMode":"one_way_mode"`) {
		t.Errorf("single account %s lacks posMode one_way_mode", a.env.Data)
	}
	h.do(call{method: "GET", target: "/api/v2/mix/account/account?marginCoin=USDT&productType=USDT-FUTURES"}).
		expect(t, http.StatusBadRequest, exchange.CodeParamEmpty)

	list := h.do(call{method: "GET", target: "/api/v2/mix/account/accounts?productType=USDT-FUTURES"})
	list.expect(t, http.StatusOK, exchange.CodeSuccess)
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(list.env.Data, &items); err != nil || len(items) != 1 {
		t.Fatalf("accounts %s (%v)", list.env.Data, err)
	}
	if _, ok := items[0]["posMode"]; ok {
		t.Errorf("accounts list carries posMode, which the live venue's does not: %s", list.env.Data)
	}
	for _, k := range []string{"maxTransferOut", "crossedMaxAvailable", "isolatedMaxAvailable", "unionTotalMagin", "usdtEquity"} {
		if _, ok := items[0][k]; !ok {
			t.Errorf("accounts list lacks %s: %s", k, list.env.Data)
		}
	}
}

func TestLiveEnumerationsAndClientOIDs(t *testing.T) {
	h := newSimHarness(t, nil)
	for i, force := range []string{"GTC", "IOC", "FOK", "POST_ONLY"} {
		coid := "BITGET#" + force + "+" + string(rune('a'+i))
		body := `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit","price":"1000","force":"` + force + `","clientOid":"` + coid + `"}`
		t.Run(force, func(t *testing.T) {
			h.do(call{method: "POST", target: pathPlace, body: body}).expect(t, http.StatusOK, exchange.CodeSuccess)
			// The query carries the clientOid percent-encoded and is signed
			// unencoded, as the signing rule says.
			plain := "clientOid=" + coid + "&productType=USDT-FUTURES&symbol=BTCUSDT"
			wire := "clientOid=" + url.QueryEscape(coid) + "&productType=USDT-FUTURES&symbol=BTCUSDT"
			r := h.do(call{method: "GET", target: pathDetail + "?" + wire, signTarget: pathDetail + "?" + plain})
			r.expect(t, http.StatusOK, exchange.CodeSuccess)
			var d exchange.OrderDetail
			if err := json.Unmarshal(r.env.Data, &d); err != nil || d.ClientOID != coid || string(d.Force) != strings.ToLower(force) {
				t.Fatalf("detail %s (%v)", r.env.Data, err)
			}
			// A signature over the encoded query as sent is accepted too.
			h.do(call{method: "GET", target: pathDetail + "?" + wire}).expect(t, http.StatusOK, exchange.CodeSuccess)
		})
	}
	for _, cat := range []string{"USDT-FUTURES", "usdt-futures"} {
		h.do(call{method: "GET", target: "/api/v3/trade/unfilled-strategy-orders?category=" + cat}).expect(t, http.StatusOK, exchange.CodeSuccess)
	}
}

// TestClientAgainstSimulatorLiveForms runs the client's own paths through
// the simulator: clock offset, path family, position mode, a clientOid with
// '#' and '+', and orders-pending without status seeing a partial fill's
// state.
func TestClientAgainstSimulatorLiveForms(t *testing.T) {
	h := newSimHarness(t, nil)
	c, err := exchange.NewClient(exchange.ClientOptions{BaseURL: h.srv.URL, Clock: h.clk, HTTPClient: h.client,
		Credentials: exchange.Credentials{APIKey: testKey, Secret: testSecret, Passphrase: testPassphrase}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if off, err := c.SyncClock(ctx); err != nil || off != 0 {
		t.Fatalf("offset %s, %v", off, err)
	}
	if m, err := c.AccountPositionMode(ctx, exchange.USDTFutures, "BTCUSDT", "USDT"); err != nil || m != exchange.OneWayMode {
		t.Fatalf("position mode %q, %v", m, err)
	}
	if _, err := c.StockInfo(ctx, exchange.StockInfoRequest{}); err != nil {
		t.Fatal(err)
	}
	if f, err := c.StockPathFamily(ctx); err != nil || f != exchange.PathsReality {
		t.Fatalf("family %q, %v", f, err)
	}
	const coid = "BITGET#77+x_y-z"
	if _, err := c.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed,
		MarginCoin: "USDT", Size: "0.01", Price: "1000", Side: exchange.Buy, OrderType: exchange.Limit, ClientOID: coid}); err != nil {
		t.Fatal(err)
	}
	d, err := c.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: coid})
	if err != nil || d.ClientOID != coid {
		t.Fatalf("detail %+v, %v", d, err)
	}
	page, err := c.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures, ClientOID: coid})
	if err != nil || len(page.EntrustedList) != 1 || page.EntrustedList[0].ClientOID != coid {
		t.Fatalf("pending %+v, %v", page, err)
	}
	if _, err := c.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: coid}); err != nil {
		t.Fatal(err)
	}
}
