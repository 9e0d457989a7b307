package exchange

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestReadOnlyClientSendsNoMutatingRequest(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		_, _ = w.Write([]byte(`{"code":"00000","msg":"success","requestTime":1,"data":[]}`))
	}))
	defer srv.Close()
	ro, err := NewReadOnlyClient(ClientOptions{BaseURL: srv.URL, Credentials: Credentials{APIKey: "k", Secret: "s", Passphrase: "p"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Contracts(context.Background(), ContractsRequest{ProductType: USDTFutures}); err != nil {
		t.Fatalf("a read failed: %v", err)
	}
	if _, ok := any(ro).(Trader); ok {
		t.Fatal("ReadOnlyClient has the Trader methods")
	}
	// Even reaching the client inside by assertion sends nothing.
	tr, ok := ro.Reader.(Trader)
	if !ok {
		t.Fatal("the inner client is expected to be a *Client")
	}
	_, err = tr.PlaceOrder(context.Background(), PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, MarginMode: Crossed, MarginCoin: "USDT", Size: "1", Side: Buy, OrderType: Market})
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("PlaceOrder on the read-only client: %v", err)
	}
	if _, err := tr.CancelAllOrders(context.Background(), CancelAllOrdersRequest{ProductType: USDTFutures}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CancelAllOrders: %v", err)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d POST requests reached the server", n)
	}
}
