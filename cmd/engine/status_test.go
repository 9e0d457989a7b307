package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
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
	var statusOut, whyOut, missingErr string
	var statusCode, whyCode, missingCode int
	var out, errb syncBuffer
	e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		onMetrics: func(addr string) {
			statusCode, statusOut, _ = runCLI(t, "status", "--addr", addr)
			whyCode, whyOut, _ = runCLI(t, "why", "buy-btc", "--addr", addr)
			missingCode, _, missingErr = runCLI(t, "why", "--addr", addr, "no-such-rule")
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
	// The log: the order line, the fill line and the closing summary.
	var order, fill, stopped, pnl map[string]any
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
		}
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
