package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// slowVenue is a planner whose BTCUSDT orders come back Unsettled and are
// settled only when the test says so; every other order is ok at once.
type slowVenue struct {
	release chan struct{}
	settled chan string // the firings settled, in order
	sent    []string    // rule names of the sends
}

func (s *slowVenue) Execute(context.Context, *Firing) []actions.Leg { panic("planner") }

func (s *slowVenue) Plan(_ context.Context, f *Firing) []actions.Plan {
	if f.Rule.Actions[0].Kind == actions.Log {
		return []actions.Plan{{Kind: "log", Done: &actions.Leg{Kind: "log", Outcome: actions.OK}}}
	}
	sym, _ := f.Rule.Actions[0].Params["symbol"].Literal.(string)
	req, _ := json.Marshal(map[string]string{"rule": f.Rule.Name})
	return []actions.Plan{{Kind: "place_order", Op: exchange.OpPlaceOrder, Symbol: sym, Request: req, ClientOIDs: []string{f.Rule.Name}}}
}

func (s *slowVenue) Send(_ context.Context, p actions.Plan) []actions.Leg {
	if p.Done != nil {
		return []actions.Leg{*p.Done}
	}
	s.sent = append(s.sent, p.ClientOIDs[0])
	if p.Symbol == "BTCUSDT" {
		return []actions.Leg{{Op: p.Op, Outcome: actions.Unsettled, Unsettled: p.ClientOIDs}}
	}
	return []actions.Leg{{Op: p.Op, Outcome: actions.OK, ClientOIDs: p.ClientOIDs}}
}

func (s *slowVenue) Settle(ctx context.Context, p actions.Plan, _ []actions.Leg) []actions.Leg {
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	s.settled <- p.ClientOIDs[0]
	return []actions.Leg{{Op: p.Op, Outcome: actions.OK, ClientOIDs: p.ClientOIDs, Reconciled: true}}
}

func orderRule(name, when, symbol string, cooldown time.Duration) rules.Rule {
	return rules.Rule{Name: name, When: when, Enabled: true, Cooldown: cooldown, Actions: []*rules.Action{{Kind: actions.PlaceOrder,
		Params: rules.Params{"symbol": &rules.Value{Literal: symbol}}}}}
}

// TestUnsettledOrderWaitsOnlyItsSymbol: while a BTCUSDT order is settled
// off the tick loop, the loop goes on ticking; an ETHUSDT rule fires and a
// rule that only logs is evaluated every tick, while a second BTCUSDT rule
// waits and fires once the order is settled.
func TestUnsettledOrderWaitsOnlyItsSymbol(t *testing.T) {
	v := &slowVenue{release: make(chan struct{}), settled: make(chan string, 4)}
	rs := ruleSet(t,
		orderRule("btc-first", after(0), "BTCUSDT", time.Hour),
		orderRule("btc-second", after(2), "BTCUSDT", time.Hour),
		orderRule("eth", after(2), "ETHUSDT", time.Hour),
		rules.Rule{Name: "watch", When: after(0), Enabled: true, Actions: []*rules.Action{{Kind: actions.Log}}},
	)
	e, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: v, Clock: stubClock{}, SettleOffLoop: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for sec := range 5 {
		e.Step(ctx, t0.Add(time.Duration(sec)*time.Second))
	}
	if got := v.sent; len(got) != 2 || got[0] != "btc-first" || got[1] != "eth" {
		t.Fatalf("sent %v while btc-first was unsettled, want btc-first then eth", got)
	}
	stats, _, _ := e.Stats()
	if s := stats["btc-second"]; s.Waiting != 4 || s.Firings != 0 {
		t.Errorf("btc-second: %+v, want 4 ticks waiting (1s to 4s) and no firing", s)
	}
	if s := stats["watch"]; s.Evaluations != 5 || s.Waiting != 0 {
		t.Errorf("watch: %+v, want evaluated on all 5 ticks", s)
	}
	if tr := e.Traces("btc-second"); tr[len(tr)-1].Reason != ReasonWaiting {
		t.Errorf("btc-second's last trace: %+v", tr[len(tr)-1])
	}
	close(v.release)
	if got := <-v.settled; got != "btc-first" {
		t.Fatalf("settled %s", got)
	}
	for {
		if n, changed := e.Settling(); n != 0 {
			<-changed
			continue
		}
		break
	}
	e.Step(ctx, t0.Add(5*time.Second))
	if got := v.sent; len(got) != 3 || got[2] != "btc-second" {
		t.Fatalf("sent %v after the settlement, want btc-second to fire", got)
	}
}

