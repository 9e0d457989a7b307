package marketdata

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// now is Friday 2026-11-20 15:50 Eastern (EST): ten minutes before the
// regular session closes.
var now = time.Date(2026, 11, 20, 20, 50, 0, 0, time.UTC)

func ms(t time.Time) exchange.Millis { return exchange.MillisOf(t) }

func fullInput() BuildInput {
	return BuildInput{
		Now: now,
		Contracts: []ProductContract{
			{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}},
			{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "NVDAUSDT"}},
			{ProductType: exchange.COINFutures, Contract: exchange.Contract{Symbol: "BTCUSD"}},
		},
		Market: &MarketFetch{At: now, Session: SessionInfo{
			Session: "regular", IsOpen: true, MinutesSinceOpen: 380, MinutesToClose: 10,
			Next: "after_hours", NextStart: now.Add(10 * time.Minute),
		}},
		StockInfo: &StockInfoInput{At: now.Add(-time.Minute), Pairs: []exchange.StockInfo{
			{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla", TradingPeriod: []exchange.TradingPeriod{exchange.Regular}, WeekendTradable: exchange.LowerNo},
			{Symbol: "NVDAUSDT", Code: "NVDA", Name: "NVIDIA", TradingPeriod: []exchange.TradingPeriod{exchange.Overnight}, WeekendTradable: exchange.LowerYes},
		}},
		Books: []BookInput{
			{Symbol: "TSLAUSDT", At: now, Book: exchange.StockOrderBook{
				// Deliberately out of order: the builder must not rely on it.
				Bids: []exchange.PriceLevel{{"249.80", "50"}, {"249.90", "30"}, {"249.00", "100"}},
				Asks: []exchange.PriceLevel{{"250.10", "10"}, {"251.00", "100"}, {"250.30", "20"}},
				TS:   ms(now.Add(-2 * time.Second)),
			}},
			{Symbol: "NVDAUSDT", At: now, Book: exchange.StockOrderBook{Bids: []exchange.PriceLevel{{"180", "5"}}}},
		},
		Fills: []FillsInput{{Symbol: "TSLAUSDT", At: now, Fills: []exchange.StockFill{
			{Price: "240.00", Size: "50", TS: ms(now.Add(-6 * time.Minute))}, // outside the 5-minute window
			{Price: "250.00", Size: "2", TS: ms(now.Add(-10 * time.Second))},
			{Price: "249.00", Size: "1", TS: ms(now.Add(-4 * time.Minute))},
		}}},
		Positions: []PositionsInput{{ProductType: exchange.USDTFutures, At: now, Positions: []exchange.Position{{
			Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, Total: "2", Available: "2",
			OpenPriceAvg: "260", MarkPrice: "250", UnrealizedPL: "-20", Leverage: "5", MarginMode: exchange.Crossed,
			PosMode: exchange.HedgeMode, MarginSize: "104", LiquidationPrice: "210", CTime: ms(now.Add(-time.Hour)),
		}}}},
		Orders: []OrdersInput{{ProductType: exchange.USDTFutures, At: now, Orders: []exchange.PendingOrder{
			{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", OrderID: "new", Size: "3", BaseVolume: "1", Price: "238", CTime: ms(now.Add(-time.Minute))}},
			{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", OrderID: "old", Size: "1", Price: "240", CTime: ms(now.Add(-15 * time.Minute))}},
		}}},
		StrategyOrders: []StrategyOrdersInput{{Category: exchange.CategoryUSDTFutures, At: now, Orders: []exchange.StrategyOrder{
			{OrderID: "s1", Symbol: "TSLAUSDT", Qty: "2", PosSide: exchange.Long, StopLoss: "240"},
			{OrderID: "s2", Symbol: "TSLAUSDT", Qty: "2", PosSide: exchange.Long, TrailingStopParams: []exchange.TrailingStopParams{{ActivationPrice: "270", TrailVariance: "0.01"}}},
		}}},
		Balances: []BalancesInput{{ProductType: exchange.USDTFutures, At: now, Accounts: []exchange.Account{
			{MarginCoin: "USDT", Available: "1000", AccountEquity: "1104", PosMode: exchange.HedgeMode},
		}}},
		Tickers: []TickerInput{{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, At: now, Tickers: []exchange.Ticker{
			{Symbol: "TSLAUSDT", LastPr: "230.5", BidPr: "230.49", AskPr: "230.51", MarkPrice: "230.48", IndexPrice: "230.45", FundingRate: "0.0001", Change24h: "-0.02"},
		}}},
		FuturesBooks: []FuturesBookInput{{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, At: now, Book: exchange.MergeDepth{
			Bids: []exchange.PriceLevel{{"230.49", "0.8"}, {"230.40", "2"}, {"229", "50"}},
			Asks: []exchange.PriceLevel{{"230.51", "1.2"}, {"230.60", "3"}},
		}}},
		Discount: &DiscountInput{At: now, Coins: []exchange.DiscountCoin{{Coin: "BTC", List: []exchange.DiscountTier{
			{TierStartValue: "10000", DiscountRate: "0.9"}, {TierStartValue: "0", DiscountRate: "1"},
		}}}},
		// now is 15:50 New York time (EST): today began at 05:00 UTC.
		ClosedTrades: []ClosedTradesInput{{ProductType: exchange.USDTFutures, At: now, Positions: []exchange.HistoryPosition{
			{PositionID: "3", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Short, CloseTotalPos: "1", Pnl: "-12", NetProfit: "-12.5",
				OpenFee: "-0.25", CloseFee: "-0.25", CTime: ms(now.Add(-2 * time.Hour)), UTime: ms(now.Add(-30 * time.Minute))},
			{PositionID: "2", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, CloseTotalPos: "2", Pnl: "7.5", NetProfit: "7.25",
				CTime: ms(time.Date(2026, 11, 20, 4, 0, 0, 0, time.UTC)), UTime: ms(time.Date(2026, 11, 20, 5, 1, 0, 0, time.UTC))},
			{PositionID: "1", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, CloseTotalPos: "2", Pnl: "-3", NetProfit: "-3",
				CTime: ms(time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)), UTime: ms(time.Date(2026, 11, 20, 4, 59, 0, 0, time.UTC))},
		}}},
		SpotRecords: &SpotRecordsInput{At: now, Records: []exchange.SpotRecord{
			{ID: "old", Coin: "USDT", SpotTaxType: "Deposit", Amount: "500", TS: ms(now.Add(-2 * time.Hour))},
			{ID: "new", Coin: "USDT", SpotTaxType: "Withdrawal", Amount: "-50", TS: ms(now.Add(-30 * time.Minute))},
		}},
	}
}

