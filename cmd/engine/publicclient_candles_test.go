package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPublicClientCandlesAgainstSim runs `engine sim` (the demo, whose clock
// starts now and whose history starts at the scenario's start) on loopback
// and asks it for candles and funding history through the public client
// library, as its users download history: every query must be accepted and
// answer rows of the venue's shape.
func TestPublicClientCandlesAgainstSim(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the public client library check needs Node.js (.ci/run installs it)")
	}
	if _, err := os.Stat(filepath.Join(publicClientDir, "node_modules", "bitget-api", "package.json")); err != nil {
		t.Skipf("the public client library is not installed: run `npm ci --no-audit --no-fund` in cmd/engine/%s", publicClientDir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sim := startEngineSim(t, ctx)
	go func() {
		for sim.lines.Scan() { // keep its stdout drained
		}
	}()
	runCtx, stop := context.WithTimeout(ctx, 60*time.Second)
	defer stop()
	cmd := exec.CommandContext(runCtx, node, "candles.js", sim.url)
	cmd.Dir = publicClientDir
	var scriptErr strings.Builder
	cmd.Stderr = &scriptErr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("candles.js: %v\nstderr: %s\nstdout: %s", err, scriptErr.String(), out)
	}
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
	cancel()
	<-sim.exit
}