// okVenue is a planner of two ETHUSDT legs per firing, each ok at once.
type okVenue struct{ sent []string }

func (o *okVenue) Execute(context.Context, *Firing) []actions.Leg { panic("planner") }

func (o *okVenue) Plan(_ context.Context, f *Firing) []actions.Plan {
	var out []actions.Plan
	for i := range 2 {
		oid := f.Rule.Name + "-" + itoa(int64(i))
		out = append(out, actions.Plan{Kind: "place_order", Op: exchange.OpPlaceOrder, Symbol: "ETHUSDT", Request: json.RawMessage(`{}`), ClientOIDs: []string{oid}})
	}
	return out
}

func (o *okVenue) Send(_ context.Context, p actions.Plan) []actions.Leg {
	o.sent = append(o.sent, p.ClientOIDs[0])
	return []actions.Leg{{Op: p.Op, Outcome: actions.OK, ClientOIDs: p.ClientOIDs}}
}

func (o *okVenue) Settle(context.Context, actions.Plan, []actions.Leg) []actions.Leg {
	panic("nothing is unsettled")
}

// TestStateFailureHoldsOrders: no order leaves while the intent or the rule
// state cannot be written; when the answer of a leg cannot be recorded, the
// firing's next legs wait; all go out, once, when the directory works again,
// and Run stops with ErrStateUnwritable when it does not within
// StateTimeout.
func TestStateFailureHoldsOrders(t *testing.T) {
	tests := []struct {
		name      string
		okWrites  int      // writes that work before the fault
		wantHeld  []string // sent while failing
		storeFail bool     // the rule-state file fails, not the journal
	}{
		{"intent not written", 0, nil, false},
		{"rule state not written", 0, nil, true},
		{"first answer not recorded", 1, []string{"r-0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			failing := true
			writes := 0
			fault := func(string) error {
				if failing && writes >= tt.okWrites {
					return errors.New("injected: read-only file system")
				}
				writes++
				return nil
			}
			jopts, sopts := StateOptions{Fault: fault}, StateOptions{}
			if tt.storeFail {
				jopts, sopts = StateOptions{}, StateOptions{Fault: fault}
			}
			j, err := OpenJournal(dir, jopts)
			if err != nil {
				t.Fatal(err)
			}
			store, err := OpenStore(dir, sopts)
			if err != nil {
				t.Fatal(err)
			}
			v := &okVenue{}
			clk := &steppedClock{now: t0}
			e, err := New(Options{Rules: ruleSet(t, orderRule("r", after(0), "ETHUSDT", time.Hour)), Source: &fakeSource{}, Executor: v,
				Clock: clk, Journal: j, Store: store, StateTimeout: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for sec := range 3 {
				clk.now = t0.Add(time.Duration(sec) * time.Second)
				e.Step(ctx, clk.now)
			}
			if strings.Join(v.sent, ",") != strings.Join(tt.wantHeld, ",") {
				t.Fatalf("sent %v while the state directory failed, want %v", v.sent, tt.wantHeld)
			}
			if err := e.unwritable(); err != nil {
				t.Fatalf("stopped after 2s: %v", err)
			}
			clk.now = t0.Add(4 * time.Second)
			if err := e.unwritable(); !errors.Is(err, ErrStateUnwritable) {
				t.Fatalf("after 4s: %v, want ErrStateUnwritable", err)
			}
			failing = false
			e.Step(ctx, clk.now)
			if got := strings.Join(v.sent, ","); got != "r-0,r-1" {
				t.Fatalf("sent %s once the directory works, want r-0,r-1 once each", got)
			}
			if err := e.unwritable(); err != nil {
				t.Errorf("still failing: %v", err)
			}
			if open := j.Open(); len(open) != 0 {
				t.Errorf("journal holds %v", open)
			}
			if saved, _ := store.Load(); saved["r"].Firings != 1 {
				t.Errorf("saved rule state %+v", saved["r"])
			}
		})
	}
}

// steppedClock is a clock the test sets.
type steppedClock struct{ now time.Time }

func (c *steppedClock) Now() time.Time                       { return c.now }
func (c *steppedClock) After(time.Duration) <-chan time.Time { return nil }
