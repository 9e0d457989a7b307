package marketdata

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	// The US session is computed in America/New_York on any machine, also
	// one without a zoneinfo database.
	_ "time/tzdata"

	"github.com/tickrules/tickrules/exchange"
)

// nextSessionHorizon bounds the search for the next session.
const nextSessionHorizon = 31 // days

// SessionInfo is the US market session at one instant, computed from the
// states and calendar responses.
type SessionInfo struct {
	// Session is pre_market, regular, after_hours, overnight or
	// SessionClosed.
	Session string
	// IsOpen reports whether a session is open (Session is not closed).
	IsOpen bool
	// IsHoliday reports whether a specific closure (specificConfig) covers
	// the instant; HolidayRemark is its remark.
	IsHoliday bool
	// IsWeekend reports whether the Eastern calendar date is a regular
	// closure day (regularConfig). It is the date, not the trading day:
	// Sunday 21:00 is weekend while the overnight session of Monday is open.
	IsWeekend bool
	// DST reports whether US Eastern time observes daylight saving time.
	DST bool
	// MinutesSinceOpen and MinutesToClose measure the current session, cut
	// by any specific closure inside it; 0 when closed.
	MinutesSinceOpen, MinutesToClose float64
	// Next is the next session that will open after the instant and
	// NextStart when; "" and zero when none opens within 31 days.
	Next      string
	NextStart time.Time
	// HolidayRemark is the remark of the closure covering the instant.
	HolidayRemark string
}

// easternZone is America/New_York, loaded once from the embedded tzdata.
var easternZone = sync.OnceValues(func() (*time.Location, error) {
	return time.LoadLocation("America/New_York")
})

// ComputeSession computes the US session at now from the states and calendar
// responses alone:
//
//   - Session windows come from the US item of states; their HH:mm times are
//     read in their timeZone. "EST", "EDT", "ET" and "America/New_York" all
//     mean US Eastern time with daylight saving (the venue writes EST all
//     year); "UTC", "UTC+8", "GMT-4:00" and IANA names are also understood,
//     and such windows are converted to Eastern time on now's date.
//   - Eastern time and DST come from the date (America/New_York). A
//     daylightType that disagrees is a states response polled before the
//     change (always at a weekend), so the date wins.
//   - A window whose end is not after its start runs across midnight and
//     belongs to the trading day on which it ends: the overnight session from
//     Sunday 20:00 is Monday's, and there is none from Friday 20:00.
//   - A regularConfig day closes every session of that trading day; a
//     specificConfig closure closes exactly from its start (inclusive) to its
//     end (exclusive), in the calendar's timeZone.
func ComputeSession(now time.Time, states []exchange.MarketState, cal exchange.Calendar) (SessionInfo, error) {
	c, err := parseUSCalendar(now, states, cal)
	if err != nil {
		return SessionInfo{}, err
	}
	f := c.factsAt(now)
	return f.at(now), nil
}

// sessionFacts is the session at an instant except its minute fields, which
// alone move with every instant of a segment (see SessionCache).
type sessionFacts struct {
	info     SessionInfo // MinutesSinceOpen and MinutesToClose are 0
	from, to time.Time   // the open span, when info.IsOpen
}

// factsAt computes everything of the session at now but the minutes.
func (c *usCalendar) factsAt(now time.Time) sessionFacts {
	f := sessionFacts{info: SessionInfo{
		Session:   SessionClosed,
		DST:       now.In(c.loc).IsDST(),
		IsWeekend: c.closed[now.In(c.loc).Weekday()],
	}}
	if cl, ok := c.closureAt(now); ok {
		f.info.IsHoliday, f.info.HolidayRemark = true, cl.remark
	}
	if s, ok := c.sessionAt(now); ok && s.open {
		f.from, f.to = c.openSpan(s, now)
		f.info.Session = s.name
		f.info.IsOpen = true
	}
	f.info.Next, f.info.NextStart = c.nextOpen(now)
	return f
}

// at completes the facts with the minutes at now. It does not allocate: the
// cache calls it on every tick.
func (f *sessionFacts) at(now time.Time) SessionInfo {
	info := f.info
	if info.IsOpen {
		info.MinutesSinceOpen = now.Sub(f.from).Minutes()
		info.MinutesToClose = f.to.Sub(now).Minutes()
	}
	return info
}

// usCalendar is the parsed states and calendar responses.
type usCalendar struct {
	loc      *time.Location // US Eastern
	windows  []minuteWindow // Eastern minutes of the day
	closed   [7]bool        // regular closure days by time.Weekday
	closures []closure      // sorted by start
	// dateZones are the zones, other than Eastern, that windows were
	// published in: those windows were placed on now's date in the zone, so
	// the parse holds only while that date lasts.
	dateZones []*time.Location
}

