package sim

import (
	"slices"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// restingBook holds the resting limit orders of one contract, every account's,
// in price-time priority: buys by price descending, sells ascending, then by
// creation. Matching a step only looks at the front of each side.
type restingBook struct {
	buys, sells []*order

	// gen counts the changes of the book: every order added or removed.
	// Orders on the book are never changed in place (a modify cancels and
	// places anew), so an unchanged gen is an unchanged book.
	gen uint64
	// settled says that the book, at gen settledGen, was matched with the
	// contract open at the market epoch settledEpoch, and nothing on it
	// crosses that price any more (see matchResting).
	settled      bool
	settledGen   uint64
	settledEpoch int64
}

func (b *restingBook) side(buys bool) *[]*order {
	if buys {
		return &b.buys
	}
	return &b.sells
}

func (b *restingBook) add(o *order) {
	s := b.side(o.buys())
	i, _ := slices.BinarySearchFunc(*s, o, func(e, t *order) int {
		if c := e.price.Cmp(t.price); c != 0 {
			if o.buys() {
				return -c
			}
			return c
		}
		if e.seq < t.seq {
			return -1
		}
		return 1
	})
	*s = slices.Insert(*s, i, o)
	b.gen++
}

func (b *restingBook) remove(o *order) {
	b.gen++
	s := b.side(o.buys())
	if len(*s) > 0 && (*s)[0] == o { // the common case: the best order filled
		(*s)[0] = nil
		*s = (*s)[1:]
		return
	}
	if i := slices.Index(*s, o); i >= 0 {
		*s = slices.Delete(*s, i, i+1)
	}
}

// crosses reports whether a resting order at its price fills at market price p.
func crosses(o *order, p decimal.Decimal) bool { return fillsAt(o, p.Cmp(o.price)) }

// fillsAt reports whether a resting order fills at a market price that
// compares with its price as cmp (-1 below, 0 at, +1 above).
func fillsAt(o *order, cmp int) bool {
	if o.buys() {
		return cmp <= 0
	}
	return cmp >= 0
}

// crossesMarket is crosses at c's market price now, p: compared in
// integers (fixed), in decimal when a number does not fit.
func (x *Exchange) crossesMarket(o *order, c *contract, p fixed) bool {
	cmp, ok := p.Cmp(fixedOf(o.price))
	if !ok {
		d, _ := x.price(c)
		cmp = d.Cmp(o.price)
	}
	return fillsAt(o, cmp)
}

// matchResting fills the resting orders of c that the price now crosses, as
// makers at their own price. Stock futures do not match while closed.
//
// Most steps nothing can fill: when the book was matched, open, at the same
// market epoch (so at the same price) and has not changed since, every
// order on it was left not crossing that price, and matching again would
// find the same. Matching is skipped then; what it depends on besides the
// book and the price (the clock, whether the contract is open) can only
// stop a fill, never make one.
func (x *Exchange) matchResting(c *contract) {
	b := c.book
	if len(b.buys) == 0 && len(b.sells) == 0 {
		return
	}
	epoch := x.marketEpoch()
	if b.settled && b.settledGen == b.gen && b.settledEpoch == epoch && !x.noMatchSkip {
		x.matchSkips++
		return
	}
	if !x.mkt.FuturesOpen(x.now, c.rwa) {
		return
	}
	p, ok := fixedKind{}.price(x, c)
	if !ok {
		return
	}
	for _, buys := range []bool{true, false} {
		side := b.side(buys)
		for len(*side) > 0 && x.crossesMarket((*side)[0], c, p) {
			o := (*side)[0]
			o.acct.execute(o, o.remaining(), o.price, true)
			if o.pending() { // a closing order whose position is gone
				o.acct.finish(o, exchange.StateCanceled, exchange.NormalCancel)
			}
		}
	}
	// Each order the loop looked at left the book: what is on it now does
	// not cross p.
	b.settled, b.settledGen, b.settledEpoch = true, b.gen, epoch
}

// level is one parsed book level.
type level struct{ price, size decimal.Decimal }

func parseLevels(in []exchange.PriceLevel) []level {
	out := make([]level, 0, len(in))
	for _, l := range in {
		p, err1 := l.Price().Decimal()
		s, err2 := l.Size().Decimal()
		if err1 != nil || err2 != nil || !p.IsPositive() || !s.IsPositive() {
			continue
		}
		out = append(out, level{p, s})
	}
	return out
}

// takerLevels is the side of the synthetic book o takes from, cut at o's
// limit price.
func (x *Exchange) takerLevels(o *order) []level {
	if o.orderType == exchange.Limit {
		// Most limit orders rest: the top of the book settles that without
		// building the whole book.
		bids, asks := x.mkt.Book(o.c.spec.Symbol, x.now, 1)
		top := bids
		if o.buys() {
			top = asks
		}
		if l := parseLevels(top); len(l) == 0 || !crosses(o, l[0].price) {
			return nil
		}
	}
	bids, asks := x.mkt.Book(o.c.spec.Symbol, x.now, x.set.BookLevels)
	side := parseLevels(bids)
	if o.buys() {
		side = parseLevels(asks)
	}
	if o.orderType == exchange.Limit {
		for i, l := range side {
			if !crosses(o, l.price) {
				side = side[:i]
				break
			}
		}
	}
	return side
}

func depth(levels []level) decimal.Decimal {
	sum := decimal.Zero
	for _, l := range levels {
		sum = sum.Add(l.size)
	}
	return sum
}

// take fills o against levels as taker, level by level, until o or the
// levels are exhausted.
func (a *Account) take(o *order, levels []level) {
	for _, l := range levels {
		if !o.pending() || !o.remaining().IsPositive() {
			return
		}
		before := o.filled
		a.execute(o, decimal.Min(l.size, o.remaining()), l.price, false)
		if o.filled.Equal(before) { // nothing more can fill (closing order without position)
			return
		}
	}
}

// fillable is how much of qty o may fill now: closing orders stop at the
// position they close.
func (a *Account) fillable(o *order, qty decimal.Decimal) decimal.Decimal {
	if !o.closes() {
		return qty
	}
	return decimal.Min(qty, a.posSize(o.c, !o.buys()))
}

// execute fills up to qty of o at price: moves the position, books fee and
// realised P&L on the balance, records the fill and advances the order state.
func (a *Account) execute(o *order, qty, price decimal.Decimal, maker bool) {
	qty = a.fillable(o, qty)
	if !qty.IsPositive() {
		return
	}
	a.x.changed()
	c, now := o.c, a.x.now
	rate := c.takerFee
	if maker {
		rate = c.makerFee
	}
	fee := c.value(qty, price).Mul(rate).Round(8)
	pnl := decimal.Zero
	long := o.buys()
	if o.posMode == exchange.HedgeMode {
		if o.open {
			a.grow(c, long, qty, price, fee, o.margin)
			a.x.setPosTPSL(o, long)
		} else {
			pnl = a.shrink(c, !long, qty, price, fee)
		}
	} else {
		closing := decimal.Min(qty, a.posSize(c, !long))
		if closing.IsPositive() {
			pnl = a.shrink(c, !long, closing, price, fee)
		}
		if rest := qty.Sub(closing); rest.IsPositive() && !o.reduce {
			a.grow(c, long, rest, price, fee, o.margin)
			a.x.setPosTPSL(o, long)
		}
	}
	a.balance[c.marginCoin] = a.balance[c.marginCoin].Add(pnl).Sub(fee)
	o.filled = o.filled.Add(qty)
	o.quote = o.quote.Add(qty.Mul(price))
	o.fee = o.fee.Add(fee)
	o.profit = o.profit.Add(pnl)
	o.uTime = now
	scope := "taker"
	if maker {
		scope = "maker"
	}
	id := a.x.nextTradeID()
	f := &fill{seq: a.x.tradeSeq, o: o, t: now, rec: exchange.Fill{
		TradeID: id, Symbol: c.spec.Symbol, MarginCoin: c.marginCoin, OrderID: o.id,
		Price: num(price), BaseVolume: num(qty), QuoteVolume: num(qty.Mul(price)),
		FeeDetail: []exchange.FeeDetail{{Deduction: "no", FeeCoin: c.marginCoin, TotalDeductionFee: "0", TotalFee: num(fee.Neg())}},
		Side:      o.side, Profit: num(pnl), EnterPointSource: exchange.SourceAPI, TradeSide: o.recordTradeSide(),
		PosMode: o.posMode, TradeScope: scope, CTime: exchange.MillisOf(now),
	}}
	a.fills = append(a.fills, f)
	if o.remaining().IsPositive() {
		o.state = exchange.StatePartiallyFilled
		a.reserve(o)
	} else {
		a.finish(o, exchange.StateFilled, "")
	}
}

// grow adds qty at price to the position of c in direction long.
func (a *Account) grow(c *contract, long bool, qty, price, fee decimal.Decimal, mode exchange.MarginMode) {
	p := a.openPosition(c, long)
	if p.size.IsZero() {
		p.marginMode = mode
		p.cTime = a.x.now
	}
	total := p.size.Add(qty)
	p.avg = p.avg.Mul(p.size).Add(price.Mul(qty)).DivRound(total, c.pricePlace+8)
	p.size = total
	p.fees = p.fees.Add(fee)
	p.openFee = p.openFee.Add(fee)
	p.opened = p.opened.Add(qty)
	p.uTime = a.x.now
}

// shrink closes qty of the position of c in direction long at price and
// returns the realised P&L.
func (a *Account) shrink(c *contract, long bool, qty, price, fee decimal.Decimal) decimal.Decimal {
	p := a.position(c, long)
	if p == nil {
		return decimal.Zero
	}
	pnl := c.pnl(long, qty, p.avg, price).Round(8)
	p.size = p.size.Sub(qty)
	p.achieved = p.achieved.Add(pnl)
	p.fees = p.fees.Add(fee)
	p.closeFee = p.closeFee.Add(fee)
	p.closed = p.closed.Add(qty)
	p.closeQuote = p.closeQuote.Add(qty.Mul(price))
	p.uTime = a.x.now
	if !p.size.IsPositive() {
		a.recordClosed(p)
		a.dropPosition(p)
		a.x.dropPosTPSL(a, c, long)
	}
	return pnl
}

// finish moves o to a final state and out of the pending lists.
func (a *Account) finish(o *order, state exchange.OrderState, reason exchange.CancelReason) {
	if o.state.Final() {
		return
	}
	a.x.changed()
	o.state, o.cancelReason, o.uTime = state, reason, a.x.now
	a.stale++ // dropped from a.pending lazily, see livePending
	o.c.book.remove(o)
	a.reserve(o)
}

// livePending returns the pending orders in creation order. Orders that
// became final stay in a.pending until the next read, so that a catch-up
// filling thousands of orders does not shift the slice for each.
func (a *Account) livePending() []*order {
	if a.stale > 0 {
		a.pending = slices.DeleteFunc(a.pending, func(o *order) bool { return !o.pending() })
		a.stale = 0
	}
	return a.pending
}

func (a *Account) cancel(o *order, reason exchange.CancelReason) {
	a.finish(o, exchange.StateCanceled, reason)
}
