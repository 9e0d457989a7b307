package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
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
			rs, errs := rules.LoadBytes(context.Background(), "r.yaml", []byte(src), rules.LoadOptions{Actions: actions.Defs()})
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

// notifyingVenue is slowVenue with messages: an action that sends nothing
// (log, notify) is planned as done at once.
type notifyingVenue struct{ *slowVenue }

func (n notifyingVenue) Plan(ctx context.Context, f *Firing) []actions.Plan {
	if k := string(f.Rule.Actions[0].Kind); !actions.Sends(k) {
		return []actions.Plan{{Kind: k, Done: &actions.Leg{Kind: k, Outcome: actions.OK}}}
	}
	return n.slowVenue.Plan(ctx, f)
}

// TestNotifyRuleDoesNotWaitForUnsettledOrders is issue 27's case end to
// end: while a BTCUSDT order is settled off the tick loop, a rule that only
// notifies is evaluated on every tick, like one that only logs, instead of
// waiting for the order.
func TestNotifyRuleDoesNotWaitForUnsettledOrders(t *testing.T) {
	v := notifyingVenue{&slowVenue{release: make(chan struct{}), settled: make(chan string, 1)}}
	rs := ruleSet(t,
		orderRule("btc", after(0), "BTCUSDT", time.Hour),
		rules.Rule{Name: "tell", When: after(0), Enabled: true, Actions: []*rules.Action{{Kind: actions.Notify}}},
	)
	e, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: v, Clock: stubClock{}, SettleOffLoop: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for sec := range 5 {
		e.Step(ctx, t0.Add(time.Duration(sec)*time.Second))
	}
	stats, _, _ := e.Stats()
	if s := stats["tell"]; s.Evaluations != 5 || s.Waiting != 0 {
		t.Errorf("tell: %+v, want evaluated on all 5 ticks and never waiting", s)
	}
	if s := stats["btc"]; s.Firings != 1 {
		t.Errorf("btc: %+v, want one firing, unsettled", s)
	}
	close(v.release)
	if got := <-v.settled; got != "btc" {
		t.Fatalf("settled %s", got)
	}
	for {
		n, changed := e.Settling()
		if n == 0 {
			break
		}
		<-changed
	}
}
