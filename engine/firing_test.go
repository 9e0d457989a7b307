package engine

import (
	"context"
	"encoding/json"
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
	if f.Rule.Actions[0].Kind == rules.Log {
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
	return rules.Rule{Name: name, When: when, Enabled: true, Cooldown: cooldown, Actions: []*rules.Action{{Kind: rules.PlaceOrder,
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
		rules.Rule{Name: "watch", When: after(0), Enabled: true, Actions: []*rules.Action{{Kind: rules.Log}}},
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