type minuteWindow struct {
	name       string
	start, end int // minutes after midnight; end <= start runs across midnight
}

type closure struct {
	remark     string
	start, end time.Time
}

// liveSession is a window on a date and whether it is open.
type liveSession struct {
	name       string
	start, end time.Time
	open       bool
}

func parseUSCalendar(now time.Time, states []exchange.MarketState, cal exchange.Calendar) (*usCalendar, error) {
	loc, err := easternZone()
	if err != nil {
		return nil, fmt.Errorf("us session: load America/New_York: %w", err)
	}
	c := &usCalendar{loc: loc}
	i := slices.IndexFunc(states, func(s exchange.MarketState) bool { return strings.EqualFold(s.Market, "US") })
	if i < 0 {
		return nil, errors.New("us session: the states response has no US market")
	}
	us := states[i]
	if us.DaylightType != "" && !us.DaylightType.Valid() {
		return nil, fmt.Errorf("us session: daylightType %q is neither standard nor dst", us.DaylightType)
	}
	if len(us.StateList) == 0 {
		return nil, errors.New("us session: the US market has an empty stateList")
	}
	for _, sw := range us.StateList {
		w, err := c.parseWindow(now, sw)
		if err != nil {
			return nil, fmt.Errorf("us session: state %q: %w", sw.State, err)
		}
		c.windows = append(c.windows, w)
	}
	calZone, err := resolveZone(cal.TimeZone, loc)
	if err != nil {
		return nil, fmt.Errorf("us session: calendar: %w", err)
	}
	for _, day := range cal.RegularConfig {
		wd, ok := parseWeekday(day)
		if !ok {
			return nil, fmt.Errorf("us session: calendar: regular closure day %q is not a weekday name", day)
		}
		c.closed[wd] = true
	}
	for _, sc := range cal.SpecificConfig {
		start, err1 := time.ParseInLocation("2006-01-02 15:04", strings.TrimSpace(sc.StartTime), calZone)
		end, err2 := time.ParseInLocation("2006-01-02 15:04", strings.TrimSpace(sc.EndTime), calZone)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("us session: calendar closure %q: %w", sc.Remark, err)
		}
		if !end.After(start) {
			return nil, fmt.Errorf("us session: calendar closure %q ends at %s, not after its start %s", sc.Remark, sc.EndTime, sc.StartTime)
		}
		c.closures = append(c.closures, closure{remark: sc.Remark, start: start, end: end})
	}
	slices.SortStableFunc(c.closures, func(a, b closure) int { return a.start.Compare(b.start) })
	return c, nil
}

// parseWindow reads one stateList item and converts it to Eastern minutes.
func (c *usCalendar) parseWindow(now time.Time, sw exchange.SessionWindow) (minuteWindow, error) {
	if !sw.State.Valid() {
		return minuteWindow{}, errors.New("not a session of the spec")
	}
	start, err := parseHHMM(sw.StartTime)
	if err != nil {
		return minuteWindow{}, fmt.Errorf("startTime: %w", err)
	}
	end, err := parseHHMM(sw.EndTime)
	if err != nil {
		return minuteWindow{}, fmt.Errorf("endTime: %w", err)
	}
	zone, err := resolveZone(sw.TimeZone, c.loc)
	if err != nil {
		return minuteWindow{}, err
	}
	if zone != c.loc {
		if !slices.Contains(c.dateZones, zone) {
			c.dateZones = append(c.dateZones, zone)
		}
		// A window published in another zone is valid for the day it was
		// published: place it on now's date there and read it in Eastern.
		y, mo, d := now.In(zone).Date()
		start = minuteOfDay(time.Date(y, mo, d, start/60, start%60, 0, 0, zone).In(c.loc))
		end = minuteOfDay(time.Date(y, mo, d, end/60, end%60, 0, 0, zone).In(c.loc))
	}
	if start == end%(24*60) && end != 24*60 {
		return minuteWindow{}, fmt.Errorf("empty window %s-%s", sw.StartTime, sw.EndTime)
	}
	return minuteWindow{name: string(sw.State), start: start, end: end}, nil
}

// parseHHMM reads "HH:mm"; 24:00 is accepted as an end of day.
func parseHHMM(s string) (int, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || len(m) != 2 || hh < 0 || mm < 0 || mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, fmt.Errorf("%q is not HH:mm", s)
	}
	return hh*60 + mm, nil
}

func minuteOfDay(t time.Time) int { return t.Hour()*60 + t.Minute() }

func parseWeekday(s string) (time.Weekday, bool) {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(strings.TrimSpace(s), d.String()) {
			return d, true
		}
	}
	return 0, false
}

