package market

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestDecimalOf checks the price decimal of n ticks against the
// multiplication it replaces, coefficient and exponent alike (not only the
// value): answers compare and write these decimals.
func TestDecimalOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		tick string
		n    int64
	}{
		{"cent", "0.01", 27240},
		{"odd tick", "0.05", 4622},
		{"tenth", "0.1", 912505},
		{"whole", "5", 3650},
		{"tens", "10", 1},
		{"fine", "0.0001", 731},
		{"one tick", "0.01", 1},
		{"overflow", "0.5", 1 << 62},
		{"largest that fits", "3", math.MaxInt64 / 3},
		{"just past", "3", math.MaxInt64/3 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkDecimalOf(t, tc.tick, tc.n)
		})
	}
}

// FuzzDecimalOf is TestDecimalOf over arbitrary ticks and counts.
func FuzzDecimalOf(f *testing.F) {
	f.Add(int64(1), int32(-2), int64(27240))
	f.Add(int64(5), int32(0), int64(3650))
	f.Add(int64(3), int32(-1), int64(math.MaxInt64/3+1))
	f.Fuzz(func(t *testing.T, coef int64, exp int32, n int64) {
		if coef <= 0 || exp < -18 || exp > 18 || n < 1 {
			return
		}
		tick := decimal.New(coef, exp).String()
		if _, err := newInstrument("X", nil, dec(tick), time.Time{}); err != nil {
			return // a tick the market refuses (its coefficient does not fit in 64 bits)
		}
		checkDecimalOf(t, tick, n)
	})
}

func checkDecimalOf(t *testing.T, tick string, n int64) {
	t.Helper()
	in, err := newInstrument("X", nil, dec(tick), utc("2026-03-09T13:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	want := decimal.NewFromInt(n).Mul(in.tick)
	got := in.decimalOf(n)
	if got.Coefficient().Cmp(want.Coefficient()) != 0 || got.Exponent() != want.Exponent() {
		t.Fatalf("decimalOf(%d) at tick %s = %s (exp %d), want %s (exp %d)", n, tick, got, got.Exponent(), want, want.Exponent())
	}
}
