package decimals

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// Fixed is an exact decimal number, a coefficient of up to 128 bits times
// a power of ten. Its methods are decimal.Decimal's, with the same values
// as results (a result's exponent may differ; only values are compared or
// written). An operation whose result does not fit marks the result bad,
// and so every result computed from it: callers check OK at the end and
// compute in decimal instead. The zero value is 0.
type Fixed struct {
	hi, lo uint64 // magnitude
	exp    int32  // badExp when the number is bad
	neg    bool   // never set on zero
}

// MaxExp bounds the exponents Fixed works with; past it a number or an
// operation is bad. Prices, sizes and balances have a few tens of places
// at most.
const MaxExp = 64

// badExp is the exponent that marks a bad number: a flag of its own would
// make Fixed a struct of five fields, which the compiler keeps in memory
// rather than in registers, several times slower.
const badExp = math.MinInt32

// bad is the result of an operation that does not fit.
var bad = Fixed{exp: badExp}

// pow10 are the powers of ten that fit in 64 bits: the one table of them.
// Up to 10^19 they are also exact as float64 (5^19 < 2^53).
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// New is coef x 10^exp; bad when exp is beyond MaxExp.
func New(coef int64, exp int32) Fixed {
	if exp > MaxExp || exp < -MaxExp {
		return bad
	}
	if coef < 0 {
		return Fixed{lo: uint64(-coef), exp: exp, neg: true} // -MinInt64 wraps to 2^63, its magnitude
	}
	return Fixed{lo: uint64(coef), exp: exp}
}

// FromDecimal is d as a Fixed; bad when its coefficient has more than 18
// digits or its exponent is beyond MaxExp (prices, sizes and balances
// have far fewer).
func FromDecimal(d decimal.Decimal) Fixed {
	if d.NumDigits() > 18 {
		return bad
	}
	return New(d.CoefficientInt64(), d.Exponent())
}

// OK reports whether f is a number (no operation leading to it
// overflowed).
func (f Fixed) OK() bool { return f.exp != badExp }

func (f Fixed) isZeroMag() bool { return f.hi == 0 && f.lo == 0 }

// IsZero reports whether f is 0.
func (f Fixed) IsZero() bool { return f.isZeroMag() }

// IsNegative reports whether f < 0.
func (f Fixed) IsNegative() bool { return f.neg }

// IsPositive reports whether f > 0.
func (f Fixed) IsPositive() bool { return !f.neg && !f.isZeroMag() }

// Exponent is f's exponent.
func (f Fixed) Exponent() int32 { return f.exp }

// Neg is -f.
func (f Fixed) Neg() Fixed {
	if !f.isZeroMag() {
		f.neg = !f.neg
	}
	return f
}

// norm clears the sign of a zero.
func (f Fixed) norm() Fixed {
	if f.isZeroMag() {
		f.neg = false
	}
	return f
}

// mulMag is the magnitude hi:lo times m; false on overflow.
func mulMag(hi, lo, m uint64) (uint64, uint64, bool) {
	h1, l := bits.Mul64(lo, m)
	h2, l2 := bits.Mul64(hi, m)
	h, carry := bits.Add64(h1, l2, 0)
	return h, l, h2 == 0 && carry == 0
}

// scaleUp is f with its exponent lowered by k (its coefficient times
// 10^k), the same value; bad when it does not fit.
func (f Fixed) scaleUp(k int32) Fixed {
	for k > 0 {
		s := min(k, 19)
		var ok bool
		if f.hi, f.lo, ok = mulMag(f.hi, f.lo, pow10[s]); !ok {
			return bad
		}
		f.exp -= s
		k -= s
	}
	return f
}

// align brings f and g to the lower of their exponents.
func align(f, g Fixed) (Fixed, Fixed) {
	switch {
	case f.exp > g.exp:
		f = f.scaleUp(f.exp - g.exp)
	case g.exp > f.exp:
		g = g.scaleUp(g.exp - f.exp)
	}
	return f, g
}

// cmpMag compares the magnitudes of two aligned numbers.
func cmpMag(f, g Fixed) int {
	if f.hi != g.hi {
		return cmp.Compare(f.hi, g.hi)
	}
	return cmp.Compare(f.lo, g.lo)
}

// Add is f + g.
func (f Fixed) Add(g Fixed) Fixed {
	if !f.OK() || !g.OK() {
		return bad
	}
	if f.exp != g.exp {
		if f, g = align(f, g); !f.OK() || !g.OK() {
			return bad
		}
	}
	if f.hi == 0 && g.hi == 0 && f.lo < 1<<62 && g.lo < 1<<62 {
		return addSmall(f, g)
	}
	out := Fixed{exp: f.exp}
	if f.neg == g.neg {
		var carry uint64
		out.lo, carry = bits.Add64(f.lo, g.lo, 0)
		out.hi, carry = bits.Add64(f.hi, g.hi, carry)
		if carry != 0 {
			return bad
		}
		out.neg = f.neg
		return out.norm()
	}
	if cmpMag(f, g) < 0 {
		f, g = g, f
	}
	var borrow uint64
	out.lo, borrow = bits.Sub64(f.lo, g.lo, 0)
	out.hi, _ = bits.Sub64(f.hi, g.hi, borrow)
	out.neg = f.neg
	return out.norm()
}

