package exchange

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Num is a decimal number as the exchange sends it: a JSON string such as
// "27000.5". It stays a string on the wire so that no float rounding ever
// reaches a request; Decimal and Float convert it where arithmetic is needed.
// Decoding also accepts a bare JSON number, which some responses carry.
type Num string

// NumOf formats d as a Num without exponent or trailing float artefacts:
// d.String(), byte for byte. Decimals whose coefficient has at most 18
// digits (every price, size and balance the simulator writes) are written
// with integers; d.String() goes through math/big for every one.
func NumOf(d decimal.Decimal) Num {
	var buf [64]byte
	if b, ok := appendSmallDecimal(buf[:0], d); ok {
		return Num(b)
	}
	return Num(d.String())
}

// Bounds of appendSmallDecimal: an 18-digit coefficient with up to
// maxSmallPlaces places or maxSmallZeros trailing zeros fits its buffer.
const (
	maxSmallDigits = 18
	maxSmallPlaces = 40
	maxSmallZeros  = 20
)

// appendSmallDecimal appends d as d.String() writes it (no exponent,
// trailing zeros of the fraction trimmed), when its coefficient fits in
// maxSmallDigits digits and its exponent is within the bounds above; false
// otherwise, and when the decimal package's string options are not their
// defaults (String then writes something else).
func appendSmallDecimal(dst []byte, d decimal.Decimal) ([]byte, bool) {
	exp := d.Exponent()
	if exp < -maxSmallPlaces || exp > maxSmallZeros || !decimal.TrimTrailingZeros || decimal.UseScientificNotation ||
		d.NumDigits() > maxSmallDigits {
		return dst, false
	}
	c := d.CoefficientInt64()
	neg := c < 0
	if neg {
		c = -c
	}
	var digits [maxSmallDigits]byte
	return AppendDecimalText(dst, neg, strconv.AppendInt(digits[:0], c, 10), exp), true
}

// AppendDecimalText appends the number whose coefficient has the decimal
// digits ds (no leading zero; "0" for zero) and the sign neg, times 10^exp,
// as decimal.Decimal.String writes it: no exponent, the fraction's
// trailing zeros trimmed. For writers of decimal text that do not hold a
// decimal.Decimal (the simulator's integer arithmetic).
func AppendDecimalText(dst []byte, neg bool, ds []byte, exp int32) []byte {
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
	intPart, lead, frac := ds, 0, ds[:0]
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

// Decimal parses n. An empty Num is zero.
func (n Num) Decimal() (decimal.Decimal, error) {
	if n == "" {
		return decimal.Zero, nil
	}
	d, err := decimal.NewFromString(string(n))
	if err != nil {
		return decimal.Zero, fmt.Errorf("number %q: %w", string(n), err)
	}
	return d, nil
}

// MustDecimal is Decimal for values already validated; an invalid number is zero.
func (n Num) MustDecimal() decimal.Decimal {
	d, _ := n.Decimal()
	return d
}

// Float returns n as float64 for conditions and display; invalid or empty is 0.
func (n Num) Float() float64 {
	if n == "" {
		return 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0
	}
	return f
}

// IsZero reports whether n is empty or numerically zero.
func (n Num) IsZero() bool { return n == "" || n.MustDecimal().IsZero() }

// UnmarshalJSON accepts a JSON string, a bare number or null.
func (n *Num) UnmarshalJSON(b []byte) error {
	s, err := flexString(b)
	if err != nil {
		return err
	}
	*n = Num(s)
	return nil
}

// Millis is a Unix time in milliseconds as the exchange sends it: usually a
// JSON string, sometimes a number (requestTime). It is kept as text.
type Millis string

// MillisOf returns t as Millis.
func MillisOf(t time.Time) Millis { return Millis(strconv.FormatInt(t.UnixMilli(), 10)) }

// Int returns the milliseconds; empty or invalid is 0.
func (m Millis) Int() int64 {
	v, err := strconv.ParseInt(string(m), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// Time returns m as a UTC time; empty or invalid is the zero time.
func (m Millis) Time() time.Time {
	v := m.Int()
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// UnmarshalJSON accepts a JSON string, a bare number or null.
func (m *Millis) UnmarshalJSON(b []byte) error {
	s, err := flexString(b)
	if err != nil {
		return err
	}
	*m = Millis(s)
	return nil
}

// ShortDecimal returns f's shortest decimal (the digits strconv writes for
// it, as decimal.NewFromFloat reads it) as coef x 10^exp with exp <= 0, so
// that callers can do exact decimal arithmetic on a float64 with integers.
// ok is false for a negative or non-finite f and when the digits do not fit
// in 64 bits.
func ShortDecimal(f float64) (coef uint64, exp int32, ok bool) {
	if !(f >= 0) || f > math.MaxFloat64 {
		return 0, 0, false
	}
	if c, e, ok := shortDecimalFast(f); ok {
		return c, e, true
	}
	return shortDecimalDigits(f)
}

// shortDecimalDigits is ShortDecimal from the digits strconv writes.
func shortDecimalDigits(f float64) (coef uint64, exp int32, ok bool) {
	var buf [64]byte
	s := strconv.AppendFloat(buf[:0], f, 'f', -1, 64)
	places := int32(-1)
	for _, ch := range s {
		if ch == '.' {
			places = 0
			continue
		}
		d := uint64(ch - '0')
		if coef > (math.MaxUint64-d)/10 {
			return 0, 0, false
		}
		coef = coef*10 + d
		if places >= 0 {
			places++
		}
	}
	return coef, -max(places, 0), true
}

// shortDecimalFast finds ShortDecimal's answer without writing digits, for
// the numbers prices and sizes are (a few places, well inside float64's
// precision): the fewest places e at which some integer c gives back f as
// c / 10^e. While f x 10^e stays below 2^50, two integers are several
// floats apart there, so at most one c does, Round(f x 10^e) finds it, and
// the division, of two exact numbers, is rounded as parsing c x 10^-e is:
// c with the fewest places is the shortest decimal. false when none is
// found that way; ShortDecimal then writes the digits.
func shortDecimalFast(f float64) (uint64, int32, bool) {
	for e := range int32(len(pow10f)) {
		x := f * pow10f[e]
		if x >= 1<<50 {
			return 0, 0, false
		}
		if c := math.Round(x); c/pow10f[e] == f {
			return uint64(c), -e, true
		}
	}
	return 0, 0, false
}

// pow10f are the powers of ten shortDecimalFast tries, all exact in
// float64.
var pow10f = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12}