func build(t *testing.T, in BuildInput) *State {
	t.Helper()
	s, err := NewState(in, BuildOptions{})
	if err != nil {
		t.Fatalf("NewState: %v", err)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestStockDerivedValues pins the values computed once per State.
func TestStockDerivedValues(t *testing.T) {
	s := build(t, fullInput())
	st, err := s.Stock("TSLA", NeedInfo|NeedBook|NeedTrades|NeedLastTrade|NeedWindowTrades|NeedMarket)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"bid", st.Bid, 249.90},
		{"ask", st.Ask, 250.10},
		{"mid", st.Mid, 250.0},
		{"spread", st.Spread, 0.2},
		{"spread_bps", st.SpreadBps, 8.0},
		{"bid_size", st.BidSize, 30},
		{"ask_size", st.AskSize, 10},
		{"imbalance", st.Imbalance, 0.5},
		{"book_age_seconds", st.BookAgeSeconds, 2},
		{"last_price", st.LastPrice, 250},
		{"last_trade_age_seconds", st.LastTradeAgeSeconds, 10},
		{"volume", st.Volume, 3},
		{"trades_count", float64(st.TradesCount), 2},
		{"vwap", st.VWAP, (250.0*2 + 249.0) / 3},
		{"depth_bid(10)", st.DepthBid(10), 80},
		{"depth_ask(10)", st.DepthAsk(10), 10},
		{"depth_ask(20)", st.DepthAsk(20), 30},
		{"depth_bid(1000)", st.DepthBid(1000), 180},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !near(c.got, c.want) {
				t.Errorf("got %.12g, want %.12g", c.got, c.want)
			}
		})
	}
	if st.Symbol != "TSLAUSDT" || st.Code != "TSLA" || st.Name != "Tesla" || !st.TradableNow || st.WeekendTradable {
		t.Errorf("info: %+v", st)
	}
	if byCode, _ := s.Stock("TSLAUSDT", 0); byCode != st {
		t.Error("lookup by pair symbol and by code give different stocks")
	}
}