// addSmall is Add of two aligned numbers whose magnitudes are below 2^62:
// in int64, whose range their sum cannot leave.
func addSmall(f, g Fixed) Fixed {
	a, b := int64(f.lo), int64(g.lo)
	if f.neg {
		a = -a
	}
	if g.neg {
		b = -b
	}
	s := a + b
	if s < 0 {
		return Fixed{lo: uint64(-s), exp: f.exp, neg: true}
	}
	return Fixed{lo: uint64(s), exp: f.exp}
}

// Sub is f - g.
func (f Fixed) Sub(g Fixed) Fixed { return f.Add(g.Neg()) }

// Cmp is -1, 0 or +1 as f is below, equal to or above g; false when f,
// g or their difference is bad.
func (f Fixed) Cmp(g Fixed) (int, bool) {
	d := f.Sub(g)
	switch {
	case !d.OK():
		return 0, false
	case d.isZeroMag():
		return 0, true
	case d.neg:
		return -1, true
	}
	return 1, true
}

// Mul is f x g; bad unless one of the coefficients fits in 64 bits and
// the product in 128.
func (f Fixed) Mul(g Fixed) Fixed {
	if !f.OK() || !g.OK() {
		return bad
	}
	exp := f.exp + g.exp
	if exp > MaxExp || exp < -MaxExp {
		return bad
	}
	if f.hi != 0 {
		f, g = g, f
	}
	if f.hi != 0 {
		return bad
	}
	hi, lo, ok := mulMag(g.hi, g.lo, f.lo)
	if !ok {
		return bad
	}
	return Fixed{hi: hi, lo: lo, exp: exp, neg: f.neg != g.neg}.norm()
}

// divMag is the magnitude hi:lo divided by d: the quotient and the
// remainder.
func divMag(hi, lo, d uint64) (qhi, qlo, r uint64) {
	if hi < d { // the quotient fits in 64 bits: one division
		qlo, r = bits.Div64(hi, lo, d)
		return 0, qlo, r
	}
	qhi, r = hi/d, hi%d
	qlo, r = bits.Div64(r, lo, d)
	return qhi, qlo, r
}

// roundedDiv is hi:lo / d rounded half away from zero (on magnitudes).
func roundedDiv(hi, lo, d uint64) (uint64, uint64, bool) {
	qhi, qlo, r := divMag(hi, lo, d)
	if r >= d-r { // 2r >= d, without overflowing
		var carry uint64
		qlo, carry = bits.Add64(qlo, 1, 0)
		qhi += carry
		if qhi == 0 && qlo == 0 {
			return 0, 0, false
		}
	}
	return qhi, qlo, true
}

// DivRound is decimal's DivRound: f / g rounded half away from zero to
// precision places (decimal's Div is DivRound at
// decimal.DivisionPrecision places). Bad when g is zero (decimal panics)
// or when the divisor, scaled, does not fit in 64 bits.
func (f Fixed) DivRound(g Fixed, precision int32) Fixed {
	if !f.OK() || !g.OK() || g.isZeroMag() || g.hi != 0 || precision > MaxExp || precision < -MaxExp {
		return bad
	}
	// f / g = (F x 10^k / G) x 10^-precision, k = f.exp - g.exp + precision.
	num, den := f, g.lo
	if k := f.exp - g.exp + precision; k > 0 {
		if num = f.scaleUp(k); !num.OK() {
			return bad
		}
	} else if k < 0 {
		if -k > 19 {
			return bad
		}
		hi, lo := bits.Mul64(den, pow10[-k])
		if hi != 0 {
			return bad
		}
		den = lo
	}
	hi, lo, ok := roundedDiv(num.hi, num.lo, den)
	if !ok {
		return bad
	}
	return Fixed{hi: hi, lo: lo, exp: -precision, neg: f.neg != g.neg}.norm()
}

// Round is decimal's Round: f rounded half away from zero to places
// places. A number with no more places is returned as it is.
func (f Fixed) Round(places int32) Fixed {
	if !f.OK() {
		return f
	}
	k := -places - f.exp
	if k <= 0 {
		return f
	}
	if k > 19 {
		return bad
	}
	hi, lo, ok := roundedDiv(f.hi, f.lo, pow10[k])
	if !ok {
		return bad
	}
	return Fixed{hi: hi, lo: lo, exp: -places, neg: f.neg}.norm()
}

// Int64 is f when it is a whole number that fits in an int64; false
// otherwise (and when f is bad).
func (f Fixed) Int64() (int64, bool) {
	if !f.OK() {
		return 0, false
	}
	switch {
	case f.exp > 0:
		if f = f.scaleUp(f.exp); !f.OK() {
			return 0, false
		}
	case f.exp < 0:
		if f.exp < -19 {
			return 0, false
		}
		var r uint64
		if f.hi, f.lo, r = divMag(f.hi, f.lo, pow10[-f.exp]); r != 0 {
			return 0, false
		}
	}
	switch {
	case f.hi != 0:
		return 0, false
	case f.neg && f.lo <= 1<<63:
		return int64(-f.lo), true // 2^63 wraps to MinInt64
	case !f.neg && f.lo <= math.MaxInt64:
		return int64(f.lo), true
	}
	return 0, false
}
