package market

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Calendar choices of the simulator (the spec leaves them open):
//
//   - Sessions follow the Eastern wall clock: pre_market 04:00-09:30, regular
//     09:30-16:00, after_hours 16:00-20:00, overnight 20:00-04:00.
//   - Every session belongs to a trading day. The overnight session that
//     starts at 20:00 belongs to the next calendar day, as on the US overnight
//     venues: Sunday 20:00 opens the week and there is no overnight session
//     from Friday 20:00. Equivalently, the trading day of an instant is the
//     Eastern date four hours later.
//   - A regular closure day (regularConfig, default SATURDAY and SUNDAY)
//     closes every session of that trading day.
//   - A specific closure (specificConfig) closes exactly the instants from
//     its start (inclusive) to its end (exclusive), Eastern wall time. To
//     close the overnight session leading into a holiday, a scenario starts
//     the closure at 20:00 of the day before.
//   - Stock futures (isRwa) trade in the week the venue publishes in UTC-4,
//     Monday 00:00 to Saturday 00:00: the instant is open when its UTC-4
//     weekday is not a regular closure day and no specific closure covers it.
//     UTC-4 is fixed, so in winter the week runs Sunday 23:00 to Friday 23:00
//     Eastern. The two calendars differ on purpose, as the venue's do: the
//     stock pairs' overnight session opens Sunday 20:00 Eastern, the stock
//     futures only at Monday 00:00 UTC-4. Crypto futures always trade.
//   - The states response names the zone of stateList "EST", as the calendar
//     does: both mean US Eastern time, and daylightType tells whether its
//     offset is UTC-5 (standard) or UTC-4 (dst) at the time of the request.

// CalendarTimeZone is the timeZone of the calendar and of every stateList
// item: US Eastern time, whatever the daylight saving state.
const CalendarTimeZone = "EST"

// closureLayout is the format of closure start and end times.
const closureLayout = "2006-01-02 15:04"

// window is one session of the day in minutes after Eastern midnight; a
// window whose end is not after its start runs across midnight.
type window struct {
	period     exchange.TradingPeriod
	start, end int
}

// usSessions are the US sessions in the order of a trading day.
var usSessions = [...]window{
	{exchange.Overnight, 20 * 60, 4 * 60},
	{exchange.PreMarket, 4 * 60, 9*60 + 30},
	{exchange.Regular, 9*60 + 30, 16 * 60},
	{exchange.AfterHours, 16 * 60, 20 * 60},
}

// tradingDayShift moves an instant's Eastern wall time onto its trading day.
const tradingDayShift = 4 * time.Hour

var weekdayNames = [...]string{"SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"}

// defaultRegularClosed is the regularConfig when a scenario sets none.
var defaultRegularClosed = []string{"SATURDAY", "SUNDAY"}

// calendar is the parsed CalendarSpec.
type calendar struct {
	regular  []string      // regularConfig as published
	closed   [7]bool       // by time.Weekday
	closures []closureSpan // sorted by start
	edges    []time.Time   // every closure's start and end, ascending
	starts   *startsMemo   // nil: none kept
}

type closureSpan struct {
	published  exchange.Closure
	start, end time.Time
}

func newCalendar(spec CalendarSpec) (calendar, error) {
	c := calendar{starts: &startsMemo{}}
	names := spec.RegularClosed
	if names == nil {
		names = defaultRegularClosed
	}
	for j, name := range names {
		up := strings.ToUpper(strings.TrimSpace(name))
		day := slices.Index(weekdayNames[:], up)
		if day < 0 {
			return calendar{}, specError(fmt.Errorf("calendar: regular closure day %q is not a weekday name such as SATURDAY", name), "calendar", "regular_closed", j)
		}
		if c.closed[day] {
			return calendar{}, specError(fmt.Errorf("calendar: regular closure day %q listed twice", name), "calendar", "regular_closed", j)
		}
		c.closed[day] = true
		c.regular = append(c.regular, up)
	}
	for i, cs := range spec.Closures {
		start, err := parseEastern(cs.Start)
		if err != nil {
			return calendar{}, specError(fmt.Errorf("calendar: closure %d (%s) start: %w", i, cs.Remark, err), "calendar", "closures", i)
		}
		end, err := parseEastern(cs.End)
		if err != nil {
			return calendar{}, specError(fmt.Errorf("calendar: closure %d (%s) end: %w", i, cs.Remark, err), "calendar", "closures", i)
		}
		if !end.After(start) {
			return calendar{}, specError(fmt.Errorf("calendar: closure %d (%s) ends at %s, not after its start %s", i, cs.Remark, cs.End, cs.Start), "calendar", "closures", i)
		}
		c.closures = append(c.closures, closureSpan{
			published: exchange.Closure{Remark: cs.Remark, StartTime: cs.Start, EndTime: cs.End},
			start:     start, end: end,
		})
	}
	slices.SortStableFunc(c.closures, func(a, b closureSpan) int { return a.start.Compare(b.start) })
	for _, cs := range c.closures {
		c.edges = append(c.edges, cs.start, cs.end)
	}
	slices.SortFunc(c.edges, time.Time.Compare)
	return c, nil
}

