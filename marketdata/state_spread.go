package marketdata

import (
	"math"
	"math/bits"

	"github.com/tickrules/tickrules/exchange"
)

// topOfBook is the mid, spread and spread in basis points of a best bid and
// ask, computed as decimals (so that a spread of 0.20 on 250 is 8 bps and
// not 7.9999999: a rule "spread_bps < 8" must not fire on an artefact) and
// then read as float64. hasBps is false when the mid is not positive.
//
// The decimal arithmetic (decimalTopOfBook) is the definition; intTopOfBook
// gives the very same values with 64- and 128-bit integers when the prices
// are short enough, about ten times faster, and is tried first.
func topOfBook(bid, ask float64) (mid, spread, bps float64, hasBps bool) {
	if mid, spread, bps, hasBps, ok := intTopOfBook(bid, ask); ok {
		return mid, spread, bps, hasBps
	}
	return decimalTopOfBook(bid, ask)
}

// decimalTopOfBook is topOfBook in shopspring/decimal: the shortest
// decimals of the prices, mid = (bid + ask) / 2, spread = ask - bid, and
// bps = spread / mid (rounded to decimal.DivisionPrecision places, half
// away from zero) x 10000.
func decimalTopOfBook(bid, ask float64) (mid, spread, bps float64, hasBps bool) {
	b, a := decimalOf(bid), decimalOf(ask)
	m := b.Add(a).Div(two)
	s := a.Sub(b)
	if m.IsPositive() {
		bps, hasBps = floatOf(s.Div(m).Mul(tenThousand)), true
	}
	return floatOf(m), floatOf(s), bps, hasBps
}

// divisionPlaces is decimal.DivisionPrecision, the places Div rounds to.
const divisionPlaces = 16

// maxCoef bounds the integer coefficients the fast path works with, so that
// sums, doublings and the rounding steps cannot overflow.
const maxCoef = 1 << 53

// intTopOfBook is decimalTopOfBook with integers: prices are read as
// coef x 10^exp from their shortest decimals and brought to one exponent.
// ok is false when a number does not fit, and the caller then uses the
// decimal definition.
func intTopOfBook(bid, ask float64) (mid, spread, bps float64, hasBps, ok bool) {
	b, eb, ok1 := shortDecimal(bid)
	a, ea, ok2 := shortDecimal(ask)
	if !ok1 || !ok2 {
		return 0, 0, 0, false, false
	}
	e := min(ea, eb)
	if b, ok1 = scaleUp(b, eb-e); !ok1 {
		return 0, 0, 0, false, false
	}
	if a, ok2 = scaleUp(a, ea-e); !ok2 {
		return 0, 0, 0, false, false
	}
	// mid = (a + b) / 2 exactly: an odd sum gets one more place.
	midC, midE := (a+b)/2, e
	if (a+b)%2 != 0 {
		midC, midE = (a+b)*5, e-1
	}
	diff := a - b
	if midC >= maxCoef || -midE > divisionPlaces || -e > 22 {
		return 0, 0, 0, false, false
	}
	mid = exactFloat(midC, midE)
	spread = exactFloat(abs64(diff), e)
	if diff < 0 {
		spread = -spread
	}
	if midC == 0 {
		return mid, spread, 0, false, true
	}
	// bps = diff / mid at 16 places x 10000.
	q, ok := divide(abs64(diff), e, midC, midE)
	if !ok {
		return 0, 0, 0, false, false
	}
	bps = exactFloat(q, -(divisionPlaces - 4))
	if diff < 0 {
		bps = -bps
	}
	return mid, spread, bps, true, true
}

// divide is (n x 10^ne) / (d x 10^de) as decimal.Div gives it, for
// 0 <= n, 0 < d < maxCoef: the quotient in units of 10^-16, rounded half
// away from zero, with a 128-bit product. ok is false when it does not fit.
func divide(n int64, ne int32, d int64, de int32) (q int64, ok bool) {
	shift := divisionPlaces + int(ne-de)
	if shift < 0 || shift > 19 || d <= 0 || n < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(n), pow10u(shift))
	if hi >= uint64(d) {
		return 0, false
	}
	u, r := bits.Div64(hi, lo, uint64(d))
	if 2*r >= uint64(d) {
		u++
	}
	if u >= maxCoef {
		return 0, false
	}
	return int64(u), true
}

// ratio is floatOf(decimalOf(n).Div(decimalOf(d))) with integers when the
// numbers are short enough; ok is false otherwise.
func ratio(n, d float64) (r float64, ok bool) {
	nc, ne, ok1 := shortDecimal(math.Abs(n))
	dc, de, ok2 := shortDecimal(math.Abs(d))
	if !ok1 || !ok2 || dc == 0 || math.IsNaN(n) {
		return 0, false
	}
	q, ok := divide(nc, ne, dc, de)
	if !ok {
		return 0, false
	}
	r = exactFloat(q, -divisionPlaces)
	if (n < 0) != (d < 0) && q != 0 {
		r = -r
	}
	return r, true
}

// shortDecimal is exchange.ShortDecimal below maxCoef, as the integer
// paths here need.
func shortDecimal(f float64) (coef int64, exp int32, ok bool) {
	c, e, ok := exchange.ShortDecimal(f)
	if !ok || c >= maxCoef {
		return 0, 0, false
	}
	return int64(c), e, true
}

// scaleUp returns c x 10^n (n >= 0) when it stays below maxCoef.
func scaleUp(c int64, n int32) (int64, bool) {
	for range n {
		c *= 10
		if c >= maxCoef {
			return 0, false
		}
	}
	return c, true
}

// exactFloat is c x 10^exp (0 <= c < 2^53, -22 <= exp <= 0) as the float64
// nearest to it: one IEEE division of two exact values.
func exactFloat(c int64, exp int32) float64 {
	return float64(c) / math.Pow10(int(-exp))
}

func pow10u(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// moveOf is (to - from) / from computed in decimal, read as float64.
func moveOf(from, to float64) float64 {
	if m, ok := relativeMove(from, to); ok {
		return m
	}
	f := decimalOf(from)
	return floatOf(decimalOf(to).Sub(f).Div(f))
}

// quotientOf is n / d computed in decimal, read as float64.
func quotientOf(n, d float64) float64 {
	if r, ok := ratio(n, d); ok {
		return r
	}
	return floatOf(decimalOf(n).Div(decimalOf(d)))
}

// relativeMove is floatOf(decimalOf(to).Sub(decimalOf(from)).Div(decimalOf(from)))
// with integers, for positive prices; ok is false when they do not fit.
func relativeMove(from, to float64) (m float64, ok bool) {
	fc, fe, ok1 := shortDecimal(from)
	tc, te, ok2 := shortDecimal(to)
	if !ok1 || !ok2 || fc == 0 {
		return 0, false
	}
	e := min(fe, te)
	if fc, ok1 = scaleUp(fc, fe-e); !ok1 {
		return 0, false
	}
	if tc, ok2 = scaleUp(tc, te-e); !ok2 {
		return 0, false
	}
	q, ok := divide(abs64(tc-fc), e, fc, e)
	if !ok {
		return 0, false
	}
	m = exactFloat(q, -divisionPlaces)
	if tc < fc && q != 0 {
		m = -m
	}
	return m, true
}
