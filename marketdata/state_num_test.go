package marketdata

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestFloatOfIsInexactFloat64: floatOf must give exactly what
// decimal.InexactFloat64 gives, on quotients (what it is used for) and on
// plain decimals, including the extremes of a decimal's exponent.
func TestFloatOfIsInexactFloat64(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200000 {
		d := decimal.New(r.Int64N(1<<62), -int32(r.IntN(30)))
		if i%2 == 0 {
			d = d.Div(decimal.New(r.Int64N(1<<40)+1, -int32(r.IntN(10))))
		}
		if i%7 == 0 {
			d = d.Neg()
		}
		if got, want := floatOf(d), d.InexactFloat64(); got != want {
			t.Fatalf("floatOf(%s) = %v, InexactFloat64 = %v", d, got, want)
		}
	}
	for _, s := range []string{"0", "8", "0.1", "1e-30", "123456789012345678901234567890", "-0.30000000000000004"} {
		d := decimal.RequireFromString(s)
		if got, want := floatOf(d), d.InexactFloat64(); got != want {
			t.Errorf("floatOf(%s) = %v, InexactFloat64 = %v", s, got, want)
		}
	}
}
