package actions

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// refusingVenue answers 429 to the first refuse place requests, before the
// venue acts, then behaves as fakeVenue.
type refusingVenue struct {
	*fakeVenue
	refuse int
}

func (r *refusingVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	r.mu.Lock()
	if r.refuse > 0 {
		r.refuse--
		r.sent++
		r.mu.Unlock()
		return exchange.OrderAck{}, &exchange.APIError{Op: exchange.OpPlaceOrder, HTTPStatus: 429, Code: exchange.CodeTooManyRequests, Msg: "Too Many Requests"}
	}
	r.mu.Unlock()
	return r.fakeVenue.PlaceOrder(ctx, req)
}

// TestSettle sends one order through a deferring dispatcher, as the tick
// loop does, and settles what comes back Unsettled, as the engine does off
// the loop (or after a restart: restart skips the first send).
func TestSettle(t *testing.T) {
	tests := []struct {
		name      string
		script    []string
		refuse    int
		hideFor   int
		placed    bool // the order is at the venue before anything (restart)
		restart   bool
		want      Outcome
		wantSent  int
		errLike   string
		unsettled bool // Send's own leg is Unsettled
	}{
		{"ok at once: nothing to settle", nil, 0, 0, false, false, OK, 1, "", false},
		{"answer lost after the venue acted: found, not re-sent", []string{"applied-then-timeout"}, 0, 0, false, false, OK, 1, "", true},
		{"request lost: confirmed absent, re-sent with the same id", []string{"lost-request"}, 0, 0, false, false, OK, 2, "", true},
		{"lost three times: re-sent until it arrives", []string{"lost-request", "lost-request", "lost-request"}, 0, 0, false, false, OK, 4, "", true},
		{"accepted without an id, never visible: not re-sent", []string{"no-order-id"}, 0, 100, false, false, Failed, 1, "not re-sent", true},
		{"429 twice: sent again without a lookup", nil, 2, 0, false, false, OK, 3, "", true},
		{"429 beyond the budget: not sent", nil, 1000, 0, false, false, Failed, 0, "rate limited (429) for over 10s", true},
		{"restart, the order is at the venue: nothing sent", nil, 0, 0, true, true, OK, 0, "", false},
		{"restart, the order never left: sent once", nil, 0, 0, false, true, OK, 1, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := clock.NewVirtual(time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC))
			fv := &refusingVenue{fakeVenue: newFakeVenue(tt.script...), refuse: tt.refuse}
			fv.hideFor = tt.hideFor
			req := placeReq()
			if tt.placed {
				fv.orders[req.ClientOID] = "999"
			}
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: v, Defer: true})
			x := NewExecutor(ExecutorOptions{Dispatcher: d, RateLimitBudget: 10 * time.Second})
			p := testPlan("place_order", exchange.OpPlaceOrder, req, req.Symbol, req.ProductType, []OrderCheck{{Symbol: req.Symbol}}, req.ClientOID)
			var prior []Leg
			if !tt.restart {
				prior = x.Send(context.Background(), p) // never waits on the clock
				if got := prior[0].Outcome == Unsettled; got != tt.unsettled {
					t.Fatalf("Send: %+v, unsettled %v", prior[0], tt.unsettled)
				}
			}
			var legs []Leg
			drive(t, v, func() { legs = x.Settle(context.Background(), p, prior) })
			if len(legs) != 1 || legs[0].Outcome != tt.want || !strings.Contains(legs[0].Error, tt.errLike) {
				t.Fatalf("legs %+v, want one %s (%q)", legs, tt.want, tt.errLike)
			}
			if n := len(fv.orders); tt.want == OK && n != 1 {
				t.Errorf("%d orders at the venue", n)
			}
			if tt.wantSent > 0 && fv.sent != tt.wantSent {
				t.Errorf("%d place requests, want %d", fv.sent, tt.wantSent)
			}
			if tt.refuse > 0 && tt.want == OK && fv.lookups != 0 {
				t.Errorf("%d lookups after 429s: the venue did not act, there is nothing to look up", fv.lookups)
			}
		})
	}
}

// testPlan is a Plan of kind sending req with op, as newPlan builds one.
func testPlan(kind string, op exchange.Op, req Request, symbol string, pt exchange.ProductType, checks []OrderCheck, oids ...string) Plan {
	return Plan{Kind: kind, Op: op, Request: req, Symbol: symbol, ProductType: pt, Checks: checks, ClientOIDs: oids}
}
