package decimals

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// AppendString appends d.String() to dst, byte for byte: with integers
// when d fits a Fixed (every price, size and balance does), through
// decimal, which writes every number through math/big, otherwise and when
// the decimal package's string options are not their defaults.
func AppendString(dst []byte, d decimal.Decimal) []byte {
	if decimal.TrimTrailingZeros && !decimal.UseScientificNotation {
		if f := FromDecimal(d); f.OK() {
			return f.Append(dst)
		}
	}
	return append(dst, d.String()...)
}

// String writes f as decimal.Decimal.String writes the same value: no
// exponent, no trailing zeros in the fraction. A bad f writes "NaN".
func (f Fixed) String() string {
	var buf [48]byte
	return string(f.Append(buf[:0]))
}

// Append appends String's text to dst.
func (f Fixed) Append(dst []byte) []byte {
	if !f.OK() {
		return append(dst, "NaN"...)
	}
	var buf [40]byte
	return appendText(dst, f.neg, f.appendDigits(buf[:0]), f.exp)
}

// appendDigits appends the digits of f's magnitude.
func (f Fixed) appendDigits(dst []byte) []byte {
	if f.hi == 0 {
		return strconv.AppendUint(dst, f.lo, 10)
	}
	// hi:lo = q x 10^19 + r, q < 2^128 / 10^19 < 2^65: once more when q
	// does not fit in 64 bits.
	qhi, qlo, r := divMag(f.hi, f.lo, pow10[19])
	dst = Fixed{hi: qhi, lo: qlo}.appendDigits(dst)
	var low [19]byte
	s := strconv.AppendUint(low[:0], r, 10)
	for range 19 - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendText appends the number whose coefficient has the decimal digits
// ds (no leading zero; "0" for zero) and the sign neg, times 10^exp, as
// decimal.Decimal.String writes it: no exponent, the fraction's trailing
// zeros trimmed.
func appendText(dst []byte, neg bool, ds []byte, exp int32) []byte {
	if len(ds) == 1 && ds[0] == '0' {
		return append(dst, '0')
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp >= 0 {
		dst = append(dst, ds...)
		for range exp {
			dst = append(dst, '0')
		}
		return dst
	}
	places := int(-exp)
	var intPart, frac []byte
	lead := 0
	if len(ds) > places {
		intPart, frac = ds[:len(ds)-places], ds[len(ds)-places:]
	} else {
		intPart, lead, frac = nil, places-len(ds), ds
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if intPart == nil {
		dst = append(dst, '0')
	} else {
		dst = append(dst, intPart...)
	}
	if len(frac) == 0 {
		return dst
	}
	dst = append(dst, '.')
	for range lead {
		dst = append(dst, '0')
	}
	return append(dst, frac...)
}
