package native_test

// The fixtures of the rules package's tests (rules/fixtures_test.go,
// load_test.go, bench_test.go) that the differential tests compare on: a
// test package cannot import another's test files.

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// testNow is a Friday, 15:50 Eastern (standard time): ten minutes before
// the regular session closes.
var testNow = time.Date(2026, 11, 20, 20, 50, 0, 0, time.UTC)

func testCatalog() *rules.Catalog {
	return rules.NewCatalog(
		[]marketdata.ProductContract{
			{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}},
			{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "NVDAUSDT"}},
			{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "BTCUSDT"}},
			{ProductType: exchange.COINFutures, Contract: exchange.Contract{Symbol: "BTCUSD"}},
		},
		[]exchange.StockInfo{
			{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla", TradingPeriod: []exchange.TradingPeriod{exchange.PreMarket, exchange.Regular, exchange.AfterHours}, WeekendTradable: exchange.LowerNo},
			{Symbol: "NVDAUSDT", Code: "NVDA", Name: "NVIDIA", TradingPeriod: []exchange.TradingPeriod{exchange.Regular, exchange.Overnight}, WeekendTradable: exchange.LowerYes},
		},
	)
}

func ms(t time.Time) exchange.Millis { return exchange.MillisOf(t) }

// testInput is a full poll at testNow: TSLA with info, book and fills, NVDA
// with info and book only, a long TSLAUSDT position, two pending orders,
// a stop-loss strategy order, balances, discount tiers and spot records.
func testInput() marketdata.BuildInput {
	cat := testCatalog()
	return marketdata.BuildInput{
		Now:       testNow,
		Contracts: cat.Contracts,
		Market: &marketdata.MarketFetch{At: testNow, Session: marketdata.SessionInfo{
			Session: "regular", IsOpen: true, MinutesSinceOpen: 380, MinutesToClose: 10,
			Next: "after_hours", NextStart: testNow.Add(10 * time.Minute),
		}},
		StockInfo: &marketdata.StockInfoInput{Pairs: cat.StockPairs, At: testNow},
		Books: []marketdata.BookInput{
			{Symbol: "TSLAUSDT", At: testNow, Book: exchange.StockOrderBook{
				Bids: []exchange.PriceLevel{{"249.90", "30"}, {"249.80", "50"}, {"249.00", "100"}},
				Asks: []exchange.PriceLevel{{"250.10", "10"}, {"250.30", "20"}, {"251.00", "100"}},
				TS:   ms(testNow.Add(-2 * time.Second)),
			}},
			{Symbol: "NVDAUSDT", At: testNow, Book: exchange.StockOrderBook{
				Bids: []exchange.PriceLevel{{"180.00", "5"}},
				Asks: []exchange.PriceLevel{{"180.20", "15"}},
			}},
		},
		Fills: []marketdata.FillsInput{{Symbol: "TSLAUSDT", At: testNow, Fills: []exchange.StockFill{
			{ExecID: "3", Price: "250.00", Size: "2", Side: exchange.Buy, TS: ms(testNow.Add(-10 * time.Second))},
			{ExecID: "2", Price: "249.00", Size: "1", Side: exchange.Sell, TS: ms(testNow.Add(-4 * time.Minute))},
			{ExecID: "1", Price: "240.00", Size: "50", Side: exchange.Sell, TS: ms(testNow.Add(-6 * time.Minute))},
		}}},
		Positions: []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, At: testNow, Positions: []exchange.Position{{
			Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, Total: "2", Available: "2",
			OpenPriceAvg: "260", MarkPrice: "250", UnrealizedPL: "-20", Leverage: "5", MarginMode: exchange.Crossed,
			PosMode: exchange.HedgeMode, MarginSize: "104", LiquidationPrice: "210", CTime: ms(testNow.Add(-time.Hour)),
		}}}},
		Orders: []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, At: testNow, Orders: []exchange.PendingOrder{
			{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", OrderID: "o1", Size: "1", Price: "240", Side: exchange.Buy, Status: exchange.StateLive, OrderType: exchange.Limit, CTime: ms(testNow.Add(-15 * time.Minute))}},
			{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", OrderID: "o2", Size: "1", Price: "238", Side: exchange.Buy, Status: exchange.StateLive, OrderType: exchange.Limit, CTime: ms(testNow.Add(-time.Minute))}},
		}}},
		StrategyOrders: []marketdata.StrategyOrdersInput{{Category: exchange.CategoryUSDTFutures, At: testNow, Orders: []exchange.StrategyOrder{
			{OrderID: "s1", Symbol: "TSLAUSDT", Qty: "2", PosSide: exchange.Long, StopLoss: "240"},
		}}},
		Balances: []marketdata.BalancesInput{{ProductType: exchange.USDTFutures, At: testNow, Accounts: []exchange.Account{
			{MarginCoin: "USDT", Available: "1000", AccountEquity: "1104", PosMode: exchange.HedgeMode},
		}}},
		Discount: &marketdata.DiscountInput{At: testNow, Coins: []exchange.DiscountCoin{{Coin: "BTC", List: []exchange.DiscountTier{
			{TierStartValue: "0", DiscountRate: "1"}, {TierStartValue: "10000", DiscountRate: "0.9"},
		}}}},
		SpotRecords: &marketdata.SpotRecordsInput{At: testNow, Records: []exchange.SpotRecord{
			{ID: "r1", Coin: "USDT", SpotTaxType: "Deposit", Amount: "500", TS: ms(testNow.Add(-30 * time.Minute))},
		}},
	}
}

