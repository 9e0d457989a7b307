package poll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/poll/polltest"
	"github.com/tickrules/tickrules/sim"
)

// demoAccount is the demo scenario's demo-key account on a simulator at
// the scenario's start, with the simulator's virtual clock.
func demoAccount(t *testing.T) (*sim.Account, *clock.Virtual) {
	t.Helper()
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
	return a, clk
}

// TestPnLTodaySurvivesARestart closes two positions on the simulator, then
// reads pnl_today as a running engine does and as one started afresh does
// (new answers, nothing remembered): both read the venue's position
// history, so both give the same figure, and it is the history's netProfit
// of today's closes plus the open positions' unrealised P&L.
func TestPnLTodaySurvivesARestart(t *testing.T) {
	ctx := context.Background()
	a, clk := demoAccount(t)
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

// pagedHistory is a venue whose position history is pages of the limit,
// newest close first, counting the pages asked for.
type pagedHistory struct {
	*polltest.Reader
	list  []exchange.HistoryPosition
	pages int
}

func (h *pagedHistory) PositionHistory(_ context.Context, req exchange.PositionHistoryRequest) (exchange.PositionHistoryPage, error) {
	h.pages++
	if req.StartTime != "" {
		return exchange.PositionHistoryPage{}, errors.New("startTime sent: the venue may read it as the open time")
	}
	i := 0
	if req.IDLessThan != "" {
		i = slices.IndexFunc(h.list, func(p exchange.HistoryPosition) bool { return p.PositionID == req.IDLessThan }) + 1
	}
	end := min(i+req.Limit, len(h.list))
	page := exchange.PositionHistoryPage{List: h.list[i:end]}
	if end > i {
		page.EndID = h.list[end-1].PositionID
	}
	return page, nil
}

// TestClosedTradesWindow: the poller keeps every close since yesterday
// 00:00 New York time, a position opened a week ago included, and stops
// reading pages at the first older close.
func TestClosedTradesWindow(t *testing.T) {
	now := polltest.Start // 15:50 EDT, Monday 2026-03-09
	at := func(s string) exchange.Millis {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return exchange.MillisOf(tm)
	}
	// Newest close first: a position opened a week ago and closed today,
	// 149 more closes today, one at 00:01 EST yesterday, then 60 older
	// ones from 23:59 the day before: three full pages of 100.
	list := []exchange.HistoryPosition{{PositionID: "p300", Symbol: "TSLAUSDT", CTime: at("2026-03-02T14:00:00Z"), UTime: at("2026-03-09T19:00:00Z"), NetProfit: "-300"}}
	for i := range 149 {
		list = append(list, exchange.HistoryPosition{PositionID: fmt.Sprintf("p%03d", 299-i), Symbol: "TSLAUSDT",
			UTime: exchange.MillisOf(time.Date(2026, 3, 9, 18, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Minute)), NetProfit: "1"})
	}
	list = append(list, exchange.HistoryPosition{PositionID: "p150", Symbol: "TSLAUSDT", UTime: at("2026-03-08T05:01:00Z"), NetProfit: "2"})
	for i := range 149 {
		list = append(list, exchange.HistoryPosition{PositionID: fmt.Sprintf("p%03d", 149-i), Symbol: "TSLAUSDT",
			UTime: exchange.MillisOf(time.Date(2026, 3, 8, 4, 59, 0, 0, time.UTC).Add(-time.Duration(i) * time.Minute)), NetProfit: "-9"})
	}
	h := &pagedHistory{Reader: polltest.NewReader(), list: list}
	ans := marketdata.NewAnswers([]marketdata.ProductContract{{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}}},
		marketdata.BuildOptions{}, true)
	task := poll.Task{Part: marketdata.PartClosedTrades, Key: string(exchange.USDTFutures)}
	if err := poll.Fetch(context.Background(), h, task, now, 0, ans, nil); err != nil {
		t.Fatal(err)
	}
	var polled marketdata.PartTimes
	st, err := ans.State(now, &polled)
	if err != nil {
		t.Fatal(err)
	}
	trades, err := st.ClosedTrades()
	if err != nil {
		t.Fatal(err)
	}
	if len(trades) != 151 || trades[0].PositionID != "p300" || trades[150].PositionID != "p150" {
		t.Errorf("%d closes kept, from %s to %s; want the 151 since 00:00 New York time yesterday, p300 to p150",
			len(trades), trades[0].PositionID, trades[len(trades)-1].PositionID)
	}
	if h.pages != 2 {
		t.Errorf("%d pages read, want 2 (the second holds the first older close)", h.pages)
	}
	if n, err := st.ClosesToday("TSLAUSDT", false); err != nil || n != 150 {
		t.Errorf("closes today %d, %v; want 150, the one opened a week ago among them", n, err)
	}
}
