package actions

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

func (f *fakeVenue) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent++
	if len(req.OrderList) > MaxBatch {
		return exchange.BatchPlaceOrderResult{}, &exchange.APIError{HTTPStatus: 400, Code: exchange.CodeBatchTooLarge}
	}
	mode := "ok"
	if len(f.next) > 0 {
		mode, f.next = f.next[0], f.next[1:]
	}
	if mode == "lost-request" {
		return exchange.BatchPlaceOrderResult{}, io.ErrUnexpectedEOF
	}
	res := exchange.BatchPlaceOrderResult{Result: true}
	for _, it := range req.OrderList {
		if it.Size == "0" {
			res.Result = false
			res.FailureList = append(res.FailureList, exchange.BatchFailure{ClientOID: it.ClientOID, ErrorMsg: "size below minimum", ErrorCode: exchange.CodeSizeBelowMin})
			continue
		}
		if _, dup := f.orders[it.ClientOID]; dup {
			panic("duplicate clientOid placed: " + it.ClientOID)
		}
		id := fmt.Sprintf("%d", 1000+len(f.orders))
		f.orders[it.ClientOID] = id
		res.SuccessList = append(res.SuccessList, exchange.OrderAck{OrderID: id, ClientOID: it.ClientOID})
	}
	if mode == "applied-then-timeout" {
		return exchange.BatchPlaceOrderResult{}, context.DeadlineExceeded
	}
	return res, nil
}

func batchReq(n int) exchange.BatchPlaceOrderRequest {
	req := exchange.BatchPlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginCoin: "USDT", MarginMode: exchange.Crossed}
	for i := 0; i < n; i++ {
		req.OrderList = append(req.OrderList, exchange.BatchOrder{Size: "0.01", Price: exchange.Num(fmt.Sprint(20000 + i)), Side: exchange.Buy, OrderType: exchange.Limit, ClientOID: fmt.Sprintf("tr-x-1-%d", i)})
	}
	return req
}

func TestBatchPlace(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		script    []string
		zeroSize  int // index of an item with size 0 (-1: none)
		wantLegs  int
		wantSent  int
		wantOIDs  int
		wantOK    bool
		reconcile bool
	}{
		{"120 orders go in chunks of 50", 120, nil, -1, 3, 3, 120, true, false},
		{"chunk applied then timeout: found, not re-sent", 10, []string{"applied-then-timeout"}, -1, 1, 1, 10, true, true},
		{"chunk lost: absent, re-sent once", 10, []string{"lost-request"}, -1, 1, 2, 10, true, true},
		{"per-item failure is reported", 5, nil, 2, 1, 1, 4, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := clock.NewVirtual(time.Unix(0, 0))
			fv := newFakeVenue(tt.script...)
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v})
			req := batchReq(tt.n)
			if tt.zeroSize >= 0 {
				req.OrderList[tt.zeroSize].Size = "0"
			}
			var legs []Leg
			drive(t, v, func() { legs = d.BatchPlace(context.Background(), "batch_place", req, nil) })
			if len(legs) != tt.wantLegs || fv.sent != tt.wantSent {
				t.Fatalf("legs=%d sent=%d, want %d %d", len(legs), fv.sent, tt.wantLegs, tt.wantSent)
			}
			oids := 0
			for _, l := range legs {
				oids += len(l.OrderIDs)
				if (l.Outcome == OK) != tt.wantOK || l.Reconciled != tt.reconcile {
					t.Errorf("leg outcome=%s reconciled=%v err=%q", l.Outcome, l.Reconciled, l.Error)
				}
			}
			if oids != tt.wantOIDs || len(fv.orders) != tt.wantOIDs {
				t.Errorf("order ids %d, placed %d, want %d", oids, len(fv.orders), tt.wantOIDs)
			}
			if tt.zeroSize >= 0 && (len(legs[0].Failures) != 1 || legs[0].Failures[0].ClientOID != req.OrderList[tt.zeroSize].ClientOID) {
				t.Errorf("failures = %+v", legs[0].Failures)
			}
		})
	}
}

