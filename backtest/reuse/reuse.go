// Package reuse is the backtest's condition-result reuse: it says when a
// condition's last result holds on another State, so the engine may
// answer it without running the condition again. Only the backtest turns
// it on (engine.Options.Reuse); engine run evaluates every condition on
// every tick and never imports this package. A miss here would make a
// rule that should fire stay quiet, so the backtest's equivalence tests
// (backtest/reuse_test.go, skip_test.go, shared_test.go, leap_test.go)
// compare every run with and without it.
package reuse

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// Results judges the reuse of condition results by what each condition
// reads (rules.Reads). Its zero value is ready; it holds no state, so one
// value serves every engine.
type Results struct{}

// kind is when a condition's last result holds on another State.
type kind uint8

const (
	// never: the condition reads something that moves on every tick
	// (now, an age, a minute field in arithmetic).
	never kind = iota
	// sameData: the condition reads nothing that moves with time; its
	// result is the same on every State with the same data it reads
	// (State.SameKeys: the same records of its symbols, whatever other
	// symbols did).
	sameData
	// sameSession: it also reads the session's fields (market.session,
	// market.is_open), so the State must also have the same session
	// (State.SameSession).
	sameSession
	// untilCrossing: it also reads the clock, but only by comparing clock
	// values with constants (rules.Reads.ClockLimits:
	// market.minutes_since_open < 15): the State must also come before the
	// earliest instant one of those comparisons can change (until), with
	// the minutes having followed the clock since the condition ran
	// (State.ClockFollows).
	untilCrossing
)

// kindOf is the reuse a condition with reads allows.
func kindOf(reads rules.Reads) kind {
	switch {
	case reads.Clock && (reads.ClockOther || len(reads.ClockLimits) == 0):
		return never
	case reads.Clock:
		return untilCrossing
	case reads.Time:
		return sameSession
	}
	return sameData
}

// judge is the reuse of one condition.
type judge struct {
	kind   kind
	keys   marketdata.Keys
	limits []marketdata.ClockLimit
}

// Judge returns, for a condition that reads reads, holds (whether its
// result, last answered on prev and computed on ran, holds on st; until is
// what crossing returned for ran) and crossing (the earliest instant
// after st.Now at which a result computed on st may change with the clock
// alone; zero: none can). Both are nil when the result never holds on
// another State.
func (Results) Judge(reads rules.Reads) (
	holds func(st, prev, ran *marketdata.State, until time.Time) bool,
	crossing func(st *marketdata.State) time.Time,
) {
	j := &judge{kind: kindOf(reads), keys: keysOf(reads), limits: reads.ClockLimits}
	if j.kind == never {
		return nil, nil
	}
	return j.holds, j.crossing
}

// keysOf names what a condition with reads reads, symbol by symbol where
// its reads name every symbol (a for_each instance's are resolved).
func keysOf(reads rules.Reads) marketdata.Keys {
	all := reads.AllFutures || reads.AllStocks || reads.SymbolFutures || reads.SymbolStock
	return marketdata.NewKeys(reads.Parts, reads.Futures, reads.Stocks, all)
}

// holds reports whether a result last answered on prev, computed on ran
// (nil: never ran) until until, holds on st.
func (j *judge) holds(st, prev, ran *marketdata.State, until time.Time) bool {
	switch j.kind {
	case sameData:
		return st.SameKeys(prev, &j.keys)
	case sameSession:
		return st.SameKeys(prev, &j.keys) && st.SameSession(prev)
	case untilCrossing:
		if ran == nil || (!until.IsZero() && !st.Now.Before(until)) ||
			!st.SameKeys(prev, &j.keys) || !st.SameSession(prev) {
			return false
		}
		for _, l := range j.limits {
			if !st.ClockFollows(ran, l) {
				return false
			}
		}
		return true
	}
	return false
}

// crossing is the earliest instant after st.Now at which a result computed
// on st may change with the clock alone: the first of the condition's
// clock limits to be reached (zero: none can be).
func (j *judge) crossing(st *marketdata.State) time.Time {
	if j.kind != untilCrossing {
		return time.Time{}
	}
	var first time.Time
	for _, l := range j.limits {
		if t := st.ClockCrossing(l); !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}
