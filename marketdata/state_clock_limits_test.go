package marketdata_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim/market"
)

// sessionState is the State at now with the market's session computed
// from the states and calendar answers of m at now (cal, when given,
// replaces the calendar).
func sessionState(t testing.TB, m *market.Market, now time.Time, cal *exchange.Calendar) *marketdata.State {
	t.Helper()
	c := m.Calendar()
	if cal != nil {
		c = *cal
	}
	info, err := marketdata.ComputeSession(now, m.States(now), c)
	if err != nil {
		t.Fatal(err)
	}
	st, err := marketdata.NewState(marketdata.BuildInput{Now: now, Market: &marketdata.MarketFetch{Session: info, At: now}}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var (
	sinceOpen = func(limit float64) marketdata.ClockLimit {
		return marketdata.ClockLimit{Value: marketdata.ClockMinutesSinceOpen, Limit: limit}
	}
	toClose = func(limit float64) marketdata.ClockLimit {
		return marketdata.ClockLimit{Value: marketdata.ClockMinutesToClose, Limit: limit}
	}
	toNext = func(limit float64) marketdata.ClockLimit {
		return marketdata.ClockLimit{Value: marketdata.ClockMinutesToNextSession, Limit: limit}
	}
	until = func(at string, limit float64) marketdata.ClockLimit {
		return marketdata.ClockLimit{Value: marketdata.ClockMinutesUntil, At: at, Limit: limit}
	}
	since = func(at string, limit float64) marketdata.ClockLimit {
		return marketdata.ClockLimit{Value: marketdata.ClockMinutesSince, At: at, Limit: limit}
	}
	weekday = marketdata.ClockLimit{Value: marketdata.ClockWeekday}
)

// TestClockCrossing: the instant each clock value reaches its limit or
// jumps, a millisecond early; none when it moves away and has no jump.
func TestClockCrossing(t *testing.T) {
	m := usMarket(t)
	const none, now = "none", "now"
	tests := []struct {
		name  string
		at    time.Time
		limit marketdata.ClockLimit
		want  string // Eastern "2006-01-02 15:04:05.000", none or now
	}{
		{"minutes since the open reach 15", et("2026-03-10 09:40"), sinceOpen(15), "2026-03-10 09:44:59.999"},
		{"minutes since the open past 15", et("2026-03-10 09:50"), sinceOpen(15), none},
		{"minutes since the open at 15", et("2026-03-10 09:45"), sinceOpen(15), now},
		{"minutes since the open, a fraction", et("2026-03-10 09:40"), sinceOpen(10.5), "2026-03-10 09:40:29.999"},
		{"minutes since the open, overnight", et("2026-03-10 03:00"), sinceOpen(420), now},
		{"minutes since the open, overnight, later", et("2026-03-10 03:00"), sinceOpen(430), "2026-03-10 03:09:59.999"},
		{"minutes since the open, closed", et("2026-03-07 12:00"), sinceOpen(15), none},
		{"minutes to the close reach 5", et("2026-03-10 15:50"), toClose(5), "2026-03-10 15:54:59.999"},
		{"minutes to the close under 5", et("2026-03-10 15:57"), toClose(5), none},
		// Past the close: the session changes first, which the engine sees.
		{"minutes to the close, negative limit", et("2026-03-10 15:57"), toClose(-1), "2026-03-10 16:00:59.999"},
		{"minutes to the close, closed", et("2026-03-07 12:00"), toClose(5), none},
		{"minutes to the next session at a weekend", et("2026-03-07 12:00"), toNext(10), "2026-03-08 19:49:59.999"},
		{"minutes to the next session under the limit", et("2026-03-08 19:55"), toNext(10), none},
		{"minutes until reach the limit", et("2026-03-10 15:40"), until("15:55", 5), "2026-03-10 15:49:59.999"},
		{"minutes until jump at their time", et("2026-03-10 15:52"), until("15:55", 5), "2026-03-10 15:54:59.999"},
		{"minutes until at their limit", et("2026-03-10 15:56"), until("15:55", 1439), now},
		{"minutes until under a larger limit", et("2026-03-10 15:56"), until("15:55", 1439.5), "2026-03-11 15:54:59.999"},
		{"minutes since jump back at their time", et("2026-03-10 09:00"), since("09:30", 15), "2026-03-10 09:29:59.999"},
		{"minutes since reach the limit", et("2026-03-10 09:35"), since("09:30", 15), "2026-03-10 09:44:59.999"},
		{"minutes since across midnight", et("2026-03-10 23:00"), since("22:00", 150), "2026-03-11 00:29:59.999"},
		// 01:30 EST on the day of the March change: the wall clock jumps at
		// 02:00 EST to 03:00 EDT, which the minutes of the wall clock follow.
		{"minutes until at the march change", et("2026-03-08 01:30"), until("03:00", 5), "2026-03-08 01:59:59.999"},
		// 01:10 EDT on the day of the November change: at 02:00 EDT the wall
		// clock falls back to 01:00 EST, before minutes_since("00:30") reach 100.
		{"minutes since at the november change", et("2026-11-01 01:10"), since("00:30", 100), "2026-11-01 01:59:59.999"},
		{"weekday", et("2026-03-13 23:00"), weekday, "2026-03-13 23:59:59.999"},
		{"weekday at the march change", et("2026-03-08 01:00"), weekday, "2026-03-08 23:59:59.999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := sessionState(t, m, tt.at, nil)
			got := st.ClockCrossing(tt.limit)
			var s string
			switch {
			case got.IsZero():
				s = none
			case got.Equal(tt.at):
				s = now
			default:
				s = market.Eastern(got).Format("2006-01-02 15:04:05.000")
			}
			if s != tt.want {
				t.Errorf("ClockCrossing at %s = %s, want %s", market.Eastern(tt.at).Format("15:04"), s, tt.want)
			}
		})
	}
}

// clockCompare is a comparison of a clock value with its limit, as a
// condition makes it; ok is false when the value is missing.
func clockCompare(st *marketdata.State, l marketdata.ClockLimit, op string) (result, ok bool) {
	var v float64
	switch l.Value {
	case marketdata.ClockWeekday:
		return st.Weekday() == "Friday", true
	case marketdata.ClockMinutesUntil, marketdata.ClockMinutesSince:
		var err error
		if l.Value == marketdata.ClockMinutesUntil {
			v, err = st.MinutesUntil(l.At)
		} else {
			v, err = st.MinutesSince(l.At)
		}
		if err != nil {
			return false, false
		}
	default:
		need := marketdata.NeedSessionOpen
		if l.Value == marketdata.ClockMinutesToNextSession {
			need = marketdata.NeedNextSession
		}
		mk, err := st.Market(need)
		if err != nil {
			return false, false
		}
		switch l.Value {
		case marketdata.ClockMinutesSinceOpen:
			v = mk.MinutesSinceOpen
		case marketdata.ClockMinutesToClose:
			v = mk.MinutesToClose
		default:
			v = mk.MinutesToNextSession
		}
	}
	switch op {
	case "<":
		return v < l.Limit, true
	case "<=":
		return v <= l.Limit, true
	case ">":
		return v > l.Limit, true
	case ">=":
		return v >= l.Limit, true
	case "==":
		return v == l.Limit, true
	}
	return v != l.Limit, true
}

// TestClockCrossingNeverLate walks through both changes of daylight saving
// time, a weekend, holidays and an early close: from every start, every
// comparison of every limit keeps its result (and its having a value) at
// every instant before the crossing computed at the start, while the
// session keeps its fields and the minutes follow the clock: what the
// engine relies on to skip a condition until then. A crossing that came
// late would be a firing missed.
func TestClockCrossingNeverLate(t *testing.T) {
	m := usMarket(t)
	limits := []marketdata.ClockLimit{
		sinceOpen(0), sinceOpen(1), sinceOpen(15), sinceOpen(389.5), toClose(5), toClose(0.5), toClose(60),
		toNext(10), toNext(0), until("15:55", 5), until("15:55", 0), until("02:30", 30), until("00:00", 1439.5),
		since("09:30", 15), since("02:30", 45), since("23:59", 0.25), weekday,
	}
	ops := [...]string{"<", "<=", ">", ">=", "==", "!="}
	ranges := [][2]string{
		{"2026-03-06 18:00", "2026-03-09 10:00"},
		{"2026-10-31 18:00", "2026-11-02 10:00"},
		{"2026-11-25 14:00", "2026-11-28 02:00"},
	}
	// The States on the grid of checkEvery are built once.
	const startEvery, checkEvery, horizon = 31 * time.Minute, 127 * time.Second, 4 * time.Hour
	states := map[time.Time]*marketdata.State{}
	stateAt := func(at time.Time) *marketdata.State {
		st, ok := states[at]
		if !ok {
			st = sessionState(t, m, at, nil)
			states[at] = st
		}
		return st
	}
	checks := 0
	for _, r := range ranges {
		for t0 := et(r[0]); t0.Before(et(r[1])); t0 = t0.Add(startEvery) {
			s0 := stateAt(t0)
			for _, l := range limits {
				c := s0.ClockCrossing(l)
				var want, okW [len(ops)]bool
				for i, op := range ops {
					want[i], okW[i] = clockCompare(s0, l, op)
				}
				end := t0.Add(horizon)
				if !c.IsZero() && c.Before(end) {
					end = c
				}
				for _, at := range instantsBefore(t0, end, checkEvery) {
					st := stateAt(at)
					if !st.SameSession(s0) || !st.ClockFollows(s0, l) {
						break // the engine evaluates again from here
					}
					for i, op := range ops {
						got, okG := clockCompare(st, l, op)
						checks++
						if got != want[i] || okG != okW[i] {
							t.Fatalf("%+v %s: %v (value %v) at %s but %v (value %v) at %s, before the crossing computed then, %s",
								l, op, want[i], okW[i], market.Eastern(t0), got, okG, market.Eastern(at), market.Eastern(c))
						}
					}
				}
			}
		}
	}
	t.Logf("%d comparisons checked", checks)
}

// instantsBefore returns the instants of the grid of step after t0 and
// before end, and the last nanosecond before end.
func instantsBefore(t0, end time.Time, step time.Duration) []time.Time {
	var out []time.Time
	for at := t0.Truncate(step).Add(step); at.Before(end); at = at.Add(step) {
		out = append(out, at)
	}
	if last := end.Add(-time.Nanosecond); last.After(t0) {
		out = append(out, last)
	}
	return out
}

// TestClockFollows: the minutes of the session follow the clock between
// two States of one session, but not when a new calendar answer moves the
// close (an early close published during the day, the session's other
// fields unchanged) or when the later State is earlier.
func TestClockFollows(t *testing.T) {
	m := usMarket(t)
	early := m.Calendar()
	early.SpecificConfig = append(slices.Clone(early.SpecificConfig), exchange.Closure{Remark: "Early close", StartTime: "2026-03-10 15:00", EndTime: "2026-03-10 16:00"})
	a := sessionState(t, m, et("2026-03-10 10:00"), nil)
	saturday := sessionState(t, m, et("2026-03-07 12:00"), nil)
	tests := []struct {
		name   string
		a, b   *marketdata.State
		limit  marketdata.ClockLimit
		follow bool
	}{
		{"a minute later, since the open", a, sessionState(t, m, et("2026-03-10 10:01"), nil), sinceOpen(15), true},
		{"a minute later, to the close", a, sessionState(t, m, et("2026-03-10 10:01"), nil), toClose(5), true},
		{"an early close published, to the close", a, sessionState(t, m, et("2026-03-10 10:01"), &early), toClose(5), false},
		{"an early close published, since the open", a, sessionState(t, m, et("2026-03-10 10:01"), &early), sinceOpen(15), true},
		{"earlier", a, sessionState(t, m, et("2026-03-10 09:59"), nil), sinceOpen(15), false},
		{"closed, no value in either", saturday, sessionState(t, m, et("2026-03-07 12:05"), nil), toClose(5), true},
		{"opened since", saturday, a, toClose(5), false},
		{"the wall clock", a, sessionState(t, m, et("2026-03-10 10:01"), &early), until("15:55", 5), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "an early close published, to the close" && !tt.b.SameSession(tt.a) {
				t.Fatal("the early close changed the session's fields: the case tests nothing")
			}
			if got := tt.b.ClockFollows(tt.a, tt.limit); got != tt.follow {
				t.Errorf("ClockFollows = %v, want %v", got, tt.follow)
			}
		})
	}
}
