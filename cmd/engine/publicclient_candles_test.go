package main

import (
	"encoding/json"
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
	out := runPublicClientScript(t, "candles.js")
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
