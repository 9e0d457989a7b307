package engine

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
)

// This file keeps a rule whose orders went out late from firing again on
// data that cannot show them. A firing's orders normally go out within the
// tick that fired it. They go out later when the engine was killed before
// they were all sent (the next start finishes the firing, after looking
// its orders up by client order id) or when the venue's answer was unclear
// (the orders are looked up, and sent again if absent, off the tick loop).
// Meanwhile the rule's cooldown may have run out and the poller may have
// fetched the orders before they were at the venue: the rule would see no
// orders and place its ladder a second time, under new client order ids
// that no duplicate check catches. So the time the orders were settled is
// kept (RuleState.OrdersAt, persisted), the cooldown runs from it
// (RuleState.CooldownFrom), and the rule waits for account data fetched
// after it (ReasonBeforeOrders).
//
// once and for need nothing more. A once rule's late firing counts in the
// session or day it fired in (OncePeriod stays the firing's). After a
// restart, recovery abandons it once that period is over (passed); settled
// while running, its orders may go out just after the period ends, and
// the rule's first firing in the new period then waits, like any other,
// for account data fetched after them. A for: hold cannot start on data
// older than the orders: the outcome is Unknown meanwhile, which ends a
// hold, so it holds on newer data only.

// ReasonBeforeOrders is the trace reason of a rule whose last orders went
// out after the tick that fired it and whose account data (orders,
// positions, balances, strategy orders) was fetched before they did: it
// cannot tell what those orders changed, so it waits for the next fetch.
const ReasonBeforeOrders Reason = "waiting for account data fetched after its last orders went out"

// orderParts are the parts of the State that a rule's own orders change.
// Only these must be fetched after the orders went out: market data
// (session, stock books, tiers) cannot show them, and waiting for a part
// polled once a minute would only delay the rule.
var orderParts = marketdata.PartSet(0).Add(marketdata.PartOrders).Add(marketdata.PartPositions).
	Add(marketdata.PartBalances).Add(marketdata.PartStrategyOrders)

// beforeOrders returns the first of the parts in reads that an order
// changes and that st fetched at or before s.OrdersAt (a fetch at the same
// instant may have been sent before the orders were). It reports false
// when s has no late orders or every such part is newer.
func beforeOrders(s RuleState, st *marketdata.State, reads marketdata.PartSet) (marketdata.Part, bool) {
	if s.OrdersAt.IsZero() {
		return 0, false
	}
	need := reads & orderParts
	for p := range marketdata.Part(marketdata.NumParts) {
		if need.Has(p) && !st.Part(p).At.After(s.OrdersAt) {
			return p, true
		}
	}
	return 0, false
}

// beforeOrdersDetail says, for the trace, which part is older than the
// rule's last orders.
func beforeOrdersDetail(s RuleState, st *marketdata.State, p marketdata.Part) string {
	return p.String() + " fetched at " + st.Part(p).At.UTC().Format(time.RFC3339Nano) +
		", its last orders went out at " + s.OrdersAt.UTC().Format(time.RFC3339Nano)
}

// ordersLate records that the orders of in, a firing finished after its
// tick, are settled now: its rule's OrdersAt becomes now (when in is
// the rule's latest firing) and the rule states are saved before the
// caller takes in out of the journal, so a crash in between finishes the
// firing again rather than forget when its orders went out. A failed save
// is retried on the next ticks, as for any rule state (storeDirty).
// onLoop says whether the caller is the tick loop, which holds e.mu.
func (e *Engine) ordersLate(in *Intent, onLoop bool) {
	if !onLoop {
		e.mu.Lock()
		defer e.mu.Unlock()
	}
	now := e.opts.Clock.Now()
	r := e.ruleNamed(in.Rule)
	if r == nil || r.state.Firings != in.Seq || !now.After(r.state.OrdersAt) {
		return
	}
	r.state.OrdersAt = now
	e.saveStates(now)
}
