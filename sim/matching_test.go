package sim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
	"github.com/tickrules/tickrules/sim/simtest"
)

// pollVersions asks what a backtest's pollers ask every tick.
func pollVersions(t *testing.T, a *sim.Account) {
	t.Helper()
	for _, op := range []exchange.Op{exchange.OpAllPositions, exchange.OpOrdersPending, exchange.OpAccounts} {
		if _, ok := a.AnswerVersion(ctx, op, ""); !ok {
			t.Fatalf("no version of %s", op)
		}
	}
}

// TestRestingOrderFillsAtTheCrossingStep: with matching skipped on the
// quiet seconds, a resting limit order on the demo's random walk fills at
// the very second the walk first reaches its price, not a second later, and
// not before.
func TestRestingOrderFillsAtTheCrossingStep(t *testing.T) {
	t.Parallel()
	for _, side := range []exchange.Side{exchange.Buy, exchange.Sell} {
		t.Run(string(side), func(t *testing.T) {
			sc := sim.Demo()
			simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
			x, vc := simRig.Exchange, simRig.Virtual
			a, _ := x.Account("demo-key")
			fresh, err := x.FreshMarket()
			simtest.Must(t, err)
			// The limit is the walk's extreme over two hours: the first
			// second it is reached is the crossing.
			start := sc.Clock.Start
			limit, _ := fresh.PriceAt("BTCUSDT", start)
			for at := start; at.Before(start.Add(2 * time.Hour)); at = at.Add(time.Second) {
				p, _ := fresh.PriceAt("BTCUSDT", at)
				if (side == exchange.Buy && p.LessThan(limit)) || (side == exchange.Sell && p.GreaterThan(limit)) {
					limit = p
				}
			}
			var cross time.Time
			for at := start; cross.IsZero(); at = at.Add(time.Second) {
				if p, _ := fresh.PriceAt("BTCUSDT", at); p.Equal(limit) {
					cross = at
				}
			}
			if cross.Sub(start) < 10*time.Minute {
				t.Fatalf("test setup: the walk reaches its extreme %s at %s, too soon to exercise quiet steps", limit, cross)
			}
			ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", side, exchange.Limit, "0.01", limit.String()))
			simtest.Must(t, err)
			detail := func() exchange.OrderDetail {
				d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
				simtest.Must(t, err)
				return d
			}
			for vc.Now().Before(cross.Add(-time.Second)) {
				vc.Advance(time.Second)
				pollVersions(t, a)
			}
			if d := detail(); d.State != exchange.StateLive {
				t.Fatalf("at %s, a second before the walk reaches %s, the order is %s", vc.Now(), limit, d.State)
			}
			skips := x.MatchSkips()
			if skips < 100 {
				t.Fatalf("only %d matching steps were skipped before the crossing: the test does not exercise the skip", skips)
			}
			vc.Advance(time.Second)
			pollVersions(t, a)
			d := detail()
			if d.State != exchange.StateFilled || d.UTime != exchange.MillisOf(cross) || !d.PriceAvg.MustDecimal().Equal(limit) {
				t.Fatalf("at the crossing %s: order %s at %s updated %s, want filled at %s then", cross, d.State, d.PriceAvg, d.UTime.Time(), limit)
			}
		})
	}
}

