package exchange

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

// TestNumOf: NumOf writes what decimal.String writes, with integers and
// beyond them (internal/decimals tests the text in depth).
func TestNumOf(t *testing.T) {
	for _, d := range []decimal.Decimal{
		decimal.New(0, -8), decimal.New(270005, -1), decimal.New(-150, -2), decimal.New(15, 3),
		decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(1), 70), -3), // past 64 bits
		decimal.New(5, -70), // past the places integers take
	} {
		if got, want := NumOf(d), d.String(); string(got) != want {
			t.Errorf("NumOf(%s) = %q, want %q", want, got, want)
		}
	}
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
