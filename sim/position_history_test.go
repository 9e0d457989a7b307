package sim_test

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestPositionHistoryRecordsCloses opens and closes a BTCUSDT position and
// reads the history: one record per position closed to zero (a partial
// close writes none), whose netProfit is exactly what the round trip
// changed the account's equity by (P&L, both fees and the funding paid
// while open), filtered by symbol and by the close time.
func TestPositionHistoryRecordsCloses(t *testing.T) {
	cases := []struct {
		name    string
		side    exchange.Side
		funding string
	}{
		{"long, no funding", exchange.Buy, "0"},
		{"short, funding settled while open", exchange.Sell, "0.001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x, vc := build(t, func(sc *sim.Scenario) { sc.Settings.FundingRate = dec(tc.funding) })
			a := account(t, x, simtest.OneWayKey)
			equity := func() string {
				acc, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
				simtest.Must(t, err)
				for _, c := range acc {
					if c.MarginCoin == "USDT" {
						return string(c.AccountEquity)
					}
				}
				t.Fatal("no USDT account")
				return ""
			}
			history := func(req exchange.PositionHistoryRequest) []exchange.HistoryPosition {
				p, err := a.PositionHistory(ctx, req)
				simtest.Must(t, err)
				return p.List
			}
			before := equity()
			opened := x.Now()
			_, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", tc.side, exchange.Market, "0.2", ""))
			simtest.Must(t, err)
			vc.Advance(3 * time.Hour) // over a funding settlement (16:00 UTC)
			closeSide := exchange.Sell
			if tc.side == exchange.Sell {
				closeSide = exchange.Buy
			}
			half := simtest.Order("BTCUSDT", closeSide, exchange.Market, "0.1", "")
			half.ReduceOnly = exchange.Yes
			_, err = a.PlaceOrder(ctx, half)
			simtest.Must(t, err)
			if got := history(exchange.PositionHistoryRequest{}); len(got) != 0 {
				t.Fatalf("after a partial close: %d records, want none", len(got))
			}
			vc.Advance(time.Minute)
			_, err = a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"})
			simtest.Must(t, err)
			closedAt := x.Now()
			after := equity()

			got := history(exchange.PositionHistoryRequest{ProductType: exchange.USDTFutures})
			if len(got) != 1 {
				t.Fatalf("%d records, want 1", len(got))
			}
			h := got[0]
			wantSide := exchange.Long
			if tc.side == exchange.Sell {
				wantSide = exchange.Short
			}
			if h.Symbol != "BTCUSDT" || h.HoldSide != wantSide || h.OpenTotalPos != "0.2" || h.CloseTotalPos != "0.2" {
				t.Errorf("record %+v, want BTCUSDT %s 0.2 opened and closed", h, wantSide)
			}
			if h.CTime != exchange.MillisOf(opened) || h.UTime != exchange.MillisOf(closedAt) {
				t.Errorf("cTime %s uTime %s, want %s and %s", h.CTime, h.UTime, exchange.MillisOf(opened), exchange.MillisOf(closedAt))
			}
			if d := dec(after).Sub(dec(before)); !dec(string(h.NetProfit)).Equal(d) {
				t.Errorf("netProfit %s, equity moved %s (%s to %s)", h.NetProfit, d, before, after)
			}
			sum := dec(string(h.Pnl)).Add(dec(string(h.OpenFee))).Add(dec(string(h.CloseFee))).Add(dec(string(h.TotalFunding)))
			if !sum.Equal(dec(string(h.NetProfit))) {
				t.Errorf("pnl+fees+funding %s, netProfit %s", sum, h.NetProfit)
			}
			if !dec(string(h.OpenFee)).IsNegative() || dec(string(h.TotalFunding)).IsZero() != (tc.funding == "0") {
				t.Errorf("openFee %s (want negative), totalFunding %s (funding rate %s)", h.OpenFee, h.TotalFunding, tc.funding)
			}
			if got := history(exchange.PositionHistoryRequest{Symbol: "ETHUSDT"}); len(got) != 0 {
				t.Errorf("symbol ETHUSDT: %d records, want none", len(got))
			}
			if got := history(exchange.PositionHistoryRequest{StartTime: exchange.MillisOf(closedAt.Add(time.Millisecond))}); len(got) != 0 {
				t.Errorf("closed after %s: %d records, want none", closedAt, len(got))
			}
			if _, err := a.PositionHistory(ctx, exchange.PositionHistoryRequest{Limit: 101}); err == nil {
				t.Error("limit 101 accepted, want the venue's maximum 100")
			}
		})
	}
}