func TestBatchPlaceGuardBlocksItems(t *testing.T) {
	v := clock.NewVirtual(time.Unix(0, 0))
	fv := newFakeVenue()
	g := NewGuard(GuardOptions{Safety: &Safety{Default: Limits{MaxOrderSize: d("1")}}})
	checks := []OrderCheck{{Symbol: "BTCUSDT", Size: d("0.5")}, {Symbol: "BTCUSDT", Size: d("2")}, {Symbol: "BTCUSDT", Size: d("0.5")}}
	disp := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v, Guard: g})
	req := batchReq(3)
	legs := disp.BatchPlace(context.Background(), "batch_place", req, checks)
	if len(fv.orders) != 2 || len(legs[0].Failures) != 1 || !strings.Contains(legs[0].Failures[0].ErrorMsg, "max_order_size") {
		t.Fatalf("placed %d, failures %+v", len(fv.orders), legs[0].Failures)
	}
	if legs[0].Outcome != Failed || !strings.Contains(legs[0].Error, "1 of 3") {
		t.Errorf("outcome %s error %q", legs[0].Outcome, legs[0].Error)
	}
}

// TestBatchPlaceItemWithoutCheck: an item the caller did not describe to
// the guard is refused, not sent unchecked.
func TestBatchPlaceItemWithoutCheck(t *testing.T) {
	fv := newFakeVenue()
	disp := NewDispatcher(DispatcherOptions{Venue: fv, Clock: clock.NewVirtual(time.Unix(0, 0)), Guard: NewGuard(GuardOptions{})})
	legs := disp.BatchPlace(context.Background(), "batch_place", batchReq(3), []OrderCheck{{Symbol: "BTCUSDT", Size: d("0.5")}})
	if len(fv.orders) != 1 || len(legs[0].Failures) != 2 || !strings.Contains(legs[0].Failures[1].ErrorMsg, errMissingCheck.Error()) {
		t.Fatalf("placed %d, failures %+v", len(fv.orders), legs[0].Failures)
	}
}

// cancelVenue answers cancels from a script of errors.
type cancelVenue struct {
	fakeVenue
	errs    []error
	cancels int
	batches [][]exchange.OrderRef
}

func (c *cancelVenue) pop() error {
	c.cancels++
	if len(c.errs) == 0 {
		return nil
	}
	e := c.errs[0]
	c.errs = c.errs[1:]
	return e
}

func (c *cancelVenue) CancelOrder(ctx context.Context, req exchange.CancelOrderRequest) (exchange.OrderAck, error) {
	return exchange.OrderAck{OrderID: req.OrderID}, c.pop()
}

func (c *cancelVenue) BatchCancelOrders(ctx context.Context, req exchange.BatchCancelOrdersRequest) (exchange.BatchResult, error) {
	c.batches = append(c.batches, req.OrderIDList)
	res := exchange.BatchResult{}
	for _, r := range req.OrderIDList {
		if r.OrderID == "gone" {
			res.FailureList = append(res.FailureList, exchange.BatchFailure{OrderID: r.OrderID, ErrorCode: exchange.CodeOrderNotExist, ErrorMsg: "order does not exist"})
			continue
		}
		if r.OrderID == "gone-venue" {
			// The venue's docs: the item carries only errorMsg, no errorCode.
			res.FailureList = append(res.FailureList, exchange.BatchFailure{OrderID: r.OrderID, ErrorMsg: "notExistend"})
			continue
		}
		if r.OrderID == "bad" {
			res.FailureList = append(res.FailureList, exchange.BatchFailure{OrderID: r.OrderID, ErrorCode: exchange.CodeParamVerify, ErrorMsg: "parameter verification failed"})
			continue
		}
		res.SuccessList = append(res.SuccessList, exchange.OrderAck{OrderID: r.OrderID})
	}
	return res, c.pop()
}

