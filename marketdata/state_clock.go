package marketdata

import (
	"fmt"
	"time"
)

// EasternNow returns State.Now in US Eastern time (America/New_York), the
// time zone of every clock question a condition asks.
func (s *State) EasternNow() time.Time { return s.eastern }

// Weekday returns the Eastern weekday name of State.Now (Monday ... Sunday).
func (s *State) Weekday() string { return s.eastern.Weekday().String() }

// ParseClock reads an Eastern wall-clock time "HH:MM" (24-hour) and returns
// the minute of the day.
func ParseClock(hhmm string) (int, error) {
	t, err := time.Parse("15:04", hhmm)
	if err != nil || len(hhmm) != 5 {
		return 0, fmt.Errorf("time of day must be written HH:MM in 24-hour Eastern time, like \"15:55\", not %q", hhmm)
	}
	return t.Hour()*60 + t.Minute(), nil
}

// MinutesUntil returns the minutes from State.Now to the next time the
// Eastern clock shows hhmm: in [0, 1440). At 15:50 MinutesUntil("15:55") is
// 5; at 15:56 it is 1439. Days on which daylight saving time changes are
// measured in wall-clock minutes.
func (s *State) MinutesUntil(hhmm string) (float64, error) {
	target, err := ParseClock(hhmm)
	if err != nil {
		return 0, err
	}
	d := float64(target) - s.minuteOfDay()
	if d < 0 {
		d += 24 * 60
	}
	return d, nil
}

// MinutesSince returns the minutes since the Eastern clock last showed hhmm:
// in [0, 1440). At 09:45 MinutesSince("09:30") is 15.
func (s *State) MinutesSince(hhmm string) (float64, error) {
	target, err := ParseClock(hhmm)
	if err != nil {
		return 0, err
	}
	d := s.minuteOfDay() - float64(target)
	if d < 0 {
		d += 24 * 60
	}
	return d, nil
}

// minuteOfDay is the Eastern wall-clock minute of State.Now with its
// fraction (seconds count).
func (s *State) minuteOfDay() float64 {
	e := s.eastern
	return float64(e.Hour()*60+e.Minute()) + float64(e.Second())/60 + float64(e.Nanosecond())/6e10
}

// easternOf converts t to Eastern time; if the zone cannot be loaded (it is
// embedded, so only a broken build) it falls back to UTC and says so.
func easternOf(t time.Time) (time.Time, error) {
	loc, err := easternZone()
	if err != nil {
		return t.UTC(), fmt.Errorf("eastern time: %w", err)
	}
	return t.In(loc), nil
}
