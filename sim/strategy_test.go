package sim_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// noScenarioStrategies drops the scenario's own strategy orders, so that
// the list holds only those the simulator creates.
func noScenarioStrategies(sc *sim.Scenario) {
	sc.StrategyOrders = nil
	for i := range sc.Accounts {
		sc.Accounts[i].StrategyOrders = nil
	}
}

func strategyOrders(t *testing.T, a *sim.Account) []exchange.StrategyOrder {
	t.Helper()
	out, err := a.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: exchange.CategoryUSDTFutures})
	simtest.Must(t, err)
	return out
}

func btcPosition(t *testing.T, a *sim.Account, side exchange.HoldSide) string {
	t.Helper()
	ps, err := a.SinglePosition(ctx, exchange.SinglePositionRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginCoin: "USDT"})
	simtest.Must(t, err)
	for _, p := range ps {
		if p.HoldSide == side {
			return string(p.Total)
		}
	}
	return "0"
}

// lastOrderSource is the orderSource of the newest BTCUSDT order in the
// history, and its state.
func lastOrderSource(t *testing.T, a *sim.Account) (exchange.OrderSource, exchange.OrderState) {
	t.Helper()
	h, err := a.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"})
	simtest.Must(t, err)
	if len(h.EntrustedList) == 0 {
		return "", ""
	}
	return h.EntrustedList[0].OrderSource, h.EntrustedList[0].Status
}

