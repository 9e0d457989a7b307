package engine

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// reuse is when a condition's last result holds on another State.
type reuse uint8

const (
	// reuseNever: the condition reads something that moves on every tick
	// (now, an age, a minute field in arithmetic), or the backtest's
	// speed-ups are off (Options.ReuseResults: always in engine run).
	reuseNever reuse = iota
	// reuseSameData: the condition reads nothing that moves with time; its
	// result is the same on every State with the same data it reads
	// (State.SameKeys: the same records of its symbols, whatever other
	// symbols did).
	reuseSameData
	// reuseSameSession: it also reads the session's fields (market.session,
	// market.is_open), so the State must also have the same session
	// (State.SameSession).
	reuseSameSession
	// reuseUntilCrossing: it also reads the clock, but only by comparing
	// clock values with constants (rules.Reads.ClockLimits:
	// market.minutes_since_open < 15): the State must also come before the
	// earliest instant one of those comparisons can change
	// (lastRun.until), with the minutes having followed the clock since
	// the condition ran (State.ClockFollows).
	reuseUntilCrossing
)

// reuseOf is the reuse a condition with reads allows.
func reuseOf(reads rules.Reads, everyTick bool) reuse {
	switch {
	case everyTick || (reads.Clock && (reads.ClockOther || len(reads.ClockLimits) == 0)):
		return reuseNever
	case reads.Clock:
		return reuseUntilCrossing
	case reads.Time:
		return reuseSameSession
	}
	return reuseSameData
}

// keysOf names what a condition with reads reads, symbol by symbol where
// its reads name every symbol (a for_each instance's are resolved).
func keysOf(reads rules.Reads) marketdata.Keys {
	all := reads.AllFutures || reads.AllStocks || reads.SymbolFutures || reads.SymbolStock
	return marketdata.NewKeys(reads.Parts, reads.Futures, reads.Stocks, all)
}

// holds reports whether r's last result (c, computed on c.st or reused
// there) holds on st.
func (r *ruleRun) holds(st *marketdata.State, c *lastRun) bool {
	switch r.reuse {
	case reuseSameData:
		return st.SameKeys(c.st, &r.keys)
	case reuseSameSession:
		return st.SameKeys(c.st, &r.keys) && st.SameSession(c.st)
	case reuseUntilCrossing:
		if c.ran == nil || (!c.until.IsZero() && !st.Now.Before(c.until)) ||
			!st.SameKeys(c.st, &r.keys) || !st.SameSession(c.st) {
			return false
		}
		for _, l := range r.limits {
			if !st.ClockFollows(c.ran, l) {
				return false
			}
		}
		return true
	}
	return false
}

// crossing is the earliest instant after st.Now at which a result of r's
// condition computed on st may change with the clock alone: the first of
// its clock limits to be reached (zero: none can be).
func (r *ruleRun) crossing(st *marketdata.State) time.Time {
	if r.reuse != reuseUntilCrossing {
		return time.Time{}
	}
	var first time.Time
	for _, l := range r.limits {
		if t := st.ClockCrossing(l); !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}
