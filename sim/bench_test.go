package sim_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// BenchmarkPlaceCancel is one place-order and one cancel-order of a resting
// limit order, in-process.
func BenchmarkPlaceCancel(b *testing.B) {
	sc := simtest.Scenario()
	x := simtest.NewRig(b, simtest.RigOptions{Scenario: sc}).Exchange
	a, _ := x.Account(simtest.OneWayKey)
	req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000")
	cancel := exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures}
	b.ReportAllocs()
	for b.Loop() {
		ack, err := a.PlaceOrder(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		cancel.OrderID = ack.OrderID
		if _, err := a.CancelOrder(ctx, cancel); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatch10k rests 10,000 limit buys between 49000.1 and 50000 and
// times the catch-up that fills them all as the path falls to 49000 over
// two hours at a one-second step (7,200 steps).
func BenchmarkMatch10k(b *testing.B) {
	const n = 10000
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		sc := simtest.Scenario()
		sc.Accounts[0].Balances["USDT"] = decimal.NewFromInt(10_000_000)
		x := simtest.NewRig(b, simtest.RigOptions{Scenario: sc}).Exchange
		a, _ := x.Account(simtest.OneWayKey)
		for i := range n {
			price := decimal.NewFromInt(49000).Add(decimal.New(int64(i+1), -1)) // 49000.1 .. 50000.0
			req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.001", price.String())
			if _, err := a.PlaceOrder(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		x.AdvanceTo(sc.Clock.Start.Add(2 * time.Hour))
		b.StopTimer()
		p, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures, Limit: 1})
		if err != nil || len(p.EntrustedList) != 0 {
			b.Fatalf("orders still pending after the path fell through them: %v %d", err, len(p.EntrustedList))
		}
		b.StartTimer()
	}
}

// BenchmarkPollRound is what the backtest's pollers ask at one tick: the
// books of the three stock pairs, the positions and the pending orders, of
// an account with a position and resting orders on the demo scenario.
// same-tick asks again at the same time (every answer can be the previous
// one); next-tick moves the clock one second first (the demo's walks step
// every 10 s, so nine ticks in ten see the same prices).
func BenchmarkPollRound(b *testing.B) {
	for _, tc := range []struct {
		name string
		step time.Duration
	}{{"same-tick", 0}, {"next-tick", time.Second}} {
		b.Run(tc.name, func(b *testing.B) {
			vc, a := pollRig(b, sim.Demo())
			b.ReportAllocs()
			for b.Loop() {
				vc.Advance(tc.step)
				pollRound(b, a)
			}
		})
	}
}

// quietDemo is the demo scenario with the walks' step stretched to 1000
// hours: every tick of a benchmark is a quiet one, on which no price moves.
func quietDemo() *sim.Scenario {
	sc := sim.Demo()
	for sym, p := range sc.Prices {
		if p.RandomWalk != nil {
			w := *p.RandomWalk
			w.Step = 1000 * time.Hour
			p.RandomWalk = &w
			sc.Prices[sym] = p
		}
	}
	return sc
}

// pollRig is the demo account of the poll benchmarks: a held BTCUSDT
// position and two resting limit orders that the path does not reach.
func pollRig(b *testing.B, sc *sim.Scenario) (*clock.Virtual, *sim.Account) {
	b.Helper()
	simRig := simtest.NewRig(b, simtest.RigOptions{Scenario: sc})
	x, vc := simRig.Exchange, simRig.Virtual
	a, _ := x.Account("demo-key")
	for _, req := range []exchange.PlaceOrderRequest{
		simtest.Order("BTCUSDT", exchange.Buy, exchange.Market, "0.01", ""),
		simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "80000"),
		simtest.Order("ETHUSDT", exchange.Sell, exchange.Limit, "0.1", "4000"),
	} {
		if _, err := a.PlaceOrder(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	return vc, a
}

// BenchmarkAnswerVersion is what a backtest's pollers ask on a tick: the
// clock moves one second and the five versioned parts are asked once each.
// quiet-tick never sees a price move; demo-tick is the demo's walks, one
// price step in ten ticks.
func BenchmarkAnswerVersion(b *testing.B) {
	ops := []exchange.Op{exchange.OpStockOrderBook, exchange.OpAllPositions, exchange.OpOrdersPending, exchange.OpStrategyOrders, exchange.OpAccounts}
	for _, tc := range []struct {
		name string
		sc   func() *sim.Scenario
	}{{"quiet-tick", quietDemo}, {"demo-tick", sim.Demo}} {
		b.Run(tc.name, func(b *testing.B) {
			vc, a := pollRig(b, tc.sc())
			b.ReportAllocs()
			for b.Loop() {
				vc.Advance(time.Second)
				for _, op := range ops {
					if _, ok := a.AnswerVersion(ctx, op, ""); !ok {
						b.Fatalf("no version of %s", op)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ops)), "ns/version")
		})
	}
}

// BenchmarkPollRoundQuiet is BenchmarkPollRound's next-tick on ticks where
// no price moves: the part of a backtest's ticks that should cost nothing.
func BenchmarkPollRoundQuiet(b *testing.B) {
	vc, a := pollRig(b, quietDemo())
	b.ReportAllocs()
	for b.Loop() {
		vc.Advance(time.Second)
		pollRound(b, a)
	}
}

// BenchmarkPriceStepAnswers are the answers a price step recomputes, with a
// BTCUSDT position held: every iteration moves the clock by the demo's
// walk step (10 s), so each answer is computed afresh.
func BenchmarkPriceStepAnswers(b *testing.B) {
	for _, tc := range []struct {
		name string
		ask  func(a *sim.Account) error
	}{
		{"AllPositions", func(a *sim.Account) error {
			_, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
			return err
		}},
		{"Accounts", func(a *sim.Account) error {
			_, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
			return err
		}},
		// The books of the three stock pairs in numbers, top only, as a
		// backtest's pollers read them.
		{"StockBookNumbers", func(a *sim.Account) error {
			for _, p := range []string{"TSLAUSDT", "NVDAUSDT", "AAPLUSDT"} {
				if _, err := a.StockBookNumbers(ctx, p); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			vc, a := pollRig(b, sim.Demo())
			b.ReportAllocs()
			for b.Loop() {
				vc.Advance(10 * time.Second)
				if err := tc.ask(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// pollRound asks what a backtest's pollers ask at a tick: the books of
// three stock pairs, the positions and the pending orders.
func pollRound(b *testing.B, a *sim.Account) {
	b.Helper()
	for _, p := range []string{"TSLAUSDT", "NVDAUSDT", "AAPLUSDT"} {
		if _, err := a.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: p}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures}); err != nil {
		b.Fatal(err)
	}
	if _, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures}); err != nil {
		b.Fatal(err)
	}
}
