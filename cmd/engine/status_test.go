package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/status"
)

// TestStatusCommandsReadARunningEngine runs the embedded demo on a loopback
// port and, as soon as it serves, asks it with engine status and engine
// why, as a user in a second terminal would; the engine's closing summary
// ends the log.
func TestStatusCommandsReadARunningEngine(t *testing.T) {
	t.Parallel()
	rules := writeRules(t, `
rules:
  - name: buy-btc
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`)
	var statusOut, whyOut, missingErr, resumeOut string
	var statusCode, whyCode, missingCode, resumeCode int
	var out, errb syncBuffer
	e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		onMetrics: func(addr string) {
			statusCode, statusOut, _ = runCLI(t, "status", "--addr", addr)
			whyCode, whyOut, _ = runCLI(t, "why", "buy-btc", "--addr", addr)
			missingCode, _, missingErr = runCLI(t, "why", "--addr", addr, "no-such-rule")
			resumeCode, resumeOut, _ = runCLI(t, "resume", "--addr", addr)
		}}
	code := dispatch(context.Background(), e, []string{"run", "--rules", rules, "--metrics-addr", "127.0.0.1:0",
		"--tick", "100ms", "--max-runtime", "3s", "--state-dir", t.TempDir(), "--log-format", "json"})
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	if statusCode != exitOK || !strings.Contains(statusOut, "tickrules on embedded demo") || !strings.Contains(statusOut, "buy-btc") ||
		!strings.Contains(statusOut, "USDT-FUTURES USDT") {
		t.Errorf("engine status: exit %d\n%s", statusCode, statusOut)
	}
	if whyCode != exitOK || !strings.HasPrefix(whyOut, "buy-btc: ") || !strings.Contains(whyOut, `when: position("BTCUSDT", "long").size == 0`) {
		t.Errorf("engine why: exit %d\n%s", whyCode, whyOut)
	}
	if missingCode != exitFail || !strings.Contains(missingErr, `no rule named "no-such-rule"`) {
		t.Errorf("engine why no-such-rule: exit %d, %s", missingCode, missingErr)
	}
	if resumeCode != exitOK || resumeOut != "lifted: new orders go again\n" {
		t.Errorf("engine resume: exit %d, %q", resumeCode, resumeOut)
	}
	// The log: the order line, the fill line, the resume and the closing
	// summary.
	var order, fill, stopped, pnl, resumed map[string]any
	for _, line := range strings.Split(errb.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["logger"] == nil {
			continue
		}
		switch {
		case m["logger"] == "trade" && m["msg"] == "order sent":
			order = m
		case m["logger"] == "trade" && m["msg"] == "fill":
			fill = m
		case m["logger"] == "trade.summary" && m["msg"] == "engine stopped":
			stopped = m
		case m["logger"] == "trade.summary" && m["msg"] == "P&L since start" && m["account"] == "USDT-FUTURES USDT":
			pnl = m
		case m["msg"] == "kill switch off and any halt lifted":
			resumed = m
		}
	}
	if by, _ := resumed["by"].(string); !strings.HasPrefix(by, "engine resume or the status page, from 127.0.0.1:") {
		t.Errorf("resume line %v", resumed)
	}
	if order["rule"] != "buy-btc" || order["symbol"] != "BTCUSDT" || order["intent"] != "open long" || order["size"] != "0.01" ||
		order["price"] != "market" || order["side"] != "buy" || order["clientOid"] == "" {
		t.Errorf("order line %v", order)
	}
	if fill["rule"] != "buy-btc" || fill["size"] != "0.01" || fill["symbol"] != "BTCUSDT" {
		t.Errorf("fill line %v", fill)
	}
	if stopped["firings"] != 1.0 || stopped["orders"] != 1.0 || stopped["fills"] != 1.0 {
		t.Errorf("summary line %v", stopped)
	}
	if pnl == nil || pnl["fees"] == "0" {
		t.Errorf("P&L line %v\n%s", pnl, errb.String())
	}
}

func TestStatusCommandWithoutEngine(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, "status", "--addr", "127.0.0.1:1")
	if code != exitFail || !strings.Contains(stderr, "no engine answers at http://127.0.0.1:1/api/status") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "why"); code != exitUsage {
		t.Errorf("engine why without a rule: exit %d", code)
	}
}

// TestResumeCommand lifts a halt held by a guard behind a status API on a
// loopback port, as engine resume does on the engine's machine, and says
// when a kill-switch file still stops new orders.
func TestResumeCommand(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	file := filepath.Join(t.TempDir(), "STOP")
	g := actions.NewGuard(actions.GuardOptions{Safety: &actions.Safety{KillSwitchFile: file}, Now: func() time.Time { return now }})
	core, logs := observer.New(zap.InfoLevel)
	board := status.NewBoard(status.BoardOptions{Engine: noRules{}, Guard: g, Recorder: status.NewRecorder(status.RecorderOptions{}),
		Clock: clock.NewVirtual(now), Resume: func(from string) error { return resumeTrading(g, zap.New(core), "test from "+from) }})
	srv := httptest.NewServer(status.Handler(board))
	defer srv.Close()

	if err := g.Halt(actions.Halt{Rule: "stop-the-day", Reason: "lost 50", At: now}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "resume", "--addr", srv.URL)
	if code != exitOK || out != "lifted: new orders go again\n" {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	if on, why := g.Killed(); on {
		t.Errorf("still halted: %s", why)
	}
	if logs.FilterMessage("kill switch off and any halt lifted").Len() != 1 {
		t.Errorf("log %v", logs.All())
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "resume", "--addr", srv.URL)
	if code != exitFail || !strings.Contains(out, "lifted; new orders are still stopped: kill switch file "+file+" exists") {
		t.Errorf("with a kill-switch file: exit %d, %q", code, out)
	}
	if code, _, errOut := runCLI(t, "resume", "--addr", "127.0.0.1:1"); code != exitFail || !strings.Contains(errOut, "no engine answers") {
		t.Errorf("without an engine: exit %d, %q", code, errOut)
	}
}

// noRules is an engine without rules, for a board.
type noRules struct{}

func (noRules) Status() engine.Status { return engine.Status{} }

func (noRules) RuleStatus(string) (engine.RuleStatus, []engine.Trace, bool) {
	return engine.RuleStatus{}, nil, false
}