// The conformance scenario's BTCUSDT: 50000 until 15:00, then linearly to
// 49000 at 16:00 and to 51000 at 17:00. So 49500 is reached at 15:30 and
// 50500 at 16:45.
func TestPositionTPSLTriggers(t *testing.T) {
	start := simtest.Scenario().Clock.Start
	cases := []struct {
		name     string
		key      string
		side     exchange.Side
		hold     exchange.HoldSide
		tp, sl   exchange.Num
		until    time.Duration // from the start
		fired    bool
		source   exchange.OrderSource
		holdOpen bool // the position must still be open
	}{
		{"long stop-loss at 15:30", simtest.OneWayKey, exchange.Buy, exchange.Long, "50500", "49500", 90 * time.Minute, true, exchange.OSPosLossMarket, false},
		{"long not yet crossed", simtest.OneWayKey, exchange.Buy, exchange.Long, "50500", "49500", 89 * time.Minute, false, "", true},
		{"long take-profit after the dip", simtest.OneWayKey, exchange.Buy, exchange.Long, "50500", "", 3 * time.Hour, true, exchange.OSPosProfitMarket, false},
		{"short take-profit on the fall", simtest.OneWayKey, exchange.Sell, exchange.Short, "49500", "50500", 90 * time.Minute, true, exchange.OSPosProfitMarket, false},
		{"short stop-loss on the rise", simtest.OneWayKey, exchange.Sell, exchange.Short, "", "50500", 3 * time.Hour, true, exchange.OSPosLossMarket, false},
		{"hedge long stop-loss", simtest.HedgeKey, exchange.Buy, exchange.Long, "", "49500", 90 * time.Minute, true, exchange.OSPosLossMarket, false},
		{"hedge short take-profit", simtest.HedgeKey, exchange.Sell, exchange.Short, "49500", "", 90 * time.Minute, true, exchange.OSPosProfitMarket, false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			x, vc := build(t, noScenarioStrategies)
			a := account(t, x, tt.key)
			req := simtest.Order("BTCUSDT", tt.side, exchange.Market, "0.01", "")
			if tt.key == simtest.HedgeKey {
				req.TradeSide = exchange.Open
			}
			req.PresetStopSurplusPrice, req.PresetStopLossPrice = tt.tp, tt.sl
			_, err := a.PlaceOrder(ctx, req)
			simtest.Must(t, err)

			got := strategyOrders(t, a)
			if len(got) != 1 {
				t.Fatalf("strategy orders after the fill = %+v, want one", got)
			}
			so := got[0]
			want := exchange.StrategyOrder{
				OrderID: so.OrderID, ClientOID: so.OrderID, Category: exchange.USDTFutures, Symbol: "BTCUSDT", Qty: "0.01",
				PosSide: tt.hold, Status: exchange.StrategyPending, TakeProfit: tt.tp, StopLoss: tt.sl,
				CreatedTime: exchange.MillisOf(start), UpdatedTime: exchange.MillisOf(start),
			}
			if tt.tp != "" {
				want.TPTriggerBy, want.TPOrderType = exchange.TriggerMarket, exchange.Market
			}
			if tt.sl != "" {
				want.SLTriggerBy, want.SLOrderType = exchange.TriggerMarket, exchange.Market
			}
			if g, w := jsonOf(t, so), jsonOf(t, want); g != w {
				t.Fatalf("strategy order\n got %s\nwant %s", g, w)
			}
			if so.Type() != exchange.StrategyTPSL || so.OrderID == "" {
				t.Fatalf("type %s, id %q: want a tpsl order with an id", so.Type(), so.OrderID)
			}
			typed, err := a.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: exchange.CategoryUSDTFutures, Type: exchange.StrategyTrigger})
			simtest.Must(t, err)
			if len(typed) != 0 {
				t.Fatalf("type trigger lists the tpsl order: %+v", typed)
			}

			vc.Advance(tt.until)
			left := strategyOrders(t, a)
			src, state := lastOrderSource(t, a)
			pos := btcPosition(t, a, tt.hold)
			if tt.fired {
				if len(left) != 0 || src != tt.source || state != exchange.StateFilled || pos != "0" {
					t.Fatalf("after %s: strategy orders %+v, last order %s %s, position %s; want it triggered by %s, filled, position closed", tt.until, left, src, state, pos, tt.source)
				}
				return
			}
			if len(left) != 1 || pos != "0.01" || src == exchange.OSPosLossMarket || src == exchange.OSPosProfitMarket {
				t.Fatalf("after %s: strategy orders %+v, last order %s, position %s; want it still pending", tt.until, left, src, pos)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	simtest.Must(t, err)
	return string(b)
}

// A position's strategy order goes with the position, however it closes.
func TestPositionTPSLGoesWithThePosition(t *testing.T) {
	cases := []struct {
		name  string
		close func(t *testing.T, a *sim.Account)
		// hold is the side left open: a reversal opens a short, without
		// presets, so without a strategy order.
		hold exchange.HoldSide
	}{
		{"close-positions", func(t *testing.T, a *sim.Account) {
			_, err := a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"})
			simtest.Must(t, err)
		}, exchange.Long},
		{"reduced to zero", func(t *testing.T, a *sim.Account) {
			req := simtest.Order("BTCUSDT", exchange.Sell, exchange.Market, "0.01", "")
			req.ReduceOnly = exchange.Yes
			_, err := a.PlaceOrder(ctx, req)
			simtest.Must(t, err)
		}, exchange.Long},
		{"click-backhand", func(t *testing.T, a *sim.Account) {
			_, err := a.ClickBackhand(ctx, exchange.ClickBackhandRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginCoin: "USDT", Side: exchange.Buy})
			simtest.Must(t, err)
		}, exchange.Short},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			x, vc := build(t, noScenarioStrategies)
			a := account(t, x, simtest.OneWayKey)
			req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Market, "0.01", "")
			req.PresetStopLossPrice = "49500"
			_, err := a.PlaceOrder(ctx, req)
			simtest.Must(t, err)
			if n := len(strategyOrders(t, a)); n != 1 {
				t.Fatalf("%d strategy orders after the fill, want 1", n)
			}
			vc.Advance(time.Minute)
			tt.close(t, a)
			if got := strategyOrders(t, a); len(got) != 0 {
				t.Fatalf("strategy orders after the close = %+v, want none", got)
			}
			if tt.hold == exchange.Short && btcPosition(t, a, exchange.Short) != "0.01" {
				t.Fatalf("the reversal left no short")
			}
			// Nothing triggers later either: the price passes 49500 at 15:30.
			vc.Advance(2 * time.Hour)
			if src, _ := lastOrderSource(t, a); src == exchange.OSPosLossMarket {
				t.Fatalf("a removed stop-loss triggered")
			}
		})
	}
}