func TestPositionDerivedValues(t *testing.T) {
	s := build(t, fullInput())
	long, err := s.Position("TSLAUSDT", SideLong, NeedOpen)
	if err != nil {
		t.Fatal(err)
	}
	if !near(long.UnrealizedPnLPct, (250.0-260)/260) || !near(long.ROE, -20.0/104) || long.Size != 2 || !long.IsOpen || long.AgeSeconds != 3600 {
		t.Errorf("long: %+v", long)
	}
	net, err := s.Position("TSLAUSDT", SideNet, NeedOpen)
	if err != nil {
		t.Fatal(err)
	}
	if net.Size != 2 || net.Side != SideNet || !near(net.UnrealizedPnLPct, long.UnrealizedPnLPct) {
		t.Errorf("net: %+v", net)
	}
	// Flat is a value, not missing data...
	short, err := s.Position("TSLAUSDT", SideShort, 0)
	if err != nil || short.Size != 0 || short.IsOpen {
		t.Fatalf("short: %+v, %v", short, err)
	}
	// ...but a flat position has no entry price.
	if _, err := s.Position("TSLAUSDT", SideShort, NeedOpen); !errors.Is(err, ErrMissingData) || !strings.Contains(err.Error(), "flat") {
		t.Errorf("entry price of a flat position: %v", err)
	}
	if again, _ := s.Position("TSLAUSDT", SideShort, 0); again != short {
		t.Error("flat positions are not memoised")
	}
}

func TestPositionSides(t *testing.T) {
	pos := func(side exchange.HoldSide, total, entry, mark exchange.Num) exchange.Position {
		return exchange.Position{Symbol: "X", HoldSide: side, Total: total, OpenPriceAvg: entry, MarkPrice: mark, MarginSize: "10", UnrealizedPL: "1"}
	}
	for _, c := range []struct {
		name     string
		in       []exchange.Position
		side     string
		size     float64
		pct      float64
		hasEntry bool
	}{
		{"one-way short", []exchange.Position{pos(exchange.Short, "3", "100", "90")}, SideShort, 3, 0.1, true},
		{"one-way short seen as long", []exchange.Position{pos(exchange.Short, "3", "100", "90")}, SideLong, 0, 0, false},
		{"one-way short net", []exchange.Position{pos(exchange.Short, "3", "100", "90")}, SideNet, -3, 0.1, true},
		{"hedge both net", []exchange.Position{pos(exchange.Long, "5", "100", "90"), pos(exchange.Short, "2", "95", "90")}, SideNet, 3, 0, false},
		{"hedge both long", []exchange.Position{pos(exchange.Long, "5", "100", "90"), pos(exchange.Short, "2", "95", "90")}, SideLong, 5, -0.1, true},
		{"nothing open", nil, SideNet, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := build(t, BuildInput{Now: now, Contracts: []ProductContract{{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "X"}}},
				Positions: []PositionsInput{{ProductType: exchange.USDTFutures, At: now, Positions: c.in}}})
			p, err := s.Position("X", c.side, 0)
			if err != nil {
				t.Fatal(err)
			}
			if p.Size != c.size {
				t.Errorf("size %g, want %g", p.Size, c.size)
			}
			_, err = s.Position("X", c.side, NeedOpen)
			if (err == nil) != c.hasEntry {
				t.Errorf("open fields available: %v, want %v", err == nil, c.hasEntry)
			}
			if c.hasEntry && !near(p.UnrealizedPnLPct, c.pct) {
				t.Errorf("pnl pct %g, want %g", p.UnrealizedPnLPct, c.pct)
			}
		})
	}
}

