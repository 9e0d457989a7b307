package poll_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
)

// TestPnLTodaySurvivesARestart closes two positions on the simulator, then
// reads pnl_today as a running engine does and as one started afresh does
// (new answers, nothing remembered): both read the venue's position
// history, so both give the same figure, and it is the history's netProfit
// of today's closes plus the open positions' unrealised P&L.
func TestPnLTodaySurvivesARestart(t *testing.T) {
	ctx := context.Background()
	sc := sim.Demo()
	clk := clock.NewVirtual(sc.Clock.Start)
	x, err := sim.New(sc, sim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := x.Account("demo-key")
	if !ok {
		t.Fatal("no demo-key account")
	}
	contracts := []marketdata.ProductContract{
		{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "ETHUSDT"}},
		{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "AAPLUSDT"}},
	}
	roundTrip := func(symbol, size string, side exchange.Side) {
		t.Helper()
		o := exchange.PlaceOrderRequest{Symbol: symbol, ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT",
			Size: exchange.Num(size), Side: side, OrderType: exchange.Market}
		if _, err := a.PlaceOrder(ctx, o); err != nil {
			t.Fatalf("open %s: %v", symbol, err)
		}
		clk.Advance(20 * time.Minute)
		if _, err := a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: symbol}); err != nil {
			t.Fatalf("close %s: %v", symbol, err)
		}
	}
	roundTrip("ETHUSDT", "1.5", exchange.Buy)
	roundTrip("AAPLUSDT", "10", exchange.Sell)
	clk.Advance(time.Minute)

	// pnlToday starts an engine's answers afresh and polls the two parts
	// pnl_today reads.
	pnlToday := func() (decimal.Decimal, *marketdata.State) {
		t.Helper()
		ans := marketdata.NewAnswers(contracts, marketdata.BuildOptions{}, true)
		for _, part := range []marketdata.Part{marketdata.PartClosedTrades, marketdata.PartPositions} {
			task := poll.Task{Part: part, Key: string(exchange.USDTFutures)}
			if err := poll.Fetch(ctx, a, task, clk.Now(), 0, ans, nil); err != nil {
				t.Fatalf("fetch %s: %v", part, err)
			}
		}
		var polled marketdata.PartTimes
		st, err := ans.State(clk.Now(), &polled)
		if err != nil {
			t.Fatal(err)
		}
		p, err := st.PnLToday("USDT")
		if err != nil {
			t.Fatal(err)
		}
		return p, st
	}
	running, st := pnlToday()
	restarted, _ := pnlToday()
	if !running.Equal(restarted) {
		t.Errorf("pnl today %s before the restart, %s after", running, restarted)
	}

	want := decimal.Zero
	page, err := a.PositionHistory(ctx, exchange.PositionHistoryRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.List) != 2 {
		t.Fatalf("%d closed positions, want 2", len(page.List))
	}
	for _, h := range page.List {
		want = want.Add(h.NetProfit.MustDecimal())
	}
	if want.IsZero() {
		t.Fatal("the round trips made exactly 0: the test would not tell a figure from none")
	}
	positions, err := st.Positions()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range positions {
		if p.MarginCoin == "USDT" {
			want = want.Add(decimal.NewFromFloat(p.UnrealizedPnL))
		}
	}
	if !running.Equal(want) {
		t.Errorf("pnl today %s, want the closes' netProfit plus the open positions' unrealised P&L, %s", running, want)
	}
	if n, err := st.ClosesToday("ETHUSDT", false); err != nil || n != 1 {
		t.Errorf("closes today of ETHUSDT: %d, %v; want 1", n, err)
	}
}
