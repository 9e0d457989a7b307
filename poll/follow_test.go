package poll_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
)

func TestPositionsReduced(t *testing.T) {
	pos := func(symbol string, side exchange.HoldSide, total string) exchange.Position {
		return exchange.Position{Symbol: symbol, HoldSide: side, Total: exchange.Num(total), MarginMode: exchange.Crossed}
	}
	tsla := pos("TSLAUSDT", "long", "2")
	tests := []struct {
		name          string
		before, after []exchange.Position
		want          bool
	}{
		{"nothing held", nil, nil, false},
		{"opened", nil, []exchange.Position{tsla}, false},
		{"the same", []exchange.Position{tsla}, []exchange.Position{tsla}, false},
		{"grown", []exchange.Position{tsla}, []exchange.Position{pos("TSLAUSDT", "long", "3")}, false},
		{"closed", []exchange.Position{tsla}, nil, true},
		{"reduced", []exchange.Position{tsla}, []exchange.Position{pos("TSLAUSDT", "long", "1.5")}, true},
		{"closed, the other side opened", []exchange.Position{tsla}, []exchange.Position{pos("TSLAUSDT", "short", "2")}, true},
		{"another symbol closed", []exchange.Position{tsla, pos("NVDAUSDT", "short", "1")}, []exchange.Position{tsla}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := poll.PositionsReduced(tt.before, tt.after); got != tt.want {
				t.Errorf("PositionsReduced = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPollerFollowsACloseWithTheHistory: the position history is polled
// every 5 s, the positions every second. When the positions show a close,
// the history is read in the same round of polls, so the State of the next
// tick has the close: without it, for up to 5 s the position would be gone
// and no close recorded (a cooldown after a loss would let an entry
// through).
func TestPollerFollowsACloseWithTheHistory(t *testing.T) {
	ctx := context.Background()
	a, clk := demoAccount(t)
	p, err := poll.New(poll.Options{Reader: a, Clock: clk,
		Contracts: []marketdata.ProductContract{{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "ETHUSDT"}}},
		Demand: poll.Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartPositions).Add(marketdata.PartClosedTrades),
			ProductTypes: []exchange.ProductType{exchange.USDTFutures}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Interval(marketdata.PartClosedTrades) != 5*time.Second || p.Interval(marketdata.PartPositions) != time.Second {
		t.Fatalf("intervals: history %s, positions %s", p.Interval(marketdata.PartClosedTrades), p.Interval(marketdata.PartPositions))
	}
	if _, err := a.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "ETHUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed,
		MarginCoin: "USDT", Size: "1", Side: exchange.Buy, OrderType: exchange.Market}); err != nil {
		t.Fatal(err)
	}
	closes := func() int {
		t.Helper()
		if err := p.PollDue(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := p.State(clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		n, err := st.ClosesToday("ETHUSDT", false)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := closes(); n != 0 {
		t.Fatalf("%d closes before any", n)
	}
	clk.Advance(time.Second) // the positions are due, the history is not
	if _, err := a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: "ETHUSDT"}); err != nil {
		t.Fatal(err)
	}
	if n := closes(); n != 1 {
		t.Errorf("after the positions showed the close: %d closes today, want 1 (the history read in the same round)", n)
	}
	// The close went through the API: the orders history read with the
	// position history says a rule (a program with the key) closed it.
	st, err := p.State(clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if lc, err := st.LastClose("ETHUSDT"); err != nil || lc.How != "rule" {
		t.Errorf("last close %+v, %v; want how rule", lc, err)
	}
}

// noOrderHistory is the simulator's account whose orders history fails.
type noOrderHistory struct{ *sim.Account }

func (noOrderHistory) OrderHistory(context.Context, exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error) {
	return exchange.OrderHistoryPage{}, exchange.ErrUnavailable
}

// TestClosesWithoutTheOrdersHistory: when the orders history cannot be
// read, the closes are still there (limits and cooldowns read them), and
// how they closed is unknown.
func TestClosesWithoutTheOrdersHistory(t *testing.T) {
	ctx := context.Background()
	a, clk := demoAccount(t)
	if _, err := a.PlaceOrder(ctx, exchange.PlaceOrderRequest{Symbol: "ETHUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed,
		MarginCoin: "USDT", Size: "1", Side: exchange.Buy, OrderType: exchange.Market}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	if _, err := a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: "ETHUSDT"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		reader poll.Reader
		how    string
	}{{"read", a, "rule"}, {"failing", noOrderHistory{a}, "unknown"}} {
		t.Run(tc.name, func(t *testing.T) {
			ans := marketdata.NewAnswers([]marketdata.ProductContract{{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "ETHUSDT"}}},
				marketdata.BuildOptions{}, true)
			task := poll.Task{Part: marketdata.PartClosedTrades, Key: string(exchange.USDTFutures)}
			if err := poll.Fetch(ctx, tc.reader, task, clk.Now(), 0, ans, nil); err != nil {
				t.Fatalf("the closed trades failed with the orders history: %v", err)
			}
			var polled marketdata.PartTimes
			st, err := ans.State(clk.Now(), &polled)
			if err != nil {
				t.Fatal(err)
			}
			if lc, err := st.LastClose("ETHUSDT"); err != nil || lc.How != tc.how {
				t.Errorf("last close %+v, %v; want how %s", lc, err, tc.how)
			}
		})
	}
}
