package sim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

func TestDemoLoads(t *testing.T) {
	sc := Demo()
	if len(sc.Accounts) != 2 || len(sc.Contracts) != 7 || len(sc.StockPairs) != 3 {
		t.Fatalf("demo: %d accounts, %d contracts, %d stock pairs", len(sc.Accounts), len(sc.Contracts), len(sc.StockPairs))
	}
	if got := sc.Accounts[0].SpotRecords[0].Coin; got != "USDT" {
		t.Errorf("first spot record coin = %q", got)
	}
	if got := sc.Contracts[0].MinTradeUSDT; got != "5" {
		t.Errorf("min_trade_usdt decoded as %q", got)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "name: x\nclock: {start: 2026-01-01T00:00:00Z}\nbogus: 1\n", "bad.yaml:3: field bogus not found"},
		{"unknown contract key", "clock: {start: 2026-01-01T00:00:00Z}\ncontracts:\n  - {product_type: USDT-FUTURES, symbol: X, price_plac: \"1\"}\n", "bad.yaml:3: unknown key \"price_plac\""},
		{"missing start", "name: x\n", "bad.yaml:1: clock.start is required"},
		{"bad product type", "clock: {start: 2026-01-01T00:00:00Z}\ncontracts:\n  - {product_type: SPOT, symbol: X}\n", "bad.yaml:3: product_type \"SPOT\""},
		{"bad setting", "clock: {start: 2026-01-01T00:00:00Z}\nsettings:\n  one_way_trade_side: maybe\n", "bad.yaml:3: one_way_trade_side must be"},
		{"duplicate key", "clock: {start: 2026-01-01T00:00:00Z}\naccounts:\n  - {uid: \"1\", api_key: k}\n  - {uid: \"2\", api_key: k}\n", "bad.yaml:4: api_key \"k\" is used twice"},
		{"strategy type mismatch", "clock: {start: 2026-01-01T00:00:00Z}\nstrategy_orders:\n  - {type: oco, category: spot, take_profit: \"1\"}\n", "bad.yaml:3: type is oco but the parameters given make a tpsl order"},
		{"closed position after the start", "clock: {start: 2026-01-01T00:00:00Z}\ncontracts:\n  - {product_type: USDT-FUTURES, symbol: BTCUSDT, price_place: \"1\", volume_place: \"3\"}\naccounts:\n  - uid: \"1\"\n    api_key: k\n    position_history:\n      - {symbol: BTCUSDT, hold_side: long, size: 1, open_price: 100, close_price: 90, opened: 2025-12-31T10:00:00Z, closed: 2026-01-01T01:00:00Z}\n",
			"bad.yaml:8: closed is after the scenario's start"},
		{"closed position on an unknown contract", "clock: {start: 2026-01-01T00:00:00Z}\naccounts:\n  - uid: \"1\"\n    api_key: k\n    position_history:\n      - {symbol: XUSDT, hold_side: long, size: 1, open_price: 100, close_price: 90, opened: 2025-12-31T10:00:00Z, closed: 2025-12-31T11:00:00Z}\n",
			"bad.yaml:6: closed position on unknown contract USDT-FUTURES/XUSDT"},
		{"bad spot type", "clock: {start: 2026-01-01T00:00:00Z}\naccounts:\n  - uid: \"1\"\n    api_key: k\n    spot_records:\n      - {coin: USDT, spot_tax_type: Nope, ts: 2026-01-01T00:00:00Z}\n", "bad.yaml:6: spot_tax_type \"Nope\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario([]byte(tt.yaml), "bad.yaml", ".")
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
			if !errors.Is(err, ErrScenario) {
				t.Errorf("error does not match ErrScenario")
			}
		})
	}
}

