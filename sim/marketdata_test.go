package sim_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestLastPriceIsTickersLastPr: LastPrice answers exactly the ticker's
// LastPr, and the ticker's errors, for every contract of the demo's walks
// and of the test scenario's points (held and interpolating), at times
// from the start to two days on.
func TestLastPriceIsTickersLastPr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sc   func() *sim.Scenario
		key  string
	}{{"demo", sim.Demo, "demo-key"}, {"points", simtest.Scenario, simtest.OneWayKey}} {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.sc()
			simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
			x, vc := simRig.Exchange, simRig.Virtual
			a, _ := x.Account(tc.key)
			reqs := []exchange.TickerRequest{{Symbol: "NOSUCHUSDT", ProductType: exchange.USDTFutures}, {Symbol: "BTCUSDT"}}
			for _, c := range sc.Contracts {
				reqs = append(reqs, exchange.TickerRequest{Symbol: c.Symbol, ProductType: c.ProductType})
			}
			compared := 0
			for i := range 400 {
				vc.Advance(time.Duration(i%37+1) * 11 * time.Second)
				for _, req := range reqs {
					tk, terr := a.Ticker(ctx, req)
					last, err := a.LastPrice(ctx, req)
					if !reflect.DeepEqual(err, terr) {
						t.Fatalf("%s at %s: LastPrice error %v, Ticker error %v", req.Symbol, vc.Now(), err, terr)
					}
					if terr != nil {
						continue
					}
					if last != tk[0].LastPr || last == "" {
						t.Fatalf("%s at %s: LastPrice %q, ticker's LastPr %q", req.Symbol, vc.Now(), last, tk[0].LastPr)
					}
					compared++
				}
			}
			if compared < 400*len(sc.Contracts) {
				t.Fatalf("compared %d prices: the contracts did not all answer", compared)
			}
		})
	}
}

// TestContractsOfOldDemoProductTypes: the public contracts query of the
// venue's older demo product types answers an empty list (the simulator has
// none of their contracts), as public clients ask it beside the three; with
// a symbol it is refused as before.
func TestContractsOfOldDemoProductTypes(t *testing.T) {
	x, _ := build(t, nil)
	a := account(t, x, simtest.OneWayKey)
	for _, pt := range []exchange.ProductType{"SUSDT-FUTURES", "SCOIN-FUTURES", "SUSDC-FUTURES"} {
		cs, err := a.Contracts(ctx, exchange.ContractsRequest{ProductType: pt})
		if err != nil || len(cs) != 0 {
			t.Errorf("%s: %d contracts, %v; want none and no error", pt, len(cs), err)
		}
		if _, err := a.Contracts(ctx, exchange.ContractsRequest{ProductType: pt, Symbol: "SBTCSUSDT"}); err == nil {
			t.Errorf("%s with a symbol: no error", pt)
		}
	}
	if _, err := a.Contracts(ctx, exchange.ContractsRequest{ProductType: "NOPE-FUTURES"}); err == nil {
		t.Error("an unknown product type: no error")
	}
}
