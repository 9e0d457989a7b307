package marketdata_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/internal/racetest"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim/market"
)

// yearMarket is the simulator's market with the US holidays of 2026 and New
// Year's Day 2027, the early closes of 2026 and a halt inside a regular
// session.
func yearMarket(t testing.TB) *market.Market {
	t.Helper()
	closures := append(market.USHolidays(2026), market.USHolidays(2027)[0])
	closures = append(closures,
		market.ClosureSpec{Remark: "Early close", Start: "2026-11-27 13:00", End: "2026-11-28 00:00"},
		market.ClosureSpec{Remark: "Early close", Start: "2026-12-24 13:00", End: "2026-12-24 20:00"},
		market.ClosureSpec{Remark: "Halt", Start: "2026-08-12 11:00", End: "2026-08-12 11:45"},
	)
	m, err := market.New(market.Options{Calendar: market.CalendarSpec{Closures: closures}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// answers is one states and calendar answer pair.
type answers struct {
	states []exchange.MarketState
	cal    exchange.Calendar
}

// clone is an equal copy that shares no backing array with a, as a new poll
// decodes.
func (a answers) clone() answers {
	states := slices.Clone(a.states)
	for i := range states {
		states[i].StateList = slices.Clone(states[i].StateList)
	}
	cal := a.cal
	cal.SpecificConfig = slices.Clone(cal.SpecificConfig)
	cal.RegularConfig = slices.Clone(cal.RegularConfig)
	return answers{states, cal}
}

// answerVariants are the answers a venue may give: the simulator's, and
// changed ones that move every path of the computation (windows published in
// other zones, whose parse depends on now's date; windows in the hours the
// DST changes skip and repeat; another calendar zone and closure days; an
// added closure) and answers that are rejected, one of them on one date only.
func answerVariants(m *market.Market) []answers {
	at := et("2026-03-10 12:00")
	base := answers{m.States(at), m.Calendar()}
	variants := []answers{base}

	foreign := base.clone()
	for i, zone := range []string{"UTC+8", "Europe/London", "UTC", "GMT+08:00"} {
		loc, err := zoneFor(zone)
		if err != nil {
			panic(err)
		}
		w := &foreign.states[0].StateList[i]
		w.TimeZone, w.StartTime, w.EndTime = zone, shiftHHMM(at, w.StartTime, loc), shiftHHMM(at, w.EndTime, loc)
	}
	variants = append(variants, foreign)

	// Sessions start and end in the hours the DST changes skip and repeat,
	// so that time.Date places some starts an hour away from where the wall
	// clock reaches them, and the overnight one starts there, on a Sunday,
	// which is a trading day here.
	dstHours := base.clone()
	dstHours.states[0].StateList = []exchange.SessionWindow{
		{State: exchange.PreMarket, TimeZone: "EST", StartTime: "01:00", EndTime: "01:40"},
		{State: exchange.Regular, TimeZone: "EST", StartTime: "01:40", EndTime: "02:00"},
		{State: exchange.AfterHours, TimeZone: "EST", StartTime: "02:00", EndTime: "02:30"},
		{State: exchange.Overnight, TimeZone: "EST", StartTime: "02:30", EndTime: "01:00"},
	}
	dstHours.cal.RegularConfig = []string{"SATURDAY"}
	variants = append(variants, dstHours)

	otherCal := base.clone()
	otherCal.cal.TimeZone = "UTC"
	otherCal.cal.RegularConfig = []string{"sunday"}
	otherCal.cal.SpecificConfig = append(otherCal.cal.SpecificConfig,
		exchange.Closure{Remark: "Overlap", StartTime: "2026-07-02 18:00", EndTime: "2026-07-03 10:00"})
	variants = append(variants, otherCal)

	added := base.clone()
	added.cal.SpecificConfig = append(added.cal.SpecificConfig,
		exchange.Closure{Remark: "Outage", StartTime: "2026-06-10 10:00", EndTime: "2026-06-10 10:30"},
		exchange.Closure{Remark: "Outage", StartTime: "2026-06-10 10:30", EndTime: "2026-06-10 10:31"})
	variants = append(variants, added)

	// 05:00 and 06:00 UTC are both 01:00 Eastern on 2026-11-01 only: an
	// empty window that day, a valid one on every other.
	oneDayError := base.clone()
	oneDayError.states[0].StateList[3] = exchange.SessionWindow{State: exchange.Overnight, TimeZone: "UTC", StartTime: "05:00", EndTime: "06:00"}
	variants = append(variants, oneDayError)

	noUS := base.clone()
	noUS.states[0].Market = "HK"
	badClosure := base.clone()
	badClosure.cal.SpecificConfig[0].EndTime = "tomorrow"
	badDaylight := base.clone()
	badDaylight.states[0].DaylightType = "summer"
	return append(variants, noUS, badClosure, badDaylight)
}

// checkCompute compares c.Compute with ComputeSession at now, bit for bit.
func checkCompute(t *testing.T, c *marketdata.SessionCache, now time.Time, a answers) {
	t.Helper()
	want, wantErr := marketdata.ComputeSession(now, a.states, a.cal)
	got, err := c.Compute(now, a.states, a.cal)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("at %s: error %v, ComputeSession %v", now.UTC().Format(time.RFC3339Nano), err, wantErr)
	}
	if got != want || math.Float64bits(got.MinutesSinceOpen) != math.Float64bits(want.MinutesSinceOpen) ||
		math.Float64bits(got.MinutesToClose) != math.Float64bits(want.MinutesToClose) {
		t.Fatalf("at %s (%s ET):\n got %+v\nwant %+v", now.UTC().Format(time.RFC3339Nano), market.Eastern(now).Format(time.DateTime), got, want)
	}
}

// feeder hands answers as callers do: mostly the same slices, sometimes an
// equal copy (a poll with an unchanged answer), sometimes another answer.
type feeder struct {
	rng      *rand.Rand
	variants []answers
	cur      int
	last     answers
}

func newFeeder(seed uint64, variants []answers) *feeder {
	return &feeder{rng: rand.New(rand.NewPCG(seed, 1)), variants: variants, last: variants[0]}
}

func (f *feeder) next() answers {
	switch r := f.rng.IntN(100); {
	case r < 70:
	case r < 95:
		f.last = f.last.clone()
	default:
		f.cur = f.rng.IntN(len(f.variants))
		f.last = f.variants[f.cur].clone()
	}
	return f.last
}

// TestSessionCacheYear walks a year and a few days minute by minute, with a
// random second of some minutes in between, through both DST changes, every
// weekend, holiday and early close, with answers that stay, are copied and
// change. The quarters run in parallel, each with its own cache; -short
// and -race take every seventh minute (7 and 60 share no factor, so the
// steps still meet every minute of the hour; the race detector finds
// nothing in one goroutine's cache and made this walk a tenth of the
// README's test command).
func TestSessionCacheYear(t *testing.T) {
	step := time.Minute
	if testing.Short() || racetest.Enabled {
		step = 7 * time.Minute
	}
	m := yearMarket(t)
	variants := answerVariants(m)
	quarters := []string{"2026-01-01 00:00", "2026-04-01 00:00", "2026-07-01 00:00", "2026-10-01 00:00", "2027-01-04 00:00"}
	for q := range len(quarters) - 1 {
		t.Run(quarters[q], func(t *testing.T) {
			t.Parallel()
			f := newFeeder(uint64(q+1), variants)
			var c marketdata.SessionCache
			for now := et(quarters[q]); now.Before(et(quarters[q+1])); now = now.Add(step) {
				checkCompute(t, &c, now, f.next())
				if f.rng.IntN(8) == 0 {
					between := now.Add(time.Duration(1+f.rng.IntN(59))*time.Second + time.Duration(f.rng.IntN(1e9)))
					checkCompute(t, &c, between, f.next())
				}
			}
		})
	}
}

// TestSessionCachePoller feeds the answers as the Poller holds them: a fresh
// poll of the simulator every minute (equal answers but for daylightType at
// the DST changes), the same slices on the ticks between, one tick every
// seven seconds (every second of the minute in turn) through the weekends of
// both DST changes and the Thanksgiving early close.
func TestSessionCachePoller(t *testing.T) {
	m := usMarket(t)
	for _, r := range [][2]string{
		{"2026-03-06 12:00", "2026-03-09 12:00"},
		{"2026-10-30 12:00", "2026-11-02 12:00"},
		{"2026-11-25 12:00", "2026-11-28 12:00"},
	} {
		t.Run(r[0], func(t *testing.T) {
			t.Parallel()
			var c marketdata.SessionCache
			var a answers
			polled := time.Time{}
			for now := et(r[0]); now.Before(et(r[1])); now = now.Add(7 * time.Second) {
				if now.Sub(polled) >= time.Minute {
					a, polled = answers{m.States(now), m.Calendar()}, now
				}
				checkCompute(t, &c, now, a)
			}
		})
	}
}

// TestSessionCacheBackwards jumps at random over the year, backwards as
// often as forwards, and replays stretches from earlier instants as a
// recording does.
func TestSessionCacheBackwards(t *testing.T) {
	t.Parallel()
	m := yearMarket(t)
	variants := answerVariants(m)
	start := et("2026-01-01 00:00")
	year := 368 * 24 * time.Hour
	t.Run("random instants", func(t *testing.T) {
		t.Parallel()
		f := newFeeder(2, variants)
		var c marketdata.SessionCache
		for range 30_000 {
			checkCompute(t, &c, start.Add(time.Duration(f.rng.Int64N(int64(year)))), f.next())
		}
	})
	t.Run("replays", func(t *testing.T) {
		t.Parallel()
		f := newFeeder(3, variants)
		var c marketdata.SessionCache
		now := start
		for range 200 {
			// Back up to two days, then forward up to three days in steps of
			// up to ten minutes.
			now = now.Add(-time.Duration(f.rng.Int64N(int64(48 * time.Hour))))
			for range 1 + f.rng.IntN(400) {
				now = now.Add(time.Duration(f.rng.Int64N(int64(10 * time.Minute))))
				checkCompute(t, &c, now, f.next())
			}
			now = now.Add(time.Duration(f.rng.Int64N(int64(20 * 24 * time.Hour))))
		}
	})
	t.Run("minute by minute backwards", func(t *testing.T) {
		f := newFeeder(4, variants[:2])
		var c marketdata.SessionCache
		for now := et("2026-11-03 00:00"); !now.Before(et("2026-10-30 00:00")); now = now.Add(-time.Minute) {
			checkCompute(t, &c, now, f.next())
			checkCompute(t, &c, now.Add(-time.Nanosecond), f.next())
		}
	})
}

// TestSessionCacheAroundBoundaries walks every minute of the days on which
// something changes: the US and UK DST changes, an answer rejected one day
// only, holidays, early closes, halts. At each minute it asks at the minute
// (a recomputation exactly at a boundary when the minute is one), a
// nanosecond before it and half a minute after it, so that a segment that
// reaches a boundary on either side by a nanosecond too far is found.
func TestSessionCacheAroundBoundaries(t *testing.T) {
	m := yearMarket(t)
	v := answerVariants(m)
	base, foreign, dstHours, otherCal, added, oneDayError := v[0], v[1], v[2], v[3], v[4], v[5]
	groups := []struct {
		days     []string
		variants []answers
	}{
		{[]string{"2026-03-08", "2026-03-09", "2026-03-29", "2026-10-25", "2026-11-01", "2026-11-02"}, []answers{foreign, dstHours, oneDayError}},
		{[]string{"2026-06-10", "2026-07-02", "2026-07-03", "2026-08-12", "2026-11-26", "2026-11-27", "2026-12-24"}, []answers{base, otherCal, added}},
	}
	for _, g := range groups {
		for _, day := range g.days {
			for i, a := range g.variants {
				t.Run(fmt.Sprintf("%s/%d", day, i), func(t *testing.T) {
					t.Parallel()
					var c marketdata.SessionCache
					for now := et(day + " 00:00"); market.Eastern(now).Format(time.DateOnly) == day; now = now.Add(time.Minute) {
						checkCompute(t, &c, now, a)
						checkCompute(t, &c, now.Add(-time.Nanosecond), a)
						checkCompute(t, &c, now.Add(30*time.Second), a)
					}
				})
			}
		}
	}
}

// TestSessionCacheErrors checks that the cache returns ComputeSession's
// errors, also for answers identical to rejected ones and for an answer
// rejected on one date only, and that it recovers with valid answers.
func TestSessionCacheErrors(t *testing.T) {
	m := yearMarket(t)
	variants := answerVariants(m)
	good, oneDay, noUS, badClosure, badDaylight := variants[0], variants[5], variants[6], variants[7], variants[8]
	steps := []struct {
		at      string
		a       answers
		wantErr bool
	}{
		{"2026-03-10 10:00", good, false},
		{"2026-03-10 10:01", noUS, true},
		{"2026-03-10 10:02", noUS, true},
		{"2026-03-10 10:03", good, false},
		{"2026-03-10 10:04", badClosure, true},
		{"2026-03-10 10:05", badClosure.clone(), true},
		{"2026-03-10 10:05", good.clone(), false},
		{"2026-03-10 10:05", badDaylight, true}, // equal to good but for daylightType
		{"2026-03-10 10:05", good, false},
		{"2026-10-31 19:59", oneDay, false}, // 23:59 UTC on 10-31
		{"2026-10-31 20:00", oneDay, true},  // 2026-11-01 in UTC
		{"2026-11-01 18:59", oneDay, true},
		{"2026-11-01 12:00", oneDay, true},  // backwards, still 11-01 in UTC
		{"2026-11-01 19:00", oneDay, false}, // 2026-11-02 in UTC
		{"2026-10-31 19:00", oneDay, false}, // backwards to 10-31 in UTC
		{"2026-10-31 21:00", oneDay, true},
	}
	var c marketdata.SessionCache
	for _, s := range steps {
		t.Run(s.at, func(t *testing.T) {
			now := et(s.at)
			checkCompute(t, &c, now, s.a)
			if _, err := c.Compute(now, s.a.states, s.a.cal); (err != nil) != s.wantErr {
				t.Fatalf("error %v, want one: %v", err, s.wantErr)
			}
		})
	}
}

// TestSessionCacheNoAllocation checks the fast paths: inside a segment
// Compute neither allocates nor parses (a parse allocates), with the same
// slices and with equal copies.
func TestSessionCacheNoAllocation(t *testing.T) {
	m := yearMarket(t)
	tests := []struct {
		name string
		at   string
	}{
		{"regular", "2026-03-10 10:00"},
		{"overnight", "2026-03-10 21:00"},
		{"weekend", "2026-03-14 12:00"},
		{"holiday", "2026-11-26 10:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := et(tt.at)
			a := answers{m.States(now), m.Calendar()}
			copies := [2]answers{a.clone(), a.clone()}
			var c marketdata.SessionCache
			checkCompute(t, &c, now, a)
			i := 0
			if n := testing.AllocsPerRun(100, func() {
				i++
				if _, err := c.Compute(now.Add(time.Duration(i)*time.Second), a.states, a.cal); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("same slices: %v allocations per call", n)
			}
			if n := testing.AllocsPerRun(100, func() {
				i++
				cp := copies[i%2]
				if _, err := c.Compute(now.Add(time.Duration(i)*time.Second), cp.states, cp.cal); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("equal copies: %v allocations per call", n)
			}
			checkCompute(t, &c, now.Add(time.Duration(i)*time.Second), copies[0])
		})
	}
}

// BenchmarkSessionCache is the common tick: the same answers, inside the
// segment (a regular session).
func BenchmarkSessionCache(b *testing.B) {
	m := yearMarket(b)
	now := et("2026-11-25 10:00")
	states, cal := m.States(now), m.Calendar()
	var c marketdata.SessionCache
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i = (i + 1) % 3600
		if _, err := c.Compute(now.Add(time.Duration(i)*time.Second), states, cal); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionCacheWeek is a week of one-second ticks with a poll every
// minute, as a backtest runs: the cost per tick including the segment
// changes and the equality checks after each poll.
func BenchmarkSessionCacheWeek(b *testing.B) {
	m := yearMarket(b)
	start := et("2026-11-23 00:00")
	const ticks = 7 * 24 * 3600
	polls := make([]answers, ticks/60)
	for i := range polls {
		at := start.Add(time.Duration(i) * time.Minute)
		polls[i] = answers{m.States(at), m.Calendar()}
	}
	var c marketdata.SessionCache
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a := polls[i/60]
		if _, err := c.Compute(start.Add(time.Duration(i)*time.Second), a.states, a.cal); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % ticks
	}
}

func ExampleSessionCache() {
	m, err := market.New(market.Options{})
	if err != nil {
		panic(err)
	}
	// The answers as polled at 15:55 in New York on Monday 2026-03-09.
	polled := time.Date(2026, 3, 9, 19, 55, 0, 0, time.UTC)
	states, cal := m.States(polled), m.Calendar()
	var c marketdata.SessionCache
	// The second call, in the same segment, only computes the minutes.
	for _, now := range []time.Time{polled, polled.Add(4*time.Minute + 30*time.Second)} {
		s, err := c.Compute(now, states, cal)
		if err != nil {
			panic(err)
		}
		fmt.Println(s.Session, s.MinutesToClose, s.Next)
	}
	// Output:
	// regular 5 after_hours
	// regular 0.5 after_hours
}

// FuzzSessionCache computes at two instants from fuzzed answers, with the
// same slices and then with an equal copy: the cache must agree with
// ComputeSession at both.
func FuzzSessionCache(f *testing.F) {
	f.Add(int64(0), int64(60), "04:00", "09:30", "EST", "2026-07-03 00:00", "2026-07-04 00:00", "SATURDAY")
	f.Add(int64(3600), int64(-7200), "20:00", "04:00", "UTC+8", "2026-11-26 00:00", "2026-11-27 00:00", "sunday")
	f.Add(int64(-86400), int64(86400), "00:00", "24:00", "GMT-04:30", "", "", "")
	f.Add(int64(-45*86400), int64(1), "02:30", "03:00", "EST", "2026-03-08 02:30", "2026-03-08 03:00", "MONDAY")
	f.Add(int64(236*86400), int64(-3600), "01:30", "01:45", "America/New_York", "2026-11-01 01:00", "2026-11-01 01:59", "")
	f.Add(int64(7*86400), int64(3*3600), "23:59", "00:00", "Asia/Shanghai", "2026-03-08 02:30", "2026-03-08 03:00", "MONDAY")
	f.Fuzz(func(t *testing.T, offset, step int64, start, end, zone, cStart, cEnd, day string) {
		m := usMarket(t)
		now := et("2026-03-10 10:00").Add(time.Duration(offset%(400*86400)) * time.Second)
		later := now.Add(time.Duration(step%(3*86400)) * time.Second)
		a := answers{m.States(now), m.Calendar()}
		a.states[0].StateList[1].StartTime, a.states[0].StateList[1].EndTime = start, end
		a.states[0].StateList[2].TimeZone = zone
		a.cal.SpecificConfig = append(a.cal.SpecificConfig, exchange.Closure{Remark: "fuzz", StartTime: cStart, EndTime: cEnd})
		a.cal.RegularConfig = append(a.cal.RegularConfig, day)
		var c marketdata.SessionCache
		checkCompute(t, &c, now, a)
		checkCompute(t, &c, later, a)
		checkCompute(t, &c, now, a.clone())
	})
}
