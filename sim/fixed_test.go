package sim

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// checkFixedOps compares every fixed operation on a and b with decimal's:
// a result that is not bad must have the same value and write the same
// text; one that fits in what fixed promises (both operands of at most 18
// digits, a product of 128 bits) must not be bad.
func checkFixedOps(t *testing.T, a, b decimal.Decimal, prec int32) {
	t.Helper()
	fa, fb := fixedOf(a), fixedOf(b)
	if !fa.ok() || !fb.ok() {
		t.Fatalf("fixedOf(%s) or fixedOf(%s) is bad", a, b)
	}
	same := func(op string, got fixed, want decimal.Decimal, mustFit bool) {
		t.Helper()
		if !got.ok() {
			if mustFit {
				t.Fatalf("%s(%s, %s, %d): fixed is bad, decimal gives %s", op, a, b, prec, want)
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
	if g, ok := fa.cmp(fb); (ok && g != a.Cmp(b)) || (!ok && expsClose) {
		t.Fatalf("cmp(%s, %s) = %d (ok %v), decimal gives %d", a, b, g, ok, a.Cmp(b))
	}
}

// TestFixedMatchesDecimal runs checkFixedOps on the kinds of numbers the
// answers compute with: prices, sizes, balances, margins at 12 places, the
// maintenance keep rate, half-way roundings of both signs and coefficients
// at the 64-bit edge.
func TestFixedMatchesDecimal(t *testing.T) {
	nums := []string{"0", "1", "-1", "91250.5", "0.01", "-0.0001", "100000", "99123.456789012345",
		"0.996", "0.004", "10", "3", "-3", "0.5", "-0.5", "0.125", "-2.5", "27240.05", "1e-12", "123456789012345678",
		"-123456789012345678", "999999999999999999", "0.000000000000000001", "7e20", "-4.44444444445",
		// Aligned, these two pass 2^63 together but not alone.
		"99123.456789012345", "9130000", "-9130000"}
	for _, as := range nums {
		for _, bs := range nums {
			for _, prec := range []int32{0, 1, 2, 8, 12, -1} {
				a, b := decimal.RequireFromString(as), decimal.RequireFromString(bs)
				t.Run(as+"_"+bs, func(t *testing.T) { checkFixedOps(t, a, b, prec) })
			}
		}
	}
}

// TestFixedWide: numbers past 64 bits (a margin at 12 places times the
// keep rate, as the liquidation price's cushion is) stay exact, divide and
// write as decimal does.
func TestFixedWide(t *testing.T) {
	cushion := decimal.RequireFromString("99123.456789012345").Mul(decimal.RequireFromString("0.996"))
	f := fixedOf(decimal.RequireFromString("99123.456789012345")).Mul(fixedOf(decimal.RequireFromString("0.996")))
	if !f.ok() || f.hi == 0 {
		t.Fatalf("the cushion %s should need more than 64 bits: %+v", cushion, f)
	}
	if f.String() != cushion.String() {
		t.Fatalf("cushion = %s, decimal %s", f, cushion)
	}
	size := decimal.RequireFromString("0.0123")
	for _, prec := range []int32{0, 4, 12} {
		want := cushion.DivRound(size, prec)
		if got := f.DivRound(fixedOf(size), prec); !got.ok() || got.String() != want.String() {
			t.Fatalf("cushion / size at %d places = %s, decimal %s", prec, got, want)
		}
		if got, want := f.Neg().Round(prec), cushion.Neg().Round(prec); got.String() != want.String() {
			t.Fatalf("-cushion rounded to %d = %s, decimal %s", prec, got, want)
		}
	}
	big := fixed{hi: math.MaxUint64, lo: math.MaxUint64}
	if big.Add(fixedInt(1, 0)).ok() || big.Mul(fixedInt(2, 0)).ok() || big.Mul(big).ok() {
		t.Fatal("an overflow past 128 bits was not marked bad")
	}
	if !big.Add(fixedInt(1, 0)).Add(fixedInt(5, 0)).bad {
		t.Fatal("bad did not stick through a later operation")
	}
}

// FuzzFixed is checkFixedOps on arbitrary coefficients and exponents.
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
			if fixedOf(a).ok() && a.NumDigits() > 18 {
				t.Fatalf("fixedOf(%s) with %d digits is not bad", a, a.NumDigits())
			}
			return
		}
		checkFixedOps(t, a, b, int32(prec))
	})
}

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
