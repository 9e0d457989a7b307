package actions

import (
	"fmt"

	"github.com/tickrules/tickrules/exchange"
)

// Intent is what a rule author means: open or close a long or short position.
// Authors never need the one-way/hedge table; Map applies it.
type Intent struct {
	Close bool              // false: open (or add to) a position; true: reduce or close it
	Dir   exchange.HoldSide // the position's direction: long or short
}

// Mapped is the wire form of an Intent for one position mode.
type Mapped struct {
	Side       exchange.Side
	TradeSide  exchange.TradeSide // hedge mode only
	ReduceOnly exchange.YesNo     // one-way mode only; YES when closing
}

// Map translates i for an account in mode.
//
// One-way mode: buy opens long and closes short, sell opens short and closes
// long; closing is marked reduceOnly YES so that it can never flip the
// position. Hedge mode: side names the position (buy = long side, sell =
// short side) and tradeSide says open or close; the exchange answers 22002
// when a close names the wrong side, so the mapping is not symmetric with
// one-way mode.
func Map(i Intent, mode exchange.PosMode) (Mapped, error) {
	if !i.Dir.Valid() {
		return Mapped{}, fmt.Errorf("position direction %q: must be long or short", i.Dir)
	}
	dirSide := exchange.Buy
	if i.Dir == exchange.Short {
		dirSide = exchange.Sell
	}
	switch mode {
	case exchange.OneWayMode:
		if i.Close {
			return Mapped{Side: dirSide.Opposite(), ReduceOnly: exchange.Yes}, nil
		}
		return Mapped{Side: dirSide}, nil
	case exchange.HedgeMode:
		if i.Close {
			return Mapped{Side: dirSide, TradeSide: exchange.Close}, nil
		}
		return Mapped{Side: dirSide, TradeSide: exchange.Open}, nil
	}
	return Mapped{}, fmt.Errorf("position mode %q: must be one_way_mode or hedge_mode", mode)
}

// ReverseSide is the side of a click-backhand that reverses a position held
// in direction dir. Spec rule 1 (hedge): reversing a long uses buy + open,
// reversing a short uses sell + open: the side names the position being
// reversed. One-way mode sends no tradeSide; the same side convention is used.
func ReverseSide(dir exchange.HoldSide, mode exchange.PosMode) (exchange.Side, exchange.TradeSide, error) {
	side := exchange.Buy
	switch dir {
	case exchange.Long:
	case exchange.Short:
		side = exchange.Sell
	default:
		return "", "", fmt.Errorf("position direction %q: must be long or short", dir)
	}
	switch mode {
	case exchange.OneWayMode:
		return side, "", nil
	case exchange.HedgeMode:
		return side, exchange.Open, nil
	}
	return "", "", fmt.Errorf("position mode %q: must be one_way_mode or hedge_mode", mode)
}

// HoldSideFor is the holdSide of a take-profit, stop-loss or trailing stop
// (place-tpsl-order) of the position in direction dir for an account in
// mode: long or short in hedge mode, buy (the long position) or sell in
// one-way mode, as the venue's docs name them.
func HoldSideFor(dir exchange.HoldSide, mode exchange.PosMode) (string, error) {
	if !dir.Valid() {
		return "", fmt.Errorf("position direction %q: must be long or short", dir)
	}
	switch mode {
	case exchange.HedgeMode:
		return string(dir), nil
	case exchange.OneWayMode:
		if dir == exchange.Long {
			return string(exchange.Buy), nil
		}
		return string(exchange.Sell), nil
	}
	return "", fmt.Errorf("position mode %q: must be one_way_mode or hedge_mode", mode)
}
