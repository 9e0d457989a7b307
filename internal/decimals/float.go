package decimals

import (
	"math"
	"strconv"
)

// FromFloat is f's shortest decimal, the digits strconv writes for it, as
// decimal.NewFromFloat reads them: exact decimal arithmetic on a float64
// parsed from a wire number works on the number as it was written. Bad
// for NaN and infinities and when the digits do not fit.
func FromFloat(f float64) Fixed {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return bad
	}
	if f < 0 {
		return FromFloat(-f).Neg()
	}
	if c, e, ok := shortestFast(f); ok {
		return Fixed{lo: c, exp: e}
	}
	return shortestDigits(f)
}

// shortestDigits is FromFloat of a finite f >= 0 from the digits strconv
// writes.
func shortestDigits(f float64) Fixed {
	var buf [64]byte
	s := strconv.AppendFloat(buf[:0], f, 'f', -1, 64)
	var coef uint64
	places := int32(-1)
	for _, ch := range s {
		if ch == '.' {
			places = 0
			continue
		}
		d := uint64(ch - '0')
		if coef > (math.MaxUint64-d)/10 {
			return bad
		}
		coef = coef*10 + d
		if places >= 0 {
			places++
		}
	}
	if places > MaxExp {
		return bad
	}
	return Fixed{lo: coef, exp: -max(places, 0)}
}

// maxFastPlaces is the most places shortestFast tries.
const maxFastPlaces = 12

// shortestFast finds FromFloat's answer without writing digits, for the
// numbers prices and sizes are (a few places, well inside float64's
// precision): the fewest places e at which some integer c gives back f as
// c / 10^e. While f x 10^e stays below 2^50, two integers are several
// floats apart there, so at most one c does, Round(f x 10^e) finds it, and
// the division, of two exact numbers, is rounded as parsing c x 10^-e is:
// c with the fewest places is the shortest decimal. false when none is
// found that way; shortestDigits then writes the digits.
func shortestFast(f float64) (uint64, int32, bool) {
	for e := range int32(maxFastPlaces + 1) {
		p := float64(int64(pow10[e]))
		x := f * p
		if x >= 1<<50 {
			return 0, 0, false
		}
		if c := math.Round(x); c/p == f {
			return uint64(c), -e, true
		}
	}
	return 0, 0, false
}

// Float64 is the float64 nearest to f (ties to even), what parsing
// f.String() gives: when the coefficient and the power of ten are exact
// float64 values, one IEEE division or multiplication rounds the exact
// value once, as parsing does; otherwise through the text. NaN when f is
// bad.
func (f Fixed) Float64() float64 {
	if !f.OK() {
		return math.NaN()
	}
	if f.hi == 0 && f.lo < 1<<53 && f.exp >= -18 && f.exp <= 18 {
		// Both in int64, whose conversion to float64 is one instruction.
		var v float64
		if f.exp < 0 {
			v = float64(int64(f.lo)) / float64(int64(pow10[-f.exp]))
		} else {
			v = float64(int64(f.lo)) * float64(int64(pow10[f.exp]))
		}
		if f.neg {
			v = -v
		}
		return v
	}
	var buf [96]byte
	v, _ := strconv.ParseFloat(string(f.Append(buf[:0])), 64)
	return v
}
