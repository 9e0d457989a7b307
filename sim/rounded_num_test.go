package sim

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestRoundedNum checks the answers' rounding shortcut against what it
// replaces, num(d.Round(places)): on values with fewer, as many and more
// places than asked for, halves (away from zero) and negatives.
func TestRoundedNum(t *testing.T) {
	for _, tc := range []struct {
		d      string
		places int32
		want   string
	}{
		{"12.5", 8, "12.5"},
		{"-3.25", 8, "-3.25"},
		{"100", 2, "100"},
		{"0", 8, "0"},
		{"1.123456785", 8, "1.12345679"},
		{"-1.123456785", 8, "-1.12345679"},
		{"1.123456784999", 8, "1.12345678"},
		{"27240.000000000000", 2, "27240"},
		{"0.000000001", 8, "0"},
		{"5E+3", 0, "5000"},
		{"2.5", 0, "3"},
	} {
		t.Run(tc.d, func(t *testing.T) {
			d := decimal.RequireFromString(tc.d)
			if got := roundedNum(d, tc.places); string(got) != tc.want {
				t.Fatalf("roundedNum(%s, %d) = %s, want %s", tc.d, tc.places, got, tc.want)
			}
			if got, want := roundedNum(d, tc.places), num(d.Round(tc.places)); got != want {
				t.Fatalf("roundedNum(%s, %d) = %s, num(Round) = %s", tc.d, tc.places, got, want)
			}
		})
	}
}

// FuzzRoundedNum: roundedNum is num(d.Round(places)) for any decimal.
func FuzzRoundedNum(f *testing.F) {
	f.Add(int64(1123456785), int32(-9), int32(8))
	f.Add(int64(-25), int32(-1), int32(0))
	f.Add(int64(5), int32(3), int32(2))
	f.Fuzz(func(t *testing.T, coef int64, exp, places int32) {
		if exp < -40 || exp > 20 || places < 0 || places > 18 {
			return
		}
		d := decimal.New(coef, exp)
		if got, want := roundedNum(d, places), num(d.Round(places)); got != want {
			t.Fatalf("roundedNum(%s, %d) = %s, num(Round) = %s", d, places, got, want)
		}
	})
}