// TestMissingDataIsAnError checks the rule that data that was not fetched
// never reads as zero.
func TestMissingDataIsAnError(t *testing.T) {
	full := build(t, fullInput())
	empty := build(t, BuildInput{Now: now})
	for _, c := range []struct {
		name string
		s    *State
		call func(*State) error
		want string // in the message
	}{
		{"stock never fetched", full, func(s *State) error { _, err := s.Stock("AAPL", 0); return err }, "no data for stock AAPL"},
		{"one-sided book", full, func(s *State) error { _, err := s.Stock("NVDA", NeedBook); return err }, "empty side"},
		{"fills not fetched", full, func(s *State) error { _, err := s.Stock("NVDA", NeedTrades); return err }, "fills were not fetched"},
		{"no market", empty, func(s *State) error { _, err := s.Market(0); return err }, "market session was not fetched"},
		{"positions not fetched", empty, func(s *State) error { _, err := s.Position("TSLAUSDT", SideLong, 0); return err }, "not a known futures contract"},
		{"product not fetched", full, func(s *State) error { _, err := s.Position("BTCUSD", SideLong, 0); return err }, "positions of COIN-FUTURES were not fetched"},
		{"unknown contract", full, func(s *State) error { _, err := s.Position("NOPE", SideLong, 0); return err }, "not a known futures contract"},
		{"position list", empty, func(s *State) error { _, err := s.Positions(); return err }, "no positions were fetched"},
		{"orders not fetched", full, func(s *State) error { _, err := s.Orders("BTCUSD"); return err }, "pending orders of COIN-FUTURES"},
		{"strategy not fetched", full, func(s *State) error { _, err := s.StrategyOrders("BTCUSD"); return err }, "coin-futures were not fetched"},
		{"balance", empty, func(s *State) error { _, err := s.Balance("USDT"); return err }, "no accounts were fetched"},
		{"balance coin", full, func(s *State) error { _, err := s.Balance("BTC"); return err }, "no fetched account has this margin coin"},
		{"position mode", full, func(s *State) error { _, err := s.PositionMode(exchange.COINFutures); return err }, "COIN-FUTURES"},
		{"discount", empty, func(s *State) error { _, err := s.DiscountRate("BTC", 1); return err }, "not fetched"},
		{"discount below first tier", full, func(s *State) error { _, err := s.DiscountRate("BTC", -1); return err }, "below the first tier"},
		{"spot records", empty, func(s *State) error { _, err := s.SpotRecords(); return err }, "spot records were not fetched"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call(c.s)
			if !errors.Is(err, ErrMissingData) {
				t.Fatalf("error %v does not wrap ErrMissingData", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestMarket(t *testing.T) {
	s := build(t, fullInput())
	m, err := s.Market(NeedSessionOpen)
	if err != nil {
		t.Fatal(err)
	}
	if m.MinutesToClose != 10 || m.MinutesToNextSession != 10 || m.Session != "regular" {
		t.Errorf("market: %+v", m)
	}
	in := fullInput()
	in.Market.Session = SessionInfo{Session: SessionClosed, IsWeekend: true, Next: "overnight", NextStart: now.Add(90 * time.Minute)}
	closed := build(t, in)
	if _, err := closed.Market(NeedSessionOpen); !errors.Is(err, ErrMissingData) || !strings.Contains(err.Error(), "closed") {
		t.Errorf("minutes to close while closed: %v", err)
	}
	if m, err := closed.Market(NeedNextSession); err != nil || m.MinutesToNextSession != 90 {
		t.Errorf("closed market: %+v, %v", m, err)
	}
	in.Market.Session = SessionInfo{Session: SessionClosed}
	none := build(t, in)
	if _, err := none.Market(NeedNextSession); !errors.Is(err, ErrMissingData) || !strings.Contains(err.Error(), "no next session") {
		t.Errorf("minutes to the next session when none is known: %v", err)
	}
}

func TestTradableNow(t *testing.T) {
	for _, c := range []struct {
		name    string
		session SessionInfo
		periods []exchange.TradingPeriod
		weekend exchange.YesNoLower
		want    bool
	}{
		{"regular pair in regular", SessionInfo{Session: "regular", IsOpen: true}, []exchange.TradingPeriod{exchange.Regular}, exchange.LowerNo, true},
		{"regular pair overnight", SessionInfo{Session: "overnight", IsOpen: true}, []exchange.TradingPeriod{exchange.Regular}, exchange.LowerNo, false},
		{"overnight pair overnight", SessionInfo{Session: "overnight", IsOpen: true}, []exchange.TradingPeriod{exchange.Overnight}, exchange.LowerNo, true},
		{"holiday", SessionInfo{Session: SessionClosed, IsHoliday: true}, []exchange.TradingPeriod{exchange.Regular}, exchange.LowerNo, false},
		{"weekend, not weekend tradable", SessionInfo{Session: SessionClosed, IsWeekend: true}, []exchange.TradingPeriod{exchange.Regular}, exchange.LowerNo, false},
		{"weekend tradable", SessionInfo{Session: SessionClosed, IsWeekend: true}, []exchange.TradingPeriod{exchange.Regular}, exchange.LowerYes, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := build(t, BuildInput{Now: now, Market: &MarketFetch{Session: c.session, At: now},
				StockInfo: &StockInfoInput{At: now, Pairs: []exchange.StockInfo{{Symbol: "XUSDT", Code: "X", TradingPeriod: c.periods, WeekendTradable: c.weekend}}}})
			st, err := s.Stock("X", NeedInfo|NeedMarket)
			if err != nil {
				t.Fatal(err)
			}
			if st.TradableNow != c.want {
				t.Errorf("tradable_now %v, want %v", st.TradableNow, c.want)
			}
		})
	}
	// Without the market session tradable_now is unknown, not false.
	s := build(t, BuildInput{Now: now, StockInfo: &StockInfoInput{At: now, Pairs: []exchange.StockInfo{{Symbol: "XUSDT", Code: "X"}}}})
	if _, err := s.Stock("X", NeedInfo|NeedMarket); !errors.Is(err, ErrMissingData) {
		t.Errorf("tradable_now without market: %v", err)
	}
}

func TestOrdersAndStrategyOrders(t *testing.T) {
	s := build(t, fullInput())
	os, err := s.Orders("TSLAUSDT")
	if err != nil {
		t.Fatal(err)
	}
	if len(os) != 2 || os[0].ID != "old" || os[0].AgeSeconds != 900 || os[1].Remaining != 2 {
		t.Errorf("orders: %+v %+v", os[0], os[1])
	}
	if os, err := s.Orders("NVDAUSDT"); err != nil || len(os) != 0 {
		t.Errorf("fetched symbol without orders: %v, %v", os, err)
	}
	has, err := s.HasStrategyStop("TSLAUSDT", SideLong, true)
	if err != nil || !has {
		t.Errorf("has stop loss long: %v %v", has, err)
	}
	has, err = s.HasStrategyStop("TSLAUSDT", SideShort, true)
	if err != nil || has {
		t.Errorf("has stop loss short: %v %v", has, err)
	}
	has, err = s.HasStrategyStop("TSLAUSDT", "", false)
	if err != nil || has {
		t.Errorf("has take profit: %v %v", has, err)
	}
	so, _ := s.StrategyOrders("TSLAUSDT")
	if len(so) != 2 || so[1].Type != "trailing_stop" || len(so[1].TrailingStop) != 1 || so[1].TrailingStop[0].ActivationPrice != 270 {
		t.Errorf("strategy orders: %+v", so)
	}
}

func TestAccountParts(t *testing.T) {
	s := build(t, fullInput())
	if b, err := s.Balance("USDT"); err != nil || b.Available != 1000 || b.Equity != 1104 {
		t.Errorf("balance: %+v %v", b, err)
	}
	if m, err := s.PositionMode(exchange.USDTFutures); err != nil || m != "hedge_mode" {
		t.Errorf("position mode: %q %v", m, err)
	}
	for _, c := range []struct{ value, rate float64 }{{0, 1}, {9999.99, 1}, {10000, 0.9}, {1e9, 0.9}} {
		if r, err := s.DiscountRate("BTC", c.value); err != nil || r != c.rate {
			t.Errorf("discount rate at %g: %g %v, want %g", c.value, r, err, c.rate)
		}
	}
	recs, err := s.SpotRecords()
	if err != nil || len(recs) != 2 || recs[0].ID != "new" || recs[0].AgeSeconds != 1800 {
		t.Errorf("spot records: %v %v", recs, err)
	}
}

func TestParts(t *testing.T) {
	s := build(t, fullInput())
	for _, p := range Parts() {
		if !s.Fetched(p) {
			t.Errorf("part %s not fetched", p)
		}
	}
	if got := s.Part(PartStockInfo).At; !got.Equal(now.Add(-time.Minute)) {
		t.Errorf("stock info fetched at %v", got)
	}
	empty := build(t, BuildInput{Now: now})
	for _, p := range Parts() {
		if empty.Fetched(p) {
			t.Errorf("part %s fetched in an empty state", p)
		}
	}
	set := PartSet(0).Add(PartMarket).Add(PartStockBook)
	if set.String() != "market,stock_book" || !set.Has(PartMarket) || set.Has(PartOrders) {
		t.Errorf("part set %s", set)
	}
}

// TestInvalidNumbersDropThePart checks that a bad number from the exchange
// removes its part (a partial position list would make symbols look flat)
// and is reported.
func TestInvalidNumbersDropThePart(t *testing.T) {
	in := fullInput()
	in.Positions[0].Positions[0].Total = "2..0"
	in.Books[0].Book.Bids[0][0] = "abc"
	s, err := NewState(in, BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "positions of USDT-FUTURES") || !strings.Contains(err.Error(), "stock TSLAUSDT book") {
		t.Fatalf("error %v", err)
	}
	if _, err := s.Position("TSLAUSDT", SideLong, 0); !errors.Is(err, ErrMissingData) {
		t.Errorf("position after a bad fetch: %v", err)
	}
	if _, err := s.Stock("TSLA", 0); !errors.Is(err, ErrMissingData) {
		t.Errorf("stock after a bad book: %v", err)
	}
	if s.Fetched(PartPositions) {
		t.Error("positions part marked fetched")
	}
}

func TestClockHelpers(t *testing.T) {
	for _, c := range []struct {
		name    string
		at      time.Time
		hhmm    string
		until   float64
		since   float64
		weekday string
	}{
		{"before, EST", now, "15:55", 5, 1435, "Friday"},
		{"just after", now.Add(6 * time.Minute), "15:55", 1439, 1, "Friday"},
		{"exactly", now.Add(5 * time.Minute), "15:55", 0, 0, "Friday"},
		{"with seconds", now.Add(30 * time.Second), "15:55", 4.5, 1435.5, "Friday"},
		{"EDT summer", time.Date(2026, 7, 1, 13, 0, 0, 0, time.UTC), "09:30", 30, 1410, "Wednesday"},
		{"Friday evening is Friday in New York", time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC), "00:00", 120, 1320, "Friday"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := build(t, BuildInput{Now: c.at})
			u, err := s.MinutesUntil(c.hhmm)
			if err != nil || !near(u, c.until) {
				t.Errorf("until %g %v, want %g", u, err, c.until)
			}
			si, err := s.MinutesSince(c.hhmm)
			if err != nil || !near(si, c.since) {
				t.Errorf("since %g %v, want %g", si, err, c.since)
			}
			if s.Weekday() != c.weekday {
				t.Errorf("weekday %s, want %s", s.Weekday(), c.weekday)
			}
		})
	}
	for _, bad := range []string{"3:55", "15:5", "25:00", "15:60", "noon", ""} {
		if _, err := ParseClock(bad); err == nil {
			t.Errorf("ParseClock(%q) accepted", bad)
		}
	}
}

// TestFieldTableMatchesStructs checks that every expr-tagged field is
// documented with a matching type, and every documented field exists.
func TestFieldTableMatchesStructs(t *testing.T) {
	for _, o := range Objects() {
		t.Run(o.Name, func(t *testing.T) {
			tagged := map[string]reflect.Type{}
			gt := o.GoType()
			for i := range gt.NumField() {
				f := gt.Field(i)
				if tag := f.Tag.Get("expr"); tag != "" {
					tagged[tag] = f.Type
				}
			}
			seen := map[string]bool{}
			for _, f := range o.Fields {
				if seen[f.Name] {
					t.Errorf("field %s documented twice", f.Name)
				}
				seen[f.Name] = true
				typ, ok := tagged[f.Name]
				if !ok {
					t.Errorf("documented field %s has no struct field", f.Name)
					continue
				}
				if want := docType(typ); f.Type != want {
					t.Errorf("field %s documented as %q, struct type %s gives %q", f.Name, f.Type, typ, want)
				}
				if f.Doc == "" {
					t.Errorf("field %s has no doc", f.Name)
				}
				if len(f.Values) > 0 && f.Type != "text" && f.Type != "list of text" {
					t.Errorf("field %s of type %s lists values", f.Name, f.Type)
				}
				if f.Type == "number" && f.Unit == "" && f.Name != "trail_variance" && f.Name != "distance" {
					t.Errorf("number field %s has no unit", f.Name)
				}
			}
			for name := range tagged {
				if !seen[name] {
					t.Errorf("struct field %s is not documented", name)
				}
			}
		})
	}
}

// TestFieldRowsRead checks each row's reader against the struct field
// expr's VM reads: it takes the object's Go type and gives that field's
// value, so compiled conditions and the VM read the same. Only that field
// is set, so a reader of any other field gives a zero value instead.
func TestFieldRowsRead(t *testing.T) {
	for _, o := range Objects() {
		t.Run(o.Name, func(t *testing.T) {
			gt := o.GoType()
			for _, f := range o.Fields {
				obj := reflect.New(gt)
				read := reflect.ValueOf(f.Read)
				if read.Kind() != reflect.Func || read.Type().NumIn() != 1 || read.Type().In(0) != obj.Type() || read.Type().NumOut() != 1 {
					t.Errorf("field %s: Read is %T, want a func(%s) of one result", f.Name, f.Read, obj.Type())
					continue
				}
				sf, ok := fieldTagged(gt, f.Name)
				if !ok {
					t.Errorf("field %s: no struct field is tagged expr:%q", f.Name, f.Name)
					continue
				}
				setNonZero(t, obj.Elem().FieldByIndex(sf.Index))
				got := read.Call([]reflect.Value{obj})[0].Interface()
				if want := obj.Elem().FieldByIndex(sf.Index).Interface(); !reflect.DeepEqual(got, want) {
					t.Errorf("field %s: Read gives %v, the struct field %s holds %v", f.Name, got, sf.Name, want)
				}
			}
		})
	}
}

// fieldTagged returns the struct field of t tagged expr:name.
func fieldTagged(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("expr") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// setNonZero sets v to a value other than its type's zero.
func setNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	switch {
	case v.Type() == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Unix(1000, 0)))
	case v.Kind() == reflect.String:
		v.SetString("set")
	case v.Kind() == reflect.Bool:
		v.SetBool(true)
	case v.Kind() == reflect.Float64:
		v.SetFloat(1.5)
	case v.Kind() == reflect.Int:
		v.SetInt(3)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Pointer:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		s.Index(0).Set(reflect.New(v.Type().Elem().Elem()))
		v.Set(s)
	case v.Kind() == reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		setNonZero(t, s.Index(0))
		v.Set(s)
	default:
		t.Fatalf("field of type %s: teach setNonZero to set it", v.Type())
	}
}

