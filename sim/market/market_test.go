package market

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

var allPeriods = []exchange.TradingPeriod{exchange.PreMarket, exchange.Regular, exchange.AfterHours, exchange.Overnight}

// testCalendar has the holidays the tests use.
var testCalendar = CalendarSpec{Closures: []ClosureSpec{
	{Remark: "Independence Day (observed)", Start: "2026-07-03 00:00", End: "2026-07-04 00:00"},
	{Remark: "Thanksgiving Day", Start: "2026-11-26 00:00", End: "2026-11-27 00:00"},
	{Remark: "Day after Thanksgiving (early close)", Start: "2026-11-27 13:00", End: "2026-11-28 00:00"},
}}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// testOptions is a scenario over 2026 with a points path, a walk and three
// stock pairs.
func testOptions() Options {
	return Options{
		Start: utc("2026-01-01T00:00:00Z"),
		End:   utc("2027-01-01T00:00:00Z"),
		Paths: map[string]PathSpec{
			"TSLAUSDT": {Points: []Point{
				{At: utc("2026-01-01T00:00:00Z"), Price: dec("250")},
				{At: utc("2026-06-01T00:00:00Z"), Price: dec("300")},
				{At: utc("2026-12-31T00:00:00Z"), Price: dec("275.5")},
			}},
			"BTCUSDT": {RandomWalk: &WalkSpec{Start: dec("60000"), Seed: 42, VolatilityBps: 5}, Tick: dec("0.1")},
			"NVDA":    {RandomWalk: &WalkSpec{Start: dec("120"), Seed: 7, VolatilityBps: 3, Step: 5 * time.Second}},
		},
		StockPairs: []StockPairSpec{
			{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla, Inc.", TradingPeriod: allPeriods},
			{Symbol: "NVDAUSDT", Code: "NVDA", Name: "NVIDIA Corporation", TradingPeriod: []exchange.TradingPeriod{exchange.Regular}, WeekendTradable: true, PricePath: "NVDA"},
		},
		Calendar: testCalendar,
		Ticks:    map[string]decimal.Decimal{"TSLAUSDT": dec("0.01"), "NVDAUSDT": dec("0.001")},
	}
}

func newTestMarket(t testing.TB) *Market {
	t.Helper()
	m, err := New(testOptions())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no path kind", func(o *Options) { o.Paths["X"] = PathSpec{} }, "price path X: set exactly one"},
		{"two path kinds", func(o *Options) {
			o.Paths["X"] = PathSpec{CSV: "a.csv", RandomWalk: &WalkSpec{Start: dec("1")}}
		}, "price path X: set exactly one"},
		{"unsorted points", func(o *Options) {
			o.Paths["X"] = PathSpec{Points: []Point{{At: utc("2026-01-02T00:00:00Z"), Price: dec("1")}, {At: utc("2026-01-01T00:00:00Z"), Price: dec("1")}}}
		}, "point 1: time 2026-01-01T00:00:00Z is not after"},
		{"zero price", func(o *Options) {
			o.Paths["X"] = PathSpec{Points: []Point{{At: utc("2026-01-02T00:00:00Z"), Price: dec("0")}}}
		}, "point 0: price 0 is not positive"},
		{"walk without start price", func(o *Options) { o.Paths["X"] = PathSpec{RandomWalk: &WalkSpec{Seed: 1}} }, "start must be positive"},
		{"walk negative volatility", func(o *Options) {
			o.Paths["X"] = PathSpec{RandomWalk: &WalkSpec{Start: dec("1"), VolatilityBps: -1}}
		}, "volatility_bps"},
		{"walk without scenario start", func(o *Options) { o.Start = time.Time{} }, "the scenario start is required"},
		{"end before start", func(o *Options) { o.End = o.Start.Add(-time.Hour) }, "end"},
		{"negative tick", func(o *Options) {
			o.Paths["X"] = PathSpec{Points: []Point{{At: o.Start, Price: dec("1")}}, Tick: dec("-0.1")}
		}, "tick -0.1 is not positive"},
		{"missing csv", func(o *Options) { o.Paths["X"] = PathSpec{CSV: "testdata/none.csv"} }, "none.csv"},
		{"pair without path", func(o *Options) { o.StockPairs[0].PricePath = "AAPL" }, `stock pair 0 (TSLAUSDT): no price path "AAPL"`},
		{"pair twice", func(o *Options) { o.StockPairs[1].Symbol = "TSLAUSDT" }, "listed twice"},
		{"pair without code", func(o *Options) { o.StockPairs[0].Code = "" }, "code are required"},
		{"bad period", func(o *Options) { o.StockPairs[0].TradingPeriod = []exchange.TradingPeriod{"lunch"} }, `trading period "lunch"`},
		{"bad weekday", func(o *Options) { o.Calendar.RegularClosed = []string{"SATURDAY", "FUNDAY"} }, `"FUNDAY" is not a weekday`},
		{"weekday twice", func(o *Options) { o.Calendar.RegularClosed = []string{"sunday", "SUNDAY"} }, "listed twice"},
		{"bad closure time", func(o *Options) {
			o.Calendar.Closures = []ClosureSpec{{Remark: "x", Start: "2026-07-03", End: "2026-07-04 00:00"}}
		}, `closure 0 (x) start: "2026-07-03" is not YYYY-MM-DD HH:mm`},
		{"early close without a date", func(o *Options) {
			o.Calendar.EarlyCloses = []EarlyCloseSpec{{At: "13:00"}}
		}, `early close 0: date "" and at "13:00" must be YYYY-MM-DD and HH:mm`},
		{"early close after the day", func(o *Options) {
			o.Calendar.EarlyCloses = []EarlyCloseSpec{{Date: "2026-12-24", At: "21:00"}}
		}, "at 21:00 is outside the trading day's sessions"},
		{"closure ends first", func(o *Options) {
			o.Calendar.Closures = []ClosureSpec{{Remark: "x", Start: "2026-07-03 10:00", End: "2026-07-03 10:00"}}
		}, "not after its start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			tt.change(&opts)
			_, err := New(opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestUnknownSymbol(t *testing.T) {
	m := newTestMarket(t)
	at := utc("2026-03-10T15:00:00Z")
	if _, ok := m.PriceAt("DOGEUSDT", at); ok {
		t.Error("PriceAt of an unknown symbol reported ok")
	}
	if b, a := m.Book("DOGEUSDT", at, 10); b != nil || a != nil {
		t.Error("Book of an unknown symbol is not empty")
	}
	if _, ok := m.Tick("DOGEUSDT"); ok {
		t.Error("Tick of an unknown symbol reported ok")
	}
	// BTCUSDT has a path but is not a stock pair.
	for name, call := range map[string]func() error{
		"StockOrderBook": func() error { _, err := m.StockOrderBook("BTCUSDT", at); return err },
		"StockFills":     func() error { _, err := m.StockFills("BTCUSDT", at, 10); return err },
		"StockInfo":      func() error { _, err := m.StockInfo("BTCUSDT"); return err },
		"StockTradable":  func() error { _, err := m.StockTradable("BTCUSDT", at); return err },
	} {
		if err := call(); !errors.Is(err, ErrUnknownSymbol) {
			t.Errorf("%s(BTCUSDT) error = %v, want ErrUnknownSymbol", name, err)
		}
	}
}

func TestStockInfo(t *testing.T) {
	m := newTestMarket(t)
	all, err := m.StockInfo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Symbol != "TSLAUSDT" || all[1].Symbol != "NVDAUSDT" {
		t.Fatalf("StockInfo(\"\") = %+v, want TSLAUSDT then NVDAUSDT", all)
	}
	one, err := m.StockInfo("NVDAUSDT")
	if err != nil {
		t.Fatal(err)
	}
	want := exchange.StockInfo{Symbol: "NVDAUSDT", Code: "NVDA", Name: "NVIDIA Corporation",
		TradingPeriod: []exchange.TradingPeriod{exchange.Regular}, WeekendTradable: exchange.LowerYes}
	if len(one) != 1 || one[0].Symbol != want.Symbol || one[0].Code != want.Code || one[0].Name != want.Name ||
		one[0].WeekendTradable != want.WeekendTradable || len(one[0].TradingPeriod) != 1 || one[0].TradingPeriod[0] != exchange.Regular {
		t.Fatalf("StockInfo(NVDAUSDT) = %+v, want %+v", one, want)
	}
	if all[0].WeekendTradable != exchange.LowerNo {
		t.Errorf("TSLAUSDT weekendTradable = %q, want no", all[0].WeekendTradable)
	}
	// The answer is a copy: changing it does not change the market.
	one[0].TradingPeriod[0] = exchange.Overnight
	again, _ := m.StockInfo("NVDAUSDT")
	if again[0].TradingPeriod[0] != exchange.Regular {
		t.Error("StockInfo shares its tradingPeriod slice with the market")
	}
}
