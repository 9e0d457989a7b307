package exchange

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

// TestNumOf: NumOf writes what decimal.String writes, with integers and
// beyond them (internal/decimals tests the text in depth).
func TestNumOf(t *testing.T) {
	tests := []struct {
		name string
		d    decimal.Decimal
		want Num
	}{
		{"zero with places", decimal.New(0, -8), "0"},
		{"places", decimal.New(270005, -1), "27000.5"},
		{"trailing zeros trimmed", decimal.New(-150, -2), "-1.5"},
		{"positive exponent", decimal.New(15, 3), "15000"},
		{"beyond int64", decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(1), 70), -3), "1180591620717411303.424"},
		{"many places", decimal.New(5, -70), "0." + zerosOf(69) + "5"},
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

func zerosOf(n int) Num {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return Num(b)
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
