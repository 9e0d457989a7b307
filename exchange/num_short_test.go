package exchange

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestShortDecimal: the digits are the value decimal.NewFromFloat reads,
// for random floats of every magnitude, and the edges are refused.
func TestShortDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for range 200000 {
		f := math.Float64frombits(r.Uint64() >> 2) // positive, finite, any exponent up to ~1e154
		if f > 1e18 || f < 1e-15 {
			f = r.Float64() * math.Pow10(r.IntN(12))
		}
		c, e, ok := ShortDecimal(f)
		if !ok {
			continue
		}
		got := decimal.NewFromBigInt(new(big.Int).SetUint64(c), e)
		if want := decimal.NewFromFloat(f); !got.Equal(want) {
			t.Fatalf("ShortDecimal(%v) = %d e%d, NewFromFloat reads %s", f, c, e, want)
		}
		checked++
	}
	if checked < 100000 {
		t.Fatalf("only %d of 200000 floats had short digits", checked)
	}
	for _, f := range []float64{-1, math.Inf(1), math.NaN(), 1e30} {
		if _, _, ok := ShortDecimal(f); ok {
			t.Errorf("ShortDecimal(%v) ok", f)
		}
	}
	if c, e, ok := ShortDecimal(412.35); !ok || c != 41235 || e != -2 {
		t.Errorf("ShortDecimal(412.35) = %d e%d %v", c, e, ok)
	}
}
