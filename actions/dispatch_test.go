package actions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// fakeVenue places orders into a map and can be told to misbehave on the
// next place: apply the order but lose the answer, lose the request, or
// answer without an order id.
type fakeVenue struct {
	exchange.Trader // unimplemented operations panic

	mu       sync.Mutex
	orders   map[string]string // clientOid -> orderId
	sent     int               // place requests received
	lookups  int
	next     []string // scripted behaviours of the next place calls
	hideFor  int      // lookups that answer not found before the order shows
	lookErr  error    // every lookup fails with this
	rejectWi error    // place answers this definite error
}

func newFakeVenue(script ...string) *fakeVenue {
	return &fakeVenue{orders: map[string]string{}, next: script}
}

func (f *fakeVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent++
	mode := "ok"
	if len(f.next) > 0 {
		mode, f.next = f.next[0], f.next[1:]
	}
	if f.rejectWi != nil {
		return exchange.OrderAck{}, f.rejectWi
	}
	apply := func() string {
		if _, dup := f.orders[req.ClientOID]; dup {
			panic("duplicate clientOid placed: " + req.ClientOID)
		}
		id := fmt.Sprintf("%d", 1000+len(f.orders))
		f.orders[req.ClientOID] = id
		return id
	}
	switch mode {
	case "applied-then-timeout":
		apply()
		return exchange.OrderAck{}, fmt.Errorf("place-order: %w", context.DeadlineExceeded)
	case "lost-request":
		return exchange.OrderAck{}, fmt.Errorf("place-order: %w", io.ErrUnexpectedEOF)
	case "applied-then-500":
		apply()
		return exchange.OrderAck{}, &exchange.APIError{Op: exchange.OpPlaceOrder, HTTPStatus: 500, Code: exchange.CodeTransient45001, Msg: "busy"}
	case "no-order-id":
		apply()
		return exchange.OrderAck{ClientOID: req.ClientOID}, nil
	}
	return exchange.OrderAck{OrderID: apply(), ClientOID: req.ClientOID}, nil
}

func (f *fakeVenue) OrderDetail(ctx context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.lookErr != nil {
		return exchange.OrderDetail{}, f.lookErr
	}
	id, ok := f.orders[req.ClientOID]
	if !ok || f.hideFor > 0 {
		f.hideFor--
		return exchange.OrderDetail{}, &exchange.APIError{Op: exchange.OpOrderDetail, HTTPStatus: 400, Code: exchange.CodeOrderNotExist, Msg: "order does not exist"}
	}
	return exchange.OrderDetail{OrderID: id, ClientOID: req.ClientOID, State: exchange.StateLive}, nil
}

// AllPositions and PendingOrders are not read by the dispatcher's own
// tests: they narrow a cancel or close sent again (resend_test.go).
func (f *fakeVenue) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	panic("fakeVenue: AllPositions not implemented")
}

func (f *fakeVenue) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	panic("fakeVenue: PendingOrders not implemented")
}

func (f *fakeVenue) PlanOrders(context.Context, exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	panic("fakeVenue: PlanOrders not implemented")
}

func (f *fakeVenue) PlanHistory(context.Context, exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error) {
	panic("fakeVenue: PlanHistory not implemented")
}

// drive runs fn while advancing the virtual clock whenever fn waits on it.
func drive(t *testing.T, v *clock.Virtual, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	for i := 0; i < 100; i++ {
		if !v.WaitForWaiters(1, done) {
			return
		}
		v.Advance(time.Second)
	}
	t.Fatal("dispatcher still waiting after 100 clock steps")
}

func placeReq() exchange.PlaceOrderRequest {
	return exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed,
		MarginCoin: "USDT", Size: "0.01", Side: exchange.Buy, OrderType: exchange.Market, ClientOID: "tr-abc-1-0"}
}

