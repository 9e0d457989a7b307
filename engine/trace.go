package engine

import (
	"time"
)

// Trace is one evaluation of one rule: what the condition gave, where the
// rule is now, and why it did or did not fire. Values (the variables the
// condition read) are filled on transitions and firings, not on every tick,
// so a quiet tick allocates nothing.
type Trace struct {
	At   time.Time `json:"time"`
	Tick int64     `json:"tick"`
	// Result is the condition's value; false also when it could not be
	// evaluated (then Detail says why).
	Result     bool           `json:"result"`
	Phase      Phase          `json:"phase"`
	Transition string         `json:"transition,omitempty"`
	Reason     Reason         `json:"reason"`
	Detail     string         `json:"detail,omitempty"`
	Values     map[string]any `json:"values,omitempty"`
}

// ring keeps the last n traces of a rule. A quiet tick (no transition, no
// detail) is stored as a record without pointers, so writing it costs no
// write barrier and the kept history adds nothing for the garbage collector
// to scan: with 1,000 rules and 32 ticks each, a ring of full Traces was a
// visible share of the engine's cost. Traces with text are kept in full in
// a second ring of the same depth; a record points at its full trace, and
// since both rings hold n entries, a full trace is overwritten only after
// every record that could point at it.
type ring struct {
	recs    []traceRec
	rich    []Trace
	pos     int
	richPos int
	full    bool
}

// traceRec is one trace in compact form; rich is 1 + the index of the full
// trace in ring.rich, or 0 when the record says everything.
type traceRec struct {
	at     int64 // Unix nanoseconds
	tick   int64
	result bool
	phase  uint8
	reason uint8
	rich   int32
}

// phaseCodes and reasonCodes decode traceRec's codes (phaseCode,
// reasonCode); code 0 is the empty value.
var (
	phaseCodes  = [...]Phase{"", PhaseInactive, PhasePending, PhaseFiring, PhaseCooldown}
	reasonCodes = [...]Reason{"", ReasonFired, ReasonFalse, ReasonHolding, ReasonStillTrue, ReasonCooldown,
		ReasonOnce, ReasonUnknown, ReasonNotStarted, ReasonStale, ReasonDisabled}
)

// phaseCode and reasonCode are the codes of p and r; ok is false for a
// value not in the tables (then the trace is kept in full).
func phaseCode(p Phase) (c uint8, ok bool) {
	switch p {
	case PhaseInactive:
		return 1, true
	case PhasePending:
		return 2, true
	case PhaseFiring:
		return 3, true
	case PhaseCooldown:
		return 4, true
	}
	return 0, p == ""
}

func reasonCode(r Reason) (c uint8, ok bool) {
	switch r {
	case ReasonFalse: // by far the most common
		return 2, true
	case ReasonFired:
		return 1, true
	case ReasonHolding:
		return 3, true
	case ReasonStillTrue:
		return 4, true
	case ReasonCooldown:
		return 5, true
	case ReasonOnce:
		return 6, true
	case ReasonUnknown:
		return 7, true
	case ReasonNotStarted:
		return 8, true
	case ReasonStale:
		return 9, true
	case ReasonDisabled:
		return 10, true
	}
	return 0, r == ""
}

func newRing(n int) ring { return ring{recs: make([]traceRec, n), rich: make([]Trace, n)} }

// push keeps t.
func (r *ring) push(t *Trace) {
	rec := traceRec{at: t.At.UnixNano(), tick: t.Tick, result: t.Result}
	ph, okP := phaseCode(t.Phase)
	re, okR := reasonCode(t.Reason)
	rec.phase, rec.reason = ph, re
	if !okP || !okR || t.Transition != "" || t.Detail != "" || t.Values != nil {
		r.rich[r.richPos] = *t
		rec.rich = int32(r.richPos) + 1
		if r.richPos++; r.richPos == len(r.rich) {
			r.richPos = 0
		}
	}
	r.recs[r.pos] = rec
	if r.pos++; r.pos == len(r.recs) {
		r.pos, r.full = 0, true
	}
}

// pushQuiet records an inactive rule whose condition was false, the
// record quiet ticks leave (phase inactive, reason false).
func (r *ring) pushQuiet(at, tick int64) {
	r.pushRec(traceRec{at: at, tick: tick, phase: 1, reason: 2})
}

// pushRec keeps a record that says everything (rich is 0).
func (r *ring) pushRec(rec traceRec) {
	r.recs[r.pos] = rec
	if r.pos++; r.pos == len(r.recs) {
		r.pos, r.full = 0, true
	}
}

// trace expands a record.
func (r *ring) trace(rec traceRec) Trace {
	if rec.rich > 0 {
		return r.rich[rec.rich-1]
	}
	return Trace{At: time.Unix(0, rec.at).UTC(), Tick: rec.tick, Result: rec.result,
		Phase: phaseCodes[rec.phase], Reason: reasonCodes[rec.reason]}
}

// list returns the kept traces, oldest first.
func (r *ring) list() []Trace {
	var recs []traceRec
	if r.full {
		recs = append(append(recs, r.recs[r.pos:]...), r.recs[:r.pos]...)
	} else {
		recs = r.recs[:r.pos]
	}
	out := make([]Trace, 0, len(recs))
	for _, rec := range recs {
		out = append(out, r.trace(rec))
	}
	return out
}
