package clock

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	// Times without an offset are New York times on any machine, also one
	// without a zoneinfo database.
	_ "time/tzdata"
)

// ErrBadTime is returned by ParseTime for text that is not a time; callers
// that print their own message branch on it with errors.Is.
var ErrBadTime = errors.New("not a time")

// TimeExample is shown to people next to a time that could not be read.
const TimeExample = `"2026-03-09 09:30" (New York time), "2026-03-09" (midnight in New York) or "2026-03-09T13:30:00Z" (RFC 3339)`

// newYorkLayouts are the forms of a New York local time, most specific first.
var newYorkLayouts = []string{
	"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02",
}

// NewYork returns America/New_York, the zone in which a trader reads the US
// session. It is loaded once, so times in it compare equal with ==; the zone
// database is linked into the program, so it cannot fail.
var NewYork = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic(fmt.Sprintf("America/New_York missing from the linked time/tzdata: %v", err))
	}
	return loc
})

// ParseTime reads a time given by a person: RFC 3339 (with its offset), or
// a New York local time "2006-01-02 15:04[:05]" or a date "2006-01-02"
// (midnight in New York). Daylight saving time follows America/New_York: a
// time that does not exist (the spring-forward gap) is an error, and one that
// happens twice (the fall-back hour) is its first occurrence, in daylight
// time; give an RFC 3339 time for the second.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	ny := NewYork()
	for _, layout := range newYorkLayouts {
		wall, err := time.Parse(layout, s) // read as UTC: only the wall-clock fields matter
		if err != nil {
			continue
		}
		if t, ok := newYorkWallClock(wall, ny); ok {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("%q: %w: that time does not exist in New York (clocks jump forward an hour for daylight saving time); try %s",
			s, ErrBadTime, TimeExample)
	}
	return time.Time{}, fmt.Errorf("%q: %w; write %s", s, ErrBadTime, TimeExample)
}

// newYorkWallClock returns the earliest instant whose New York wall clock
// reads wall's fields, or false if there is none (the DST gap). time.Date
// leaves both cases unspecified, so the candidates an hour either side are
// checked by hand.
func newYorkWallClock(wall time.Time, ny *time.Location) (time.Time, bool) {
	guess := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, ny)
	for _, d := range []time.Duration{-time.Hour, 0, time.Hour} {
		c := guess.Add(d).In(ny)
		if c.Year() == wall.Year() && c.YearDay() == wall.YearDay() &&
			c.Hour() == wall.Hour() && c.Minute() == wall.Minute() && c.Second() == wall.Second() {
			return c, true
		}
	}
	return time.Time{}, false
}