func TestPlaceReconciles(t *testing.T) {
	tests := []struct {
		name       string
		script     []string
		hideFor    int
		wantOut    Outcome
		wantSent   int
		reconciled bool
		errLike    string
	}{
		{"plain success", nil, 0, OK, 1, false, ""},
		{"timeout after the order was placed: found, not re-sent", []string{"applied-then-timeout"}, 0, OK, 1, true, ""},
		{"500 after the order was placed: found, not re-sent", []string{"applied-then-500"}, 0, OK, 1, true, ""},
		{"slow visibility: found on the third lookup", []string{"applied-then-timeout"}, 2, OK, 1, true, ""},
		{"request lost: confirmed absent, re-sent once with the same id", []string{"lost-request"}, 0, OK, 2, true, ""},
		{"lost twice: gives up after one re-send", []string{"lost-request", "lost-request"}, 0, Failed, 2, true, "still unknown"},
		{"success without orderId: looked up", []string{"no-order-id"}, 0, OK, 1, true, ""},
		{"success without orderId and never visible: not re-sent", []string{"no-order-id"}, 5, Failed, 1, true, "not re-sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := clock.NewVirtual(time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC))
			fv := newFakeVenue(tt.script...)
			fv.hideFor = tt.hideFor
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v})
			var leg Leg
			drive(t, v, func() { leg = d.Place(context.Background(), "place_order", placeReq(), OrderCheck{}) })
			if leg.Outcome != tt.wantOut || fv.sent != tt.wantSent || leg.Reconciled != tt.reconciled {
				t.Fatalf("outcome=%s sent=%d reconciled=%v err=%q; want %s %d %v", leg.Outcome, fv.sent, leg.Reconciled, leg.Error, tt.wantOut, tt.wantSent, tt.reconciled)
			}
			if len(fv.orders) > 1 {
				t.Fatalf("%d orders placed for one leg", len(fv.orders))
			}
			if tt.wantOut == OK && (len(leg.OrderIDs) != 1 || leg.OrderIDs[0] != fv.orders["tr-abc-1-0"]) {
				t.Errorf("order ids %v, placed %v", leg.OrderIDs, fv.orders)
			}
			if !strings.Contains(leg.Error, tt.errLike) {
				t.Errorf("error %q does not say %q", leg.Error, tt.errLike)
			}
			if !strings.Contains(string(RequestJSON(leg.Request)), `"clientOid":"tr-abc-1-0"`) {
				t.Errorf("leg request %+v lacks the clientOid", leg.Request)
			}
		})
	}
}

func TestPlaceDefiniteErrorsAreNotRetried(t *testing.T) {
	v := clock.NewVirtual(time.Unix(0, 0))
	fv := newFakeVenue()
	fv.rejectWi = &exchange.APIError{Op: exchange.OpPlaceOrder, HTTPStatus: 400, Code: exchange.CodeBalanceNotEnough, Msg: "balance not enough"}
	d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v})
	leg := d.Place(context.Background(), "place_order", placeReq(), OrderCheck{})
	if leg.Outcome != Failed || fv.sent != 1 || fv.lookups != 0 || leg.Reconciled {
		t.Fatalf("leg %+v sent=%d lookups=%d", leg, fv.sent, fv.lookups)
	}
}

func TestPlaceLookupFailureIsNotResent(t *testing.T) {
	v := clock.NewVirtual(time.Unix(0, 0))
	fv := newFakeVenue("lost-request")
	fv.lookErr = errors.New("connection refused")
	d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v})
	var leg Leg
	drive(t, v, func() { leg = d.Place(context.Background(), "place_order", placeReq(), OrderCheck{}) })
	if leg.Outcome != Failed || fv.sent != 1 || !strings.Contains(leg.Error, "lookup") {
		t.Fatalf("leg %+v sent=%d", leg, fv.sent)
	}
}

func TestPlaceGuardAndMissingClientOID(t *testing.T) {
	v := clock.NewVirtual(time.Unix(0, 0))
	fv := newFakeVenue()
	g := NewGuard(GuardOptions{Safety: &Safety{AllowedSymbols: []string{"ETHUSDT"}}})
	d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v, Guard: g})
	leg := d.Place(context.Background(), "place_order", placeReq(), OrderCheck{Symbol: "BTCUSDT", Size: d1(), Price: d1()})
	if leg.Outcome != Blocked || fv.sent != 0 {
		t.Errorf("guarded order: %+v sent=%d", leg, fv.sent)
	}
	req := placeReq()
	req.ClientOID = ""
	leg = d.Place(context.Background(), "place_order", req, OrderCheck{Reducing: true})
	if leg.Outcome != Failed || fv.sent != 0 {
		t.Errorf("order without clientOid: %+v sent=%d", leg, fv.sent)
	}
}

func d1() decimal.Decimal { return d("1") }
