package decimals

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// checkOps compares every Fixed operation on a and b with decimal's: a
// result that is not bad must have the same value and write the same
// text; one that fits in what Fixed promises (both operands of at most 18
// digits, a product of 128 bits) must not be bad.
func checkOps(t *testing.T, a, b decimal.Decimal, prec int32) {
	t.Helper()
	fa, fb := FromDecimal(a), FromDecimal(b)
	if !fa.OK() || !fb.OK() {
		t.Fatalf("FromDecimal(%s) or FromDecimal(%s) is bad", a, b)
	}
	same := func(op string, got Fixed, want decimal.Decimal, mustFit bool) {
		t.Helper()
		if !got.OK() {
			if mustFit {
				t.Fatalf("%s(%s, %s, %d): Fixed is bad, decimal gives %s", op, a, b, prec, want)
			}
			return
		}
		if got.String() != want.String() {
			t.Fatalf("%s(%s, %s, %d) = %s, decimal gives %s", op, a, b, prec, got, want)
		}
		if g, w := got.IsNegative(), want.IsNegative(); g != w {
			t.Fatalf("%s(%s, %s, %d): IsNegative %v, decimal %v", op, a, b, prec, g, w)
		}
		if g, w := got.IsZero(), want.IsZero(); g != w {
			t.Fatalf("%s(%s, %s, %d): IsZero %v, decimal %v", op, a, b, prec, g, w)
		}
		if g, w := got.IsPositive(), want.IsPositive(); g != w {
			t.Fatalf("%s(%s, %s, %d): IsPositive %v, decimal %v", op, a, b, prec, g, w)
		}
		if g, w := got.Float64(), want.InexactFloat64(); g != w {
			t.Fatalf("%s(%s, %s, %d): Float64 %v, decimal %v", op, a, b, prec, g, w)
		}
		// Int64 may refuse a whole number only past the powers-of-ten table.
		whole := want.IsInteger() && want.Cmp(decimal.New(math.MinInt64, 0)) >= 0 && want.Cmp(decimal.New(math.MaxInt64, 0)) <= 0
		if g, ok := got.Int64(); (ok && (!whole || g != want.IntPart())) || (!ok && whole && got.Exponent() >= -19) {
			t.Fatalf("%s(%s, %s, %d): Int64 %d %v, decimal %s", op, a, b, prec, g, ok, want)
		}
	}
	expsClose := math.Abs(float64(a.Exponent()-b.Exponent())) <= 19
	same("Add", fa.Add(fb), a.Add(b), expsClose)
	same("Sub", fa.Sub(fb), a.Sub(b), expsClose)
	same("Mul", fa.Mul(fb), a.Mul(b), true)
	same("Neg", fa.Neg(), a.Neg(), true)
	same("Round", fa.Round(prec), a.Round(prec), -prec-a.Exponent() <= 19)
	if !b.IsZero() {
		same("DivRound", fa.DivRound(fb, prec), a.DivRound(b, prec), false)
	}
	if g, ok := fa.Cmp(fb); (ok && g != a.Cmp(b)) || (!ok && expsClose) {
		t.Fatalf("Cmp(%s, %s) = %d (ok %v), decimal gives %d", a, b, g, ok, a.Cmp(b))
	}
}

// TestMatchesDecimal runs checkOps on the kinds of numbers the simulator
// and the State compute with: prices, sizes, balances, margins at 12
// places, the maintenance keep rate, half-way roundings of both signs and
// coefficients at the 64-bit edge.
func TestMatchesDecimal(t *testing.T) {
	t.Parallel()
	nums := []string{"0", "1", "-1", "91250.5", "0.01", "-0.0001", "100000", "99123.456789012345",
		"0.996", "0.004", "10", "3", "-3", "0.5", "-0.5", "0.125", "-2.5", "27240.05", "1e-12", "123456789012345678",
		"-123456789012345678", "999999999999999999", "0.000000000000000001", "7e20", "-4.44444444445",
		// Aligned, these two pass 2^63 together but not alone.
		"99123.456789012345", "9130000", "-9130000"}
	for _, as := range nums {
		for _, bs := range nums {
			for _, prec := range []int32{0, 1, 2, 8, 12, 16, -1} {
				a, b := decimal.RequireFromString(as), decimal.RequireFromString(bs)
				t.Run(as+"_"+bs, func(t *testing.T) { checkOps(t, a, b, prec) })
			}
		}
	}
}

// TestMatchesDecimalRandom is checkOps on random numbers of every length
// and exponent the callers meet and beyond: coefficients of 1 to 18
// digits, exponents from -30 to 10, either sign.
func TestMatchesDecimalRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	num := func() decimal.Decimal {
		c := r.Int64N(int64(pow10[1+r.IntN(18)]))
		if r.IntN(3) == 0 {
			c = -c
		}
		return decimal.New(c, int32(r.IntN(41)-30))
	}
	for range 20000 {
		checkOps(t, num(), num(), int32(r.IntN(25)-4))
	}
}