// Modifying the presets of an unfilled order changes the strategy order
// its fill creates; a later fill with presets replaces the prices.
func TestPositionTPSLFollowsPresets(t *testing.T) {
	x, vc := build(t, noScenarioStrategies)
	a := account(t, x, simtest.OneWayKey)
	req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49800")
	req.PresetStopLossPrice = "49700"
	ack, err := a.PlaceOrder(ctx, req)
	simtest.Must(t, err)
	if n := len(strategyOrders(t, a)); n != 0 {
		t.Fatalf("%d strategy orders before the fill, want none", n)
	}
	_, err = a.ModifyOrder(ctx, exchange.ModifyOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID,
		NewClientOID: "modified", NewPresetStopLossPrice: "49100"})
	simtest.Must(t, err)
	vc.Advance(72 * time.Minute) // 15:12: 49800, the order fills
	got := strategyOrders(t, a)
	if len(got) != 1 || got[0].StopLoss != "49100" || got[0].Qty != "0.01" {
		t.Fatalf("strategy orders after the fill = %+v, want one with the modified stop-loss 49100", got)
	}
	// A second order with other presets fills into the same position.
	vc.Advance(time.Minute)
	more := simtest.Order("BTCUSDT", exchange.Buy, exchange.Market, "0.02", "")
	more.PresetStopSurplusPrice, more.PresetStopLossPrice = "50800", "49200"
	_, err = a.PlaceOrder(ctx, more)
	simtest.Must(t, err)
	got = strategyOrders(t, a)
	if len(got) != 1 || got[0].StopLoss != "49200" || got[0].TakeProfit != "50800" || got[0].Qty != "0.03" || got[0].UpdatedTime == got[0].CreatedTime {
		t.Fatalf("strategy orders after the second fill = %+v, want one for 0.03 at 50800/49200, updated", got)
	}
	vc.Advance(35 * time.Minute) // 15:48: 49200
	if got := strategyOrders(t, a); len(got) != 0 || btcPosition(t, a, exchange.Long) != "0" {
		t.Fatalf("after 49200: strategy orders %+v, position %s; want the stop-loss triggered", got, btcPosition(t, a, exchange.Long))
	}
}

// A trigger with an execute price places a limit order there.
func TestPositionTPSLExecutePrice(t *testing.T) {
	x, vc := build(t, noScenarioStrategies)
	a := account(t, x, simtest.OneWayKey)
	req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Market, "0.01", "")
	req.PresetStopLossPrice, req.PresetStopLossExecutePrice = "49500", "49400"
	_, err := a.PlaceOrder(ctx, req)
	simtest.Must(t, err)
	got := strategyOrders(t, a)
	if len(got) != 1 || got[0].SLOrderType != exchange.Limit || got[0].SLLimitPrice != "49400" {
		t.Fatalf("strategy orders = %+v, want a limit stop-loss at 49400", got)
	}
	vc.Advance(90 * time.Minute)
	// A sell limit at 49400 under the market price 49500 takes at once.
	h, err := a.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"})
	simtest.Must(t, err)
	if len(h.EntrustedList) == 0 || h.EntrustedList[0].OrderSource != exchange.OSPosLossLimit || h.EntrustedList[0].Price != "49400" || h.EntrustedList[0].OrderType != exchange.Limit {
		t.Fatalf("history after the trigger = %+v, want a pos_loss_limit order at 49400 first", h.EntrustedList)
	}
}

