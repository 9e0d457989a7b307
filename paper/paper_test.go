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
