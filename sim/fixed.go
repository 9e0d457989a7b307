package sim

import (
	"cmp"
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// fixed is an exact decimal number, a coefficient of up to 128 bits times a
// power of ten, for the arithmetic that every price step repeats (the
// unrealised P&L, the funds and the liquidation price of a held position):
// decimal.Decimal allocates for nearly every operation, fixed never does.
// Its methods are decimal's, with the same values as results (a result's
// exponent may differ; only values are compared or written). An operation
// whose result does not fit marks the result bad, and so every result
// computed from it: callers check ok at the end and compute in decimal
// instead. The zero value is 0.
type fixed struct {
	hi, lo uint64 // magnitude
	exp    int32
	neg    bool // never set on zero
	bad    bool
}

// maxFixedExp bounds the exponents fixed works with; past it an operation
// is bad. Prices, sizes and balances have a few tens of places at most.
const maxFixedExp = 64

// badFixed is the result of an operation that does not fit.
var badFixed = fixed{bad: true}

// fixedOf is d as a fixed; bad when its coefficient has more than 18
// digits (the simulator's numbers have far fewer).
func fixedOf(d decimal.Decimal) fixed {
	if d.NumDigits() > 18 || d.Exponent() > maxFixedExp || d.Exponent() < -maxFixedExp {
		return badFixed
	}
	return fixedInt(d.CoefficientInt64(), d.Exponent())
}

// fixedInt is c x 10^exp.
func fixedInt(c int64, exp int32) fixed {
	if c < 0 {
		return fixed{lo: uint64(-c), exp: exp, neg: true} // -MinInt64 wraps to 2^63, its magnitude
	}
	return fixed{lo: uint64(c), exp: exp}
}

// ok reports whether f is a number (no operation leading to it overflowed).
func (f fixed) ok() bool { return !f.bad }

func (f fixed) isZeroMag() bool { return f.hi == 0 && f.lo == 0 }

// IsZero reports whether f is 0.
func (f fixed) IsZero() bool { return f.isZeroMag() }

// IsNegative reports whether f < 0.
func (f fixed) IsNegative() bool { return f.neg }

// IsPositive reports whether f > 0.
func (f fixed) IsPositive() bool { return !f.neg && !f.isZeroMag() }

// Exponent is f's exponent.
func (f fixed) Exponent() int32 { return f.exp }

// Neg is -f.
func (f fixed) Neg() fixed {
	if !f.isZeroMag() {
		f.neg = !f.neg
	}
	return f
}

// norm clears the sign of a zero.
func (f fixed) norm() fixed {
	if f.isZeroMag() {
		f.neg = false
	}
	return f
}

// pow10s are the powers of ten that fit in 64 bits.
var pow10s = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// mulMag is the magnitude hi:lo times m; false on overflow.
func mulMag(hi, lo, m uint64) (uint64, uint64, bool) {
	h1, l := bits.Mul64(lo, m)
	h2, l2 := bits.Mul64(hi, m)
	h, carry := bits.Add64(h1, l2, 0)
	return h, l, h2 == 0 && carry == 0
}

// scaleUp is f with its exponent lowered by k (its coefficient times
// 10^k), the same value; bad when it does not fit.
func (f fixed) scaleUp(k int32) fixed {
	for k > 0 {
		s := min(k, 19)
		var ok bool
		if f.hi, f.lo, ok = mulMag(f.hi, f.lo, pow10s[s]); !ok {
			return badFixed
		}
		f.exp -= s
		k -= s
	}
	return f
}

// align brings f and g to the lower of their exponents.
func align(f, g fixed) (fixed, fixed) {
	switch {
	case f.exp > g.exp:
		f = f.scaleUp(f.exp - g.exp)
	case g.exp > f.exp:
		g = g.scaleUp(g.exp - f.exp)
	}
	return f, g
}

// cmpMag compares the magnitudes of two aligned numbers.
func cmpMag(f, g fixed) int {
	switch {
	case f.hi != g.hi:
		return cmp.Compare(f.hi, g.hi)
	default:
		return cmp.Compare(f.lo, g.lo)
	}
}

// Add is f + g.
func (f fixed) Add(g fixed) fixed {
	if f.bad || g.bad {
		return badFixed
	}
	if f.exp != g.exp {
		if f, g = align(f, g); f.bad || g.bad {
			return badFixed
		}
	}
	if f.hi == 0 && g.hi == 0 && f.lo < 1<<62 && g.lo < 1<<62 {
		return addSmall(f, g)
	}
	out := fixed{exp: f.exp}
	if f.neg == g.neg {
		var carry uint64
		out.lo, carry = bits.Add64(f.lo, g.lo, 0)
		out.hi, carry = bits.Add64(f.hi, g.hi, carry)
		if carry != 0 {
			return badFixed
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
func addSmall(f, g fixed) fixed {
	a, b := int64(f.lo), int64(g.lo)
	if f.neg {
		a = -a
	}
	if g.neg {
		b = -b
	}
	s := a + b
	if s < 0 {
		return fixed{lo: uint64(-s), exp: f.exp, neg: true}
	}
	return fixed{lo: uint64(s), exp: f.exp}
}

// Sub is f - g.
func (f fixed) Sub(g fixed) fixed { return f.Add(g.Neg()) }

// cmp is -1, 0 or +1 as f is below, equal to or above g; false when f,
// g or their difference is bad.
func (f fixed) cmp(g fixed) (int, bool) {
	d := f.Sub(g)
	switch {
	case d.bad:
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
func (f fixed) Mul(g fixed) fixed {
	if f.bad || g.bad {
		return badFixed
	}
	exp := f.exp + g.exp
	if exp > maxFixedExp || exp < -maxFixedExp {
		return badFixed
	}
	if f.hi != 0 {
		f, g = g, f
	}
	if f.hi != 0 {
		return badFixed
	}
	hi, lo, ok := mulMag(g.hi, g.lo, f.lo)
	if !ok {
		return badFixed
	}
	return fixed{hi: hi, lo: lo, exp: exp, neg: f.neg != g.neg}.norm()
}

// divMag is the magnitude hi:lo divided by d: the quotient and the
// remainder.
func divMag(hi, lo, d uint64) (qhi, qlo, r uint64) {
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
// precision places. Bad when g is zero (decimal panics) or when the
// divisor, scaled, does not fit in 64 bits.
func (f fixed) DivRound(g fixed, precision int32) fixed {
	if f.bad || g.bad || g.isZeroMag() || g.hi != 0 || precision > maxFixedExp || precision < -maxFixedExp {
		return badFixed
	}
	// f / g = (F x 10^k / G) x 10^-precision, k = f.exp - g.exp + precision.
	num, den := f, g.lo
	if k := f.exp - g.exp + precision; k > 0 {
		if num = f.scaleUp(k); num.bad {
			return badFixed
		}
	} else if k < 0 {
		if -k > 19 {
			return badFixed
		}
		hi, lo := bits.Mul64(den, pow10s[-k])
		if hi != 0 {
			return badFixed
		}
		den = lo
	}
	hi, lo, ok := roundedDiv(num.hi, num.lo, den)
	if !ok {
		return badFixed
	}
	return fixed{hi: hi, lo: lo, exp: -precision, neg: f.neg != g.neg}.norm()
}

// Round is decimal's Round: f rounded half away from zero to places
// places. A number with no more places is returned as it is.
func (f fixed) Round(places int32) fixed {
	if f.bad {
		return f
	}
	k := -places - f.exp
	if k <= 0 {
		return f
	}
	if k > 19 {
		return badFixed
	}
	hi, lo, ok := roundedDiv(f.hi, f.lo, pow10s[k])
	if !ok {
		return badFixed
	}
	return fixed{hi: hi, lo: lo, exp: -places, neg: f.neg}.norm()
}

// String writes f as decimal.Decimal.String writes the same value: no
// exponent, no trailing zeros in the fraction. A bad f writes "NaN".
func (f fixed) String() string { return string(f.appendText(nil)) }

// num is f as exchange.NumOf writes its decimal.
func (f fixed) num() exchange.Num { return exchange.Num(f.appendText(nil)) }

// roundedNum is roundedNum for a fixed.
func (f fixed) roundedNum(places int32) exchange.Num { return f.Round(places).num() }

// appendText appends String's text to dst.
func (f fixed) appendText(dst []byte) []byte {
	if f.bad {
		return append(dst, "NaN"...)
	}
	var buf [40]byte
	return exchange.AppendDecimalText(dst, f.neg, f.appendDigits(buf[:0]), f.exp)
}

// appendDigits appends the digits of f's magnitude.
func (f fixed) appendDigits(dst []byte) []byte {
	if f.hi == 0 {
		return strconv.AppendUint(dst, f.lo, 10)
	}
	// hi:lo = q x 10^19 + r, q < 2^128 / 10^19 < 2^65: once more when q
	// does not fit in 64 bits.
	qhi, qlo, r := divMag(f.hi, f.lo, pow10s[19])
	dst = fixed{hi: qhi, lo: qlo}.appendDigits(dst)
	var low [19]byte
	s := strconv.AppendUint(low[:0], r, 10)
	for range 19 - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
