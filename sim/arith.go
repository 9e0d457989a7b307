package sim

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/internal/decimals"
)

// fixed is the number the answers of a price step are computed in: exact,
// on integers, with no allocation (see decimals.Fixed); bad when a number
// does not fit.
type fixed = decimals.Fixed

// fixedOf is d as a fixed.
func fixedOf(d decimal.Decimal) fixed { return decimals.FromDecimal(d) }

// number is what the formulas of positions and funds need of a number:
// decimal.Decimal has it, and so has fixed, which computes the same values
// with integers. The formulas are written once, for both: the answers of
// a price step are computed in fixed, and in decimal when a number does
// not fit (and everywhere else).
type number[N any] interface {
	Add(N) N
	Sub(N) N
	Mul(N) N
	Neg() N
	DivRound(N, int32) N
	Round(int32) N
	IsNegative() bool
	IsPositive() bool
	IsZero() bool
}

// numberKind is how the answers get numbers of kind N: from the
// simulator's decimals, from the market's price, and back to text. Its
// implementations are empty types (decimalKind, fixedKind), so that a
// kind costs nothing to pass.
type numberKind[N any] interface {
	// of is d in N; a fixed that does not fit is bad.
	of(d decimal.Decimal) N
	// price is c's price now; false when its path has none.
	price(x *Exchange, c *contract) (N, bool)
	// position is p's size, average price and margin (pp are p's parts).
	position(p *position, pp *positionParts) (size, avg, margin N)
	// num writes v as exchange.NumOf writes the decimal of its value.
	num(v N) exchange.Num
	// rounded is num(v.Round(places)).
	rounded(v N, places int32) exchange.Num
	// ok reports whether v is a number (a fixed is not when an operation
	// did not fit).
	ok(v N) bool
}

// decimalKind computes the answers in decimal.Decimal.
type decimalKind struct{}

func (decimalKind) of(d decimal.Decimal) decimal.Decimal { return d }
func (decimalKind) price(x *Exchange, c *contract) (decimal.Decimal, bool) {
	return x.markPrice(c)
}
func (decimalKind) position(p *position, pp *positionParts) (size, avg, margin decimal.Decimal) {
	return p.size, p.avg, pp.margin
}
func (decimalKind) num(v decimal.Decimal) exchange.Num { return num(v) }
func (decimalKind) rounded(v decimal.Decimal, places int32) exchange.Num {
	return roundedNum(v, places)
}
func (decimalKind) ok(decimal.Decimal) bool { return true }

// fixedKind computes the answers in fixed.
type fixedKind struct{}

func (fixedKind) of(d decimal.Decimal) fixed { return fixedOf(d) }

// price is kept on the contract for the market epoch: an answer asks it
// for each position and again for the funds of its coin.
func (fixedKind) price(x *Exchange, c *contract) (fixed, bool) {
	epoch := x.marketEpoch()
	if m := &c.mark; m.set && m.epoch == epoch && !x.noMemo {
		return m.price, m.ok
	}
	var price fixed
	ok := false
	if m, scaled := x.mkt.(scaledPricer); scaled {
		var coef int64
		var exp int32
		if coef, exp, ok = m.PriceScaled(c.markSymbol, x.now); ok {
			price = decimals.New(coef, exp)
		}
	}
	if !ok {
		var p decimal.Decimal
		p, ok = x.markPrice(c)
		price = fixedOf(p)
	}
	c.mark = markAt{set: true, epoch: epoch, price: price, ok: ok}
	return price, ok
}

// markAt is a contract's price in fixed at a market epoch.
type markAt struct {
	set, ok bool
	epoch   int64
	price   fixed
}

func (fixedKind) position(p *position, pp *positionParts) (size, avg, margin fixed) {
	return pp.fixed.size, pp.fixed.avg, pp.fixed.margin
}
func (fixedKind) num(v fixed) exchange.Num {
	var buf [48]byte
	return exchange.Num(v.Append(buf[:0]))
}
func (k fixedKind) rounded(v fixed, places int32) exchange.Num { return k.num(v.Round(places)) }
func (fixedKind) ok(v fixed) bool                              { return v.OK() }

// scaledPricer is the optional Market method that gives a price with no
// decimal made; *market.Market has it.
type scaledPricer interface {
	PriceScaled(symbol string, t time.Time) (coef int64, exp int32, ok bool)
}

// pnlOf is the profit of closing size of a position opened at avg at
// price; long is the position's direction. Coin-margined (inverse) P&L
// is converted to the base coin at the closing price.
func pnlOf[N number[N]](inverse, long bool, size, avg, price N) N {
	diff := price.Sub(avg)
	if !long {
		diff = diff.Neg()
	}
	p := diff.Mul(size)
	if inverse && price.IsPositive() {
		p = p.DivRound(price, 12)
	}
	return p
}

// unrealisedOf is the unrealised P&L of a position at mark: zero without a
// price (a zero mark).
func unrealisedOf[N number[N]](inverse, long bool, size, avg, mark N) N {
	if mark.IsZero() {
		var zero N
		return zero
	}
	return pnlOf(inverse, long, size, avg, mark)
}

// crossedLiquidation is the liquidation price of a crossed position: long
// avg - (margin+free)/size*keep, short avg + (margin+free)/size*keep (keep
// is 1 - mmr; coin-margined: the cushion times avg), never below zero, at
// places places. See position.liquidation.
func crossedLiquidation[N number[N]](inverse, long bool, avg, size, margin, free, keep N, places int32) N {
	cushion := margin.Add(free).Mul(keep)
	if inverse {
		cushion = cushion.Mul(avg)
	}
	per := cushion.DivRound(size, 12)
	if long {
		return roundLiquidation(avg.Sub(per), places)
	}
	return roundLiquidation(avg.Add(per), places)
}

// roundLiquidation is a liquidation price as records give it: never below
// zero, at the contract's price places.
func roundLiquidation[N number[N]](liq N, places int32) N {
	if liq.IsNegative() {
		var zero N
		liq = zero
	}
	return liq.Round(places)
}

// fundsIn is the state of one margin coin of an account, in N.
type fundsIn[N number[N]] struct {
	balance, posMargin, orderMargin, unrealised N
	avail                                       N // available(), computed once by fundsOf
}

// funds is the state of one margin coin in decimal.
type funds = fundsIn[decimal.Decimal]

func (f fundsIn[N]) equity() N { return f.balance.Add(f.unrealised) }

// available is what new orders may use: equity minus the margin positions
// and open orders hold, never below zero.
func (f fundsIn[N]) available() N {
	v := f.equity().Sub(f.posMargin).Sub(f.orderMargin)
	if v.IsNegative() {
		var zero N
		return zero
	}
	return v
}
