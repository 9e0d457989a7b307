package marketdata

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// TestClosedTradesToday reads fullInput's three closes of TSLAUSDT: at
// 10:20 and 00:01 New York time today, and at 23:59 yesterday, which is
// not today's.
func TestClosedTradesToday(t *testing.T) {
	s := build(t, fullInput())
	trades, err := s.ClosedTrades()
	if err != nil || len(trades) != 3 || trades[0].PositionID != "3" || trades[2].PositionID != "1" {
		t.Fatalf("closed trades %+v, %v; want the three, newest first", trades, err)
	}
	if tr := trades[0]; tr.Side != "short" || !tr.PnL.Equal(decimal.RequireFromString("-12.5")) || !tr.Fees.Equal(decimal.RequireFromString("-0.5")) || tr.Product != exchange.USDTFutures {
		t.Errorf("newest trade %+v", tr)
	}
	if got := s.DayStart(); !got.Equal(time.Date(2026, 11, 20, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("day start %v, want 00:00 EST = 05:00 UTC", got)
	}
	lc, err := s.LastClose("TSLAUSDT")
	if err != nil || lc.Side != "short" || lc.PnL != -12.5 || lc.MinutesAgo != 30 || lc.Size != 1 {
		t.Errorf("last close %+v, %v; want the short closed 30 minutes ago at -12.5", lc, err)
	}
	cases := []struct {
		name   string
		losses bool
		want   int
	}{{"closes today", false, 2}, {"losses today", true, 1}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if n, err := s.ClosesToday("TSLAUSDT", c.losses); err != nil || n != c.want {
				t.Errorf("%d, %v; want %d", n, err, c.want)
			}
		})
	}
	// Never closed: a missing value (false in a condition), not zero.
	if _, err := s.LastClose("NVDAUSDT"); !errors.Is(err, ErrMissingData) {
		t.Errorf("last close of a symbol never closed: %v, want missing data", err)
	}
	if n, err := s.ClosesToday("NVDAUSDT", false); err != nil || n != 0 {
		t.Errorf("closes today of a symbol never closed: %d, %v; want 0", n, err)
	}
	// -12.5 + 7.25 closed today, -20 unrealised now; yesterday's -3 left out.
	pnl, err := s.PnLToday("USDT")
	if err != nil || !pnl.Equal(decimal.RequireFromString("-25.25")) {
		t.Errorf("pnl today %s, %v; want -25.25", pnl, err)
	}
	if p, err := s.PnLTodayProduct(exchange.USDTFutures); err != nil || !p.Equal(pnl) {
		t.Errorf("pnl today of USDT-FUTURES %s, %v; want %s", p, err, pnl)
	}
	if _, err := s.PnLTodayProduct(exchange.COINFutures); !errors.Is(err, ErrMissingData) {
		t.Errorf("pnl today of an unfetched product type: %v, want missing data", err)
	}
	// USDC's positions are USDC-FUTURES', whose history was not fetched:
	// a sum without them would look like a day without losses.
	if p, err := s.PnLToday("USDC"); !errors.Is(err, ErrMissingData) {
		t.Errorf("pnl today in USDC without its history: %s, %v; want missing data", p, err)
	}
	if eq, err := s.EquityDayStart("USDT"); err != nil || !eq.Equal(decimal.RequireFromString("1129.25")) {
		t.Errorf("equity at day start %s, %v; want 1104 - (-25.25) = 1129.25", eq, err)
	}
	empty := build(t, BuildInput{Now: now})
	if _, err := empty.ClosedTrades(); !errors.Is(err, ErrMissingData) {
		t.Errorf("closed trades not fetched: %v, want missing data", err)
	}
}