func TestCancel(t *testing.T) {
	notExist := &exchange.APIError{HTTPStatus: 400, Code: exchange.CodeOrderNotExist, Msg: "order does not exist"}
	tests := []struct {
		name      string
		errs      []error
		want      Outcome
		cancels   int
		reconcile bool
		note      string
	}{
		{"plain", nil, OK, 1, false, ""},
		{"already gone is done", []error{notExist}, OK, 1, false, "nothing to do"},
		{"ambiguous then gone: the first one worked", []error{io.EOF, notExist}, OK, 2, true, "first request"},
		{"ambiguous then ok", []error{io.EOF, nil}, OK, 2, true, ""},
		{"definite error", []error{&exchange.APIError{HTTPStatus: 400, Code: exchange.CodeParamVerify}}, Failed, 1, false, ""},
		{"ambiguous twice", []error{io.EOF, io.EOF}, Failed, 2, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := clock.NewVirtual(time.Unix(0, 0))
			cv := &cancelVenue{errs: tt.errs}
			d := NewDispatcher(DispatcherOptions{Venue: cv, Clock: v})
			var leg Leg
			drive(t, v, func() {
				leg = d.Cancel(context.Background(), "cancel_order", exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: "42"})
			})
			if leg.Outcome != tt.want || cv.cancels != tt.cancels || leg.Reconciled != tt.reconcile || !strings.Contains(leg.Note, tt.note) {
				t.Errorf("leg %+v cancels=%d", leg, cv.cancels)
			}
		})
	}
}

func TestBatchCancelChunksAndItems(t *testing.T) {
	v := clock.NewVirtual(time.Unix(0, 0))
	cv := &cancelVenue{}
	d := NewDispatcher(DispatcherOptions{Venue: cv, Clock: v})
	req := exchange.BatchCancelOrdersRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"}
	for i := 0; i < 101; i++ {
		req.OrderIDList = append(req.OrderIDList, exchange.OrderRef{OrderID: fmt.Sprint(i)})
	}
	req.OrderIDList[3].OrderID = "gone"
	req.OrderIDList[4].OrderID = "gone-venue"
	req.OrderIDList[60].OrderID = "bad"
	legs := d.BatchCancel(context.Background(), "batch_cancel", req)
	if len(legs) != 3 || len(cv.batches) != 3 || len(cv.batches[0]) != 50 || len(cv.batches[2]) != 1 {
		t.Fatalf("legs=%d batches=%d", len(legs), len(cv.batches))
	}
	if legs[0].Outcome != OK {
		t.Errorf("an already-gone item failed its chunk: %+v", legs[0])
	}
	if legs[1].Outcome != Failed || len(legs[1].Failures) != 1 || legs[1].Failures[0].OrderID != "bad" {
		t.Errorf("second chunk: %+v", legs[1])
	}
}

// modifyVenue applies a modify asynchronously: the new order appears under
// newClientOid, and the answer carries no order id.
type modifyVenue struct{ fakeVenue }

func (m *modifyVenue) ModifyOrder(ctx context.Context, req exchange.ModifyOrderRequest) (exchange.OrderAck, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent++
	m.orders[req.NewClientOID] = "2001"
	return exchange.OrderAck{}, nil
}

func TestModifyFindsNewOrder(t *testing.T) {
	v := clock.NewVirtual(time.Unix(0, 0))
	mv := &modifyVenue{fakeVenue: *newFakeVenue()}
	mv.hideFor = 1 // the new order shows on the second lookup
	d := NewDispatcher(DispatcherOptions{Venue: mv, Clock: v})
	var leg Leg
	drive(t, v, func() {
		leg = d.Modify(context.Background(), "modify_order", exchange.ModifyOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: "1000", NewClientOID: "tr-m-1-0", NewSize: "0.02", NewPrice: "20000"}, OrderCheck{})
	})
	if leg.Outcome != OK || len(leg.OrderIDs) != 1 || leg.OrderIDs[0] != "2001" || mv.sent != 1 {
		t.Fatalf("leg %+v sent=%d", leg, mv.sent)
	}
	leg = d.Modify(context.Background(), "modify_order", exchange.ModifyOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: "1000"}, OrderCheck{})
	if leg.Outcome != Failed || mv.sent != 1 {
		t.Errorf("modify without newClientOid was sent: %+v", leg)
	}
}
