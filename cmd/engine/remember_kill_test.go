package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rememberAcrossKill closes an ETHUSDT round trip (a close today), holds a
// BTCUSDT long, and logs every 2 s what a rule remembers: the long's high
// and low since it opened, this rule's firings today, and today's realised
// P&L (pnl_today less the open long's unrealised P&L).
const rememberAcrossKill = `
rules:
  - name: round-trip
    when: closes_today("ETHUSDT") == 0 && position("ETHUSDT", "long").size == 0
    once: per_day
    actions:
      - place_order: {symbol: ETHUSDT, open: long, type: market, size: 0.1}
  - name: close-eth
    when: position("ETHUSDT", "long").size > 0
    actions:
      - close_positions: {symbol: ETHUSDT, side: long}
  - name: hold-btc
    when: position("BTCUSDT", "long").size == 0 && firings_today("hold-btc") < 1
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
  - name: show
    when: position("BTCUSDT", "long").is_open && closes_today("ETHUSDT") >= 1
    cooldown: 2s
    actions:
      - log:
          message: 'remembered high={{ position("BTCUSDT", "long").high_since_open }} low={{ position("BTCUSDT", "long").low_since_open }} fired={{ firings_today("show") }} realised={{ pnl_today("USDT-FUTURES") - position("BTCUSDT", "long").unrealized_pnl }}'
`

// remembered is one "show" log line's figures.
type remembered struct {
	high, low, realised float64
	fired               int
}

// rememberedLines reads the show rule's log lines of p, oldest first.
func rememberedLines(t *testing.T, p *engineProc) []remembered {
	t.Helper()
	var out []remembered
	for _, line := range strings.Split(p.text(), "\n") {
		var m struct {
			Msg  string `json:"msg"`
			Rule string `json:"rule"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || !strings.HasPrefix(m.Msg, "remembered ") {
			continue
		}
		var r remembered
		for _, f := range strings.Fields(strings.TrimPrefix(m.Msg, "remembered ")) {
			k, v, _ := strings.Cut(f, "=")
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s in %q: %v", k, m.Msg, err)
			}
			switch k {
			case "high":
				r.high = n
			case "low":
				r.low = n
			case "fired":
				r.fired = int(n)
			case "realised":
				r.realised = n
			}
		}
		out = append(out, r)
	}
	return out
}

// TestRememberedAcrossKill kills the engine (SIGKILL) once the BTCUSDT
// long's price has moved (its high above its low) and starts it again on
// the same state directory: the first figures after the restart keep the
// high and the low seen before (the high no lower, the low no higher; a
// forgetful engine would start both at the current price, which cannot be
// both), count on from the firings before, and give the same realised P&L
// today (read back from the venue's position history).
func TestRememberedAcrossKill(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	v := startVenue(t)
	rules, state := writeRules(t, rememberAcrossKill), t.TempDir()
	args := []string{"--rules", rules, "--venue", v.url, "--state-dir", state, "--tick", "200ms"}
	first := startEngine(t, bin, nil, args...)
	// The demo's BTCUSDT moves every 10 s: wait for a line whose high is
	// above its low.
	var before remembered
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if !first.waitFor(`remembered high=`, time.Minute) {
			t.Fatalf("the show rule never logged:\n%s", first.text())
		}
		if lines := rememberedLines(t, first); len(lines) > 0 && lines[len(lines)-1].high > lines[len(lines)-1].low {
			before = lines[len(lines)-1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the price did not move in 2 minutes:\n%s", first.text())
		}
		n := first.count(`remembered high=`)
		if !first.waitForCount(`remembered high=`, n+1, time.Minute) {
			t.Fatalf("the show rule stopped logging:\n%s", first.text())
		}
	}
	_ = first.cmd.Process.Kill()
	first.wait(t, 30*time.Second)
	// The last line before the kill may be newer than the one read.
	lines := rememberedLines(t, first)
	before = lines[len(lines)-1]

	second := startEngine(t, bin, nil, args...)
	// The firing logged last before the kill may be finished again at the
	// start (its journal entry was not closed): the first new firing is
	// the first line counting more than before.
	if !second.waitForCount(`remembered high=`, 2, time.Minute) {
		t.Fatalf("the show rule did not log twice after the restart:\n%s", second.text())
	}
	_ = second.cmd.Process.Signal(syscall.SIGTERM)
	second.wait(t, 30*time.Second)
	again := rememberedLines(t, second)
	after := again[0]
	if after.high < before.high || after.low > before.low {
		t.Errorf("the high and low since open were forgotten: %+v before the kill, %+v after", before, after)
	}
	next := -1
	for _, r := range again {
		if r.fired < before.fired {
			t.Errorf("firings_today went back from %d to %d after the restart", before.fired, r.fired)
		}
		if r.fired > before.fired && next < 0 {
			next = r.fired
		}
	}
	if next != before.fired+1 {
		t.Errorf("firings_today: %d before the kill, %d at the first new firing after, want %d", before.fired, next, before.fired+1)
	}
	if math.Abs(after.realised-before.realised) > 1e-6 {
		t.Errorf("today's realised P&L: %v before the kill, %v after", before.realised, after.realised)
	}
}

// waitForCount waits until the log holds want at least n times, or the
// process ends, or the deadline passes; it reports whether it does.
func (p *engineProc) waitForCount(want string, n int, within time.Duration) bool {
	deadline := time.After(within)
	for {
		p.mu.Lock()
		have := strings.Count(strings.Join(p.log, "\n"), want)
		line := p.line
		p.mu.Unlock()
		if have >= n {
			return true
		}
		select {
		case <-line:
		case <-p.done:
			return p.count(want) >= n
		case <-deadline:
			return false
		}
	}
}
