package sim_test

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// openBTC opens a 0.01 BTCUSDT position at market on a one-way account.
func openBTC(t *testing.T, a *sim.Account, side exchange.Side) {
	t.Helper()
	_, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", side, exchange.Market, "0.01", ""))
	simtest.Must(t, err)
}

// planOrders are the pending plan orders of a of every plan type, as the
// poller reads them into the State's strategy orders.
func planOrders(t *testing.T, a *sim.Account) []exchange.StrategyOrder {
	t.Helper()
	out, err := exchange.PendingPlanStrategyOrders(ctx, a, exchange.CategoryUSDTFutures)
	simtest.Must(t, err)
	return out
}

func tpslReq(plan exchange.PlanType, hold string, trigger exchange.Num) exchange.PlaceTPSLOrderRequest {
	return exchange.PlaceTPSLOrderRequest{MarginCoin: "USDT", ProductType: exchange.USDTFutures, Symbol: "BTCUSDT", PlanType: plan,
		TriggerPrice: trigger, TriggerType: exchange.TriggerMarkPrice, HoldSide: hold}
}

// The conformance scenario's BTCUSDT (see TestPositionTPSLTriggers): 50000
// until 15:00, 49000 at 16:00, 51000 at 17:00, linear in between; the
// clock starts at 14:00.
func TestPlanOrdersTrigger(t *testing.T) {
	cases := []struct {
		name   string
		side   exchange.Side // the position opened first ("" for none)
		place  func(a *sim.Account) error
		before time.Duration // still pending here
		after  time.Duration // triggered here
		hold   exchange.HoldSide
		posAt  string // the position's size once triggered
		source exchange.OrderSource
	}{
		{"position stop-loss of a long at 49500", exchange.Buy, func(a *sim.Account) error {
			_, err := a.PlaceTPSLOrder(ctx, tpslReq(exchange.PlanPosLoss, "buy", "49500"))
			return err
		}, 89 * time.Minute, 90 * time.Minute, exchange.Long, "0", exchange.OSPosLossMarket},
		{"take-profit of part of a long at 50500", exchange.Buy, func(a *sim.Account) error {
			r := tpslReq(exchange.PlanProfit, "buy", "50500")
			r.Size = "0.004"
			_, err := a.PlaceTPSLOrder(ctx, r)
			return err
		}, 164 * time.Minute, 165 * time.Minute, exchange.Long, "0.006", exchange.OSProfitMarket},
		// Active at 49500 (15:30), it follows the low down to 49000 (16:00)
		// and fires 2% above it, at 49980 (16:29.4). Had it not followed
		// the low it would fire at 50490 (16:44.7).
		{"trailing stop of a short fires on the retrace from the low", exchange.Sell, func(a *sim.Account) error {
			r := tpslReq(exchange.PlanMoving, "sell", "49500")
			r.Size, r.RangeRate = "0.01", "2"
			_, err := a.PlaceTPSLOrder(ctx, r)
			return err
		}, 149 * time.Minute, 150 * time.Minute, exchange.Short, "0", exchange.OSMoveMarket},
		{"trigger order buys when the price falls to 49500", "", func(a *sim.Account) error {
			_, err := a.PlacePlanOrder(ctx, exchange.PlacePlanOrderRequest{PlanType: exchange.PlanNormal, Symbol: "BTCUSDT", ProductType: exchange.USDTFutures,
				MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.01", TriggerPrice: "49500", TriggerType: exchange.TriggerFillPrice,
				Side: exchange.Buy, OrderType: exchange.Market, ClientOID: "dip-1"})
			return err
		}, 89 * time.Minute, 90 * time.Minute, exchange.Long, "0.01", exchange.OSPlanMarket},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			x, vc := build(t, noScenarioStrategies)
			a := account(t, x, simtest.OneWayKey)
			if tt.side != "" {
				openBTC(t, a, tt.side)
			}
			simtest.Must(t, tt.place(a))
			if got := planOrders(t, a); len(got) != 1 {
				t.Fatalf("plan orders after placing = %+v, want the one", got)
			}
			before := btcPosition(t, a, tt.hold)
			vc.Advance(tt.before)
			if got := planOrders(t, a); len(got) != 1 || btcPosition(t, a, tt.hold) != before {
				t.Fatalf("at +%s: strategy orders %+v, position %s; want it still pending", tt.before, got, btcPosition(t, a, tt.hold))
			}
			vc.Advance(tt.after - tt.before)
			src, state := lastOrderSource(t, a)
			if got := planOrders(t, a); len(got) != 0 || src != tt.source || state != exchange.StateFilled || btcPosition(t, a, tt.hold) != tt.posAt {
				t.Fatalf("at +%s: strategy orders %+v, last order %s %s, position %s; want it triggered by %s, position %s",
					tt.after, got, src, state, btcPosition(t, a, tt.hold), tt.source, tt.posAt)
			}
		})
	}
}

