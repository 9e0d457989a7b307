package sim

import (
	"context"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Pollers ask the same questions every tick (positions, pending orders,
// balances, strategy orders) and, most ticks, nothing that could change the
// answer happened since. The account memoises those answers: asked again
// with the same request while the exchange's state revision, the market's
// price epoch and (where the answer depends on it) the time are unchanged,
// a query returns the previous answer, the same slices, in O(1). The slices
// are shared and read-only; the engine uses their identity to skip work.

// stateKey is what every memoised answer depends on besides its request.
type stateKey struct {
	// rev is the exchange's state revision: bumped by everything that
	// changes an account, an order, a position or a balance.
	rev uint64
	// epoch changes whenever a price can have changed (Market.Epoch).
	epoch int64
	// now is the time, for answers that depend on it (orders becoming
	// visible under a visibility delay); zero otherwise.
	now int64
}

// maxMemoEntries bounds the memo of one query of one account; past it the
// memo starts over. Pollers ask a handful of distinct requests.
const maxMemoEntries = 64

// answerMemo remembers the last answer per request.
type answerMemo[R comparable, T any] struct {
	m map[R]memoEntry[T]
}

type memoEntry[T any] struct {
	key stateKey
	val T
}

// get returns the answer to req remembered under key.
func (c *answerMemo[R, T]) get(req R, key stateKey) (T, bool) {
	e, ok := c.m[req]
	if !ok || e.key != key {
		var zero T
		return zero, false
	}
	return e.val, true
}

func (c *answerMemo[R, T]) put(req R, key stateKey, val T) {
	if c.m == nil || len(c.m) >= maxMemoEntries {
		c.m = make(map[R]memoEntry[T], 8)
	}
	c.m[req] = memoEntry[T]{key: key, val: val}
}

// memoised answers req from c when nothing it depends on changed, else
// computes, remembers and returns it. Errors are not remembered. It runs
// under the exchange lock, after the request was validated.
func memoised[R comparable, T any](x *Exchange, c *answerMemo[R, T], req R, key stateKey, compute func() (T, error)) (T, error) {
	if !x.noMemo {
		if v, ok := c.get(req, key); ok {
			return v, nil
		}
	}
	v, err := compute()
	if err == nil && !x.noMemo {
		c.put(req, key, v)
	}
	return v, err
}

// accountMemo holds an account's memoised answers.
type accountMemo struct {
	allPositions   answerMemo[exchange.AllPositionsRequest, []exchange.Position]
	singlePosition answerMemo[exchange.SinglePositionRequest, []exchange.Position]
	pendingOrders  answerMemo[exchange.PendingOrdersRequest, exchange.PendingOrdersPage]
	strategyOrders answerMemo[exchange.StrategyOrdersRequest, []exchange.StrategyOrder]
	accounts       answerMemo[exchange.AccountsRequest, []exchange.Account]
}

// lockWrite is lock for the operations that change state: whatever they
// do, every memoised answer is stale afterwards.
func (x *Exchange) lockWrite() {
	x.lock()
	x.changed()
}

// changed records that the state of the exchange changed: every memoised
// answer is stale. Every Trader method calls it (lockWrite), and so do the
// changes that also happen while matching catches up with the clock: an
// order admitted, filled or made final, a modify applied. Calling it once
// too often only costs a recomputation.
func (x *Exchange) changed() { x.rev.Add(1) }

// stateKey is the key of an answer that depends on the exchange's state,
// and also on prices and on the time when asked.
func (x *Exchange) stateKey(prices, time bool) stateKey {
	k := stateKey{rev: x.rev.Load()}
	if prices {
		k.epoch = x.marketEpoch()
	}
	if time {
		k.now = x.now.UnixNano()
	}
	return k
}

// epochSpanner is the optional Market method that makes price-derived
// answers cheap to memoise; *market.Market has it.
type epochSpanner interface {
	EpochSpan(t time.Time) (epoch int64, until time.Time)
}

// marketEpoch is the market's price epoch now; without EpochSpan every
// time is its own epoch. The market's epoch holds over a span of time (a
// walk's step, a held stretch of points): while now is in the span last
// asked for, it is a comparison of times, not a walk over the paths.
func (x *Exchange) marketEpoch() int64 {
	ec := &x.epochCache
	if ec.set && !x.now.Before(ec.from) && (ec.until.IsZero() || x.now.Before(ec.until)) {
		return ec.epoch
	}
	e, until := x.now.UnixNano(), x.now.Add(time.Nanosecond)
	if m, ok := x.mkt.(epochSpanner); ok {
		e, until = m.EpochSpan(x.now)
	}
	*ec = epochCache{set: true, epoch: e, from: x.now, until: until}
	return e
}

// epochCache is the market's epoch over [from, until) (until zero: from on).
type epochCache struct {
	set         bool
	epoch       int64
	from, until time.Time
}

// AnswerVersion returns what the answer of op depends on now, for any
// request about product type pt (about any product type when pt is empty;
// ignored by the operations that are not about one): while it is the same,
// asking again gives the very same answer (it is the key the memo uses, so
// the memo's tests cover it). A backtest's pollers ask it instead of the
// question and skip what cannot have changed. ok is false for the
// operations it cannot tell about, and when memoising is off.
func (a *Account) AnswerVersion(ctx context.Context, op exchange.Op, pt exchange.ProductType) (v [3]int64, ok bool) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if a.x.noMemo {
		return v, false
	}
	var k stateKey
	switch op {
	case exchange.OpAllPositions, exchange.OpSinglePosition, exchange.OpAccounts:
		k = a.x.stateKey(a.pricesMove(op, pt), false)
	case exchange.OpOrdersPending:
		k = a.x.stateKey(false, a.x.faults.VisibilityDelay > 0)
	case exchange.OpStrategyOrders:
		k = a.x.stateKey(false, false)
	case exchange.OpStockOrderBook:
		// A book is a pure function of its path's step and price: the
		// market's epoch covers every path.
		k = stateKey{epoch: a.x.marketEpoch()}
	default:
		return v, false
	}
	return [3]int64{int64(k.rev), k.epoch, k.now}, true
}

// UnchangedUntil returns the exchange's state mark (see Mark) and a time
// until which no AnswerVersion changes as long as Mark still returns mark:
// the market's epoch holds, no asynchronous modify falls due and matching
// has nothing it could fill (no book of resting orders is unsettled). A
// zero until means never; until is just after now when nothing is promised
// (the time itself is part of a version, or memoising is off). It exists
// for speed: a backtest's pollers ask it once and then, tick after tick,
// only read Mark, instead of asking every version again.
func (a *Account) UnchangedUntil(ctx context.Context) (mark uint64, until time.Time) {
	a.x.lock()
	defer a.x.mu.Unlock()
	return a.x.rev.Load(), a.x.unchangedUntil()
}

// Mark is the exchange's state revision: it changes with every change of
// an account, an order, a position or a balance. It takes no lock and does
// not catch up with the clock.
func (a *Account) Mark() uint64 { return a.x.rev.Load() }

// pricesMove reports whether the answer of op about product type pt (any
// product type when pt is empty) moves with prices: the positions of pt
// when there is one, the accounts of pt when a position is held in one of
// their margin coins (its unrealised P&L, and in cross margin every
// liquidation price of that coin, follow the price). Otherwise the answer
// holds until the state changes, whatever the prices do.
func (a *Account) pricesMove(op exchange.Op, pt exchange.ProductType) bool {
	for _, p := range a.positions {
		switch {
		case pt == "":
			return true
		case op == exchange.OpAccounts:
			if a.x.isMarginCoin(pt, p.c.marginCoin) {
				return true
			}
		case p.c.productType == pt:
			return true
		}
	}
	return false
}

// unchangedUntil is UnchangedUntil's time, under the exchange's lock.
func (x *Exchange) unchangedUntil() time.Time {
	none := x.now.Add(time.Nanosecond)
	if x.noMemo || x.faults.VisibilityDelay > 0 {
		return none
	}
	epoch := x.marketEpoch()
	for _, c := range x.contracts {
		b := c.book
		if (len(b.buys) > 0 || len(b.sells) > 0) && !(b.settled && b.settledGen == b.gen && b.settledEpoch == epoch) {
			return none // a fill can come with the open, at an unchanged price
		}
	}
	until := x.epochCache.until
	for _, m := range x.modifies {
		if until.IsZero() || m.due.Before(until) {
			until = m.due
		}
	}
	return until
}
