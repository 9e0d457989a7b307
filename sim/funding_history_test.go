package sim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestFundingHistoryAndMarkPath checks a scenario with stored funding and
// a mark path (a backtest on stored history): the settlements are charged
// at their own times (17:30 is off the venue's 8-hour schedule) and rates,
// on the mark price, not at Settings.FundingRate's; the ticker's mark and
// index and the position's mark follow their paths while orders fill at the
// last price.
func TestFundingHistoryAndMarkPath(t *testing.T) {
	start := simtest.Scenario().Clock.Start // 2026-03-13 14:00 UTC
	day := start.Truncate(24 * time.Hour)
	history := map[string][]sim.FundingSettlement{"BTCUSDT": {
		{At: day.Add(16 * time.Hour), Rate: dec("0.0002")},
		{At: day.Add(17*time.Hour + 30*time.Minute), Rate: dec("-0.0001")},
		{At: day.Add(20 * time.Hour), Rate: dec("0.0005")}, // after the run
	}}
	flat := func(p string) market.PathSpec {
		return market.PathSpec{Points: []market.Point{{At: start, Price: dec(p)}}}
	}
	cases := []struct {
		name string
		side exchange.Side
		diff string // equity with the history − equity without
	}{
		// 0.1 × 50000 × 0.0002 paid at 16:00, 0.1 × 50000 × 0.0001 received at 17:30.
		{"long pays, then receives", exchange.Buy, "-0.5"},
		{"short receives, then pays", exchange.Sell, "0.5"},
	}
	run := func(t *testing.T, side exchange.Side, withHistory bool) (equity string, tk exchange.Ticker, pos exchange.Position) {
		x, vc := build(t, func(sc *sim.Scenario) {
			sc.Settings.FundingRate = dec("0.01") // replaced by the history when there is one
			sc.Prices[sim.MarkPathName("BTCUSDT")] = flat("50000")
			sc.Prices[sim.IndexPathName("BTCUSDT")] = flat("49990")
			if withHistory {
				sc.FundingHistory = history
			} else {
				sc.Settings.FundingRate = dec("0")
			}
		})
		a := account(t, x, simtest.OneWayKey)
		_, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", side, exchange.Market, "0.1", ""))
		simtest.Must(t, err)
		for range 4 * 6 { // to 18:00, ten minutes at a time
			vc.Advance(10 * time.Minute)
			_, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
			simtest.Must(t, err)
		}
		acc, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		for _, c := range acc {
			if c.MarginCoin == "USDT" {
				equity = string(c.AccountEquity)
			}
		}
		tks, err := a.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		ps, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures, MarginCoin: "USDT"})
		simtest.Must(t, err)
		if len(ps) != 1 {
			t.Fatalf("%d positions, want 1", len(ps))
		}
		return equity, tks[0], ps[0]
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			with, tk, pos := run(t, tc.side, true)
			without, _, _ := run(t, tc.side, false)
			if got := dec(with).Sub(dec(without)); !got.Equal(dec(tc.diff)) {
				t.Errorf("equity with the history %s, without %s: difference %s, want %s", with, without, got, tc.diff)
			}
			if tk.MarkPrice != "50000" || tk.IndexPrice != "49990" || tk.LastPr == "50000" {
				t.Errorf("ticker last %s, mark %s, index %s; want the mark and index paths' 50000 and 49990 and the last price apart", tk.LastPr, tk.MarkPrice, tk.IndexPrice)
			}
			if pos.MarkPrice != "50000" {
				t.Errorf("position mark %s, want 50000", pos.MarkPrice)
			}
		})
	}
}

// TestFundingHistoryInTheTicker: with stored funding, the ticker's
// fundingRate is the rate of the last settlement at or before now ("0"
// before the first: the settled rate is known only at its time), and the
// funding-history endpoint serves the stored settlements up to now, newest
// first, in pages.
func TestFundingHistoryInTheTicker(t *testing.T) {
	start := simtest.Scenario().Clock.Start // 2026-03-13 14:00 UTC
	day := start.Truncate(24 * time.Hour)
	x, vc := build(t, func(sc *sim.Scenario) {
		sc.Settings.FundingRate = dec("0.01") // replaced by the history
		sc.FundingHistory = map[string][]sim.FundingSettlement{"BTCUSDT": {
			{At: day.Add(8 * time.Hour), Rate: dec("0.0003")},
			{At: day.Add(16 * time.Hour), Rate: dec("0.0002")},
			{At: day.Add(17*time.Hour + 30*time.Minute), Rate: dec("-0.0001")},
		}}
	})
	a := account(t, x, simtest.OneWayKey)
	for _, tc := range []struct {
		at   time.Duration // after the start, 14:00
		rate exchange.Num
		// the funding history's times, newest first
		history []time.Duration
	}{
		{at: 0, rate: "0.0003", history: []time.Duration{8 * time.Hour}},
		{at: 2*time.Hour - time.Second, rate: "0.0003", history: []time.Duration{8 * time.Hour}},
		{at: 2 * time.Hour, rate: "0.0002", history: []time.Duration{16 * time.Hour, 8 * time.Hour}},
		{at: 4 * time.Hour, rate: "-0.0001", history: []time.Duration{17*time.Hour + 30*time.Minute, 16 * time.Hour, 8 * time.Hour}},
	} {
		vc.Set(start.Add(tc.at))
		tks, err := a.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		if tks[0].FundingRate != tc.rate {
			t.Errorf("at 14:00 + %s: fundingRate %s, want %s", tc.at, tks[0].FundingRate, tc.rate)
		}
		var got []time.Duration
		for page := 1; page <= 3; page++ {
			rates, err := a.FundingHistory(ctx, exchange.FundingHistoryRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, PageSize: 2, PageNo: page})
			simtest.Must(t, err)
			for _, r := range rates {
				got = append(got, r.FundingTime.Time().Sub(day))
			}
		}
		if !slices.Equal(got, tc.history) {
			t.Errorf("at 14:00 + %s: history at %v, want %v", tc.at, got, tc.history)
		}
	}
	// Another symbol of the scenario has no stored settlements: 0.
	tks, err := a.Ticker(ctx, exchange.TickerRequest{Symbol: "ETHUSDT", ProductType: exchange.USDTFutures})
	simtest.Must(t, err)
	if tks[0].FundingRate != "0" {
		t.Errorf("ETHUSDT fundingRate %s, want 0", tks[0].FundingRate)
	}
}
