package exchange

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/internal/decimals"
)

// Num is a decimal number as the exchange sends it: a JSON string such as
// "27000.5". It stays a string on the wire so that no float rounding ever
// reaches a request; Decimal and Float convert it where arithmetic is needed.
// Decoding also accepts a bare JSON number, which some responses carry.
type Num string

// NumOf formats d as a Num without exponent or trailing float artefacts:
// d.String(), byte for byte, written with integers when it fits (every
// price, size and balance does; d.String() goes through math/big for
// every number).
func NumOf(d decimal.Decimal) Num {
	var buf [64]byte
	return Num(decimals.AppendString(buf[:0], d))
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
