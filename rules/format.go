package rules

import (
	"fmt"
	"math"

	"github.com/shopspring/decimal"
)

// maxFormatPlaces is the most decimals format writes: beyond it a float64
// shows digits it does not hold.
const maxFormatPlaces = 12

// formatNumber writes x with exactly places decimals, for messages: plain
// digits (no exponent, no thousands separator), rounded half away from zero
// from the shortest decimal that reads back as x, so 0.1+0.2 gives "0.30"
// and 2.675 gives "2.68" (printf's binary rounding would give 2.67). NaN and
// the infinities are written "NaN", "Inf" and "-Inf" so that a log message
// still shows the broken value. places outside 0 to maxFormatPlaces is an
// error: the compiler rejects a constant one when the file loads.
func formatNumber(x float64, places int) (string, error) {
	if places < 0 || places > maxFormatPlaces {
		return "", fmt.Errorf("format: decimal places must be a whole number from 0 to %d, not %d", maxFormatPlaces, places)
	}
	switch {
	case math.IsNaN(x):
		return "NaN", nil
	case math.IsInf(x, 1):
		return "Inf", nil
	case math.IsInf(x, -1):
		return "-Inf", nil
	}
	s := decimal.NewFromFloat(x).StringFixed(int32(places))
	if s[0] == '-' && decimal.RequireFromString(s).IsZero() {
		s = s[1:] // -0.001 to 2 places is 0.00, not -0.00
	}
	return s, nil
}
