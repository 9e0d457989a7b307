package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/tickrules/tickrules/exchange"
)

// fakeBackend is a Backend with fixed accounts and a fakeVenue per account.
// Methods the tests do not need are left to the embedded nil Venue, so
// calling them panics, which is exactly what the panic-recovery test and the
// fuzz target want to survive.
type fakeBackend struct {
	accounts map[string]fakeAccount
	public   *fakeVenue
}

type fakeAccount struct {
	auth  AccountAuth
	venue *fakeVenue
}

func (b *fakeBackend) Account(key string) (exchange.Venue, AccountAuth, bool) {
	a, ok := b.accounts[key]
	if !ok {
		return nil, AccountAuth{}, false
	}
	return a.venue, a.auth, true
}

func (b *fakeBackend) Public() exchange.Reader { return b.public }

// Test credentials. The secret values are distinctive so that a test can
// search the logs for them.
const (
	testKey        = "key-trader"
	testSecret     = "SECRET-trader-7f3a"
	testPassphrase = "PASS-trader-91c2"
	readKey        = "key-reader"
	readSecret     = "SECRET-reader-55d0"
	readPassphrase = "PASS-reader-0b7e"
)

func newFakeBackend() *fakeBackend {
	return &fakeBackend{
		public: &fakeVenue{},
		accounts: map[string]fakeAccount{
			testKey: {
				auth: AccountAuth{UID: "1001", Secret: testSecret, Passphrase: testPassphrase, Perms: []exchange.Permission{
					exchange.PermFuturesTrade, exchange.PermUnifiedTradeWrite, exchange.PermStockWhitelist,
					exchange.PermUnifiedManageRead, exchange.PermSpotRecordsRead,
				}},
				venue: &fakeVenue{},
			},
			readKey: {
				auth:  AccountAuth{UID: "1002", Secret: readSecret, Passphrase: readPassphrase, Perms: []exchange.Permission{exchange.PermFuturesRead}},
				venue: &fakeVenue{},
			},
		},
	}
}

// fakeVenue records orders placed and answers a few queries.
type fakeVenue struct {
	exchange.Venue // nil: unimplemented methods panic

	mu     sync.Mutex
	orders map[string]exchange.PlaceOrderRequest // by orderId
	byOID  map[string]string                     // clientOid -> orderId
	calls  int
	// err, when set, is returned by PlaceOrder.
	err error
	// panicOn, when set, makes PlaceOrder panic with it.
	panicOn any
}

func (v *fakeVenue) PlaceOrder(_ context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	if v.panicOn != nil {
		panic(v.panicOn)
	}
	if v.err != nil {
		return exchange.OrderAck{}, v.err
	}
	if v.orders == nil {
		v.orders, v.byOID = map[string]exchange.PlaceOrderRequest{}, map[string]string{}
	}
	id := fmt.Sprintf("%d", 1000+len(v.orders))
	v.orders[id] = req
	if req.ClientOID != "" {
		v.byOID[req.ClientOID] = id
	}
	return exchange.OrderAck{OrderID: id, ClientOID: req.ClientOID}, nil
}

func (v *fakeVenue) CancelOrder(_ context.Context, req exchange.CancelOrderRequest) (exchange.OrderAck, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	id := req.OrderID
	if id == "" {
		id = v.byOID[req.ClientOID]
	}
	o, ok := v.orders[id]
	if !ok {
		return exchange.OrderAck{}, &exchange.APIError{Op: exchange.OpCancelOrder, HTTPStatus: 400, Code: exchange.CodeNoOrderCancel, Msg: "No order to cancel"}
	}
	delete(v.orders, id)
	return exchange.OrderAck{OrderID: id, ClientOID: o.ClientOID}, nil
}

func (v *fakeVenue) OrderDetail(_ context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	id := req.OrderID
	if id == "" {
		id = v.byOID[req.ClientOID]
	}
	o, ok := v.orders[id]
	if !ok {
		return exchange.OrderDetail{}, &exchange.APIError{Op: exchange.OpOrderDetail, HTTPStatus: 400, Code: exchange.CodeOrderNotExist, Msg: "Order does not exist"}
	}
	return exchange.OrderDetail{Symbol: o.Symbol, OrderID: id, ClientOID: o.ClientOID, Size: o.Size, State: "live"}, nil
}

func (v *fakeVenue) PendingOrders(_ context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	if req.Limit > 100 {
		return exchange.PendingOrdersPage{}, &exchange.ValidationError{Op: exchange.OpOrdersPending, Field: "limit", Rule: "at most 100"}
	}
	return exchange.PendingOrdersPage{EntrustedList: []exchange.PendingOrder{}}, nil
}

func (v *fakeVenue) StockInfo(_ context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	return []exchange.StockInfo{{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla", TradingPeriod: []exchange.TradingPeriod{"regular"}, WeekendTradable: "no"}}, nil
}

func (v *fakeVenue) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	return exchange.StockOrderBook{Symbol: req.Symbol}, nil
}

func (v *fakeVenue) callCount() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.calls
}

func (v *fakeVenue) orderCount() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.orders)
}
