package sim_test

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// The conformance scenario starts 2026-03-13 14:00 UTC; BTCUSDT holds 50000
// for an hour, falls linearly to 49000 at 16:00 and rises to 51000 at 17:00.
// A 15:00 hour candle closes at 15:59:59, at 50000 - 1000 × 3599/3600,
// 49000.3 to the tick of 0.1.
var scenarioStart = time.Date(2026, 3, 13, 14, 0, 0, 0, time.UTC)

func TestHistoryCandles(t *testing.T) {
	t.Parallel()
	x, clk := build(t, nil)
	clk.Advance(4*time.Hour + 30*time.Second) // 18:00:30: the 17:59 candle is finished
	pub := x.Public().(exchange.HistoryReader)
	btc := func(g exchange.Granularity, start, end time.Time, limit int) exchange.CandlesRequest {
		r := exchange.CandlesRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, Granularity: g, Limit: limit}
		if !start.IsZero() {
			r.StartTime = exchange.MillisOf(start)
		}
		if !end.IsZero() {
			r.EndTime = exchange.MillisOf(end)
		}
		return r
	}
	tests := []struct {
		name      string
		kind      exchange.CandleKind
		req       exchange.CandlesRequest
		wantRows  int
		wantFirst time.Time
		wantLast  exchange.Candle // compared when TS is set
		wantCode  string
	}{
		{name: "hours from the listing", kind: exchange.KindTrade, req: btc(exchange.Gran1H, time.Time{}, time.Time{}, 200),
			wantRows: 4, wantFirst: scenarioStart,
			wantLast: exchange.Candle{TS: exchange.MillisOf(scenarioStart.Add(3 * time.Hour)), Open: "51000", High: "51000", Low: "51000", Close: "51000", BaseVol: "0", QuoteVol: "0"}},
		{name: "the falling hour", kind: exchange.KindMark, req: btc(exchange.Gran1H, scenarioStart.Add(time.Hour), scenarioStart.Add(time.Hour), 0),
			wantRows: 1, wantFirst: scenarioStart.Add(time.Hour),
			wantLast: exchange.Candle{TS: exchange.MillisOf(scenarioStart.Add(time.Hour)), Open: "50000", High: "50000", Low: "49000.3", Close: "49000.3", BaseVol: "0", QuoteVol: "0"}},
		{name: "only finished minutes, newest 200", kind: exchange.KindIndex, req: btc(exchange.Gran1m, time.Time{}, time.Time{}, 200),
			wantRows: 200, wantFirst: scenarioStart.Add(240*time.Minute - 200*time.Minute)},
		{name: "a window", kind: exchange.KindTrade, req: btc(exchange.Gran1m, scenarioStart.Add(10*time.Minute), scenarioStart.Add(19*time.Minute), 200),
			wantRows: 10, wantFirst: scenarioStart.Add(10 * time.Minute)},
		{name: "limit above 200", kind: exchange.KindTrade, req: btc(exchange.Gran1m, time.Time{}, time.Time{}, 201), wantCode: exchange.CodeParamVerify},
		{name: "a window over 90 days", kind: exchange.KindTrade, req: btc(exchange.Gran1D, scenarioStart, scenarioStart.AddDate(0, 0, 91), 0), wantCode: exchange.CodeSpanTooLarge},
		{name: "unknown symbol", kind: exchange.KindTrade, req: exchange.CandlesRequest{Symbol: "NOPE", ProductType: exchange.USDTFutures, Granularity: exchange.Gran1m}, wantCode: exchange.CodeSymbolInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := pub.HistoryCandles(ctx, tc.kind, tc.req)
			if tc.wantCode != "" {
				simtest.WantCode(t, err, tc.wantCode)
				return
			}
			simtest.Must(t, err)
			if len(rows) != tc.wantRows {
				t.Fatalf("%d rows, want %d", len(rows), tc.wantRows)
			}
			if got := rows[0].TS.Time(); !got.Equal(tc.wantFirst) {
				t.Errorf("first row at %s, want %s", got, tc.wantFirst)
			}
			if tc.wantLast.TS != "" && rows[len(rows)-1] != tc.wantLast {
				t.Errorf("last row %+v, want %+v", rows[len(rows)-1], tc.wantLast)
			}
			for i, c := range rows {
				if c.High.Float() < c.Open.Float() || c.High.Float() < c.Close.Float() || c.Low.Float() > c.Open.Float() || c.Low.Float() > c.Close.Float() {
					t.Fatalf("row %d %+v: high/low do not bound open/close", i, c)
				}
			}
		})
	}
}

func TestHistoryCandleGaps(t *testing.T) {
	t.Parallel()
	sc := simtest.Scenario()
	r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	gap := sim.Window{Start: scenarioStart.Add(30 * time.Minute), End: scenarioStart.Add(45 * time.Minute)}
	x, err := sim.New(sc, sim.Options{Clock: r.Virtual, CandleGaps: []sim.Window{gap}})
	simtest.Must(t, err)
	r.Virtual.Advance(time.Hour)
	rows, err := x.Public().(exchange.HistoryReader).HistoryCandles(ctx, exchange.KindTrade,
		exchange.CandlesRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, Granularity: exchange.Gran1m, Limit: 200})
	simtest.Must(t, err)
	if len(rows) != 45 {
		t.Fatalf("%d rows, want 60 minutes less the 15 of the gap", len(rows))
	}
	for _, c := range rows {
		if gap.Contains(c.TS.Time()) {
			t.Fatalf("a candle at %s inside the gap", c.TS.Time())
		}
	}
}

func TestFundingHistory(t *testing.T) {
	t.Parallel()
	x, clk := build(t, func(sc *sim.Scenario) { sc.Settings.FundingRate = dec("0.0001") })
	clk.Advance(3 * 24 * time.Hour) // 2026-03-16 14:00: settlements from 03-13 16:00 to 03-16 08:00
	pub := x.Public().(exchange.HistoryReader)
	req := exchange.FundingHistoryRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, PageSize: 5}
	var all []exchange.FundingRate
	for page := 1; page <= 4; page++ {
		req.PageNo = page
		rows, err := pub.FundingHistory(ctx, req)
		simtest.Must(t, err)
		all = append(all, rows...)
	}
	if len(all) != 9 {
		t.Fatalf("%d settlements, want 9", len(all))
	}
	if first := all[0].FundingTime.Time(); !first.Equal(time.Date(2026, 3, 16, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("newest settlement at %s", first)
	}
	if last := all[8].FundingTime.Time(); !last.Equal(time.Date(2026, 3, 13, 16, 0, 0, 0, time.UTC)) {
		t.Errorf("oldest settlement at %s", last)
	}
	if all[0].FundingRate != "0.0001" {
		t.Errorf("rate %s, want the scenario's 0.0001", all[0].FundingRate)
	}
	_, err := pub.FundingHistory(ctx, exchange.FundingHistoryRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, PageSize: 101})
	simtest.WantCode(t, err, exchange.CodeParamVerify)
}