func testState(tb testing.TB) *marketdata.State {
	tb.Helper()
	s, err := marketdata.NewState(testInput(), marketdata.BuildOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// testEnv is the environment the test files see.
func testEnv(name string) string {
	switch name {
	case "TICKRULES_TEST_SIZE":
		return "2"
	case "TICKRULES_TEST_SYMBOL":
		return "NVDAUSDT"
	}
	return ""
}

// loadCatalog is the catalog the loader tests check symbols against.
func loadCatalog() *rules.Catalog {
	k := func(sym, base string, pt exchange.ProductType) marketdata.ProductContract {
		// The largest order sizes are the demo scenario's.
		return marketdata.ProductContract{ProductType: pt, Contract: exchange.Contract{Symbol: sym, BaseCoin: base,
			MaxOrderQty: "5000", MaxMarketOrderQty: "1000"}}
	}
	return rules.NewCatalog(
		[]marketdata.ProductContract{
			k("TSLAUSDT", "TSLA", exchange.USDTFutures),
			k("NVDAUSDT", "NVDA", exchange.USDTFutures),
			k("AAPLUSDT", "AAPL", exchange.USDTFutures),
			k("BTCUSDT", "BTC", exchange.USDTFutures),
			k("ETHUSDT", "ETH", exchange.USDTFutures),
			k("BTCUSD", "BTC", exchange.COINFutures),
			k("BTCPERP", "BTC", exchange.USDCFutures),
		},
		[]exchange.StockInfo{
			{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla"},
			{Symbol: "NVDAUSDT", Code: "NVDA", Name: "NVIDIA"},
			{Symbol: "AAPLUSDT", Code: "AAPL", Name: "Apple"},
		},
	)
}

// conditionsForBench returns n distinct, typical conditions over the test
// catalog: what a rule directory of n rules would hold.
func conditionsForBench(n int) []string {
	shapes := []string{
		`market.session == "regular" && market.minutes_to_close <= %d`,
		`stock("TSLA").spread_bps < %d && position("TSLAUSDT", "long").size == 0`,
		`position("TSLAUSDT", "long").unrealized_pnl_pct < -0.0%d`,
		`any(orders("TSLAUSDT"), .age_seconds > %d)`,
		`minutes_until("15:55") <= %d && !market.is_holiday`,
		`stock("NVDA").imbalance > 0.%d || depth_bid("NVDA", 10) > 500`,
		`orders_count("NVDAUSDT") < %d and weekday != "Friday"`,
		`balance("USDT").available > %d && position_mode("USDT-FUTURES") == "hedge_mode"`,
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(shapes[i%len(shapes)], i%9+1)
	}
	return out
}