// TestDayStartFollowsNewYork checks the day boundary against New York's
// clock, daylight saving included: a close one minute before 00:00 there
// is yesterday's, one minute after is today's.
func TestDayStartFollowsNewYork(t *testing.T) {
	cases := []struct {
		name     string
		now      time.Time
		midnight time.Time // 00:00 New York time of now's day, in UTC
	}{
		{"winter (EST, UTC-5)", time.Date(2026, 1, 15, 18, 0, 0, 0, time.UTC), time.Date(2026, 1, 15, 5, 0, 0, 0, time.UTC)},
		{"summer (EDT, UTC-4)", time.Date(2026, 7, 15, 18, 0, 0, 0, time.UTC), time.Date(2026, 7, 15, 4, 0, 0, 0, time.UTC)},
		{"day DST starts (midnight still EST)", time.Date(2026, 3, 8, 18, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC)},
		{"day DST ends (midnight still EDT)", time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC)},
		{"just after midnight", time.Date(2026, 7, 15, 4, 2, 0, 0, time.UTC), time.Date(2026, 7, 15, 4, 0, 0, 0, time.UTC)},
		{"23:58 New York, the UTC date already the next", time.Date(2026, 7, 16, 3, 58, 0, 0, time.UTC), time.Date(2026, 7, 15, 4, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, after := c.midnight.Add(-time.Minute), c.midnight.Add(time.Minute)
			if after.After(c.now) {
				after = c.now
			}
			in := BuildInput{Now: c.now,
				Contracts: []ProductContract{{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}}},
				Positions: []PositionsInput{{ProductType: exchange.USDTFutures, At: c.now}},
				ClosedTrades: []ClosedTradesInput{{ProductType: exchange.USDTFutures, At: c.now, Positions: []exchange.HistoryPosition{
					{PositionID: "2", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, NetProfit: "-4", UTime: ms(after)},
					{PositionID: "1", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, NetProfit: "-100", UTime: ms(before)},
				}}}}
			s := build(t, in)
			if got := s.DayStart(); !got.Equal(c.midnight) {
				t.Errorf("day start %v, want %v", got.UTC(), c.midnight)
			}
			if n, err := s.ClosesToday("TSLAUSDT", true); err != nil || n != 1 {
				t.Errorf("losses today %d, %v; want 1 (the close after midnight)", n, err)
			}
			if p, err := s.PnLToday("USDT"); err != nil || !p.Equal(decimal.NewFromInt(-4)) {
				t.Errorf("pnl today %s, %v; want -4", p, err)
			}
		})
	}
}

// TestClosedTradesBadRecord leaves a fetch with an unreadable record out
// whole: a list missing one loss would undercount today's losses.
func TestClosedTradesBadRecord(t *testing.T) {
	in := fullInput()
	in.ClosedTrades[0].Positions = append(in.ClosedTrades[0].Positions, exchange.HistoryPosition{PositionID: "x", Symbol: "TSLAUSDT", NetProfit: "abc", UTime: ms(now)})
	s, err := NewState(in, BuildOptions{})
	if err == nil {
		t.Error("no error for an unreadable netProfit")
	}
	if s.Fetched(PartClosedTrades) {
		t.Error("the fetch with a bad record counts as fetched")
	}
}

