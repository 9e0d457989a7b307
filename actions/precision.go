package actions

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// Precision is the part of a contract that decides which sizes and prices the
// exchange accepts.
type Precision struct {
	PricePlace     int32           // decimals of a price
	PriceEndStep   decimal.Decimal // a price is a multiple of PriceEndStep in its last decimal
	VolumePlace    int32           // decimals of a size
	SizeMultiplier decimal.Decimal // a size is a multiple of this
	MinSize        decimal.Decimal // minTradeNum
	MinNotional    decimal.Decimal // minTradeUSDT (0: none)
}

// ErrBelowMinimum is returned when a size rounds below the contract minimum.
var ErrBelowMinimum = errors.New("below the contract minimum")

// PrecisionOf reads the precision fields of a contract.
func PrecisionOf(c exchange.Contract) (Precision, error) {
	var p Precision
	pp, err := c.PricePlace.Decimal()
	if err != nil {
		return p, fmt.Errorf("contract %s pricePlace: %w", c.Symbol, err)
	}
	vp, err := c.VolumePlace.Decimal()
	if err != nil {
		return p, fmt.Errorf("contract %s volumePlace: %w", c.Symbol, err)
	}
	p.PricePlace, p.VolumePlace = int32(pp.IntPart()), int32(vp.IntPart())
	for _, f := range []struct {
		name string
		in   exchange.Num
		out  *decimal.Decimal
		def  decimal.Decimal
	}{
		{"priceEndStep", c.PriceEndStep, &p.PriceEndStep, decimal.NewFromInt(1)},
		{"sizeMultiplier", c.SizeMultiplier, &p.SizeMultiplier, decimal.New(1, -p.VolumePlace)},
		{"minTradeNum", c.MinTradeNum, &p.MinSize, decimal.Zero},
		{"minTradeUSDT", c.MinTradeUSDT, &p.MinNotional, decimal.Zero},
	} {
		d, err := f.in.Decimal()
		if err != nil {
			return p, fmt.Errorf("contract %s %s: %w", c.Symbol, f.name, err)
		}
		if d.IsZero() {
			d = f.def
		}
		*f.out = d
	}
	return p, nil
}

// priceStep is the smallest price increment: PriceEndStep units of the last
// decimal place.
func (p Precision) priceStep() decimal.Decimal {
	return p.PriceEndStep.Mul(decimal.New(1, -p.PricePlace))
}

// RoundSize rounds size down to VolumePlace decimals and to a multiple of
// SizeMultiplier. Rounding down means a rule can never send more than it
// asked for. A result below MinSize is ErrBelowMinimum.
func (p Precision) RoundSize(size decimal.Decimal) (decimal.Decimal, error) {
	s := size.Truncate(p.VolumePlace)
	if p.SizeMultiplier.IsPositive() {
		s = s.Div(p.SizeMultiplier).Floor().Mul(p.SizeMultiplier)
	}
	s = s.Truncate(p.VolumePlace)
	if !s.IsPositive() || s.LessThan(p.MinSize) {
		return decimal.Zero, fmt.Errorf("size %s rounds to %s, %w %s", size, s, ErrBelowMinimum, p.MinSize)
	}
	return s, nil
}

// RoundPrice rounds price to the contract's price step. A buy rounds down and
// a sell rounds up, so that rounding never makes a limit order more
// aggressive than the rule asked.
func (p Precision) RoundPrice(price decimal.Decimal, side exchange.Side) (decimal.Decimal, error) {
	if !price.IsPositive() {
		return decimal.Zero, fmt.Errorf("price %s: must be greater than 0", price)
	}
	step := p.priceStep()
	q := price.Div(step)
	if side == exchange.Sell {
		q = q.Ceil()
	} else {
		q = q.Floor()
	}
	r := q.Mul(step).Truncate(p.PricePlace)
	if !r.IsPositive() {
		return decimal.Zero, fmt.Errorf("price %s rounds to %s", price, r)
	}
	return r, nil
}

// RoundPriceNearest rounds price to the nearest price step (half up), for
// trigger prices where neither direction is safer.
func (p Precision) RoundPriceNearest(price decimal.Decimal) (decimal.Decimal, error) {
	if !price.IsPositive() {
		return decimal.Zero, fmt.Errorf("price %s: must be greater than 0", price)
	}
	step := p.priceStep()
	r := price.Div(step).Round(0).Mul(step).Truncate(p.PricePlace)
	if !r.IsPositive() {
		return decimal.Zero, fmt.Errorf("price %s rounds to %s", price, r)
	}
	return r, nil
}