// Funding settles at 00:00, 08:00 and 16:00 UTC: rate × value, paid by a
// long and received by a short when the rate is positive. The equity of
// the account differs from the same run without funding by that much,
// whether the clock steps through 16:00 or jumps over it.
func TestFunding(t *testing.T) {
	cases := []struct {
		name  string
		side  exchange.Side
		rate  string
		until time.Duration
		jump  bool
		diff  string // equity with funding − equity without
	}{
		{"long pays at 16:00", exchange.Buy, "0.0001", 2 * time.Hour, false, "-0.49"}, // 0.1 × 49000 × 0.0001
		{"short receives", exchange.Sell, "0.0001", 2 * time.Hour, false, "0.49"},
		{"negative rate: long receives", exchange.Buy, "-0.0002", 2 * time.Hour, false, "0.98"},
		{"clock jumps over 16:00", exchange.Buy, "0.0001", 2 * time.Hour, true, "-0.49"},
		{"not before 16:00", exchange.Buy, "0.0001", 2*time.Hour - time.Second, false, "0"},
		{"16:00 and 00:00", exchange.Buy, "0.0001", 10 * time.Hour, true, "-1"}, // 0.49 + 0.1 × 51000 × 0.0001 = 0.51 (the path holds 51000)
	}
	equity := func(t *testing.T, rate string, side exchange.Side, until time.Duration, jump bool) (string, exchange.Num) {
		x, vc := build(t, func(sc *sim.Scenario) { sc.Settings.FundingRate = dec(rate) })
		a := account(t, x, simtest.OneWayKey)
		_, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", side, exchange.Market, "0.1", ""))
		simtest.Must(t, err)
		if jump {
			vc.Advance(until)
		} else {
			for d := time.Duration(0); d < until; d += 10 * time.Minute {
				vc.Advance(min(10*time.Minute, until-d))
				_, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
				simtest.Must(t, err)
			}
		}
		acc, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		tk, err := a.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		for _, c := range acc {
			if c.MarginCoin == "USDT" {
				return string(c.AccountEquity), tk[0].FundingRate
			}
		}
		t.Fatal("no USDT account")
		return "", ""
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			with, rate := equity(t, tt.rate, tt.side, tt.until, tt.jump)
			without, zero := equity(t, "0", tt.side, tt.until, tt.jump)
			if got := dec(with).Sub(dec(without)); !got.Equal(dec(tt.diff)) {
				t.Fatalf("equity with funding %s, without %s: difference %s, want %s", with, without, got, tt.diff)
			}
			if rate != exchange.Num(dec(tt.rate).String()) || zero != "0" {
				t.Fatalf("ticker fundingRate %q and %q, want %s and 0", rate, zero, tt.rate)
			}
		})
	}
}

// The same scenario and the same calls at the same times give the same
// strategy orders, orders, fills and balances, byte for byte, with
// presets triggering and funding settling on the way.
func TestPositionTPSLAndFundingDeterministic(t *testing.T) {
	run := func() string {
		x, vc := build(t, func(sc *sim.Scenario) {
			noScenarioStrategies(sc)
			sc.Settings.FundingRate = dec("0.0003")
		})
		var out []string
		for _, key := range []string{simtest.OneWayKey, simtest.HedgeKey} {
			a := account(t, x, key)
			for i, side := range []exchange.Side{exchange.Buy, exchange.Sell} {
				req := simtest.Order("BTCUSDT", side, exchange.Market, "0.0"+string(rune('1'+i)), "")
				if key == simtest.HedgeKey {
					req.TradeSide = exchange.Open
				}
				req.PresetStopSurplusPrice, req.PresetStopLossPrice = "50900", "49300"
				if side == exchange.Sell {
					req.PresetStopSurplusPrice, req.PresetStopLossPrice = "49300", "50900"
				}
				_, err := a.PlaceOrder(ctx, req)
				if key == simtest.HedgeKey || i == 0 {
					simtest.Must(t, err)
				}
			}
		}
		for step := 0; step < 12; step++ {
			vc.Advance(20 * time.Minute)
			for _, key := range []string{simtest.OneWayKey, simtest.HedgeKey} {
				a := account(t, x, key)
				so := strategyOrders(t, a)
				h, err := a.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: exchange.USDTFutures})
				simtest.Must(t, err)
				f, err := a.Fills(ctx, exchange.FillsRequest{ProductType: exchange.USDTFutures})
				simtest.Must(t, err)
				acc, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
				simtest.Must(t, err)
				out = append(out, jsonOf(t, []any{so, h, f, acc}))
			}
		}
		return strings.Join(out, "\n")
	}
	first, second := run(), run()
	if first != second {
		t.Fatalf("two runs differ:\n%s\n---\n%s", first, second)
	}
	if !strings.Contains(first, string(exchange.OSPosLossMarket)) || !strings.Contains(first, string(exchange.OSPosProfitMarket)) {
		t.Fatalf("nothing triggered: the comparison exercised nothing")
	}
}
