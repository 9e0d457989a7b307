package decimals

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// fixedDecimal is f as a decimal, coefficient and exponent.
func fixedDecimal(f Fixed) decimal.Decimal {
	c := new(big.Int).Lsh(new(big.Int).SetUint64(f.hi), 64)
	c.Or(c, new(big.Int).SetUint64(f.lo))
	if f.neg {
		c.Neg(c)
	}
	return decimal.NewFromBigInt(c, f.exp)
}

// TestFromFloat: the digits are the value decimal.NewFromFloat reads, for
// random floats of every magnitude and either sign, and the edges are
// refused.
func TestFromFloat(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for i := range 200000 {
		f := math.Float64frombits(r.Uint64() >> 2) // positive, finite, any exponent up to ~1e154
		if f > 1e18 || f < 1e-15 {
			f = r.Float64() * math.Pow10(r.IntN(12))
		}
		if i%5 == 0 {
			f = -f
		}
		got := FromFloat(f)
		if !got.OK() {
			continue
		}
		if want := decimal.NewFromFloat(f); !fixedDecimal(got).Equal(want) {
			t.Fatalf("FromFloat(%v) = %s, NewFromFloat reads %s", f, got, want)
		}
		if got.Float64() != f {
			t.Fatalf("FromFloat(%v).Float64() = %v", f, got.Float64())
		}
		checked++
	}
	if checked < 100000 {
		t.Fatalf("only %d of 200000 floats had short digits", checked)
	}
	if got := FromFloat(412.35); got.lo != 41235 || got.exp != -2 || got.neg {
		t.Errorf("FromFloat(412.35) = %+v", got)
	}
	if got := FromFloat(math.Copysign(0, -1)); !got.IsZero() || got.IsNegative() {
		t.Errorf("FromFloat(-0) = %+v", got)
	}
}

// TestShortestFastIsTheDigits: wherever the fast path answers, it answers
// what the digits strconv writes say: prices and sizes of every number of
// places, values next to them, and floats of every magnitude.
func TestShortestFastIsTheDigits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(f float64) {
		t.Helper()
		c, e, ok := shortestFast(f)
		if !ok {
			return
		}
		if w := shortestDigits(f); !w.OK() || c != w.lo || w.hi != 0 || e != w.exp {
			t.Fatalf("shortestFast(%v) = %d e%d, the digits say %s", f, c, e, w)
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
		if _, _, ok := shortestFast(f); ok {
			fast++
		}
	}
	if fast < 100000 {
		t.Fatalf("the fast path answered %d of 200000 prices: it is not being tested", fast)
	}
}

// FuzzShortestFast: the fast path never disagrees with the digits.
func FuzzShortestFast(f *testing.F) {
	for _, v := range []float64{0, 412.35, 0.1, 91250.5, 1e-7, 123456789.123, 0.30000000000000004} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if !(v >= 0) || math.IsInf(v, 0) {
			return
		}
		if c, e, ok := shortestFast(v); ok {
			if w := shortestDigits(v); c != w.lo || e != w.exp {
				t.Fatalf("shortestFast(%v) = %d e%d, the digits say %s", v, c, e, w)
			}
		}
	})
}

// TestFloat64IsParseFloat: Float64 gives exactly what parsing the text
// gives (and decimal.InexactFloat64), for coefficients on both sides of
// 2^53 and exponents on both sides of the table.
func TestFloat64IsParseFloat(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 200000 {
		f := New(r.Int64N(1<<(1+r.IntN(62))), int32(r.IntN(50)-30))
		if i%3 == 0 {
			f = f.Neg()
		}
		if i%7 == 0 {
			f = f.Mul(New(r.Int64N(1<<62), 0)) // past 64 bits
		}
		want, err := strconv.ParseFloat(f.String(), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Float64(); got != want {
			t.Fatalf("Float64(%s) = %v, ParseFloat %v", f, got, want)
		}
		if got, want := f.Float64(), fixedDecimal(f).InexactFloat64(); got != want {
			t.Fatalf("Float64(%s) = %v, InexactFloat64 %v", f, got, want)
		}
	}
}

// BenchmarkFromFloat is a price's decimal from its float.
func BenchmarkFromFloat(b *testing.B) {
	for b.Loop() {
		FromFloat(412.35)
	}
}
