package marketdata

import (
	"math"
	"time"
)

// ClockValue names a value of the State that follows the clock and that a
// condition can compare with a constant (ClockLimit).
type ClockValue uint8

// The clock values; every other value that moves with the clock is read
// every tick.
const (
	ClockMinutesSinceOpen     ClockValue = iota + 1 // market.minutes_since_open
	ClockMinutesToClose                             // market.minutes_to_close
	ClockMinutesToNextSession                       // market.minutes_to_next_session
	ClockMinutesUntil                               // minutes_until(At)
	ClockMinutesSince                               // minutes_since(At)
	ClockWeekday                                    // weekday, read in any way
)

// ClockLimit is a comparison of a clock value with a constant in a
// condition: market.minutes_since_open < 15 is {ClockMinutesSinceOpen, "",
// 15}. Whatever the operator, the comparison can change its result only
// when the value reaches Limit or jumps, so the operator is not kept.
// Weekday, which changes only at midnight, is a ClockLimit without a limit
// however a condition reads it.
type ClockLimit struct {
	Value ClockValue
	At    string // the "HH:MM" of minutes_until and minutes_since
	Limit float64
}

// clockMargin is how much earlier than computed ClockCrossing answers:
// the minutes are floating-point numbers, and evaluating a little early
// costs one evaluation where a little late could miss a firing.
const clockMargin = time.Millisecond

// ClockCrossing returns the earliest instant after s.Now at which a
// comparison of l's value with its limit may give another result than at
// s.Now, as long as the session keeps its fields (SameSession) and the
// minutes of the session keep counting from the same open and close
// (ClockFollows): when the value, moving with the clock, reaches the limit
// or jumps (minutes_until passing its time, a change of daylight saving
// time, midnight for weekday). It is zero when the comparison cannot
// change so (a value moving away from its limit, or without a value while
// the market is closed).
func (s *State) ClockCrossing(l ClockLimit) time.Time {
	switch l.Value {
	case ClockMinutesSinceOpen, ClockMinutesToClose, ClockMinutesToNextSession:
		v, ok := s.clockMinutes(l.Value)
		if !ok {
			return time.Time{}
		}
		up := l.Value == ClockMinutesSinceOpen
		return s.after(minutesToReach(v, l.Limit, up))
	case ClockMinutesUntil, ClockMinutesSince:
		return s.wallClockCrossing(l)
	case ClockWeekday:
		y, m, d := s.eastern.Date()
		return s.at(time.Date(y, m, d+1, 0, 0, 0, 0, s.eastern.Location()))
	}
	return s.Now // not a clock value known here: no time to wait
}

// wallClockCrossing is ClockCrossing for minutes_until and minutes_since,
// which count Eastern wall-clock minutes: they jump at their time of day
// and when the clock changes for daylight saving time.
func (s *State) wallClockCrossing(l ClockLimit) time.Time {
	var v float64
	var err error
	up := l.Value == ClockMinutesSince
	if up {
		v, err = s.MinutesSince(l.At)
	} else {
		v, err = s.MinutesUntil(l.At)
	}
	if err != nil {
		return s.Now
	}
	// minutes_until falls to 0 and jumps to 1440; minutes_since rises to
	// 1440 and jumps to 0.
	jump := v
	if up {
		jump = 24*60 - v
	}
	t := s.after(min(jump, minutesToReach(v, l.Limit, up)))
	if _, end := s.eastern.ZoneBounds(); !end.IsZero() && end.Before(t) {
		t = s.at(end)
	}
	return t
}

// minutesToReach returns in how many minutes a value v moving up (or down)
// by a minute a minute reaches limit; +Inf when it moves away from it.
func minutesToReach(v, limit float64, up bool) float64 {
	d := limit - v
	if !up {
		d = -d
	}
	if d < 0 || math.IsNaN(d) {
		return math.Inf(1)
	}
	return d
}

// after returns the instant m minutes after s.Now, less clockMargin, and
// zero for +Inf.
func (s *State) after(m float64) time.Time {
	if math.IsInf(m, 1) {
		return time.Time{}
	}
	// A span beyond what a Duration holds is beyond any session.
	if m >= float64(math.MaxInt64/int64(time.Minute)) {
		return time.Time{}
	}
	return s.at(s.Now.Add(time.Duration(m * float64(time.Minute))))
}

// at returns t less clockMargin, and never before s.Now.
func (s *State) at(t time.Time) time.Time {
	t = t.Add(-clockMargin)
	if t.Before(s.Now) {
		return s.Now
	}
	return t
}

// clockMinutes returns a minute field of the market, when it has a value.
func (s *State) clockMinutes(v ClockValue) (float64, bool) {
	m := s.market
	if m == nil {
		return 0, false
	}
	switch v {
	case ClockMinutesSinceOpen:
		return m.MinutesSinceOpen, m.have&NeedSessionOpen != 0
	case ClockMinutesToClose:
		return m.MinutesToClose, m.have&NeedSessionOpen != 0
	case ClockMinutesToNextSession:
		return m.MinutesToNextSession, m.have&NeedNextSession != 0
	}
	return 0, false
}

// clockTolerance is how far, in minutes, a value may stray from where the
// clock alone would have moved it and still count as having followed the
// clock: the rounding of floating-point minutes, far below the minute a
// calendar counts in.
const clockTolerance = 1e-6

// ClockFollows reports whether l's value moved from from to s (a later
// State) as the clock alone moves it, so that ClockCrossing computed on
// from holds for s: the minutes since the open grew by the time between
// them, the minutes to the close fell by it. A new calendar answer that
// moves a session's open or close breaks it; so does s being earlier than
// from. The values of the wall clock and the next session's start follow
// the clock whenever the session keeps its fields (SameSession), up to the
// jumps ClockCrossing stops at.
func (s *State) ClockFollows(from *State, l ClockLimit) bool {
	if from == nil || s.Now.Before(from.Now) {
		return false
	}
	if l.Value != ClockMinutesSinceOpen && l.Value != ClockMinutesToClose {
		return true
	}
	a, okA := from.clockMinutes(l.Value)
	b, okB := s.clockMinutes(l.Value)
	if okA != okB {
		return false
	}
	if !okA {
		return true
	}
	moved := b - a
	if l.Value == ClockMinutesToClose {
		moved = -moved
	}
	return math.Abs(moved-s.Now.Sub(from.Now).Minutes()) <= clockTolerance
}
