package actions

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

func (v *timeoutVenue) CancelPlanOrder(ctx context.Context, req exchange.CancelPlanOrderRequest) (res exchange.BatchResult, err error) {
	err = v.fault(exchange.OpCancelPlanOrder, func() (err error) { res, err = v.Account.CancelPlanOrder(ctx, req); return err })
	return res, err
}

// stopLossOf places a stop-loss of 0.004 BTC of the one-way long, as the
// trader would by hand.
func stopLossOf(oid string) func(t *testing.T, acct *sim.Account, hedge bool) {
	return func(t *testing.T, acct *sim.Account, hedge bool) {
		t.Helper()
		_, err := acct.PlaceTPSLOrder(context.Background(), exchange.PlaceTPSLOrderRequest{MarginCoin: "USDT", ProductType: exchange.USDTFutures,
			Symbol: "BTCUSDT", PlanType: exchange.PlanLoss, TriggerPrice: "30000", TriggerType: exchange.TriggerMarkPrice, HoldSide: "buy", Size: "0.004", ClientOID: oid})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSettlePlanCancelTouchesOnlyWhatExistedAtTheFiring: a cancel of the
// stop-losses of BTCUSDT whose answer was lost, or that a crash left
// unsent, is settled by cancelling by id the stop-losses that existed at
// the firing; one the trader placed after it is left alone.
func TestSettlePlanCancelTouchesOnlyWhatExistedAtTheFiring(t *testing.T) {
	tests := []struct {
		name        string
		restart     bool
		lose        bool
		wantReached int
	}{
		{"in session: applied, answer lost", false, false, 1},
		{"in session: lost on the way", false, true, 1},
		{"restart: never left", true, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig, acct, at := beforeFiring(t, false, func(t *testing.T, acct *sim.Account, hedge bool) {
				openPos("BTCUSDT", exchange.Long)(t, acct, hedge)
				stopLossOf("old-sl")(t, acct, hedge)
			})
			ctx := context.Background()
			fv := &timeoutVenue{Account: acct, lose: tt.lose, reached: map[exchange.Op]int{}}
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: rig.Virtual, Defer: true})
			x := NewExecutor(ExecutorOptions{Dispatcher: d})
			p := testPlan("cancel_strategy_orders", exchange.OpCancelPlanOrder,
				exchange.CancelPlanOrderRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT", PlanType: exchange.PlanLoss}, "BTCUSDT", exchange.USDTFutures, nil)
			p.At = at
			var prior []Leg
			if !tt.restart {
				prior = x.Send(ctx, p)
				if len(prior) != 1 || prior[0].Outcome != Unsettled {
					t.Fatalf("Send: %+v, want one Unsettled leg", prior)
				}
			}
			rig.Virtual.Advance(30 * time.Second)
			stopLossOf("new-sl")(t, acct, false)
			var legs []Leg
			drive(t, rig.Virtual, func() { legs = x.Settle(ctx, p, prior) })
			for _, l := range legs {
				if l.Outcome != OK {
					t.Errorf("leg %+v, want ok", l)
				}
			}
			page, err := acct.PlanOrders(ctx, exchange.PlanOrdersRequest{ProductType: exchange.USDTFutures, PlanType: exchange.PlanProfitLoss})
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, o := range page.EntrustedList {
				left = append(left, o.ClientOID)
			}
			if !slices.Equal(left, []string{"new-sl"}) {
				t.Errorf("stop-losses left %v, want [new-sl]", left)
			}
			if n := fv.sent(exchange.OpCancelPlanOrder); n != tt.wantReached {
				t.Errorf("%d cancel-plan-order requests reached the venue, want %d", n, tt.wantReached)
			}
		})
	}
}