// TestMatchSkipWaitsForTheOpen: a stock future's price falls through a
// resting buy on a Saturday, while the contract is closed, and then holds:
// the price epoch does not move again (no other path moves at all), yet
// the order fills the second the contract opens on Monday.
func TestMatchSkipWaitsForTheOpen(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	for sym, p := range sc.Prices {
		if p.RandomWalk != nil {
			w := *p.RandomWalk
			w.VolatilityBps = 0
			p.RandomWalk = &w
			sc.Prices[sym] = p
		}
	}
	start := sc.Clock.Start // Monday 2026-03-09 13:00Z
	saturday := time.Date(2026, 3, 14, 6, 0, 0, 0, time.UTC)
	open := time.Date(2026, 3, 16, 4, 0, 0, 0, time.UTC) // Monday 00:00 in UTC-4
	sc.Prices["TSLAUSDT"] = market.PathSpec{Points: []market.Point{
		{At: start, Price: decimal.RequireFromString("412.35")},
		{At: saturday, Price: decimal.RequireFromString("412.35")},
		{At: saturday.Add(time.Hour), Price: decimal.RequireFromString("390")},
	}}
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, Start: start})
	x, vc := simRig.Exchange, simRig.Virtual
	a, _ := x.Account("demo-key")
	ack, err := a.PlaceOrder(ctx, simtest.Order("TSLAUSDT", exchange.Buy, exchange.Limit, "1", "400"))
	simtest.Must(t, err)
	for vc.Now().Before(open.Add(-time.Second)) {
		vc.Advance(min(time.Minute, open.Add(-time.Second).Sub(vc.Now())))
		pollVersions(t, a)
	}
	d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
	simtest.Must(t, err)
	if d.State != exchange.StateLive {
		t.Fatalf("at %s, while the contract is closed, the order is %s", vc.Now(), d.State)
	}
	vc.Advance(time.Second)
	d, err = a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
	simtest.Must(t, err)
	if d.State != exchange.StateFilled || d.UTime != exchange.MillisOf(open) {
		t.Fatalf("at the open %s: order %s updated %s, want filled then", open, d.State, d.UTime.Time())
	}
}

// TestMatchSkipChangesNothing runs the memo test's random trading twice
// with the same seed, matching every step in one run and skipping the steps
// that cannot fill in the other: every fill, position, balance and pending
// order must be the same at every step.
func TestMatchSkipChangesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sc   func() *sim.Scenario
		keys []string
	}{
		{"demo", sim.Demo, []string{"demo-key", "demo-hedge-key"}},
		{"points", simtest.Scenario, []string{simtest.OneWayKey, simtest.HedgeKey}},
		{"delays", func() *sim.Scenario {
			sc := simtest.Scenario()
			sc.Faults.VisibilityDelay = 3 * time.Second
			sc.Settings.ModifyDelay = 2 * time.Second
			return sc
		}, []string{simtest.OneWayKey, simtest.HedgeKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const steps = 400
			run := func(skip bool) ([]string, uint64, int) {
				sc := tt.sc()
				simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
				x, vc := simRig.Exchange, simRig.Virtual
				x.SetMatchSkip(skip)
				r := &memoRig{t: t, x: x, vc: vc, rng: rand.New(rand.NewPCG(7, uint64(len(tt.name)))), keys: tt.keys, mode: map[string]exchange.PosMode{}, ok: map[string]int{}}
				for _, k := range tt.keys {
					accts, err := r.acct(k).Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
					simtest.Must(t, err)
					r.mode[k] = accts[0].PosMode
				}
				out := make([]string, 0, steps)
				for range steps {
					r.advance()
					r.act(r.keys[r.rng.IntN(len(r.keys))])
					out = append(out, r.transcript())
				}
				return out, x.MatchSkips(), r.ok["fill"]
			}
			every, everySkips, _ := run(false)
			skipped, skips, fills := run(true)
			if everySkips != 0 {
				t.Fatalf("%d steps skipped with the skip off", everySkips)
			}
			if skips == 0 || fills == 0 {
				t.Fatalf("%d steps skipped, %d steps with fills: the test does not exercise the skip", skips, fills)
			}
			for i := range every {
				if every[i] != skipped[i] {
					t.Fatalf("step %d: matching every step gives\n%s\nskipping gives\n%s", i, every[i], skipped[i])
				}
			}
		})
	}
}

// transcript is every account's fills, positions, balances and pending
// orders now, as text.
func (r *memoRig) transcript() string {
	s := ""
	for _, key := range r.keys {
		a := r.acct(key)
		fills, err := a.Fills(ctx, exchange.FillsRequest{ProductType: exchange.USDTFutures, Limit: 100})
		simtest.Must(r.t, err)
		pos, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
		simtest.Must(r.t, err)
		accts, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
		simtest.Must(r.t, err)
		pending, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
		simtest.Must(r.t, err)
		s += fmt.Sprintf("%s fills %+v\npositions %+v\naccounts %+v\npending %+v\n", key, fills.FillList, pos, accts, pending.EntrustedList)
	}
	return s
}
