package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// rig is the whole engine in one process: the demo simulator on a virtual
// clock, the pollers, the engine and the actions, as engine run wires them.
type rig struct {
	t      *testing.T
	v      *clock.Virtual
	x      *sim.Exchange
	acct   exchange.Venue
	poller *poll.Poller
	eng    *engine.Engine
	legs   []actions.Leg
}

func newRig(t *testing.T, apiKey, ruleYAML string) *rig {
	t.Helper()
	return newRigAt(t, 90*time.Minute, apiKey, ruleYAML) // 10:30 EDT, regular session
}

// newRigAt is newRig with the clock at the demo's start (09:00 EDT) plus after.
func newRigAt(t *testing.T, after time.Duration, apiKey, ruleYAML string) *rig {
	t.Helper()
	sc := sim.Demo()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: after})
	x, v := simRig.Exchange, simRig.Virtual
	acct, ok := x.Account(apiKey)
	if !ok {
		t.Fatalf("no account %s", apiKey)
	}
	dir := writeRules(t, "", ruleYAML)
	r := &rig{t: t, v: v, x: x, acct: acct}
	// The same wiring as engine run and engine backtest.
	asm, err := assemble.New(context.Background(), assemble.Options{Reader: acct, Catalog: acct, Accounts: acct,
		Trader: acct, Clock: v, RuleDirs: []string{dir}},
		engine.Options{OnFiring: func(f *engine.Firing) { r.legs = append(r.legs, f.Legs...) }})
	if err != nil {
		t.Fatal(err)
	}
	r.poller, r.eng = asm.Poller, asm.Engine
	return r
}

// run polls and steps n ticks of one second.
func (r *rig) run(n int) int {
	fired := 0
	for i := 0; i < n; i++ {
		if err := r.poller.PollDue(context.Background()); err != nil {
			r.t.Fatalf("poll: %v", err)
		}
		fired += len(r.eng.Step(context.Background(), r.v.Now()))
		r.v.Advance(time.Second)
	}
	return fired
}

func TestEndToEndOpensOnceAndStops(t *testing.T) {
	t.Parallel()
	r := newRig(t, "demo-key", `
rules:
  - name: open-btc
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.0123456}
`)
	if fired := r.run(10); fired != 1 {
		t.Fatalf("fired %d times in 10 ticks, want 1", fired)
	}
	if len(r.legs) != 1 || r.legs[0].Outcome != actions.OK {
		t.Fatalf("legs %+v", r.legs)
	}
	leg := r.legs[0]
	if !strings.Contains(string(actions.RequestJSON(leg.Request)), `"size":"0.0123"`) || strings.Contains(string(actions.RequestJSON(leg.Request)), "tradeSide") {
		t.Errorf("request %+v: want the size rounded down to 4 places and no tradeSide in one-way mode", leg.Request)
	}
	pos, err := r.acct.AllPositions(context.Background(), exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil || len(pos) != 1 || pos[0].Total != "0.0123" || pos[0].HoldSide != exchange.Long {
		t.Fatalf("positions %+v, %v", pos, err)
	}
	o, err := r.acct.OrderDetail(context.Background(), exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: leg.ClientOIDs[0]})
	if err != nil || o.OrderID != leg.OrderIDs[0] || o.State != exchange.StateFilled {
		t.Errorf("order by clientOid: %+v, %v", o, err)
	}
}

func TestEndToEndHedgeClose(t *testing.T) {
	t.Parallel()
	r := newRig(t, "demo-hedge-key", `
rules:
  - name: open
    when: position("ETHUSDT", "long").size == 0 && position("ETHUSDT", "short").size == 0
    once: per_day
    actions:
      - place_order: {symbol: ETHUSDT, open: long, type: market, size: 0.5}
  - name: close
    when: position("ETHUSDT", "long").size > 0
    actions:
      - place_order: {symbol: ETHUSDT, close: long, type: market, size: 0.5}
`)
	r.run(10)
	var reqs []string
	for _, l := range r.legs {
		if l.Outcome != actions.OK {
			t.Fatalf("leg failed: %+v", l)
		}
		reqs = append(reqs, string(actions.RequestJSON(l.Request)))
	}
	if len(reqs) != 2 || !strings.Contains(reqs[0], `"side":"buy","tradeSide":"open"`) || !strings.Contains(reqs[1], `"side":"buy","tradeSide":"close"`) {
		t.Fatalf("hedge requests:\n%s", strings.Join(reqs, "\n"))
	}
	pos, _ := r.acct.AllPositions(context.Background(), exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	for _, p := range pos {
		if p.Symbol == "ETHUSDT" && p.Total != "0" && p.Total != "" {
			t.Errorf("position left open: %+v", p)
		}
	}
}