// resolveZone maps a timeZone field to a location; every name of US Eastern
// time maps to eastern.
func resolveZone(name string, eastern *time.Location) (*time.Location, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	switch n {
	case "", "EST", "EDT", "ET", "EST5EDT", "US/EASTERN", "AMERICA/NEW_YORK":
		return eastern, nil
	case "UTC", "GMT", "Z":
		return time.UTC, nil
	}
	for _, prefix := range []string{"UTC", "GMT"} {
		if off, ok := strings.CutPrefix(n, prefix); ok {
			return parseOffsetZone(name, off)
		}
	}
	loc, err := time.LoadLocation(strings.TrimSpace(name))
	if err != nil {
		return nil, fmt.Errorf("time zone %q is not understood", name)
	}
	return loc, nil
}

// parseOffsetZone reads "+8", "-04", "+05:30" or "+0530" after UTC or GMT.
func parseOffsetZone(name, off string) (*time.Location, error) {
	bad := fmt.Errorf("time zone %q is not understood", name)
	if len(off) < 2 || (off[0] != '+' && off[0] != '-') {
		return nil, bad
	}
	sign, digits := off[0], off[1:]
	h, m, hasColon := strings.Cut(digits, ":")
	if !hasColon && len(digits) == 4 {
		h, m = digits[:2], digits[2:]
	}
	if m == "" {
		m = "0"
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh > 14 || mm > 59 || hh < 0 || mm < 0 {
		return nil, bad
	}
	secs := (hh*60 + mm) * 60
	if sign == '-' {
		secs = -secs
	}
	return time.FixedZone(name, secs), nil
}

// at returns the instant of minute-of-day min on the Eastern date y-mo-d.
func (c *usCalendar) at(y int, mo time.Month, d, min int) time.Time {
	return time.Date(y, mo, d, min/60, min%60, 0, 0, c.loc)
}

// sessionAt finds the window containing t and whether it is open.
func (c *usCalendar) sessionAt(t time.Time) (liveSession, bool) {
	local := t.In(c.loc)
	y, mo, d := local.Date()
	m := minuteOfDay(local)
	for _, w := range c.windows {
		var s liveSession
		var tradingDay time.Time
		switch {
		case w.start < w.end:
			if m < w.start || m >= w.end {
				continue
			}
			s.start, s.end = c.at(y, mo, d, w.start), c.at(y, mo, d, w.end)
			tradingDay = s.start
		case m >= w.start:
			s.start, s.end = c.at(y, mo, d, w.start), c.at(y, mo, d+1, w.end)
			tradingDay = s.end
		case m < w.end:
			s.start, s.end = c.at(y, mo, d-1, w.start), c.at(y, mo, d, w.end)
			tradingDay = s.end
		default:
			continue
		}
		s.name = w.name
		_, inClosure := c.closureAt(t)
		s.open = !c.closed[tradingDay.Weekday()] && !inClosure
		return s, true
	}
	return liveSession{}, false
}

// closureAt returns the specific closure covering t.
func (c *usCalendar) closureAt(t time.Time) (closure, bool) {
	for _, cl := range c.closures {
		if cl.start.After(t) {
			break
		}
		if t.Before(cl.end) {
			return cl, true
		}
	}
	return closure{}, false
}

// openSpan is the part of the open session s around now that no closure
// interrupts.
func (c *usCalendar) openSpan(s liveSession, now time.Time) (from, to time.Time) {
	from, to = s.start, s.end
	for _, cl := range c.closures {
		if !cl.end.After(now) && cl.end.After(from) {
			from = cl.end
		}
		if cl.start.After(now) && cl.start.Before(to) {
			to = cl.start
		}
	}
	return from, to
}

// nextOpen returns the first session that opens after now: at a window start
// or at the end of a closure, whichever is first and open.
func (c *usCalendar) nextOpen(now time.Time) (string, time.Time) {
	local := now.In(c.loc)
	y, mo, d := local.Date()
	var cands []time.Time
	for day := 0; day <= nextSessionHorizon; day++ {
		cands = cands[:0]
		dayStart, dayEnd := c.at(y, mo, d+day, 0), c.at(y, mo, d+day+1, 0)
		for _, w := range c.windows {
			cands = append(cands, c.at(y, mo, d+day, w.start))
		}
		for _, cl := range c.closures {
			if !cl.end.Before(dayStart) && cl.end.Before(dayEnd) {
				cands = append(cands, cl.end)
			}
		}
		slices.SortFunc(cands, time.Time.Compare)
		for _, at := range cands {
			if !at.After(now) {
				continue
			}
			if s, ok := c.sessionAt(at); ok && s.open {
				return s.name, at
			}
		}
	}
	return "", time.Time{}
}
