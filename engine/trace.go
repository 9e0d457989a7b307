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

// ring keeps the last n traces of a rule.
type ring struct {
	buf  []Trace
	pos  int
	full bool
}

func newRing(n int) ring { return ring{buf: make([]Trace, n)} }

// next returns the slot of the next trace, to be filled in place: a tick
// writes each rule's trace once, without copying it.
func (r *ring) next() *Trace {
	t := &r.buf[r.pos]
	r.pos++
	if r.pos == len(r.buf) {
		r.pos, r.full = 0, true
	}
	return t
}

// list returns the kept traces, oldest first.
func (r *ring) list() []Trace {
	if !r.full {
		return append([]Trace(nil), r.buf[:r.pos]...)
	}
	return append(append([]Trace(nil), r.buf[r.pos:]...), r.buf[:r.pos]...)
}