// TestMarketErrorsNameTheLine: a mistake found when the market is built
// (a calendar date, a price path) names the scenario's file and line, as the
// loader's own checks do (issue 25: engine sim --scenario named neither).
func TestMarketErrorsNameTheLine(t *testing.T) {
	const head = "clock: {start: 2026-03-09T13:00:00Z}\ncontracts:\n  - {symbol: BTCUSDT, product_type: USDT-FUTURES}\nprices:\n  BTCUSDT:\n    points: [{at: 2026-03-09T13:00:00Z, price: \"90000\"}]\n"
	for _, tt := range []struct {
		name, yaml, want string
	}{
		{"closure date", head + "calendar:\n  closures:\n    - {remark: x, start: \"2026-13-01 09:30\", end: \"2026-13-02 09:30\"}\n",
			"bad.yaml:9: sim: market: calendar: closure 0 (x) start"},
		{"regular closure day", head + "calendar:\n  regular_closed:\n    - SATURDAY\n    - SUNDY\n",
			"bad.yaml:10: sim: market: calendar: regular closure day \"SUNDY\""},
		{"early close", head + "calendar:\n  early_closes:\n    - {date: \"2026-11-27\", at: \"1pm\"}\n",
			"bad.yaml:9: sim: market: calendar: early close 0"},
		{"csv file", "clock: {start: 2026-03-09T13:00:00Z}\ncontracts:\n  - {symbol: BTCUSDT, product_type: USDT-FUTURES}\nprices:\n  BTCUSDT:\n    csv: none.csv\n",
			"bad.yaml:6: sim: market: price path BTCUSDT"},
		{"stock pair", head + "stock_pairs:\n  - {symbol: TSLAUSDT, name: Tesla}\n",
			"bad.yaml:8: sim: market: stock pair 0 (TSLAUSDT): symbol and code are required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := ParseScenario([]byte(tt.yaml), "bad.yaml", t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(sc, Options{Clock: clock.NewVirtual(sc.Clock.Start)})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v\nwant it to begin %q", err, tt.want)
			}
		})
	}
}

// stubMarket is a market with one constant price and no book, for tests
// that must not depend on sim/market.
type stubMarket struct{}

func (stubMarket) PriceAt(string, time.Time) (decimal.Decimal, bool) {
	return decimal.NewFromInt(100), true
}
func (stubMarket) Book(string, time.Time, int) (bids, asks []exchange.PriceLevel) {
	return []exchange.PriceLevel{{"99.9", "5"}}, []exchange.PriceLevel{{"100.1", "5"}}
}
func (stubMarket) FuturesOpen(time.Time, bool) bool { return true }
func (stubMarket) StockOrderBook(string, time.Time) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{}, nil
}
func (stubMarket) StockFills(string, time.Time, int) ([]exchange.StockFill, error) { return nil, nil }
func (stubMarket) StockInfo(string) ([]exchange.StockInfo, error)                  { return nil, nil }
func (stubMarket) States(time.Time) []exchange.MarketState                         { return nil }
func (stubMarket) Calendar() exchange.Calendar                                     { return exchange.Calendar{} }

// FuzzParseScenario: no input makes the loader or New panic, and what the
// loader accepts, New builds or rejects with an error.
func FuzzParseScenario(f *testing.F) {
	f.Add(demoYAML)
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.yaml"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("clock: {start: 2026-01-01T00:00:00Z}\ncontracts: [{product_type: USDT-FUTURES, symbol: X, price_place: \"-1\"}]\n"))
	f.Add([]byte("clock: {start: 2026-09-15T14:29:00Z}\ncontracts: [{product_type: USDT-FUTURES, symbol: X}]\nprices:\n  X: {candles: {interval: 1m, rows: [{at: 2026-09-15T14:29:00Z, open: 2, high: 3, low: 1, close: 2}]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data, "fuzz.yaml", ".")
		if err != nil {
			if !errors.Is(err, ErrScenario) {
				t.Fatalf("error does not wrap ErrScenario: %v", err)
			}
			return
		}
		x, err := New(sc, Options{Clock: clock.NewVirtual(sc.Clock.Start), Market: stubMarket{}})
		if err != nil {
			return
		}
		for _, a := range x.Accounts() {
			if _, err := a.AllPositions(context.Background(), exchange.AllPositionsRequest{ProductType: exchange.USDTFutures}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
