package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/status"
)

// fixedClock stamps every log entry with one time, so console lines can be
// compared byte for byte.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// TestConsoleLogLines compares the console lines a trader reads (times in
// New York beside UTC, orders, fills, the closing summary) with
// testdata/console.golden; go test -update rewrites it.
func TestConsoleLogLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		at   time.Time
	}{
		{"summer", time.Date(2026, 7, 1, 14, 30, 5, 0, time.UTC)}, // EDT
		{"winter", time.Date(2026, 1, 5, 15, 0, 0, 0, time.UTC)},  // EST
	}
	var all syncBuffer
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := &cliEnv{stderr: &all}
			log := newCLILogger(env, zap.WithClock(logClock{fixedClock{tc.at}})).Named("trade")
			logOrder(log, status.OrderRecord{Rule: "buy-the-open-dip", Symbol: "TSLAUSDT", Side: "buy", Intent: "open long",
				Type: "limit", Size: "2", Price: "251.37", ClientOID: "tr-90a45db61312-mmja2og0-0", OrderID: "1201", Outcome: actions.OK})
			logOrder(log, status.OrderRecord{Rule: "cut-losses", Symbol: "BTCUSDT", Side: "sell", Intent: "close long",
				Type: "market", Size: "0.01", ClientOID: "tr-4258035f2566-mmja2og0-0", OrderID: "1202", Outcome: actions.OK})
			logOrder(log, status.OrderRecord{Rule: "buy-eth", Symbol: "ETHUSDT", Side: "buy", Intent: "open long", Type: "market",
				Size: "0.5", ClientOID: "tr-1", Outcome: actions.Blocked, Error: "ETHUSDT: symbol is not in allowed_symbols of the safety file"})
			logOrder(log, status.OrderRecord{Rule: "nvda-ladder", Symbol: "NVDAUSDT", Side: "sell", Intent: "open short", Type: "limit",
				Size: "1", Price: "140.5", ClientOID: "tr-2", Outcome: actions.Failed, Error: "40762: balance not enough"})
			logFill(log, status.FillRecord{At: tc.at.Add(-time.Second), Rule: "cut-losses", Symbol: "BTCUSDT", Side: "sell",
				Size: "0.01", Price: "89925.9", Fee: "0.5395554", Profit: "0.303", OrderID: "1202"})
			logSummary(log.Named("summary"), status.Totals{Firings: 3, Orders: 2, OrdersBlocked: 1, OrdersFailed: 1, Fills: 1},
				[]status.Position{{Symbol: "TSLAUSDT", Side: "long", Size: 2}},
				[]status.Account{{ProductType: "USDT-FUTURES", MarginCoin: "USDT", StartEquity: decimal.RequireFromString("100000"),
					Equity: decimal.RequireFromString("99999.7636264"), Change: decimal.RequireFromString("-0.2363736"),
					Realized: decimal.RequireFromString("0.303"), Fees: decimal.RequireFromString("1.0789")}})
		})
	}
	path := filepath.Join("testdata", "console.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(all.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if all.String() != string(want) {
		t.Errorf("console lines differ from %s (go test -update rewrites it):\n%s", path, all.String())
	}
}

func TestIsTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&syncBuffer{}) {
		t.Error("a file and a buffer are not terminals")
	}
}
