package decimals

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestAppendString: AppendString writes what decimal.String writes,
// through the integer path for small coefficients and the decimal
// package's beyond them.
func TestAppendString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		d     decimal.Decimal
		want  string
		fixed bool // written with integers
	}{
		{"zero", decimal.Zero, "0", true},
		{"zero with places", decimal.New(0, -8), "0", true},
		{"zero with an exponent", decimal.New(0, 5), "0", true},
		{"integer", decimal.New(27000, 0), "27000", true},
		{"negative integer", decimal.New(-42, 0), "-42", true},
		{"positive exponent", decimal.New(15, 3), "15000", true},
		{"negative with a positive exponent", decimal.New(-7, 2), "-700", true},
		{"places", decimal.New(270005, -1), "27000.5", true},
		{"trailing zeros trimmed", decimal.New(150, -2), "1.5", true},
		{"all places zero", decimal.New(2000, -3), "2", true},
		{"leading zeros after the point", decimal.New(1, -4), "0.0001", true},
		{"leading and trailing zeros", decimal.New(1200, -8), "0.000012", true},
		{"minus a half", decimal.New(-5, -1), "-0.5", true},
		{"negative small", decimal.New(-3, -12), "-0.000000000003", true},
		{"exactly the places", decimal.New(123, -3), "0.123", true},
		{"18 digits", decimal.New(999999999999999999, -9), "999999999.999999999", true},
		{"18 negative digits", decimal.New(-123456789012345678, -17), "-1.23456789012345678", true},
		{"19 digits (decimal's path)", decimal.New(math.MaxInt64, -4), "922337203685477.5807", false},
		{"beyond int64", decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(1), 70), -3), "1180591620717411303.424", false},
		{"the most places", decimal.New(5, -MaxExp), "0." + strings.Repeat("0", MaxExp-1) + "5", true},
		{"too many places (decimal's path)", decimal.New(5, -MaxExp-1), "0." + strings.Repeat("0", MaxExp) + "5", false},
		{"the most zeros", decimal.New(3, MaxExp), "3" + strings.Repeat("0", MaxExp), true},
		{"too many zeros (decimal's path)", decimal.New(3, MaxExp+1), "3" + strings.Repeat("0", MaxExp+1), false},
		{"parsed", decimal.RequireFromString("-0001234.5600"), "-1234.56", true},
		{"a float's digits", decimal.NewFromFloat(0.1), "0.1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendString([]byte("x"), tt.d)); got != "x"+tt.want {
				t.Errorf("AppendString(%s) = %q, want %q", tt.d.String(), got, "x"+tt.want)
			}
			if s := tt.d.String(); tt.want != s {
				t.Errorf("the table is wrong: String() = %q, want %q", s, tt.want)
			}
			if ok := FromDecimal(tt.d).OK(); ok != tt.fixed {
				t.Errorf("FromDecimal(%s).OK() = %v, want %v: the case does not test the path it names", tt.d.String(), ok, tt.fixed)
			}
		})
	}
}

// TestWideText: a coefficient past 64 bits writes its digits in two
// parts, the lower padded to 19 digits.
func TestWideText(t *testing.T) {
	t.Parallel()
	f := Fixed{hi: 1, lo: 7, exp: -30, neg: true} // -(2^64 + 7) x 10^-30
	want := decimal.NewFromBigInt(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(7)), -30).Neg()
	if got := f.String(); got != want.String() {
		t.Fatalf("String = %s, decimal %s", got, want)
	}
}

// FuzzAppendString compares AppendString with decimal.String for any
// coefficient and exponent, and for any decimal text the decimal package
// reads.
func FuzzAppendString(f *testing.F) {
	f.Add(int64(0), int16(0), "0")
	f.Add(int64(-5), int16(-1), "-0.5")
	f.Add(int64(1), int16(-4), "0.0001")
	f.Add(int64(150), int16(-2), "1.50")
	f.Add(int64(999999999999999999), int16(-18), "123456789012345678901234567890.5")
	f.Add(int64(math.MinInt64), int16(3), "-1e-7")
	f.Add(int64(12), int16(21), "1E+3")
	f.Fuzz(func(t *testing.T, coef int64, exp int16, text string) {
		d := decimal.New(coef, int32(exp))
		if got, want := AppendString(nil, d), d.String(); string(got) != want {
			t.Fatalf("AppendString(New(%d, %d)) = %q, String() = %q", coef, exp, got, want)
		}
		if len(text) > 200 {
			return // decimal.String of a huge exponent is slow, and out of range anyway
		}
		p, err := decimal.NewFromString(text)
		if err != nil || p.Exponent() > 1000 || p.Exponent() < -1000 {
			return
		}
		if got, want := AppendString(nil, p), p.String(); string(got) != want {
			t.Fatalf("AppendString(%q) = %q, String() = %q", text, got, want)
		}
	})
}

// FuzzFormatScaled checks the text of a non-negative coefficient and an
// exponent, as the simulated book writes its prices and sizes, against
// decimal's.
func FuzzFormatScaled(f *testing.F) {
	for _, seed := range []struct {
		v   int64
		exp int32
	}{{0, 0}, {1, -2}, {27240, -2}, {5, 1}, {100, -2}, {123456789, -8}, {7, -12}} {
		f.Add(seed.v, seed.exp)
	}
	f.Fuzz(func(t *testing.T, v int64, exp int32) {
		if v < 0 || exp < -30 || exp > 30 {
			return
		}
		want := decimal.New(v, exp).String()
		if got := string(New(v, exp).Append(nil)); got != want {
			t.Fatalf("New(%d, %d).Append = %q, decimal says %q", v, exp, got, want)
		}
	})
}

// BenchmarkAppendString is a price as positions report it, through
// AppendString and through decimal.String.
func BenchmarkAppendString(b *testing.B) {
	d := decimal.New(912505123, -4)
	var buf [64]byte
	b.Run("AppendString", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = AppendString(buf[:0], d)
		}
	})
	b.Run("String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = d.String()
		}
	})
}