func docType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float64, reflect.Int:
		return "number"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true/false"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "list of text"
		}
		for _, o := range Objects() {
			if o.GoType() == t.Elem().Elem() {
				return "list of " + o.Name
			}
		}
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return "time"
		}
	}
	return t.String()
}

// FuzzNewState feeds arbitrary wire numbers into the builder: it must never
// panic, and a number it cannot parse must be reported, not read as zero.
func FuzzNewState(f *testing.F) {
	f.Add("249.9", "30", "250", "2", "-20", "1700000000000")
	f.Add("", "", "", "", "", "")
	f.Add("1e309", "NaN", "-0", "0x10", "Inf", "abc")
	f.Fuzz(func(t *testing.T, price, size, mark, total, pnl, ts string) {
		in := BuildInput{
			Now:   now,
			Books: []BookInput{{Symbol: "X", At: now, Book: exchange.StockOrderBook{Bids: []exchange.PriceLevel{{exchange.Num(price), exchange.Num(size)}}, Asks: []exchange.PriceLevel{{exchange.Num(mark), "1"}}, TS: exchange.Millis(ts)}}},
			Fills: []FillsInput{{Symbol: "X", At: now, Fills: []exchange.StockFill{{Price: exchange.Num(price), Size: exchange.Num(size), TS: exchange.Millis(ts)}}}},
			Positions: []PositionsInput{{ProductType: exchange.USDTFutures, At: now, Positions: []exchange.Position{{
				Symbol: "X", HoldSide: exchange.Long, Total: exchange.Num(total), MarkPrice: exchange.Num(mark), OpenPriceAvg: exchange.Num(price), UnrealizedPL: exchange.Num(pnl), CTime: exchange.Millis(ts),
			}}}},
		}
		s, _ := NewState(in, BuildOptions{})
		if s == nil {
			t.Fatal("nil state")
		}
		if st, err := s.Stock("X", NeedBook); err == nil && math.Abs(st.Mid-(st.Bid+st.Ask)/2) > 1e-9*math.Abs(st.Mid)+1e-300 {
			t.Errorf("mid %g for bid %g ask %g", st.Mid, st.Bid, st.Ask)
		}
		_, _ = s.Position("X", SideNet, NeedOpen)
	})
}