// parseEastern reads "YYYY-MM-DD HH:mm" as Eastern wall time.
func parseEastern(s string) (time.Time, error) {
	p, err := time.Parse(closureLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not YYYY-MM-DD HH:mm: %w", s, err)
	}
	return EasternDate(p.Year(), p.Month(), p.Day(), p.Hour(), p.Minute()), nil
}

// closureAt returns the specific closure covering t, if any.
func (c *calendar) closureAt(t time.Time) (closureSpan, bool) {
	for _, cs := range c.closures {
		if cs.start.After(t) {
			break
		}
		if t.Before(cs.end) {
			return cs, true
		}
	}
	return closureSpan{}, false
}

// tradingDayClosed reports whether the trading day of t is a regular closure day.
func (c *calendar) tradingDayClosed(t time.Time) bool {
	return c.closed[Eastern(t).Add(tradingDayShift).Weekday()]
}

// sessionAt is the session by the Eastern wall clock, open or not.
func sessionAt(t time.Time) exchange.TradingPeriod {
	local := Eastern(t)
	m := local.Hour()*60 + local.Minute()
	for _, w := range usSessions {
		if w.start < w.end && m >= w.start && m < w.end {
			return w.period
		}
	}
	return exchange.Overnight
}

// Session returns the US session open at t, or "" when the market is closed
// (a regular closure day or a specific closure).
func (m *Market) Session(t time.Time) exchange.TradingPeriod {
	if m.cal.tradingDayClosed(t) {
		return ""
	}
	if _, ok := m.cal.closureAt(t); ok {
		return ""
	}
	return sessionAt(t)
}

// FuturesOpen reports whether a futures contract trades at t. Crypto
// contracts always trade; stock futures (isRwa) trade from Monday 00:00 to
// Saturday 00:00 UTC-4 (the regular closure days read in UTC-4) outside the
// specific closures.
func (m *Market) FuturesOpen(t time.Time, isRwa bool) bool {
	if !isRwa {
		return true
	}
	if m.cal.closed[t.In(zoneUTCMinus4).Weekday()] {
		return false
	}
	_, closed := m.cal.closureAt(t)
	return !closed
}

// States returns the states response at t: the US market, its daylight type
// at t and the four sessions in Eastern time. The caller owns the answer:
// it is a copy of one written once.
func (m *Market) States(t time.Time) []exchange.MarketState {
	s := m.states[0][0]
	if IsDST(t) {
		s = m.states[1][0]
	}
	s.StateList = slices.Clone(s.StateList)
	return []exchange.MarketState{s}
}

// marketStates is the answer of States in daylight.
func marketStates(daylight exchange.DaylightType) []exchange.MarketState {
	list := make([]exchange.SessionWindow, 0, len(usSessions))
	for _, w := range usSessions[1:] {
		list = append(list, sessionWindow(w))
	}
	list = append(list, sessionWindow(usSessions[0]))
	return []exchange.MarketState{{Market: "US", DaylightType: daylight, StateList: list}}
}

func sessionWindow(w window) exchange.SessionWindow {
	return exchange.SessionWindow{
		State:     w.period,
		TimeZone:  CalendarTimeZone,
		StartTime: fmt.Sprintf("%02d:%02d", w.start/60, w.start%60),
		EndTime:   fmt.Sprintf("%02d:%02d", w.end/60, w.end%60),
	}
}

// Calendar returns the calendar response: every specific closure in start
// order and the regular closure days.
func (m *Market) Calendar() exchange.Calendar {
	specific := make([]exchange.Closure, len(m.cal.closures))
	for i, cs := range m.cal.closures {
		specific[i] = cs.published
	}
	return exchange.Calendar{
		TimeZone:       CalendarTimeZone,
		SpecificConfig: specific,
		RegularConfig:  slices.Clone(m.cal.regular),
	}
}

