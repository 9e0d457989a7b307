package engine

import (
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// reuse is when a condition's last result holds on another State.
type reuse uint8

const (
	// reuseNever: the condition reads something that moves on every tick
	// (now, minutes to the close, an age), or EvaluateEveryTick is set.
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
)

// reuseOf is the reuse a condition with reads allows.
func reuseOf(reads rules.Reads, everyTick bool) reuse {
	switch {
	case everyTick || reads.Clock:
		return reuseNever
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

// holds reports whether a result computed on from holds on st, for a
// condition that reads keys.
func (u reuse) holds(st, from *marketdata.State, keys *marketdata.Keys) bool {
	switch u {
	case reuseSameData:
		return st.SameKeys(from, keys)
	case reuseSameSession:
		return st.SameKeys(from, keys) && st.SameSession(from)
	}
	return false
}
