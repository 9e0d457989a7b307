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

// TestShortDecimalFastIsTheDigits: wherever the fast path answers, it
// answers what the digits strconv writes say: prices and sizes of every
// number of places, values next to them, and floats of every magnitude.
func TestShortDecimalFastIsTheDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(f float64) {
		t.Helper()
		c, e, ok := shortDecimalFast(f)
		if !ok {
			return
		}
		wc, we, wok := shortDecimalDigits(f)
		if !wok || c != wc || e != we {
			t.Fatalf("shortDecimalFast(%v) = %d e%d, the digits say %d e%d (%v)", f, c, e, wc, we, wok)
		}
	}
	fast := 0
	for range 200000 {
		places := rng.IntN(11)
		units := rng.Int64N(1 << uint(20+rng.IntN(30)))
		f := float64(units) / math.Pow10(places)
		check(f)
		check(math.Nextafter(f, math.Inf(1)))
		check(math.Nextafter(f, 0))
		check(math.Float64frombits(rng.Uint64() &^ (1 << 63)))
		check(rng.Float64() * math.Pow10(rng.IntN(12)))
		if _, _, ok := shortDecimalFast(f); ok {
			fast++
		}
	}
	if fast < 100000 {
		t.Fatalf("the fast path answered %d of 200000 prices: it is not being tested", fast)
	}
}

// FuzzShortDecimal: the fast path never disagrees with the digits.
func FuzzShortDecimal(f *testing.F) {
	for _, v := range []float64{0, 412.35, 0.1, 91250.5, 1e-7, 123456789.123, 0.30000000000000004} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if !(v >= 0) || math.IsInf(v, 0) {
			return
		}
		if c, e, ok := shortDecimalFast(v); ok {
			if wc, we, _ := shortDecimalDigits(v); c != wc || e != we {
				t.Fatalf("shortDecimalFast(%v) = %d e%d, the digits say %d e%d", v, c, e, wc, we)
			}
		}
	})
}
