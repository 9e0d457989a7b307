package main

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestPublicClientCandlesAgainstSim runs `engine sim` (the demo, whose clock
// starts now and whose history starts at the scenario's start) on loopback
// and asks it for candles and funding history through the public client
// library, as its users download history: every query must be accepted and
// answer rows of the venue's shape.
func TestPublicClientCandlesAgainstSim(t *testing.T) {
	t.Parallel()
	out := runPublicClientScript(t, "bitget-api", "candles.js")
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s struct {
			Step string          `json:"step"`
			Code string          `json:"code"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("candles.js line %q: %v", line, err)
		}
		order = append(order, s.Step)
		if s.Code != "00000" {
			t.Errorf("%s answered code %s", s.Step, s.Code)
		}
		if s.Step == "history-fund-rate" {
			var rates []struct{ Symbol, FundingRate, FundingTime string }
			decodeStep(t, s.Data, &rates)
			if len(rates) == 0 || rates[0].Symbol != "BTCUSDT" || rates[0].FundingTime == "" {
				t.Errorf("history-fund-rate %s", s.Data)
			}
			continue
		}
		var rows [][]string // the venue's rows: seven strings
		decodeStep(t, s.Data, &rows)
		if len(rows) == 0 || len(rows[0]) != 7 {
			t.Errorf("%s: %d rows, first %v; want rows of seven strings", s.Step, len(rows), rows)
		}
	}
	want := "candles history-candles history-mark-candles history-index-candles history-fund-rate"
	if strings.Join(order, " ") != want {
		t.Fatalf("steps %v, want %s", order, want)
	}
}

// TestCCXTFetchOHLCVAgainstSim runs ccxt's bitget exchange, pointed at
// `engine sim` on loopback, as a futures user does: it loads the swap
// markets and fetches five minutes of candles. Each of ccxt's rows must be
// the simulator's own answer to the very request ccxt sent: the same time,
// open, high, low, close and volume.
func TestCCXTFetchOHLCVAgainstSim(t *testing.T) {
	t.Parallel()
	// ccxt's hashing dependencies need Node.js 20.19 or later; an older
	// Node (Debian 12 packages 18) fails inside the library, not here.
	if v, err := exec.Command("node", "--version").Output(); err == nil && !nodeAtLeast(string(v), 20, 19) {
		t.Skipf("node %s: ccxt needs 20.19 or later", strings.TrimSpace(string(v)))
	}
	out := runPublicClientScript(t, "ccxt", "ohlcv.js")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("ohlcv.js printed %q, want two lines", out)
	}
	var got struct {
		URL  string      `json:"url"`
		Rows [][]float64 `json:"rows"`
	}
	var venue struct {
		Answer struct {
			Code string     `json:"code"`
			Data [][]string `json:"data"`
		} `json:"answer"`
	}
	decodeStep(t, json.RawMessage(lines[0]), &got)
	decodeStep(t, json.RawMessage(lines[1]), &venue)
	if !strings.Contains(got.URL, "/api/v2/mix/market/candles?") || venue.Answer.Code != "00000" {
		t.Fatalf("ccxt asked %s; the venue answered code %s", got.URL, venue.Answer.Code)
	}
	if len(got.Rows) != 5 || len(venue.Answer.Data) != len(got.Rows) {
		t.Fatalf("ccxt gave %d rows, the venue %d; want 5", len(got.Rows), len(venue.Answer.Data))
	}
	for i, row := range got.Rows {
		v := venue.Answer.Data[i]
		for k, name := range []string{"time", "open", "high", "low", "close", "volume"} {
			want, err := strconv.ParseFloat(v[k], 64)
			if err != nil || len(row) != 6 || row[k] != want {
				t.Errorf("row %d %s: ccxt %v, the venue %q", i, name, row, v)
				break
			}
		}
	}
}

// nodeAtLeast reports whether `node --version` (v20.20.2) is at least
// major.minor.
func nodeAtLeast(version string, major, minor int) bool {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(version), "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	return err1 == nil && err2 == nil && (ma > major || ma == major && mi >= minor)
}

// TestNodeAtLeast reads node --version as ccxt's check needs.
func TestNodeAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{{"v20.20.2\n", true}, {"v20.19.0", true}, {"v20.18.3", false}, {"v18.19.0", false}, {"v22.1.0", true}, {"garbage", false}} {
		if got := nodeAtLeast(tc.v, 20, 19); got != tc.want {
			t.Errorf("nodeAtLeast(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
