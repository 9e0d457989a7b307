package exchange_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tickrules/tickrules/exchange"
)

func ExampleCredentials() {
	creds := exchange.Credentials{APIKey: "my-key", Secret: "my-secret", Passphrase: ""}
	fmt.Println(creds)
	fmt.Printf("%#v\n", creds)
	// Output:
	// Credentials{APIKey:[redacted], Secret:[redacted], Passphrase:[empty]}
	// exchange.Credentials{APIKey:[redacted], Secret:[redacted], Passphrase:[empty]}
}

func ExampleEncodeQuery() {
	q, err := exchange.EncodeQuery(exchange.PendingOrdersRequest{
		ProductType: exchange.USDTFutures, Symbol: "TSLAUSDT", Limit: 100,
	})
	fmt.Println(q, err)
	_, err = exchange.EncodeQuery(exchange.OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, ClientOID: "a&b"})
	fmt.Println(err)
	// Output:
	// limit=100&productType=USDT-FUTURES&symbol=TSLAUSDT <nil>
	// clientOid: must not contain "&": query values are signed and sent unencoded
}

func ExampleSign() {
	pre := exchange.Prehash("1700000000000", "GET", "/api/v2/mix/order/orders-pending", "limit=100&productType=USDT-FUTURES&symbol=TSLAUSDT", "")
	fmt.Println(pre)
	fmt.Println(exchange.Sign("s3cr3t-for-tests", pre))
	// Output:
	// 1700000000000GET/api/v2/mix/order/orders-pending?limit=100&productType=USDT-FUTURES&symbol=TSLAUSDT
	// Tb39DFQYtNcTJMyVLkq9kHpWvUbBlKMW/z8X1rQZ4qI=
}

// A failed order is never sent again by the client: when the outcome is
// unknown the caller looks the order up by its clientOid.
func ExampleClient_PlaceOrder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"code":"00000","msg":"success","requestTime":1700000000000,"data":{"orderId":"1100000000000000001","clientOid":"tr-buy-dip-1-0"}}`))
	}))
	defer srv.Close()

	c, err := exchange.NewClient(exchange.ClientOptions{
		BaseURL:     srv.URL,
		Credentials: exchange.Credentials{APIKey: "key", Secret: "secret", Passphrase: "pass"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ack, err := c.PlaceOrder(context.Background(), exchange.PlaceOrderRequest{
		Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, MarginMode: "crossed", MarginCoin: "USDT",
		Size: "1", Price: "229.5", Side: exchange.Buy, OrderType: "limit", ClientOID: "tr-buy-dip-1-0",
	})
	switch {
	case errors.Is(err, exchange.ErrOutcomeUnknown):
		fmt.Println("look up tr-buy-dip-1-0 before doing anything else")
	case err != nil:
		fmt.Println("rejected:", err)
	default:
		fmt.Println("placed", ack.OrderID)
	}
	// Output:
	// placed 1100000000000000001
}
