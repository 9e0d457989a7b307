package sim_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestFixedAnswersMatchDecimal: the position and account answers computed
// with integers (sim's fixed) are the ones decimal computes, byte for
// byte, through random trading on the demo's walks, with positions of
// every kind held besides: coin-margined (inverse), isolated, short, in
// USDC, and one too large for 64 bits.
func TestFixedAnswersMatchDecimal(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	held := []sim.PositionSpec{
		{Symbol: "BTCUSD", ProductType: exchange.COINFutures, HoldSide: exchange.Long, Size: dec("0.37"), OpenPrice: dec("90111.3")},
		{Symbol: "BTCPERP", ProductType: exchange.USDCFutures, HoldSide: exchange.Short, Size: dec("0.0125"), OpenPrice: dec("91300"), MarginMode: exchange.Isolated},
		{Symbol: "ETHUSDT", ProductType: exchange.USDTFutures, HoldSide: exchange.Short, Size: dec("3.21"), OpenPrice: dec("3130.17")},
	}
	sc.Accounts[0].Positions = append(sc.Accounts[0].Positions, held...)
	// The hedge account holds a position whose numbers pass 64 bits: its
	// answers are computed in decimal, and must still be the same.
	sc.Accounts[1].Positions = append(sc.Accounts[1].Positions,
		sim.PositionSpec{Symbol: "ETHUSDT", ProductType: exchange.USDTFutures, HoldSide: exchange.Long, Size: dec("12345678901234567.89"), OpenPrice: dec("3120.123456789")})
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	x, vc := simRig.Exchange, simRig.Virtual
	r := &memoRig{
		t: t, x: x, vc: vc, rng: rand.New(rand.NewPCG(11, 12)), keys: []string{"demo-key", "demo-hedge-key"},
		pairs: []string{"TSLAUSDT"}, mode: map[string]exchange.PosMode{"demo-key": exchange.OneWayMode, "demo-hedge-key": exchange.HedgeMode}, ok: map[string]int{},
	}
	compared := 0
	for i := range 300 {
		r.advance()
		r.act(r.keys[r.rng.IntN(len(r.keys))])
		where := fmt.Sprintf("step %d at %s", i, vc.Now().Format(time.RFC3339))
		for _, key := range r.keys {
			a := r.acct(key)
			for _, pt := range exchange.ProductTypes() {
				compared += sameInDecimal(t, x, where+" "+key+" all-position "+string(pt), func() (any, error) {
					return a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
				})
				compared += sameInDecimal(t, x, where+" "+key+" accounts "+string(pt), func() (any, error) {
					return a.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
				})
			}
		}
	}
	if compared < 1000 || r.ok["fill"] == 0 {
		t.Fatalf("compared %d answers with %d fills: too few for the test to mean anything", compared, r.ok["fill"])
	}
}

// sameInDecimal asks afresh with fixed on and off and fails unless both
// answers are equal; it returns how many records it compared.
func sameInDecimal(t *testing.T, x *sim.Exchange, what string, ask func() (any, error)) int {
	t.Helper()
	x.SetMemo(false)
	defer x.SetMemo(true)
	got, err := ask()
	if err != nil {
		t.Fatal(err)
	}
	x.SetFixed(false)
	want, err := ask()
	x.SetFixed(true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: with integers\n%+v\nin decimal\n%+v", what, got, want)
	}
	return reflect.ValueOf(got).Len()
}
