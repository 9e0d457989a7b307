package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lossThenEntry opens a small BTCUSDT long at market and closes it at once,
// a sure loss (the spread and two taker fees, 12 bps, against a demo price
// that moves about 3 bps in 10 s); after that close, enter-again tries a
// new long every 2 s, which the tripped protection must refuse.
const lossThenEntry = `
rules:
  - name: round-trip
    when: closes_today("BTCUSDT") == 0 && position("BTCUSDT", "long").size == 0
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.001}
  - name: take-it-back
    when: position("BTCUSDT", "long").size > 0
    actions:
      - close_positions: {symbol: BTCUSDT, side: long}
  - name: enter-again
    when: closes_today("BTCUSDT") >= 1
    cooldown: 2s
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.001, price: 30000}
`

// TestTrippedProtectionSurvivesKill: stop_after_losses trips on the losing
// close, the engine is killed (SIGKILL) while it holds, and the engine
// started again on the same state directory still refuses every entry,
// from its first tick: the halt was kept in the state directory, and it
// says so at start. No entry of enter-again ever reaches the venue.
func TestTrippedProtectionSurvivesKill(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	v := startVenue(t)
	rules, state := writeRules(t, lossThenEntry), t.TempDir()
	safety := filepath.Join(t.TempDir(), "safety.yaml")
	if err := os.WriteFile(safety, []byte("protections: {stop_after_losses: {count: 1, within: 24h}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--rules", rules, "--venue", v.url, "--state-dir", state, "--tick", "200ms", "--safety", safety}
	first := startEngine(t, bin, nil, args...)
	const tripped, blocked = `"msg":"a protection of the safety file tripped: no new entries"`, `"msg":"order blocked by a risk guard","rule":"enter-again"`
	if !first.waitFor(tripped, time.Minute) || !first.waitFor(blocked, time.Minute) {
		t.Fatalf("the first run did not trip stop_after_losses and refuse the entry:\n%s", first.text())
	}
	_ = first.cmd.Process.Kill()
	if ps := first.wait(t, 30*time.Second); ps.Success() {
		t.Fatalf("the first run was not killed: %v", ps)
	}
	second := startEngine(t, bin, nil, args...)
	if !second.waitFor(`"msg":"a halt kept in the state directory holds: no new entries"`, time.Minute) || !second.waitFor(blocked, time.Minute) {
		t.Fatalf("the second run did not keep the halt:\n%s", second.text())
	}
	_ = second.cmd.Process.Signal(syscall.SIGTERM)
	if ps := second.wait(t, 30*time.Second); ps.ExitCode() != exitOK {
		t.Fatalf("second run exit %d:\n%s", ps.ExitCode(), second.text())
	}
	if !strings.Contains(second.text(), "stop_after_losses") {
		t.Errorf("the second run does not say which protection holds:\n%s", second.text())
	}
	if n := second.count(tripped); n != 0 {
		t.Errorf("the second run tripped again (%d times) instead of restoring the halt", n)
	}
	// Of the orders, only the round trip's open reached the venue (its
	// close goes through close-positions, which carries no clientOid).
	sent, held := v.orders(t)
	if len(sent) != 1 || len(held) != 0 {
		t.Errorf("order requests per clientOid %v, pending %v; want only the round trip's open", sent, held)
	}
}