// TestHowClosed finds a close's closing order in the orders history: same
// symbol, an order that reduces that side (one-way: the opposite side;
// hedge: a close of that position side), updated within 3 s of the close,
// the nearest one; and names how it was placed.
func TestHowClosed(t *testing.T) {
	closedAt := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	trade := ClosedTrade{Symbol: "TSLAUSDT", Side: "long", OpenedAt: closedAt.Add(-time.Hour), ClosedAt: closedAt}
	order := func(side exchange.Side, mode exchange.PosMode, pos exchange.PosSide, ts exchange.TradeSide, src exchange.OrderSource,
		entry exchange.EnterPointSource, at time.Time) exchange.HistoryOrder {
		var o exchange.HistoryOrder
		o.Symbol, o.Side, o.PosMode, o.PosSide, o.TradeSide, o.OrderSource, o.EnterPointSource = "TSLAUSDT", side, mode, pos, ts, src, entry
		o.CTime, o.UTime = exchange.MillisOf(at), exchange.MillisOf(at)
		return o
	}
	oneWay := func(side exchange.Side, src exchange.OrderSource, entry exchange.EnterPointSource, at time.Time) exchange.HistoryOrder {
		return order(side, exchange.OneWayMode, exchange.PosNet, exchange.SellSingle, src, entry, at)
	}
	tests := []struct {
		name   string
		orders []exchange.HistoryOrder
		want   string
	}{
		{"no orders", nil, "unknown"},
		{"a rule's market sell", []exchange.HistoryOrder{oneWay(exchange.Sell, exchange.OSMarket, exchange.SourceAPI, closedAt)}, "rule"},
		{"by hand in the app", []exchange.HistoryOrder{oneWay(exchange.Sell, exchange.OSNormal, exchange.SourceIOS, closedAt.Add(time.Second))}, "by hand"},
		{"the position's stop-loss", []exchange.HistoryOrder{oneWay(exchange.Sell, exchange.OSPosLossMarket, exchange.SourceSys, closedAt)}, "stop-loss"},
		{"the nearest in time wins", []exchange.HistoryOrder{
			oneWay(exchange.Sell, exchange.OSPosProfitMarket, exchange.SourceSys, closedAt.Add(-2*time.Second)),
			oneWay(exchange.Sell, exchange.OSLiquidation, exchange.SourceSys, closedAt)}, "liquidation"},
		{"a buy does not close a long", []exchange.HistoryOrder{oneWay(exchange.Buy, exchange.OSMarket, exchange.SourceAPI, closedAt)}, "unknown"},
		{"too far from the close", []exchange.HistoryOrder{oneWay(exchange.Sell, exchange.OSMarket, exchange.SourceAPI, closedAt.Add(-4*time.Second))}, "unknown"},
		{"another symbol", func() []exchange.HistoryOrder {
			o := oneWay(exchange.Sell, exchange.OSMarket, exchange.SourceAPI, closedAt)
			o.Symbol = "NVDAUSDT"
			return []exchange.HistoryOrder{o}
		}(), "unknown"},
		{"hedge: a close of the long", []exchange.HistoryOrder{order(exchange.Buy, exchange.HedgeMode, exchange.PosLong, exchange.Close, exchange.OSMoveMarket, exchange.SourceSys, closedAt)}, "trailing-stop"},
		{"hedge: an open of the short is not a close", []exchange.HistoryOrder{order(exchange.Sell, exchange.HedgeMode, exchange.PosShort, exchange.Open, exchange.OSMarket, exchange.SourceAPI, closedAt)}, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := howClosed(&trade, tt.orders); got != tt.want {
				t.Errorf("howClosed = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHowClosedOnTheVenuesAnswers matches closes against orders as the
// venue writes them: a live capture (a one-way market buy through the
// API, upper case) and the docs' orders-history example (a hedge-mode
// order, lower case), see exchange/testdata/venue/SOURCES.md.
func TestHowClosedOnTheVenuesAnswers(t *testing.T) {
	read := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "exchange", "testdata", "venue", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var live struct{ Data exchange.HistoryOrder }
	read("detail-live-one-way.json", &live)
	var docs struct{ Data exchange.OrderHistoryPage }
	read("orders-history.json", &docs)
	docsOrder := docs.Data.EntrustedList[0]
	docsClose := docsOrder
	docsClose.TradeSide = exchange.Close // the same order, closing the long
	closedAt := func(o exchange.HistoryOrder) time.Time { return o.UTime.Time() }
	tests := []struct {
		name  string
		trade ClosedTrade
		order exchange.HistoryOrder
		want  string
	}{
		{"live: a one-way buy through the API closes a short", ClosedTrade{Symbol: "ETHUSDT", Side: "short", ClosedAt: closedAt(live.Data)}, live.Data, "rule"},
		{"live: it does not close a long", ClosedTrade{Symbol: "ETHUSDT", Side: "long", ClosedAt: closedAt(live.Data)}, live.Data, "unknown"},
		{"docs: a hedge-mode open is not a close", ClosedTrade{Symbol: "ETHUSDT", Side: "long", ClosedAt: closedAt(docsOrder)}, docsOrder, "unknown"},
		{"docs: lower-case symbol and source", ClosedTrade{Symbol: "ETHUSDT", Side: "long", ClosedAt: closedAt(docsClose)}, docsClose, "rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := howClosed(&tt.trade, []exchange.HistoryOrder{tt.order}); got != tt.want {
				t.Errorf("howClosed = %q, want %q (order %+v)", got, tt.want, tt.order)
			}
		})
	}
}