// TestWide: numbers past 64 bits (a margin at 12 places times the keep
// rate, as a liquidation price's cushion is) stay exact, divide and write
// as decimal does.
func TestWide(t *testing.T) {
	t.Parallel()
	cushion := decimal.RequireFromString("99123.456789012345").Mul(decimal.RequireFromString("0.996"))
	f := FromDecimal(decimal.RequireFromString("99123.456789012345")).Mul(FromDecimal(decimal.RequireFromString("0.996")))
	if !f.OK() || f.hi == 0 {
		t.Fatalf("the cushion %s should need more than 64 bits: %+v", cushion, f)
	}
	if f.String() != cushion.String() {
		t.Fatalf("cushion = %s, decimal %s", f, cushion)
	}
	if f.Float64() != cushion.InexactFloat64() {
		t.Fatalf("cushion as a float = %v, decimal %v", f.Float64(), cushion.InexactFloat64())
	}
	size := decimal.RequireFromString("0.0123")
	for _, prec := range []int32{0, 4, 12} {
		want := cushion.DivRound(size, prec)
		if got := f.DivRound(FromDecimal(size), prec); !got.OK() || got.String() != want.String() {
			t.Fatalf("cushion / size at %d places = %s, decimal %s", prec, got, want)
		}
		if got, want := f.Neg().Round(prec), cushion.Neg().Round(prec); got.String() != want.String() {
			t.Fatalf("-cushion rounded to %d = %s, decimal %s", prec, got, want)
		}
	}
	huge := Fixed{hi: math.MaxUint64, lo: math.MaxUint64}
	if huge.Add(New(1, 0)).OK() || huge.Mul(New(2, 0)).OK() || huge.Mul(huge).OK() {
		t.Fatal("an overflow past 128 bits was not marked bad")
	}
	if huge.Add(New(1, 0)).Add(New(5, 0)).OK() {
		t.Fatal("bad did not stick through a later operation")
	}
	if _, ok := huge.Int64(); ok {
		t.Fatal("a 128-bit number fits in an int64")
	}
}

// TestBounds: what does not fit is bad, not wrong.
func TestBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    Fixed
	}{
		{"exponent too high", New(1, MaxExp+1)},
		{"exponent too low", New(1, -MaxExp-1)},
		{"19 digits", FromDecimal(decimal.New(1000000000000000000, 0))},
		{"product exponent", New(1, 40).Mul(New(1, 40))},
		{"divide by zero", New(1, 0).DivRound(Fixed{}, 2)},
		{"NaN", FromFloat(math.NaN())},
		{"infinity", FromFloat(math.Inf(-1))},
		{"float past 64 bits", FromFloat(1e30)},
		{"float with too many places", FromFloat(1e-70)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.OK() {
				t.Fatalf("%s is OK", tc.f)
			}
			if s := tc.f.String(); s != "NaN" {
				t.Fatalf("a bad number writes %q", s)
			}
			if !math.IsNaN(tc.f.Float64()) {
				t.Fatalf("a bad number's float is %v", tc.f.Float64())
			}
		})
	}
	for _, tc := range []struct {
		f    Fixed
		want int64
		ok   bool
	}{
		{New(math.MinInt64, 0), math.MinInt64, true},
		{New(math.MaxInt64, 0), math.MaxInt64, true},
		{New(-922337203685477580, 1), -9223372036854775800, true},
		{New(922337203685477581, 1), 0, false},
		{New(12300, -2), 123, true},
		{New(12301, -2), 0, false},
		{New(0, -30), 0, false}, // past the table: left to decimal
	} {
		if got, ok := tc.f.Int64(); got != tc.want || ok != tc.ok {
			t.Errorf("Int64(%s) = %d %v, want %d %v", tc.f, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzFixed is checkOps on arbitrary coefficients and exponents.
func FuzzFixed(f *testing.F) {
	f.Add(int64(912505), int8(-1), int64(1), int8(-2), int8(8))
	f.Add(int64(-25), int8(-1), int64(1), int8(0), int8(0))
	f.Add(int64(99123456789012345), int8(-12), int64(996), int8(-3), int8(12))
	f.Add(int64(math.MinInt64), int8(0), int64(math.MaxInt64), int8(-18), int8(2))
	f.Fuzz(func(t *testing.T, ac int64, ae int8, bc int64, be int8, prec int8) {
		if ae < -30 || ae > 30 || be < -30 || be > 30 || prec < -20 || prec > 30 {
			return
		}
		a, b := decimal.New(ac, int32(ae)), decimal.New(bc, int32(be))
		if a.NumDigits() > 18 || b.NumDigits() > 18 {
			if FromDecimal(a).OK() && a.NumDigits() > 18 {
				t.Fatalf("FromDecimal(%s) with %d digits is not bad", a, a.NumDigits())
			}
			return
		}
		checkOps(t, a, b, int32(prec))
	})
}
