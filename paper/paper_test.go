package paper

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestOpenSeedsFromLiveAndKeepsItApart uses the demo simulator as the "live"
// venue: the paper account starts with its position, order and balances,
// and orders on paper never reach it.
func TestOpenSeedsFromLiveAndKeepsItApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sc := sim.Demo()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 90 * time.Minute})
	x, v := simRig.Exchange, simRig.Virtual
	live, _ := x.Account("demo-key")
	if _, err := live.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.5", Side: exchange.Buy, OrderType: exchange.Market, ClientOID: "live-pos"}); err != nil {
		t.Fatal(err)
	}
	if _, err := live.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.1", Price: "1000", Side: exchange.Buy, OrderType: exchange.Limit, ClientOID: "live-bid"}); err != nil {
		t.Fatal(err)
	}
	cat, err := rules.FetchCatalog(ctx, live)
	if err != nil {
		t.Fatal(err)
	}
	acct, prices, err := Open(ctx, live, cat.Contracts, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := prices.Refresh(ctx, []string{"BTCUSDT"}); err != nil {
		t.Fatal(err)
	}

	pos, err := acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil || len(pos) != 1 || pos[0].Symbol != "BTCUSDT" || pos[0].Total != "0.5" {
		t.Fatalf("paper positions %+v, %v", pos, err)
	}
	o, err := acct.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: "live-bid"})
	if err != nil || o.Price != "1000" || o.State != exchange.StateLive {
		t.Fatalf("seeded order %+v, %v", o, err)
	}
	as, err := acct.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
	if err != nil || len(as) == 0 {
		t.Fatalf("paper accounts %+v, %v", as, err)
	}
	if m, err := acct.AccountPositionMode(ctx, exchange.USDTFutures, "BTCUSDT", "USDT"); err != nil || m != exchange.OneWayMode {
		t.Fatalf("paper position mode %q, %v", m, err)
	}

	// A paper order fills at the live price and leaves the live account alone.
	if _, err := acct.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.2", Side: exchange.Buy, OrderType: exchange.Market, ClientOID: "paper-1"}); err != nil {
		t.Fatal(err)
	}
	pos, _ = acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	livePos, _ := live.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if len(pos) != 1 || pos[0].Total != "0.7" || len(livePos) != 1 || livePos[0].Total != "0.5" {
		t.Errorf("after a paper order: paper %+v, live %+v", pos, livePos)
	}
	// Market data still comes from the venue.
	if _, err := acct.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: "TSLAUSDT"}); err != nil {
		t.Errorf("stock book through the paper account: %v", err)
	}
	// The futures book too: the venue's, not the paper market's synthetic
	// one (whose spread is another).
	book := exchange.MergeDepthRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, Limit: "5"}
	got, err := acct.MergeDepth(ctx, book)
	want, wantErr := live.MergeDepth(ctx, book)
	if err != nil || wantErr != nil || len(got.Bids) == 0 || got.Bids[0] != want.Bids[0] || got.Asks[0] != want.Asks[0] {
		t.Errorf("futures book through the paper account %+v, %v; the venue's %+v, %v", got, err, want, wantErr)
	}
}

// TestPaperKeepsOrdersThatRestOnTheExchange: a dry run's stop-loss and
// trigger order rest on the paper account, are what the poller reads into
// the State's strategy orders, and never reach the live venue.
func TestPaperKeepsOrdersThatRestOnTheExchange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sim.Demo(), After: 90 * time.Minute})
	live, _ := simRig.Exchange.Account("demo-key")
	if _, err := live.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.5", Side: exchange.Buy, OrderType: exchange.Market, ClientOID: "live-pos"}); err != nil {
		t.Fatal(err)
	}
	cat, err := rules.FetchCatalog(ctx, live)
	if err != nil {
		t.Fatal(err)
	}
	acct, prices, err := Open(ctx, live, cat.Contracts, simRig.Virtual, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := prices.Refresh(ctx, []string{"BTCUSDT"}); err != nil {
		t.Fatal(err)
	}
	if _, err := acct.PlaceTPSLOrder(ctx, exchange.PlaceTPSLOrderRequest{MarginCoin: "USDT", ProductType: exchange.USDTFutures, Symbol: "BTCUSDT",
		PlanType: exchange.PlanPosLoss, TriggerPrice: "1000", TriggerType: exchange.TriggerMarkPrice, HoldSide: "buy", ClientOID: "paper-sl"}); err != nil {
		t.Fatal(err)
	}
	if _, err := acct.PlacePlanOrder(ctx, exchange.PlacePlanOrderRequest{PlanType: exchange.PlanNormal, Symbol: "BTCUSDT", ProductType: exchange.USDTFutures,
		MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.1", TriggerPrice: "1000000", TriggerType: exchange.TriggerFillPrice, Side: exchange.Buy,
		OrderType: exchange.Market, ClientOID: "paper-trigger"}); err != nil {
		t.Fatal(err)
	}
	seen, err := exchange.PendingPlanStrategyOrders(ctx, acct, exchange.CategoryUSDTFutures)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]exchange.StrategyType{}
	for _, so := range seen {
		own[so.ClientOID] = so.Type()
	}
	if len(seen) != 2 || own["paper-sl"] != exchange.StrategyTPSL || own["paper-trigger"] != exchange.StrategyTrigger {
		t.Errorf("plan orders of the paper account as the State reads them %+v: want paper-sl (tpsl) and paper-trigger (trigger)", seen)
	}
	// The paper account triggers them on the live prices: a stop-loss of
	// the long above today's price closes it at the next step.
	if _, err := acct.PlaceTPSLOrder(ctx, exchange.PlaceTPSLOrderRequest{MarginCoin: "USDT", ProductType: exchange.USDTFutures, Symbol: "BTCUSDT",
		PlanType: exchange.PlanLoss, TriggerPrice: "10000000", TriggerType: exchange.TriggerMarkPrice, HoldSide: "buy", Size: "0.1", ClientOID: "paper-sl-now"}); err != nil {
		t.Fatal(err)
	}
	simRig.Virtual.Advance(time.Minute)
	if err := prices.Refresh(ctx, []string{"BTCUSDT"}); err != nil {
		t.Fatal(err)
	}
	pos, err := acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil || len(pos) != 1 || pos[0].Total != "0.4" {
		t.Errorf("paper position after its stop-loss of 0.1 triggered: %+v, %v; want 0.4 left", pos, err)
	}
	liveAfter, err := live.PlanOrders(ctx, exchange.PlanOrdersRequest{ProductType: exchange.USDTFutures, PlanType: exchange.PlanProfitLoss})
	if err != nil || len(liveAfter.EntrustedList) != 0 {
		t.Errorf("the live venue holds plan orders %+v, %v: the dry run reached it", liveAfter.EntrustedList, err)
	}
}
