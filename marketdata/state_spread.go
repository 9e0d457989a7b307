package marketdata

import "github.com/tickrules/tickrules/internal/decimals"

// topOfBook is the mid, spread and spread in basis points of a best bid and
// ask, computed as decimals (so that a spread of 0.20 on 250 is 8 bps and
// not 7.9999999: a rule "spread_bps < 8" must not fire on an artefact) and
// then read as float64. hasBps is false when the mid is not positive.
//
// The decimal arithmetic (decimalTopOfBook) is the definition;
// fixedTopOfBook gives the very same values in decimals.Fixed, on
// integers, about ten times faster, and is tried first.
func topOfBook(bid, ask float64) (mid, spread, bps float64, hasBps bool) {
	if mid, spread, bps, hasBps, ok := fixedTopOfBook(bid, ask); ok {
		return mid, spread, bps, hasBps
	}
	return decimalTopOfBook(bid, ask)
}

// decimalTopOfBook is topOfBook in shopspring/decimal: the shortest
// decimals of the prices, mid = (bid + ask) / 2, spread = ask - bid, and
// bps = spread / mid (rounded to decimal.DivisionPrecision places, half
// away from zero) x 10000.
func decimalTopOfBook(bid, ask float64) (mid, spread, bps float64, hasBps bool) {
	b, a := decimalOf(bid), decimalOf(ask)
	m := b.Add(a).Div(two)
	s := a.Sub(b)
	if m.IsPositive() {
		bps, hasBps = floatOf(s.Div(m).Mul(tenThousand)), true
	}
	return floatOf(m), floatOf(s), bps, hasBps
}

// divisionPlaces is decimal.DivisionPrecision, the places decimal's Div
// rounds to.
const divisionPlaces = 16

// half and tenToFour are the factors of the mid and of basis points.
var (
	half      = decimals.New(5, -1)
	tenToFour = decimals.New(1, 4)
)

// fixedTopOfBook is decimalTopOfBook in decimals.Fixed: the same values,
// with the mid computed as (bid + ask) x 0.5 rounded to the places Div
// rounds to. ok is false when a number does not fit, and the caller then
// uses the decimal definition.
func fixedTopOfBook(bid, ask float64) (mid, spread, bps float64, hasBps, ok bool) {
	b, a := decimals.FromFloat(bid), decimals.FromFloat(ask)
	m := b.Add(a).Mul(half).Round(divisionPlaces)
	s := a.Sub(b)
	if !m.OK() || !s.OK() {
		return 0, 0, 0, false, false
	}
	if !m.IsPositive() {
		return m.Float64(), s.Float64(), 0, false, true
	}
	q := s.DivRound(m, divisionPlaces).Mul(tenToFour)
	if !q.OK() {
		return 0, 0, 0, false, false
	}
	return m.Float64(), s.Float64(), q.Float64(), true, true
}

// moveOf is (to - from) / from computed in decimal, read as float64.
func moveOf(from, to float64) float64 {
	if m, ok := fixedMove(from, to); ok {
		return m
	}
	f := decimalOf(from)
	return floatOf(decimalOf(to).Sub(f).Div(f))
}

// fixedMove is moveOf in decimals.Fixed; false when a number does not fit.
func fixedMove(from, to float64) (float64, bool) {
	f := decimals.FromFloat(from)
	m := decimals.FromFloat(to).Sub(f).DivRound(f, divisionPlaces)
	return m.Float64(), m.OK()
}

// quotientOf is n / d computed in decimal, read as float64.
func quotientOf(n, d float64) float64 {
	if q, ok := fixedQuotient(n, d); ok {
		return q
	}
	return floatOf(decimalOf(n).Div(decimalOf(d)))
}

// fixedQuotient is quotientOf in decimals.Fixed; false when a number does
// not fit.
func fixedQuotient(n, d float64) (float64, bool) {
	q := decimals.FromFloat(n).DivRound(decimals.FromFloat(d), divisionPlaces)
	return q.Float64(), q.OK()
}
