package exchange

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

// TestNumOf: NumOf writes what decimal.String writes, through the integer
// path for small coefficients and the decimal package's beyond them.
func TestNumOf(t *testing.T) {
	tests := []struct {
		name string
		d    decimal.Decimal
		want Num
	}{
		{"zero", decimal.Zero, "0"},
		{"zero with places", decimal.New(0, -8), "0"},
		{"zero with an exponent", decimal.New(0, 5), "0"},
		{"integer", decimal.New(27000, 0), "27000"},
		{"negative integer", decimal.New(-42, 0), "-42"},
		{"positive exponent", decimal.New(15, 3), "15000"},
		{"negative with a positive exponent", decimal.New(-7, 2), "-700"},
		{"places", decimal.New(270005, -1), "27000.5"},
		{"trailing zeros trimmed", decimal.New(150, -2), "1.5"},
		{"all places zero", decimal.New(2000, -3), "2"},
		{"leading zeros after the point", decimal.New(1, -4), "0.0001"},
		{"leading and trailing zeros", decimal.New(1200, -8), "0.000012"},
		{"minus a half", decimal.New(-5, -1), "-0.5"},
		{"negative small", decimal.New(-3, -12), "-0.000000000003"},
		{"exactly the places", decimal.New(123, -3), "0.123"},
		{"18 digits", decimal.New(999999999999999999, -9), "999999999.999999999"},
		{"18 negative digits", decimal.New(-123456789012345678, -17), "-1.23456789012345678"},
		{"19 digits (decimal's path)", decimal.New(math.MaxInt64, -4), "922337203685477.5807"},
		{"beyond int64", decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(1), 70), -3), "1180591620717411303.424"},
		{"many places (decimal's path)", decimal.New(5, -60), "0." + zerosOf(59) + "5"},
		{"the most places", decimal.New(5, -40), "0." + zerosOf(39) + "5"},
		{"many zeros (decimal's path)", decimal.New(3, 25), "3" + zerosOf(25)},
		{"the most zeros", decimal.New(3, 20), "3" + zerosOf(20)},
		{"parsed", decimal.RequireFromString("-0001234.5600"), "-1234.56"},
		{"a float's digits", decimal.NewFromFloat(0.1), "0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NumOf(tt.d); got != tt.want {
				t.Errorf("NumOf(%s) = %q, want %q", tt.d.String(), got, tt.want)
			}
			if s := tt.d.String(); string(tt.want) != s {
				t.Errorf("the table is wrong: String() = %q, want %q", s, tt.want)
			}
		})
	}
}

// TestAppendSmallDecimalRange: the integer path takes what it should, so
// that TestNumOf's cases test it and not only the fallback.
func TestAppendSmallDecimalRange(t *testing.T) {
	for _, tt := range []struct {
		d  decimal.Decimal
		ok bool
	}{
		{decimal.New(1, -4), true},
		{decimal.New(999999999999999999, -maxSmallPlaces), true},
		{decimal.New(-999999999999999999, maxSmallZeros), true},
		{decimal.New(1000000000000000000, 0), false}, // 19 digits
		{decimal.New(1, -maxSmallPlaces-1), false},
		{decimal.New(1, maxSmallZeros+1), false},
	} {
		if _, ok := appendSmallDecimal(nil, tt.d); ok != tt.ok {
			t.Errorf("appendSmallDecimal(%s) ok = %v, want %v", tt.d.String(), ok, tt.ok)
		}
	}
}

func zerosOf(n int) Num {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return Num(b)
}

// FuzzNumOf compares NumOf with decimal.String for any coefficient and
// exponent, and for any decimal text the decimal package reads.
func FuzzNumOf(f *testing.F) {
	f.Add(int64(0), int16(0), "0")
	f.Add(int64(-5), int16(-1), "-0.5")
	f.Add(int64(1), int16(-4), "0.0001")
	f.Add(int64(150), int16(-2), "1.50")
	f.Add(int64(999999999999999999), int16(-18), "123456789012345678901234567890.5")
	f.Add(int64(math.MinInt64), int16(3), "-1e-7")
	f.Add(int64(12), int16(21), "1E+3")
	f.Fuzz(func(t *testing.T, coef int64, exp int16, text string) {
		d := decimal.New(coef, int32(exp))
		if got, want := NumOf(d), d.String(); string(got) != want {
			t.Fatalf("NumOf(New(%d, %d)) = %q, String() = %q", coef, exp, got, want)
		}
		if len(text) > 200 {
			return // decimal.String of a huge exponent is slow, and out of range anyway
		}
		p, err := decimal.NewFromString(text)
		if err != nil || p.Exponent() > 1000 || p.Exponent() < -1000 {
			return
		}
		if got, want := NumOf(p), p.String(); string(got) != want {
			t.Fatalf("NumOf(%q) = %q, String() = %q", text, got, want)
		}
	})
}

// BenchmarkNumOf is a price as positions report it, through NumOf and
// through decimal.String.
func BenchmarkNumOf(b *testing.B) {
	d := decimal.New(912505123, -4)
	b.Run("NumOf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = NumOf(d)
		}
	})
	b.Run("String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Num(d.String())
		}
	})
}