// prevBoundary returns the latest instant not after t at which the session
// or the open state can change: a session start, a trading day change or the
// edge of a specific closure. Nothing changes between it and t.
func (c *calendar) prevBoundary(t time.Time) time.Time {
	local := Eastern(t)
	y, mo, d := local.Date()
	days := c.startsOf(y, mo, d)
	best := time.Time{}
	for back := 0; back <= 1 && best.IsZero(); back++ {
		for _, b := range days.starts[back] {
			if !b.After(t) && b.After(best) {
				best = b
			}
		}
	}
	// The latest closure edge not after t.
	if i := sort.Search(len(c.edges), func(i int) bool { return c.edges[i].After(t) }) - 1; i >= 0 && c.edges[i].After(best) {
		best = c.edges[i]
	}
	return best
}

// nextBoundary returns the earliest instant after t at which the session or
// the open state can change (see prevBoundary): nothing changes between t
// and it. The zero time when there is none (never: sessions start daily).
func (c *calendar) nextBoundary(t time.Time) time.Time {
	local := Eastern(t)
	y, mo, d := local.Date()
	// The next start is within a day: the starts of the next date ([0])
	// and of t's date ([1]).
	days := c.startsOf(y, mo, d+1)
	best := time.Time{}
	for _, day := range days.starts {
		for _, b := range day {
			if b.After(t) && (best.IsZero() || b.Before(best)) {
				best = b
			}
		}
	}
	if i := sort.Search(len(c.edges), func(i int) bool { return c.edges[i].After(t) }); i < len(c.edges) && (best.IsZero() || c.edges[i].Before(best)) {
		best = c.edges[i]
	}
	return best
}

// dayStarts are the session starts of an Eastern date ([0]) and of the day
// before ([1]), which prevBoundary looks among.
type dayStarts struct {
	y      int
	mo     time.Month
	d      int
	starts [2][len(usSessions)]time.Time
}

// startsMemo keeps the session starts of the last two dates asked for
// (the boundaries before and after a time ask for two): a pair that does
// not trade asks for them on every poll, and each start is a conversion
// from Eastern wall time.
type startsMemo struct{ last recent[dayStarts] }

// recent keeps the last two values stored, newest first. Each is
// immutable once stored, so a reader that sees either sees a right one.
type recent[T any] struct{ v [2]atomic.Pointer[T] }

// find returns the first kept value that match accepts; nil when none.
func (r *recent[T]) find(match func(*T) bool) *T {
	for i := range r.v {
		if x := r.v[i].Load(); x != nil && match(x) {
			return x
		}
	}
	return nil
}

// put keeps x as the newest, the newest before it as the older.
func (r *recent[T]) put(x *T) {
	r.v[1].Store(r.v[0].Load())
	r.v[0].Store(x)
}

// startsOf returns the session starts of the Eastern date y-mo-d and of the
// day before.
func (c *calendar) startsOf(y int, mo time.Month, d int) *dayStarts {
	if c.starts != nil {
		if s := c.starts.last.find(func(s *dayStarts) bool { return s.y == y && s.mo == mo && s.d == d }); s != nil {
			return s
		}
	}
	s := &dayStarts{y: y, mo: mo, d: d}
	for back := range s.starts {
		for i, w := range usSessions {
			s.starts[back][i] = EasternDate(y, mo, d-back, w.start/60, w.start%60)
		}
	}
	if c.starts != nil {
		c.starts.last.put(s)
	}
	return s
}

// earlyCloseClosures turns early closes into the closures they are: from
// the close to 20:00 of the same day, when the overnight session of the
// next trading day opens.
func earlyCloseClosures(early []EarlyCloseSpec) ([]ClosureSpec, error) {
	out := make([]ClosureSpec, 0, len(early))
	for i, e := range early {
		at := e.At
		if at == "" {
			at = "13:00"
		}
		start, err := parseEastern(e.Date + " " + at)
		if err != nil {
			return nil, specError(fmt.Errorf("calendar: early close %d: date %q and at %q must be YYYY-MM-DD and HH:mm", i, e.Date, at), "calendar", "early_closes", i)
		}
		if h := start.Hour(); h < 4 || h >= 20 {
			return nil, specError(fmt.Errorf("calendar: early close %d: at %s is outside the trading day's sessions (04:00 to 20:00)", i, at), "calendar", "early_closes", i)
		}
		remark := e.Remark
		if remark == "" {
			remark = "early close"
		}
		out = append(out, ClosureSpec{Remark: remark, Start: e.Date + " " + at, End: e.Date + " 20:00"})
	}
	return out, nil
}