// TestPlanOrderPlansReadBackFromTheJournal: the journal records a Plan as
// JSON and reads it back typed by its operation, also cancel_all's
// cancel-plan-order, which is another kind's operation.
func TestPlanOrderPlansReadBackFromTheJournal(t *testing.T) {
	tests := []struct {
		kind string
		op   exchange.Op
		req  Request
	}{
		{"protect", exchange.OpPlaceTPSLOrder, exchange.PlaceTPSLOrderRequest{Symbol: "BTCUSDT", PlanType: exchange.PlanMoving, RangeRate: "2", ClientOID: "tr-x-0"}},
		{"place_trigger", exchange.OpPlacePlanOrder, exchange.PlacePlanOrderRequest{Symbol: "BTCUSDT", PlanType: exchange.PlanNormal, TriggerPrice: "60000", ClientOID: "tr-x-1"}},
		{"cancel_all", exchange.OpCancelPlanOrder, exchange.CancelPlanOrderRequest{ProductType: exchange.USDTFutures, PlanType: exchange.PlanPosLoss}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			b, err := json.Marshal(Plan{Kind: tt.kind, Op: tt.op, Request: tt.req})
			if err != nil {
				t.Fatal(err)
			}
			var p Plan
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatalf("read back %s: %v", b, err)
			}
			if !reflect.DeepEqual(p.Request, tt.req) {
				t.Errorf("read back %#v, want %#v", p.Request, tt.req)
			}
		})
	}
}

func (v *timeoutVenue) PlacePlanOrder(ctx context.Context, req exchange.PlacePlanOrderRequest) (ack exchange.OrderAck, err error) {
	err = v.fault(exchange.OpPlacePlanOrder, func() (err error) { ack, err = v.Account.PlacePlanOrder(ctx, req); return err })
	return ack, err
}

// TestTriggeredPlanOrderWhoseAnswerWasLostIsNotSentAgain: a trigger order
// at the last price is placed, triggers at once and opens a position, but
// its answer is lost. The lookup by client order id no longer finds it
// pending; it finds it in the plan-order history, so the order is not sent
// a second time (which would open a second position).
func TestTriggeredPlanOrderWhoseAnswerWasLostIsNotSentAgain(t *testing.T) {
	rig, acct, _ := beforeFiring(t, false, func(*testing.T, *sim.Account, bool) {})
	ctx := context.Background()
	tk, err := acct.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
	if err != nil || len(tk) != 1 {
		t.Fatalf("ticker %v, %v", tk, err)
	}
	fv := &timeoutVenue{Account: acct, reached: map[exchange.Op]int{}} // applied, answer lost
	d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: rig.Virtual})
	req := exchange.PlacePlanOrderRequest{PlanType: exchange.PlanNormal, Symbol: "BTCUSDT", ProductType: exchange.USDTFutures,
		MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.01", TriggerPrice: tk[0].LastPr, TriggerType: exchange.TriggerFillPrice,
		Side: exchange.Buy, OrderType: exchange.Market, ClientOID: "tr-breakout-1-0"}
	var leg Leg
	drive(t, rig.Virtual, func() { leg = d.PlacePlan(ctx, "place_trigger", req, OrderCheck{Symbol: "BTCUSDT"}) })
	if leg.Outcome != OK || !leg.Reconciled || len(leg.OrderIDs) != 1 {
		t.Errorf("leg %+v, want ok, found by its client order id", leg)
	}
	if n := fv.sent(exchange.OpPlacePlanOrder); n != 1 {
		t.Errorf("%d place-plan-order requests reached the venue, want 1", n)
	}
	past, err := acct.PlanHistory(ctx, exchange.PlanHistoryRequest{ProductType: exchange.USDTFutures, PlanType: exchange.PlanNormal, ClientOID: "tr-breakout-1-0"})
	if err != nil || len(past.EntrustedList) != 1 || past.EntrustedList[0].PlanStatus != exchange.PlanExecuted || past.EntrustedList[0].ExecuteOrderID == "" {
		t.Fatalf("plan-order history %+v, %v; want the trigger order, executed, with its order", past, err)
	}
	pos, err := acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		t.Fatal(err)
	}
	var total []string
	for _, p := range pos {
		if p.Symbol == "BTCUSDT" {
			total = append(total, string(p.Total))
		}
	}
	if !slices.Equal(total, []string{"0.01"}) {
		t.Errorf("BTCUSDT positions %v, want one of 0.01", total)
	}
}
