package marketdata

import (
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// SessionCache computes what ComputeSession computes, for a caller that asks
// at every tick with answers that change at most once a poll. Its zero value
// is ready to use.
//
// It keeps two things from the last call:
//
//   - the parsed states and calendar answers, reused while the answers passed
//     are the same slices or equal to them;
//   - the current segment: the span of time around the last instant in which
//     nothing of the session but MinutesSinceOpen and MinutesToClose
//     changes. It ends at every window start and end, Eastern midnight and
//     change of UTC offset, closure start and end, and at midnight in any
//     other zone a window is published in. Inside it Compute only computes
//     the two minute fields, without allocating.
//
// Compute treats answers it has been given as immutable: a slice changed in
// place after a call, keeping its backing array and length, is not noticed.
// Answers replaces its answers on each poll and never changes them.
//
// A SessionCache is not safe for concurrent use; the caller of Answers
// serialises its calls.
type SessionCache struct {
	// states and cal are the answers parsed is read from (or answers equal
	// to them, passed since).
	states []exchange.MarketState
	cal    exchange.Calendar
	parsed *usCalendar // nil: nothing cached, and no segment
	// facts hold from segFrom (inclusive) to segTo (exclusive).
	facts          sessionFacts
	segFrom, segTo time.Time
}

// NewSessionCache returns an empty cache; the zero value is as good.
func NewSessionCache() *SessionCache { return &SessionCache{} }

// Compute returns ComputeSession(now, states, cal): the same values, bit for
// bit, and the same errors. now may go backwards (a recording replayed from
// an earlier instant); it only costs a recomputation.
func (c *SessionCache) Compute(now time.Time, states []exchange.MarketState, cal exchange.Calendar) (SessionInfo, error) {
	if c.parsed != nil && sameAnswers(c.states, c.cal, states, cal) && c.inSegment(now) {
		return c.facts.at(now), nil
	}
	return c.recompute(now, states, cal)
}

// SegmentEnd is when the segment of the last Compute ends (see
// SessionCache): until then, with the same answers, only the minute fields
// of the session change. Zero when there is none.
func (c *SessionCache) SegmentEnd() time.Time {
	if c.parsed == nil {
		return time.Time{}
	}
	return c.segTo
}

func (c *SessionCache) inSegment(now time.Time) bool {
	return !now.Before(c.segFrom) && now.Before(c.segTo)
}

// recompute is the slow path of Compute: other answers or outside the
// segment.
func (c *SessionCache) recompute(now time.Time, states []exchange.MarketState, cal exchange.Calendar) (SessionInfo, error) {
	// A bound derived from a now with a monotonic clock reading would be
	// compared with later ones by that reading, which the wall clock that
	// the facts follow need not keep to.
	now = now.Round(0)
	same := c.parsed != nil && sameAnswers(c.states, c.cal, states, cal)
	if !same && c.parsed != nil && equalAnswers(c.states, c.cal, states, cal) {
		// A new poll with the same answers: keep the parse and the segment,
		// and hold the new slices so that the next tick finds them identical.
		c.states, c.cal = states, cal
		if c.inSegment(now) {
			return c.facts.at(now), nil
		}
		same = true
	}
	// A parse with windows published in other zones holds for its segment
	// only (see segment): parse again outside it.
	if !same || len(c.parsed.dateZones) > 0 {
		p, err := parseUSCalendar(now, states, cal)
		if err != nil {
			// Errors are not cached: some depend on now's date, and answers
			// that cannot be read do not make a fast path worth keeping.
			*c = SessionCache{}
			return SessionInfo{}, err
		}
		c.states, c.cal, c.parsed = states, cal, p
	}
	c.facts = c.parsed.factsAt(now)
	c.segFrom, c.segTo = c.parsed.segment(now)
	return c.facts.at(now), nil
}

// sameAnswers reports whether the answers are the very slices of the last
// call, which costs a few comparisons.
func sameAnswers(states []exchange.MarketState, cal exchange.Calendar, states2 []exchange.MarketState, cal2 exchange.Calendar) bool {
	return sameView(states, states2) && cal.TimeZone == cal2.TimeZone &&
		sameView(cal.SpecificConfig, cal2.SpecificConfig) && sameView(cal.RegularConfig, cal2.RegularConfig)
}

// sameView reports whether a and b view the same elements of one backing
// array: an answer handed back unchanged, known without reading it.
func sameView[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// equalAnswers reports whether the answers are equal field by field.
func equalAnswers(states []exchange.MarketState, cal exchange.Calendar, states2 []exchange.MarketState, cal2 exchange.Calendar) bool {
	return slices.EqualFunc(states, states2, func(a, b exchange.MarketState) bool {
		return a.Market == b.Market && a.DaylightType == b.DaylightType && slices.Equal(a.StateList, b.StateList)
	}) && cal.TimeZone == cal2.TimeZone &&
		slices.Equal(cal.SpecificConfig, cal2.SpecificConfig) && slices.Equal(cal.RegularConfig, cal2.RegularConfig)
}

// span narrows [from, to) around t to the nearest boundaries added on each
// side. A boundary equal to t starts the span.
type span struct {
	t, from, to time.Time
}

func (s *span) add(b time.Time) {
	if b.After(s.t) {
		if b.Before(s.to) {
			s.to = b
		}
	} else if b.After(s.from) {
		s.from = b
	}
}

// dateSpan is the span around t in which t's date and UTC offset in loc stay
// the same, and midnight is t's wall-clock midnight there: within one UTC
// offset the wall clock moves with the instant, so any wall time of the day
// is midnight plus its duration.
func dateSpan(t time.Time, loc *time.Location) (s span, midnight time.Time) {
	local := t.In(loc)
	sinceMidnight := time.Duration(local.Hour())*time.Hour + time.Duration(local.Minute())*time.Minute +
		time.Duration(local.Second())*time.Second + time.Duration(local.Nanosecond())
	midnight = t.Add(-sinceMidnight)
	s = span{t: t, from: midnight, to: midnight.Add(24 * time.Hour)}
	// A zero bound means that the zone has no further change that way.
	zoneFrom, zoneTo := local.ZoneBounds()
	if !zoneFrom.IsZero() {
		s.add(zoneFrom)
	}
	if !zoneTo.IsZero() {
		s.add(zoneTo)
	}
	return s, midnight
}

// segment returns the span around now in which factsAt gives the same facts
// (and parseUSCalendar the same parse). Its bounds are every instant at
// which something factsAt reads may change; one too many only costs a
// recomputation:
//
//   - the Eastern date and UTC offset (weekday, DST, trading day); within
//     them the wall clock, and so the minute of the day, moves with the
//     instant;
//   - the start and end minute of each window on this date, both as the
//     wall clock reaches them and as time.Date places them (they differ in
//     an hour the DST change skips or repeats): sessionAt compares minutes,
//     nextOpen starts sessions at the time.Date instants;
//   - every closure start and end (closureAt, openSpan, nextOpen);
//   - the date in each other zone a window is published in (the parse).
//
// nextOpen gives the first open candidate after now; the candidates of later
// days come after this date (New York changes its offset at 02:00, never
// across midnight), so inside the segment none lies between two instants and
// the answer stays.
func (c *usCalendar) segment(now time.Time) (from, to time.Time) {
	s, midnight := dateSpan(now, c.loc)
	y, mo, d := now.In(c.loc).Date()
	for _, w := range c.windows {
		for _, m := range [2]int{w.start, w.end} {
			s.add(midnight.Add(time.Duration(m) * time.Minute))
			s.add(c.at(y, mo, d, m))
		}
	}
	for _, cl := range c.closures {
		s.add(cl.start)
		s.add(cl.end)
	}
	for _, z := range c.dateZones {
		zs, _ := dateSpan(now, z)
		s.add(zs.from)
		s.add(zs.to)
	}
	return s.from, s.to
}