func TestNeedString(t *testing.T) {
	if got := (NeedBook | NeedMarket).String(); got != "the order book was fetched and has both sides; the market session was fetched" {
		t.Errorf("got %q", got)
	}
}

// TestNeedRows checks that every requirement has one row, with words for
// when it is met and when it is not, and the parts that provide it.
func TestNeedRows(t *testing.T) {
	seen := Need(0)
	for _, r := range needRows {
		if r.n == 0 || r.n&(r.n-1) != 0 || seen&r.n != 0 {
			t.Errorf("need %b: a row must name one requirement, once", r.n)
		}
		seen |= r.n
		if r.met == "" || r.reason == "" {
			t.Errorf("need %b has no words", r.n)
		}
	}
	if all := NeedNextSession<<1 - 1; seen != all {
		t.Errorf("the rows cover %b, the requirements are %b", seen, all)
	}
	for _, tc := range []struct {
		name string
		need Need
		want string
	}{
		{"nothing", 0, ""},
		{"the book", NeedBook, "stock_book"},
		{"the trade window and the last fill", NeedWindowTrades | NeedLastTrade, "stock_trades"},
		{"tradable_now's", NeedInfo | NeedMarket, "market,stock_info"},
		{"an open session", NeedSessionOpen, ""},
		{"an open position", NeedOpen, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.need.Parts().String(); got != tc.want {
				t.Errorf("parts %q, want %q", got, tc.want)
			}
		})
	}
}