// TestPlanOrdersListAndCancel places one of each kind and checks the list
// by plan type, the cancel of one type, and that closing the position takes
// its protections with it while a trigger order stays.
func TestPlanOrdersListAndCancel(t *testing.T) {
	x, _ := build(t, noScenarioStrategies)
	a := account(t, x, simtest.OneWayKey)
	openBTC(t, a, exchange.Buy)
	sl := tpslReq(exchange.PlanPosLoss, "buy", "45000")
	sl.ClientOID = "sl-1"
	_, err := a.PlaceTPSLOrder(ctx, sl)
	simtest.Must(t, err)
	_, err = a.PlaceTPSLOrder(ctx, sl)
	simtest.WantCode(t, err, sim.CodeDuplicateClientOID)
	_, err = a.PlaceTPSLOrder(ctx, tpslReq(exchange.PlanPosProfit, "buy", "55000"))
	simtest.Must(t, err)
	_, err = a.PlaceTPSLOrder(ctx, tpslReq(exchange.PlanPosProfit, "sell", "45000"))
	simtest.WantCode(t, err, sim.CodeInsufficientPosition) // no short to protect
	trig := exchange.PlacePlanOrderRequest{PlanType: exchange.PlanNormal, Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed,
		MarginCoin: "USDT", Size: "0.01", TriggerPrice: "60000", TriggerType: exchange.TriggerMarkPrice, Side: exchange.Buy, OrderType: exchange.Market}
	_, err = a.PlacePlanOrder(ctx, trig)
	simtest.Must(t, err)

	count := func(pt exchange.PlanType) int {
		t.Helper()
		page, err := a.PlanOrders(ctx, exchange.PlanOrdersRequest{ProductType: exchange.USDTFutures, PlanType: pt})
		simtest.Must(t, err)
		return len(page.EntrustedList)
	}
	byClient, err := a.PlanOrders(ctx, exchange.PlanOrdersRequest{ProductType: exchange.USDTFutures, PlanType: exchange.PlanProfitLoss, ClientOID: "sl-1"})
	simtest.Must(t, err)
	if len(byClient.EntrustedList) != 1 || byClient.EntrustedList[0].PlanType != exchange.PlanPosLoss || byClient.EntrustedList[0].TriggerPrice != "45000" {
		t.Fatalf("lookup by clientOid = %+v", byClient.EntrustedList)
	}
	if n, m := count(exchange.PlanProfitLoss), count(exchange.PlanNormal); n != 2 || m != 1 {
		t.Fatalf("listed %d take-profit/stop-loss and %d trigger orders, want 2 and 1", n, m)
	}
	res, err := a.CancelPlanOrder(ctx, exchange.CancelPlanOrderRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT", PlanType: exchange.PlanPosProfit})
	simtest.Must(t, err)
	if len(res.SuccessList) != 1 || count(exchange.PlanProfitLoss) != 1 {
		t.Fatalf("cancel of pos_profit: %+v, %d left; want one cancelled, the stop-loss left", res, count(exchange.PlanProfitLoss))
	}
	_, err = a.ClosePositions(ctx, exchange.ClosePositionsRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
	simtest.Must(t, err)
	if n, m := count(exchange.PlanProfitLoss), count(exchange.PlanNormal); n != 0 || m != 1 {
		t.Fatalf("after the close: %d take-profit/stop-loss and %d trigger orders, want 0 and 1", n, m)
	}
}
