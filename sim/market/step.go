package market

import (
	"math"
	"time"
)

// step is a stretch of time over which a price path keeps one synthetic
// book: a random walk's step; for a points path a held stretch (before the
// first point, after the last, or between two points of equal price) or,
// while it interpolates, one second. The book, and every answer derived
// from the price, is redrawn only when the step changes, so a poller that
// asks every second gets the very same answer until the path can move.
type step struct {
	// seg and sub identify the step within its path: the walk's step index,
	// or the points path's segment and, while it interpolates, the Unix
	// second.
	seg, sub int64
	// start is when the step began; zero for a path's first step, which has
	// no beginning (a walk before its second step, a points path before its
	// first point).
	start time.Time
	// end is when the next step begins (the step holds in [start, end));
	// zero for a path's last step, which never ends. Callers use it to know
	// how long an answer derived from the step holds without asking again.
	end time.Time
	// moving is true when the price may change within the step (a points
	// path between two different prices, whose second only bounds how often
	// the book's sizes are redrawn); false when it is the same at every
	// time of the step.
	moving bool
}

// key is what the book's sizes and gaps are hashed from: the Unix second
// while a points path interpolates (its books are the per-second books of
// before steps existed), the segment or step index otherwise. Two steps of
// one path with the same key would only share sizes; the memo compares
// seg and sub.
func (s step) key() uint64 {
	if s.moving {
		return uint64(s.sub)
	}
	return uint64(s.seg)
}

// stepID identifies a step within its path: what the memos of prices and
// books keep of it (a whole step is 72 bytes, its id 16).
type stepID struct{ seg, sub int64 }

// id is s's identity within its path.
func (s step) id() stepID { return stepID{s.seg, s.sub} }

// epoch is s's part of Market.Epoch at t (which falls in s): a value that
// is never above t and that differs at two times unless the price is the
// same at both.
func (s step) epoch(t time.Time) int64 {
	switch {
	case s.moving:
		return t.UnixNano()
	case s.start.IsZero():
		return math.MinInt64
	}
	return s.start.UnixNano()
}

// Epoch returns a number that is equal at two times only if no price path
// can have moved between them, so that every price (and every book) is the
// same at both: the latest start among the steps of all paths at t (t
// itself while a points path interpolates). Callers use it as a cheap key
// for answers derived from prices. Stock fills depend on t itself and are
// not covered.
//
// Why the latest start works: a step start is never after t; if some path
// begins a new step at b in (t1, t2], its start at t2 is at least b, which
// is after t1 and so after every start at t1.
func (m *Market) Epoch(t time.Time) int64 {
	e, _ := m.EpochSpan(t)
	return e
}

// EpochSpan returns Epoch(t) and until, the earliest time after t at which
// the epoch can change: the earliest end of the paths' steps at t, or the
// next nanosecond while a points path interpolates (the epoch is then t
// itself). Epoch is the same at every time in [t, until), so a caller that
// asks at increasing times need not ask again before until. until is the
// zero Time when no path ever moves again.
//
// Why the earliest end works: Epoch is the latest start among the paths'
// steps; until no path begins a new step, every start stays the same.
func (m *Market) EpochSpan(t time.Time) (epoch int64, until time.Time) {
	epoch = math.MinInt64
	for _, p := range m.paths {
		st := p.stepAt(t)
		epoch = max(epoch, st.epoch(t))
		end := st.end
		if st.moving {
			end = t.Add(time.Nanosecond)
		}
		if !end.IsZero() && (until.IsZero() || end.Before(until)) {
			until = end
		}
	}
	return epoch, until
}

// bookTime is when the book of step st was drawn: its start, clamped to the
// scenario start (the Unix epoch when the market has none).
func (in *instrument) bookTime(st step) time.Time {
	switch {
	case !st.start.IsZero() && !st.start.Before(in.origin):
		return st.start
	case !in.origin.IsZero():
		return in.origin
	}
	return time.Unix(0, 0).UTC()
}
