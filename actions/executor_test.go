package actions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestMarketOrderNotionalGuard: a market order has no price of its own, so
// the notional limit is checked against the venue's last price; without a
// price source the order is refused rather than let through unchecked.
func TestMarketOrderNotionalGuard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v, acct, cat := demoVenue(t)
	rs, errs := rules.LoadBytes(ctx, "r.yaml", []byte(`
rules:
  - name: buy
    when: now_ms > 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.5}
`), rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
	if rs == nil {
		t.Fatal(errs)
	}
	st, err := marketdata.NewState(marketdata.BuildInput{Now: v.Now()}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: exchange.OneWayMode}
	safety := &actions.Safety{Default: actions.Limits{MaxNotional: decimal.NewFromInt(1000)}}
	for _, tt := range []struct {
		name   string
		pricer actions.Pricer
		want   string
	}{
		{"priced from the venue's ticker", acct, "above max_notional"},
		{"no price source", nil, "no reference price"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := actions.NewDispatcher(actions.DispatcherOptions{Venue: acct, Clock: v, Guard: actions.NewGuard(actions.GuardOptions{Safety: safety})})
			x := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: cat, Modes: modes, Pricer: tt.pricer})
			legs := x.Run(ctx, rs.Rules[0], v.Now(), rules.NewEnv(st), rules.NewVM(), st)
			if len(legs) != 1 || legs[0].Outcome != actions.Blocked || !strings.Contains(legs[0].Error, tt.want) {
				t.Fatalf("legs %+v", legs)
			}
		})
	}
	pos, _ := acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if len(pos) != 0 {
		t.Errorf("a blocked order was placed: %+v", pos)
	}
}

// demoVenue is the simulator's demo scenario 90 minutes after its start:
// its clock, the demo account and the catalog fetched from it.
func demoVenue(t *testing.T) (*clock.Virtual, *sim.Account, *rules.Catalog) {
	t.Helper()
	sc := sim.Demo()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 90 * time.Minute})
	x, v := simRig.Exchange, simRig.Virtual
	acct, _ := x.Account("demo-key")
	cat, err := rules.FetchCatalog(context.Background(), acct)
	if err != nil {
		t.Fatal(err)
	}
	return v, acct, cat
}
