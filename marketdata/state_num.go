package marketdata

import (
	"fmt"
	"math"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// decimalOf converts a float that was parsed from a wire number back to the
// decimal it was written as (the shortest representation that round-trips),
// so that derived ratios are computed without binary artefacts.
func decimalOf(f float64) decimal.Decimal {
	d, err := decimal.NewFromString(strconv.FormatFloat(f, 'f', -1, 64))
	if err != nil { // NaN or Inf: not a number the exchange sends
		return decimal.NewFromFloat(0)
	}
	return d
}

// floatOf is d.InexactFloat64(), twice as fast: both give the float64
// nearest to d (ties to even), one through big.Rat, this through the text.
func floatOf(d decimal.Decimal) float64 {
	f, _ := strconv.ParseFloat(d.String(), 64)
	return f
}

// numParser converts wire numbers to float64 for conditions, keeping the first
// error: an invalid number must fail the part, not read as zero. An empty
// number is 0 (the exchange leaves fields empty when they do not apply).
type numParser struct{ err error }

func (p *numParser) num(field string, n exchange.Num) float64 {
	if n == "" || p.err != nil {
		return 0
	}
	f, ok := parseFinite(string(n))
	if !ok {
		p.err = fmt.Errorf("%s: invalid number %q", field, string(n))
		return 0
	}
	return f
}

// parseFinite parses a decimal number; NaN and infinities, which
// ParseFloat accepts, are not numbers the exchange sends.
func parseFinite(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func (p *numParser) levels(side string, ls []exchange.PriceLevel) []BookLevel {
	out := make([]BookLevel, 0, len(ls))
	for i, l := range ls {
		price, ok1 := parseFinite(string(l.Price()))
		size, ok2 := parseFinite(string(l.Size()))
		if !ok1 || !ok2 {
			p.err = fmt.Errorf("%s[%d]: invalid level [%q, %q]", side, i, string(l.Price()), string(l.Size()))
			return nil
		}
		out = append(out, BookLevel{Price: price, Size: size})
	}
	return out
}
