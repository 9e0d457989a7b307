package marketdata_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim/market"
)

// usMarket is the simulator's market with the holidays of the tests.
func usMarket(t testing.TB) *market.Market {
	t.Helper()
	m, err := market.New(market.Options{Calendar: market.CalendarSpec{Closures: []market.ClosureSpec{
		{Remark: "Independence Day (observed)", Start: "2026-07-03 00:00", End: "2026-07-04 00:00"},
		{Remark: "Thanksgiving Day", Start: "2026-11-26 00:00", End: "2026-11-27 00:00"},
		{Remark: "Early close", Start: "2026-11-27 13:00", End: "2026-11-28 00:00"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// et reads an Eastern wall time "2006-01-02 15:04".
func et(s string) time.Time {
	p, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return market.EasternDate(p.Year(), p.Month(), p.Day(), p.Hour(), p.Minute())
}

func TestComputeSession(t *testing.T) {
	m := usMarket(t)
	type want struct {
		session            string
		holiday, weekend   bool
		dst                bool
		sinceOpen, toClose float64
		next, nextStart    string // Eastern wall time
	}
	tests := []struct {
		name string
		at   string // Eastern wall time
		want want
	}{
		{"regular day", "2026-03-10 10:00", want{"regular", false, false, true, 30, 360, "after_hours", "2026-03-10 16:00"}},
		// The Monday after the March change: daylight time, same wall clock.
		{"after march change, overnight", "2026-03-09 03:59", want{"overnight", false, false, true, 479, 1, "pre_market", "2026-03-09 04:00"}},
		{"after march change, open", "2026-03-09 09:30", want{"regular", false, false, true, 0, 390, "after_hours", "2026-03-09 16:00"}},
		{"saturday before march change", "2026-03-07 12:00", want{"closed", false, true, false, 0, 0, "overnight", "2026-03-08 20:00"}},
		{"after november change", "2026-11-02 09:30", want{"regular", false, false, false, 0, 390, "after_hours", "2026-11-02 16:00"}},
		{"saturday before november change", "2026-10-31 12:00", want{"closed", false, true, true, 0, 0, "overnight", "2026-11-01 20:00"}},
		{"sunday evening after november change", "2026-11-01 21:00", want{"overnight", false, true, false, 60, 420, "pre_market", "2026-11-02 04:00"}},
		// Holidays.
		{"thanksgiving", "2026-11-26 10:00", want{"closed", true, false, false, 0, 0, "overnight", "2026-11-27 00:00"}},
		{"thanksgiving eve overnight", "2026-11-25 23:00", want{"overnight", false, false, false, 180, 60, "overnight", "2026-11-27 00:00"}},
		{"early close", "2026-11-27 12:00", want{"regular", false, false, false, 150, 60, "overnight", "2026-11-29 20:00"}},
		{"after early close", "2026-11-27 13:00", want{"closed", true, false, false, 0, 0, "overnight", "2026-11-29 20:00"}},
		{"friday after thanksgiving overnight", "2026-11-27 00:30", want{"overnight", false, false, false, 30, 210, "pre_market", "2026-11-27 04:00"}},
		{"independence day observed", "2026-07-03 12:00", want{"closed", true, false, true, 0, 0, "overnight", "2026-07-05 20:00"}},
		{"overnight into the holiday", "2026-07-02 20:00", want{"overnight", false, false, true, 0, 240, "overnight", "2026-07-05 20:00"}},
		// Weekends.
		{"friday evening", "2026-03-13 20:00", want{"closed", false, false, true, 0, 0, "overnight", "2026-03-15 20:00"}},
		{"saturday", "2026-03-14 12:00", want{"closed", false, true, true, 0, 0, "overnight", "2026-03-15 20:00"}},
		{"sunday before the open", "2026-03-15 19:59", want{"closed", false, true, true, 0, 0, "overnight", "2026-03-15 20:00"}},
		{"sunday evening", "2026-03-15 20:30", want{"overnight", false, true, true, 30, 450, "pre_market", "2026-03-16 04:00"}},
		// Every boundary of a Wednesday.
		{"03:59", "2026-03-11 03:59", want{"overnight", false, false, true, 479, 1, "pre_market", "2026-03-11 04:00"}},
		{"04:00", "2026-03-11 04:00", want{"pre_market", false, false, true, 0, 330, "regular", "2026-03-11 09:30"}},
		{"09:29", "2026-03-11 09:29", want{"pre_market", false, false, true, 329, 1, "regular", "2026-03-11 09:30"}},
		{"09:30", "2026-03-11 09:30", want{"regular", false, false, true, 0, 390, "after_hours", "2026-03-11 16:00"}},
		{"15:59", "2026-03-11 15:59", want{"regular", false, false, true, 389, 1, "after_hours", "2026-03-11 16:00"}},
		{"16:00", "2026-03-11 16:00", want{"after_hours", false, false, true, 0, 240, "overnight", "2026-03-11 20:00"}},
		{"19:59", "2026-03-11 19:59", want{"after_hours", false, false, true, 239, 1, "overnight", "2026-03-11 20:00"}},
		{"20:00", "2026-03-11 20:00", want{"overnight", false, false, true, 0, 480, "pre_market", "2026-03-12 04:00"}},
		{"23:59", "2026-03-11 23:59", want{"overnight", false, false, true, 239, 241, "pre_market", "2026-03-12 04:00"}},
		{"00:00", "2026-03-12 00:00", want{"overnight", false, false, true, 240, 240, "pre_market", "2026-03-12 04:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := et(tt.at)
			got, err := marketdata.ComputeSession(now, m.States(now), m.Calendar())
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want
			if got.Session != w.session || got.IsOpen != (w.session != "closed") || got.IsHoliday != w.holiday ||
				got.IsWeekend != w.weekend || got.DST != w.dst || got.Next != w.next || !got.NextStart.Equal(et(w.nextStart)) ||
				math.Abs(got.MinutesSinceOpen-w.sinceOpen) > 1e-9 || math.Abs(got.MinutesToClose-w.toClose) > 1e-9 {
				t.Fatalf("ComputeSession(%s ET)\n got %+v (next start %s ET)\nwant %+v", tt.at, got, market.Eastern(got.NextStart).Format("2006-01-02 15:04"), w)
			}
			if got.IsHoliday != (got.HolidayRemark != "") {
				t.Fatalf("IsHoliday %v with remark %q", got.IsHoliday, got.HolidayRemark)
			}
			// The simulator agrees on the session.
			if s := string(m.Session(now)); s != strings.Replace(w.session, "closed", "", 1) {
				t.Fatalf("the simulator's session is %q", s)
			}
		})
	}
}

// TestComputeSessionAgreesWithSimulator walks every ten minutes through
// both DST changes, a weekend and the holidays, and checks the engine's
// reading of the responses against the simulator's own calendar.
func TestComputeSessionAgreesWithSimulator(t *testing.T) {
	m := usMarket(t)
	ranges := [][2]string{
		{"2026-03-05 00:00", "2026-03-17 00:00"},
		{"2026-07-01 00:00", "2026-07-07 00:00"},
		{"2026-10-29 00:00", "2026-11-04 00:00"},
		{"2026-11-24 00:00", "2026-12-01 00:00"},
	}
	for _, r := range ranges {
		for now := et(r[0]); now.Before(et(r[1])); now = now.Add(10 * time.Minute) {
			got, err := marketdata.ComputeSession(now, m.States(now), m.Calendar())
			if err != nil {
				t.Fatal(err)
			}
			sim := string(m.Session(now))
			if sim == "" {
				sim = marketdata.SessionClosed
			}
			if got.Session != sim || got.DST != market.IsDST(now) {
				t.Fatalf("at %s: session %q dst %v, simulator %q dst %v", market.Eastern(now), got.Session, got.DST, sim, market.IsDST(now))
			}
			// The next session opens at NextStart and not a minute earlier.
			if string(m.Session(got.NextStart)) != got.Next {
				t.Fatalf("at %s: next %s at %s, but the simulator has %q then", market.Eastern(now), got.Next, market.Eastern(got.NextStart), m.Session(got.NextStart))
			}
			if before := got.NextStart.Add(-time.Minute); before.After(now) && string(m.Session(before)) == got.Next {
				t.Fatalf("at %s: next %s at %s, but it is already open a minute before", market.Eastern(now), got.Next, market.Eastern(got.NextStart))
			}
			if got.IsOpen {
				closeAt := now.Add(time.Duration(got.MinutesToClose * float64(time.Minute)))
				openAt := now.Add(-time.Duration(got.MinutesSinceOpen * float64(time.Minute)))
				if string(m.Session(closeAt.Add(-time.Minute))) != got.Session || string(m.Session(closeAt)) == got.Session ||
					string(m.Session(openAt)) != got.Session || string(m.Session(openAt.Add(-time.Minute))) == got.Session {
					t.Fatalf("at %s: %s from %s to %s disagrees with the simulator", market.Eastern(now), got.Session, market.Eastern(openAt), market.Eastern(closeAt))
				}
			}
		}
	}
}

// TestComputeSessionOtherZones reads the same windows published in UTC+8 and
// in America/New_York.
func TestComputeSessionOtherZones(t *testing.T) {
	m := usMarket(t)
	for _, at := range []string{"2026-03-10 10:00", "2026-03-10 20:30", "2026-11-02 03:00", "2026-11-02 09:45"} {
		now := et(at)
		want, err := marketdata.ComputeSession(now, m.States(now), m.Calendar())
		if err != nil {
			t.Fatal(err)
		}
		for _, zone := range []string{"UTC+8", "GMT+08:00", "Asia/Shanghai", "America/New_York", "UTC"} {
			states := m.States(now)
			loc, err := zoneFor(zone)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range states[0].StateList {
				states[0].StateList[i].TimeZone = zone
				states[0].StateList[i].StartTime = shiftHHMM(now, w.StartTime, loc)
				states[0].StateList[i].EndTime = shiftHHMM(now, w.EndTime, loc)
			}
			got, err := marketdata.ComputeSession(now, states, m.Calendar())
			if err != nil {
				t.Fatalf("%s: %v", zone, err)
			}
			if got != want {
				t.Fatalf("%s at %s ET:\n got %+v\nwant %+v", zone, at, got, want)
			}
		}
	}
}

func zoneFor(name string) (*time.Location, error) {
	switch name {
	case "UTC+8", "GMT+08:00":
		return time.FixedZone(name, 8*3600), nil
	}
	return time.LoadLocation(name)
}

// shiftHHMM converts an Eastern HH:mm on now's Eastern date to HH:mm in loc.
func shiftHHMM(now time.Time, hhmm string, loc *time.Location) string {
	p, _ := time.Parse("15:04", hhmm)
	local := market.Eastern(now)
	at := market.EasternDate(local.Year(), local.Month(), local.Day(), p.Hour(), p.Minute())
	return at.In(loc).Format("15:04")
}

func TestComputeSessionRejects(t *testing.T) {
	m := usMarket(t)
	now := et("2026-03-10 10:00")
	tests := []struct {
		name   string
		change func([]exchange.MarketState, *exchange.Calendar) []exchange.MarketState
		want   string
	}{
		{"no US market", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].Market = "HK"
			return s
		}, "no US market"},
		{"no states", func([]exchange.MarketState, *exchange.Calendar) []exchange.MarketState { return nil }, "no US market"},
		{"empty stateList", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList = nil
			return s
		}, "empty stateList"},
		{"bad daylightType", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].DaylightType = "summer"
			return s
		}, `daylightType "summer"`},
		{"bad state", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList[0].State = "lunch"
			return s
		}, `state "lunch": not a session`},
		{"bad time", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList[1].StartTime = "9:3"
			return s
		}, `startTime: "9:3" is not HH:mm`},
		{"hour 25", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList[1].EndTime = "25:00"
			return s
		}, `endTime: "25:00" is not HH:mm`},
		{"empty window", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList[1].EndTime = s[0].StateList[1].StartTime
			return s
		}, "empty window"},
		{"unknown zone", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList[2].TimeZone = "Mars/Olympus"
			return s
		}, `time zone "Mars/Olympus" is not understood`},
		{"bad offset", func(s []exchange.MarketState, _ *exchange.Calendar) []exchange.MarketState {
			s[0].StateList[2].TimeZone = "UTC+99"
			return s
		}, `time zone "UTC+99"`},
		{"bad weekday", func(s []exchange.MarketState, c *exchange.Calendar) []exchange.MarketState {
			c.RegularConfig = []string{"SATURDAY", "SUNNDAY"}
			return s
		}, `regular closure day "SUNNDAY"`},
		{"bad closure", func(s []exchange.MarketState, c *exchange.Calendar) []exchange.MarketState {
			c.SpecificConfig = []exchange.Closure{{Remark: "x", StartTime: "2026/07/03", EndTime: "2026-07-04 00:00"}}
			return s
		}, `closure "x"`},
		{"closure backwards", func(s []exchange.MarketState, c *exchange.Calendar) []exchange.MarketState {
			c.SpecificConfig = []exchange.Closure{{Remark: "x", StartTime: "2026-07-04 00:00", EndTime: "2026-07-03 00:00"}}
			return s
		}, "not after its start"},
		{"calendar zone", func(s []exchange.MarketState, c *exchange.Calendar) []exchange.MarketState {
			c.TimeZone = "PST8"
			return s
		}, `calendar: time zone "PST8"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal := m.Calendar()
			states := tt.change(m.States(now), &cal)
			_, err := marketdata.ComputeSession(now, states, cal)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestComputeSessionStaleDaylightType: a states response polled before the
// change still says standard; the date wins.
func TestComputeSessionStaleDaylightType(t *testing.T) {
	m := usMarket(t)
	now := et("2026-03-09 09:30")
	states := m.States(now)
	states[0].DaylightType = exchange.Standard
	got, err := marketdata.ComputeSession(now, states, m.Calendar())
	if err != nil {
		t.Fatal(err)
	}
	if !got.DST || got.Session != "regular" || got.MinutesSinceOpen != 0 {
		t.Fatalf("got %+v, want regular just opened in daylight time", got)
	}
}

func BenchmarkComputeSession(b *testing.B) {
	m := usMarket(b)
	now := et("2026-11-25 15:00")
	states, cal := m.States(now), m.Calendar()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := marketdata.ComputeSession(now, states, cal); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleComputeSession() {
	m, err := market.New(market.Options{})
	if err != nil {
		panic(err)
	}
	// Monday 2026-03-09, the first trading day after the March change, 15:55
	// in New York.
	now := time.Date(2026, 3, 9, 19, 55, 0, 0, time.UTC)
	s, err := marketdata.ComputeSession(now, m.States(now), m.Calendar())
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Session, s.DST, s.MinutesToClose, s.Next, s.NextStart.UTC().Format(time.RFC3339))
	// Output: regular true 5 after_hours 2026-03-09T20:00:00Z
}

// FuzzComputeSession feeds arbitrary states and calendar fields: nothing may
// panic, and an accepted answer is consistent.
func FuzzComputeSession(f *testing.F) {
	f.Add(int64(0), "04:00", "09:30", "EST", "2026-07-03 00:00", "2026-07-04 00:00", "SATURDAY", "dst")
	f.Add(int64(3600), "20:00", "04:00", "UTC+8", "2026-11-26 00:00", "2026-11-27 00:00", "sunday", "standard")
	f.Add(int64(-86400), "00:00", "24:00", "GMT-04:30", "", "", "", "")
	f.Add(int64(7*86400), "23:59", "00:00", "Asia/Shanghai", "2026-03-08 02:30", "2026-03-08 03:00", "MONDAY", "dst")
	f.Fuzz(func(t *testing.T, offset int64, start, end, zone, cStart, cEnd, day, daylight string) {
		m := usMarket(t)
		now := et("2026-03-10 10:00").Add(time.Duration(offset%(400*86400)) * time.Second)
		states := m.States(now)
		states[0].DaylightType = exchange.DaylightType(daylight)
		states[0].StateList[1].StartTime, states[0].StateList[1].EndTime = start, end
		states[0].StateList[2].TimeZone = zone
		cal := m.Calendar()
		cal.SpecificConfig = append(cal.SpecificConfig, exchange.Closure{Remark: "fuzz", StartTime: cStart, EndTime: cEnd})
		cal.RegularConfig = append(cal.RegularConfig, day)
		got, err := marketdata.ComputeSession(now, states, cal)
		if err != nil {
			return
		}
		if got.IsOpen != (got.Session != marketdata.SessionClosed) {
			t.Fatalf("IsOpen %v with session %q", got.IsOpen, got.Session)
		}
		if got.MinutesSinceOpen < 0 || got.MinutesToClose < 0 || (!got.IsOpen && got.MinutesSinceOpen+got.MinutesToClose != 0) {
			t.Fatalf("minutes %v since open, %v to close (open %v)", got.MinutesSinceOpen, got.MinutesToClose, got.IsOpen)
		}
		if (got.Next == "") != got.NextStart.IsZero() || (!got.NextStart.IsZero() && !got.NextStart.After(now)) {
			t.Fatalf("next %q at %s, now %s", got.Next, got.NextStart, now)
		}
	})
}
