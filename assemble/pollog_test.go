package assemble

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
)

// TestPollFailureNamesHeldRules starts the engine against engine sim whose
// positions path fails: the first "poll failed" line names the rules that
// read the positions (five, then "and N more"), and not the rule that
// reads only the stock book; the repeats do not list them again.
func TestPollFailureNamesHeldRules(t *testing.T) {
	var b strings.Builder
	b.WriteString("rules:\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&b, "  - name: watch-%d\n    when: position(\"BTCUSDT\", \"long\").size > %d000\n    actions:\n      - log: {message: \"big\"}\n", i, i)
	}
	b.WriteString("  - name: tsla-book\n    when: stock(\"TSLA\").bid > 100000\n    actions:\n      - log: {message: \"rich\"}\n")
	f := newFailingVenue(t, exchange.OpAllPositions, http.StatusInternalServerError, `{"code":"45001","msg":"system error","requestTime":0,"data":null}`)
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := context.Background()
	a := f.assemble(t, b.String(), zap.New(core), engine.Options{})
	for range 4 {
		_ = a.Poller.PollDue(ctx)
		f.v.Advance(a.Poller.Interval(a.Poller.Parts().Parts()[0]))
	}
	first := logs.FilterMessageSnippet("poll failed").All()
	if len(first) != 1 {
		t.Fatalf("%d first-failure lines, want 1: %v", len(first), logs.All())
	}
	m := first[0].ContextMap()
	if m["part"] != "positions" || m["key"] != "USDT-FUTURES" || !strings.Contains(m["error"].(string), "45001") {
		t.Errorf("first failure %v: want positions USDT-FUTURES with the cause", m)
	}
	if got, want := m["held_rules"], "watch-1, watch-2, watch-3, watch-4, watch-5 and 2 more"; got != want {
		t.Errorf("held_rules %q, want %q", got, want)
	}
	for _, e := range logs.FilterMessageSnippet("still failing").All() {
		if _, ok := e.ContextMap()["held_rules"]; ok {
			t.Errorf("a repeat lists the rules again: %v", e.ContextMap())
		}
	}

	f.broken.Store(false)
	f.v.Advance(a.Poller.Interval(a.Poller.Parts().Parts()[0]))
	_ = a.Poller.PollDue(ctx)
	if n := logs.FilterMessage("poll recovered").Len(); n != 1 {
		t.Errorf("%d recovery lines, want 1", n)
	}
}

// TestRulesReadingByKey checks which rules a fetch of each key holds.
func TestRulesReadingByKey(t *testing.T) {
	const body = `
rules:
  - name: tsla
    when: stock("TSLA").bid > 0
    actions: [{log: {message: a}}]
  - name: nvda
    when: stock("NVDA").bid > 0
    actions: [{log: {message: b}}]
  - name: btc
    when: position("BTCUSDT", "long").size > 0
    actions: [{log: {message: c}}]
  - name: any-position
    when: any(positions, .size > 0)
    actions: [{log: {message: d}}]
  - name: session
    when: position("BTCPERP", "long").size > 0
    once: per_session
    actions: [{log: {message: e}}]
`
	f := newFailingVenue(t, exchange.OpAllPositions, http.StatusOK, "")
	f.broken.Store(false)
	a := f.assemble(t, body, nil, engine.Options{})
	tests := []struct {
		part, key, want string
	}{
		{"stock_book", "TSLAUSDT", "tsla"},
		{"stock_book", "NVDAUSDT", "nvda"},
		{"positions", "USDT-FUTURES", "btc, any-position"},
		{"positions", "USDC-FUTURES", "any-position, session"},
		{"market", "", "session"},
	}
	for _, tt := range tests {
		t.Run(tt.part+" "+tt.key, func(t *testing.T) {
			for _, p := range a.Poller.Parts().Parts() {
				if p.String() == tt.part {
					if got := a.heldBy(p, tt.key); got != tt.want {
						t.Errorf("held by %s %s: %q, want %q", tt.part, tt.key, got, tt.want)
					}
					return
				}
			}
			t.Fatalf("part %s not polled (%v)", tt.part, a.Poller.Tasks())
		})
	}
}
