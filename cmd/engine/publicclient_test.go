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

// publicClientDir holds the independent public client library of the
// exchange (bitget-api, pinned by package.json and package-lock.json) and
// the script that drives it. .ci/run installs it with npm ci.
const publicClientDir = "testdata/publicclient"

// TestPublicClientLibraryAgainstSim runs `engine sim` on loopback and drives
// it with a public client library of the exchange written by others, through
// place, detail, pending, cancel, positions and fills (and the live venue's
// reality and v3 forms). The library signs, encodes and sends as it does
// against the live venue; every step must be accepted, and the answers must
// carry what the library's users read.
func TestPublicClientLibraryAgainstSim(t *testing.T) {
	t.Parallel()
	out := runPublicClientScript(t, "bitget-api", "drive.js")
	steps := map[string]json.RawMessage{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s struct {
			Step string          `json:"step"`
			Code string          `json:"code"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("drive.js line %q: %v", line, err)
		}
		if s.Code != "00000" {
			t.Errorf("step %s answered code %s", s.Step, s.Code)
		}
		steps[s.Step] = s.Data
		order = append(order, s.Step)
	}
	want := []string{"time", "contracts", "account", "accounts", "ticker", "merge-depth", "place", "detail", "pending", "cancel",
		"place-upper-force", "cancel-upper-force", "market", "positions", "fills",
		"strategy-orders", "reality-orderbook", "reality-fills"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("steps %v, want %v", order, want)
	}

	var ticker []struct {
		Symbol string `json:"symbol"`
		LastPr string `json:"lastPr"`
		BidPr  string `json:"bidPr"`
		TS     string `json:"ts"`
	}
	decodeStep(t, steps["ticker"], &ticker)
	var depth struct {
		Bids [][2]string `json:"bids"`
		Asks [][2]string `json:"asks"`
		TS   string      `json:"ts"`
	}
	decodeStep(t, steps["merge-depth"], &depth)
	// The two answers agree on the best bid when the simulator's price did
	// not move between them: the demo's clock runs, and on a loaded machine
	// the two requests can be a second or more apart.
	if len(ticker) != 1 || ticker[0].Symbol != "BTCUSDT" || ticker[0].LastPr == "" || len(depth.Bids) != 5 || len(depth.Asks) != 5 ||
		ticker[0].TS == depth.TS && depth.Bids[0][0] != ticker[0].BidPr {
		t.Errorf("ticker %s, merge-depth %s: want BTCUSDT's ticker and a 5-level book under its bid", steps["ticker"], steps["merge-depth"])
	}

	const coid = "BITGET#pc+1"
	var ack struct{ OrderID, ClientOID string }
	decodeStep(t, steps["place"], &ack)
	var detail struct {
		OrderID   string `json:"orderId"`
		ClientOID string `json:"clientOid"`
		State     string `json:"state"`
	}
	decodeStep(t, steps["detail"], &detail)
	if ack.ClientOID != coid || detail.OrderID != ack.OrderID || detail.ClientOID != coid || detail.State != "live" {
		t.Errorf("place %+v, detail %+v: want the live order %s", ack, detail, coid)
	}
	var pending struct {
		EntrustedList []struct {
			OrderID string `json:"orderId"`
		} `json:"entrustedList"`
	}
	decodeStep(t, steps["pending"], &pending)
	if len(pending.EntrustedList) != 1 || pending.EntrustedList[0].OrderID != ack.OrderID {
		t.Errorf("pending %s, want order %s", steps["pending"], ack.OrderID)
	}
	var account struct {
		PosMode string `json:"posMode"`
	}
	decodeStep(t, steps["account"], &account)
	if account.PosMode != "one_way_mode" {
		t.Errorf("single account posMode %q, want one_way_mode", account.PosMode)
	}
	var positions []struct {
		Symbol, HoldSide, Total string
	}
	decodeStep(t, steps["positions"], &positions)
	if len(positions) != 1 || positions[0].Symbol != "BTCUSDT" || positions[0].HoldSide != "long" || positions[0].Total != "0.01" {
		t.Errorf("positions %s, want BTCUSDT long 0.01", steps["positions"])
	}
	var fills struct {
		FillList []struct {
			OrderID string `json:"orderId"`
		} `json:"fillList"`
	}
	decodeStep(t, steps["fills"], &fills)
	var market struct{ OrderID string }
	decodeStep(t, steps["market"], &market)
	if len(fills.FillList) == 0 || fills.FillList[0].OrderID != market.OrderID {
		t.Errorf("fills %s, want the market order %s", steps["fills"], market.OrderID)
	}
}

// runPublicClientScript starts engine sim on loopback, runs the script of a
// public client library (lib, installed in publicClientDir) against it,
// stops the simulator and returns what the script printed. It skips when
// Node.js or the library is not installed, and fails on the script's
// failure or an unclean exit of the simulator.
func runPublicClientScript(t *testing.T, lib, script string) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the public client library check needs Node.js (.ci/run installs it)")
	}
	if _, err := os.Stat(filepath.Join(publicClientDir, "node_modules", lib, "package.json")); err != nil {
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
	cmd := exec.CommandContext(runCtx, node, script, sim.url)
	cmd.Dir = publicClientDir
	var scriptErr strings.Builder
	cmd.Stderr = &scriptErr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\nstderr: %s\nstdout: %s\nsim log:\n%s", script, err, scriptErr.String(), out, sim.stderr.String())
	}
	cancel()
	if code := <-sim.exit; code != exitOK {
		t.Errorf("engine sim exit %d; stderr:\n%s", code, sim.stderr.String())
	}
	return out
}

func decodeStep(t *testing.T, raw json.RawMessage, dst any) {
	t.Helper()
	if err := json.Unmarshal(raw, dst); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
