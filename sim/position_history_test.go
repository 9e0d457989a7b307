package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
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

// TestScenarioPositionHistory: the closed positions a scenario gives are
// served by history-position with their P&L worked out from the prices,
// the fees and funding in the net profit, newest first, before the run's
// own closes.
func TestScenarioPositionHistory(t *testing.T) {
	const text = `
clock: {start: 2026-03-09T14:00:00Z}
contracts:
  - {product_type: USDT-FUTURES, symbol: TSLAUSDT, base_coin: TSLA, quote_coin: USDT, price_place: "2", volume_place: "2", min_trade_num: "0.01"}
prices:
  TSLAUSDT: {points: [{at: 2026-03-09T14:00:00Z, price: "250"}]}
accounts:
  - uid: "1"
    api_key: k
    balances: {USDT: "10000"}
    position_history:
      - {symbol: TSLAUSDT, hold_side: short, size: 2, open_price: 250, close_price: 245.5, opened: 2026-03-09T13:00:00Z, closed: 2026-03-09T13:40:00Z, fees: 0.6}
      - {symbol: TSLAUSDT, hold_side: long, size: 4, open_price: 260, close_price: 255, opened: 2026-03-09T12:00:00Z, closed: 2026-03-09T12:30:00Z, fees: 1.2, funding: -0.3}
`
	sc, err := sim.ParseScenario([]byte(text), "history.yaml", ".")
	if err != nil {
		t.Fatal(err)
	}
	x, err := sim.New(sc, sim.Options{Clock: clock.NewVirtual(sc.Clock.Start)})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := x.Account("k")
	page, err := a.PositionHistory(context.Background(), exchange.PositionHistoryRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.List) != 2 {
		t.Fatalf("%d records, want 2", len(page.List))
	}
	newest, oldest := page.List[0], page.List[1]
	if newest.HoldSide != exchange.Short || newest.Pnl != "9" || newest.NetProfit != "8.4" || newest.UTime != exchange.MillisOf(time.Date(2026, 3, 9, 13, 40, 0, 0, time.UTC)) {
		t.Errorf("newest %+v, want the short: pnl 9, net 8.4, closed 13:40", newest)
	}
	if oldest.HoldSide != exchange.Long || oldest.Pnl != "-20" || oldest.NetProfit != "-21.5" || oldest.CloseTotalPos != "4" {
		t.Errorf("oldest %+v, want the long: pnl -20, net -21.5 (fees 1.2, funding -0.3), size 4", oldest)
	}
}
