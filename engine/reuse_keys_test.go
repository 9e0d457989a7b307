package engine_test

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// TestSymbolRuleKeptWhileOtherSymbolsMove: a condition on NVDAUSDT's
// position keeps its result while the TSLAUSDT position's P&L moves every
// price step (the positions answer changes, NVDAUSDT's records do not),
// and is run again, and fires, on the very tick an NVDAUSDT position
// appears.
func TestSymbolRuleKeptWhileOtherSymbolsMove(t *testing.T) {
	r := newRig(t, "demo-key", `
rules:
  - name: hold-tsla
    when: position("TSLAUSDT", "long").size == 0
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}
  - name: nvda-opened
    when: position("NVDAUSDT", "long").size > 0
    actions:
      - log: {message: nvda}
`)
	step := func() []string {
		t.Helper()
		if err := r.poller.PollDue(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		var fired []string
		for _, f := range r.eng.Step(t.Context(), r.v.Now()) {
			fired = append(fired, f.Rule.Name)
		}
		r.v.Advance(time.Second)
		return fired
	}
	for i := range 120 {
		if fired := step(); (i == 0) != (len(fired) == 1 && fired[0] == "hold-tsla") || (i > 0 && len(fired) > 0) {
			t.Fatalf("tick %d fired %v: want hold-tsla on the first tick only", i, fired)
		}
	}
	stats, _, _ := r.eng.Stats()
	// In 120 s the TSLAUSDT position moved with the price a dozen times
	// (a 10 s walk step): its rule ran again each time, the NVDAUSDT one
	// only on the first tick and when the first fetches came in.
	if got := stats["hold-tsla"].Reused; got > 110 {
		t.Errorf("hold-tsla reused %d of 120 results: its own position moved, it must run again", got)
	}
	if got := stats["nvda-opened"].Reused; got < 117 {
		t.Errorf("nvda-opened reused %d of 120 results, want at least 117: other symbols' moves ran it again", got)
	}
	// An NVDAUSDT position appears: the next tick runs the rule and fires.
	if _, err := r.acct.PlaceOrder(t.Context(), exchange.PlaceOrderRequest{Symbol: "NVDAUSDT", ProductType: exchange.USDTFutures,
		MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "1", Side: exchange.Buy, OrderType: exchange.Market}); err != nil {
		t.Fatal(err)
	}
	if fired := step(); len(fired) != 1 || fired[0] != "nvda-opened" {
		t.Fatalf("after NVDAUSDT opened, fired %v; want nvda-opened", fired)
	}
}
