package sim

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// TestFixedFallsBack: a position whose size has more digits than fixed
// takes makes its answers fall back to decimal (TestFixedAnswersMatchDecimal
// checks that the answers are the same); one that fits does not.
func TestFixedFallsBack(t *testing.T) {
	for _, tc := range []struct {
		size  string
		fixed bool
	}{{"3.21", true}, {"12345678901234567.89", false}} {
		sc := Demo()
		sc.Accounts[0].Positions = []PositionSpec{{Symbol: "ETHUSDT", ProductType: exchange.USDTFutures, HoldSide: exchange.Long,
			Size: decimal.RequireFromString(tc.size), OpenPrice: decimal.RequireFromString("3120.17")}}
		x, err := New(sc, Options{Clock: clock.NewVirtual(sc.Clock.Start)})
		if err != nil {
			t.Fatal(err)
		}
		a := x.accounts[0]
		recs, ok := positionRecordsIn[fixed, fixedKind](a, func(*position) bool { return true })
		if ok != tc.fixed || (ok && len(recs) != 1) {
			t.Fatalf("size %s: computed in fixed %v (%d records), want %v", tc.size, ok, len(recs), tc.fixed)
		}
		if _, ok := accountRecordsIn[fixed, fixedKind](a, exchange.USDTFutures); ok != tc.fixed {
			t.Fatalf("size %s: accounts computed in fixed %v, want %v", tc.size, ok, tc.fixed)
		}
	}
}
