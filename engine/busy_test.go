package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/tickrules/tickrules/rules"
)

// TestTouchesOnlyActionsThatSend: a rule waits for another firing's
// unsettled orders only through the actions that send something to the
// exchange. Issue 27: touches skipped log but not notify, so a notify-only
// rule (no symbol, so "any symbol") waited whenever any order anywhere was
// unsettled.
func TestTouchesOnlyActionsThatSend(t *testing.T) {
	t.Parallel()
	busyBTC := map[string]bool{"BTCUSDT": true}
	for _, tt := range []struct {
		name    string
		actions string // the rule's actions list, YAML flow style
		want    []string
		waits   bool // with BTCUSDT busy
	}{
		{"log only", `[log: {message: "hi"}]`, nil, false},
		{"notify only", `[notify: {message: "hi"}]`, nil, false},
		{"notify and log", `[notify: {message: "hi"}, log: {message: "hi"}]`, nil, false},
		{"notify beside an order", `[notify: {message: "hi"}, place_order: {symbol: ETHUSDT, open: long, type: market, size: 1}]`, []string{"ETHUSDT"}, false},
		{"order on the busy symbol", `[place_order: {symbol: BTCUSDT, open: long, type: market, size: 1}]`, []string{"BTCUSDT"}, true},
		{"cancel_all may touch any symbol", `[cancel_all: {}]`, []string{anySymbol}, true},
		{"a formula symbol may be any symbol", `[cancel_order: {symbol: '=string("BTC") + "USDT"', client_oid: x}]`, []string{anySymbol}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "rules:\n  - name: r\n    when: now_ms > 0\n    actions: " + tt.actions + "\n"
			rs, errs := rules.LoadBytes(context.Background(), "r.yaml", []byte(src), rules.LoadOptions{})
			if rs == nil || len(rs.Rules) != 1 {
				t.Fatalf("load: %v", errs)
			}
			got := touches(rs.Rules[0])
			if !slices.Equal(got, tt.want) {
				t.Errorf("touches = %q, want %q", got, tt.want)
			}
			if w := waits(busyBTC, got); w != tt.waits {
				t.Errorf("waits with BTCUSDT busy = %v, want %v", w, tt.waits)
			}
		})
	}
}
