package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// ordersPendingPage returns a response body with n pending orders built
// from the orders-pending fixture.
func ordersPendingPage(b *testing.B, n int) []byte {
	var one PendingOrdersPage
	if err := decodeResponse(OpOrdersPending, 200, readFixture(b, "orders-pending.json"), &one); err != nil {
		b.Fatal(err)
	}
	page := PendingOrdersPage{EndID: "1"}
	for i := range n {
		o := one.EntrustedList[0]
		o.OrderID = fmt.Sprintf("11000000000%08d", n-i)
		o.ClientOID = fmt.Sprintf("tr-bench-%d", i)
		page.EntrustedList = append(page.EntrustedList, o)
	}
	data, err := json.Marshal(page)
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(Envelope{Code: CodeSuccess, Msg: "success", RequestTime: "1700000000000", Data: data})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func BenchmarkDecodeOrdersPending100(b *testing.B) {
	body := ordersPendingPage(b, 100)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var page PendingOrdersPage
		if err := decodeResponse(OpOrdersPending, 200, body, &page); err != nil {
			b.Fatal(err)
		}
		if len(page.EntrustedList) != 100 {
			b.Fatal("short page")
		}
	}
}

// BenchmarkPlaceOrderRequest measures everything before the network:
// validation, JSON body, prehash, HMAC signature and the *http.Request.
func BenchmarkPlaceOrderRequest(b *testing.B) {
	c, err := NewClient(ClientOptions{BaseURL: "http://127.0.0.1:1", Credentials: testCreds, ChannelAPICode: testChannel})
	if err != nil {
		b.Fatal(err)
	}
	info, _ := LookupOp(OpPlaceOrder)
	req := PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: "crossed", MarginCoin: "USDT",
		Size: "2", Price: "230.5", Side: Buy, TradeSide: Open, OrderType: "limit", ClientOID: "tr-flatten-1-0", Mode: HedgeMode}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := c.prepare(info, &req)
		if err != nil {
			b.Fatal(err)
		}
		r, err := c.newRequest(ctx, info, p)
		if err != nil {
			b.Fatal(err)
		}
		//lint:ignore SA1008 the client sets the venue's header names as the venue documents them, not canonicalised
		if len(r.Header["ACCESS-SIGN"]) != 1 {
			b.Fatal("unsigned")
		}
	}
}

func BenchmarkSign(b *testing.B) {
	pre := Prehash("1700000000000", "POST", "/api/v2/mix/order/place-order", "",
		`{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"2","price":"230.5","side":"buy","tradeSide":"open","orderType":"limit","clientOid":"tr-1"}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = Sign(testCreds.Secret, pre)
	}
}
