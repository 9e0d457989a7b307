package market

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// et is an Eastern wall time "2006-01-02 15:04".
func et(s string) time.Time {
	t, err := parseEastern(s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestSession(t *testing.T) {
	m := newTestMarket(t)
	tests := []struct {
		at   string // Eastern wall time
		want exchange.TradingPeriod
	}{
		// Tuesday 2026-03-10, two days after the March change.
		{"2026-03-10 03:59", exchange.Overnight},
		{"2026-03-10 04:00", exchange.PreMarket},
		{"2026-03-10 09:29", exchange.PreMarket},
		{"2026-03-10 09:30", exchange.Regular},
		{"2026-03-10 15:59", exchange.Regular},
		{"2026-03-10 16:00", exchange.AfterHours},
		{"2026-03-10 19:59", exchange.AfterHours},
		{"2026-03-10 20:00", exchange.Overnight},
		{"2026-03-10 23:59", exchange.Overnight},
		{"2026-03-11 00:00", exchange.Overnight},
		// Monday just after the March change, and after the November change.
		{"2026-03-09 09:30", exchange.Regular},
		{"2026-11-02 09:29", exchange.PreMarket},
		{"2026-11-02 09:30", exchange.Regular},
		// The week: Friday's overnight does not exist, Sunday 20:00 opens Monday's.
		{"2026-03-13 19:59", exchange.AfterHours},
		{"2026-03-13 20:00", ""},
		{"2026-03-14 03:00", ""},
		{"2026-03-14 12:00", ""},
		{"2026-03-15 19:59", ""},
		{"2026-03-15 20:00", exchange.Overnight},
		{"2026-03-16 03:59", exchange.Overnight},
		// Holidays: closed from 00:00 to 24:00 of the closure.
		{"2026-07-02 23:59", exchange.Overnight},
		{"2026-07-03 00:00", ""},
		{"2026-07-03 12:00", ""},
		{"2026-07-03 20:00", ""}, // Saturday's overnight
		{"2026-11-25 23:59", exchange.Overnight},
		{"2026-11-26 10:00", ""},
		{"2026-11-27 00:00", exchange.Overnight},
		{"2026-11-27 12:59", exchange.Regular},
		{"2026-11-27 13:00", ""}, // early close
	}
	for _, tt := range tests {
		t.Run(tt.at, func(t *testing.T) {
			if got := m.Session(et(tt.at)); got != tt.want {
				t.Fatalf("Session(%s ET) = %q, want %q", tt.at, got, tt.want)
			}
		})
	}
}

func TestFuturesOpen(t *testing.T) {
	m := newTestMarket(t)
	tests := []struct {
		at   string // UTC
		want bool
	}{
		// Summer: UTC-4 is Eastern daylight time.
		{"2026-03-14T03:59:59Z", true},  // Friday 23:59:59 UTC-4
		{"2026-03-14T04:00:00Z", false}, // Saturday 00:00 UTC-4
		{"2026-03-16T03:59:59Z", false}, // Sunday 23:59:59 UTC-4
		{"2026-03-16T04:00:00Z", true},  // Monday 00:00 UTC-4
		{"2026-03-16T00:30:00Z", false}, // Sunday 20:30 EDT: the stock pairs' overnight is open, the futures are not
		// Winter: still UTC-4, so Friday 23:00 EST closes the week.
		{"2027-01-09T03:59:00Z", true},
		{"2027-01-09T04:00:00Z", false},
		{"2027-01-11T04:00:00Z", true},
		// Specific closures.
		{"2026-07-03T03:59:00Z", true},
		{"2026-07-03T04:00:00Z", false}, // 2026-07-03 00:00 EDT
		{"2026-11-26T04:59:00Z", true},  // 2026-11-25 23:59 EST
		{"2026-11-26T05:00:00Z", false},
		{"2026-11-27T05:00:00Z", true},
		{"2026-11-27T18:00:00Z", false}, // 13:00 EST early close
	}
	for _, tt := range tests {
		t.Run(tt.at, func(t *testing.T) {
			if got := m.FuturesOpen(utc(tt.at), true); got != tt.want {
				t.Fatalf("FuturesOpen(%s, rwa) = %v, want %v", tt.at, got, tt.want)
			}
			if !m.FuturesOpen(utc(tt.at), false) {
				t.Fatalf("FuturesOpen(%s, crypto) = false, crypto always trades", tt.at)
			}
		})
	}
}

func TestRegularClosedSetting(t *testing.T) {
	opts := testOptions()
	opts.Calendar.RegularClosed = []string{"sunday"}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Session(et("2026-03-14 12:00")); got != exchange.Regular {
		t.Errorf("Saturday with only SUNDAY closed: Session = %q, want regular", got)
	}
	if got := m.Calendar().RegularConfig; !reflect.DeepEqual(got, []string{"SUNDAY"}) {
		t.Errorf("RegularConfig = %v, want [SUNDAY]", got)
	}
	opts.Calendar.RegularClosed = []string{}
	m, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Session(et("2026-03-15 12:00")); got != exchange.Regular {
		t.Errorf("Sunday with no closed days: Session = %q, want regular", got)
	}
}

func TestStates(t *testing.T) {
	m := newTestMarket(t)
	wantList := []exchange.SessionWindow{
		{State: exchange.PreMarket, TimeZone: "EST", StartTime: "04:00", EndTime: "09:30"},
		{State: exchange.Regular, TimeZone: "EST", StartTime: "09:30", EndTime: "16:00"},
		{State: exchange.AfterHours, TimeZone: "EST", StartTime: "16:00", EndTime: "20:00"},
		{State: exchange.Overnight, TimeZone: "EST", StartTime: "20:00", EndTime: "04:00"},
	}
	tests := []struct {
		at   time.Time
		want exchange.DaylightType
	}{
		{utc("2026-03-08T06:59:59Z"), exchange.Standard},
		{utc("2026-03-08T07:00:00Z"), exchange.DST},
		{et("2026-03-09 09:30"), exchange.DST},
		{et("2026-07-03 12:00"), exchange.DST},
		{utc("2026-11-01T05:59:59Z"), exchange.DST},
		{utc("2026-11-01T06:00:00Z"), exchange.Standard},
		{et("2026-11-02 09:30"), exchange.Standard},
	}
	for _, tt := range tests {
		t.Run(tt.at.UTC().Format(time.RFC3339), func(t *testing.T) {
			got := m.States(tt.at)
			want := []exchange.MarketState{{Market: "US", DaylightType: tt.want, StateList: wantList}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("States = %+v,\nwant %+v", got, want)
			}
		})
	}
}

func TestCalendar(t *testing.T) {
	opts := testOptions()
	// Closures are published in start order whatever the scenario order.
	opts.Calendar.Closures[0], opts.Calendar.Closures[2] = opts.Calendar.Closures[2], opts.Calendar.Closures[0]
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := exchange.Calendar{
		TimeZone: "EST",
		SpecificConfig: []exchange.Closure{
			{Remark: "Independence Day (observed)", StartTime: "2026-07-03 00:00", EndTime: "2026-07-04 00:00"},
			{Remark: "Thanksgiving Day", StartTime: "2026-11-26 00:00", EndTime: "2026-11-27 00:00"},
			{Remark: "Day after Thanksgiving (early close)", StartTime: "2026-11-27 13:00", EndTime: "2026-11-28 00:00"},
		},
		RegularConfig: []string{"SATURDAY", "SUNDAY"},
	}
	got := m.Calendar()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Calendar = %+v,\nwant %+v", got, want)
	}
	// An empty calendar still encodes arrays, never null.
	empty, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := empty.Calendar(); c.SpecificConfig == nil || len(c.SpecificConfig) != 0 {
		t.Errorf("empty SpecificConfig = %#v, want an empty non-nil slice", c.SpecificConfig)
	}
}

// TestPrevBoundaryMemo: the boundary before a time, with the session
// starts of the last date kept and the closures' edges searched, is what
// looking at every session start and every closure gives, across days,
// months, closures and both daylight-saving changes, going forwards and
// back.
func TestPrevBoundaryMemo(t *testing.T) {
	spec := CalendarSpec{Closures: []ClosureSpec{
		{Remark: "storm", Start: "2026-03-09 10:00", End: "2026-03-09 13:00"},
		{Remark: "long", Start: "2026-03-20 00:00", End: "2026-04-02 00:00"},
		{Remark: "inside", Start: "2026-03-25 09:00", End: "2026-03-26 09:00"}, // inside the long one
		{Remark: "fall", Start: "2026-11-01 00:30", End: "2026-11-01 03:00"},
	}}
	c, err := newCalendar(spec)
	if err != nil {
		t.Fatal(err)
	}
	// every is prevBoundary as first written: every start, every edge.
	every := func(at time.Time) time.Time {
		local := Eastern(at)
		y, mo, d := local.Date()
		best := time.Time{}
		for back := 0; back <= 1 && best.IsZero(); back++ {
			for _, w := range usSessions {
				if b := EasternDate(y, mo, d-back, w.start/60, w.start%60); !b.After(at) && b.After(best) {
					best = b
				}
			}
		}
		for _, cs := range c.closures {
			for _, b := range [2]time.Time{cs.start, cs.end} {
				if !b.After(at) && b.After(best) {
					best = b
				}
			}
		}
		return best
	}
	rng := rand.New(rand.NewPCG(5, 6))
	at := utc("2026-02-27T00:00:00Z")
	steps := []time.Duration{time.Second, 7 * time.Minute, time.Hour, 5 * time.Hour, -3 * time.Hour, 26 * time.Hour}
	for i := range 5000 {
		at = at.Add(steps[rng.IntN(len(steps))])
		if at.After(utc("2026-11-05T00:00:00Z")) {
			at = utc("2026-03-07T00:00:00Z")
		}
		if got, want := c.prevBoundary(at), every(at); !got.Equal(want) {
			t.Fatalf("step %d: prevBoundary(%s) = %s, looking at every boundary %s", i, at, got, want)
		}
	}
}

// TestNextBoundary: the next boundary after a time is the earliest session
// start or closure edge after it, looked for among every start of three
// days and every edge.
func TestNextBoundary(t *testing.T) {
	c, err := newCalendar(CalendarSpec{Closures: []ClosureSpec{
		{Remark: "storm", Start: "2026-03-09 10:00", End: "2026-03-09 13:00"},
		{Remark: "long", Start: "2026-03-20 00:00", End: "2026-04-02 00:00"},
		{Remark: "fall", Start: "2026-11-01 00:30", End: "2026-11-01 03:00"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	every := func(at time.Time) time.Time {
		y, mo, d := Eastern(at).Date()
		best := time.Time{}
		consider := func(b time.Time) {
			if b.After(at) && (best.IsZero() || b.Before(best)) {
				best = b
			}
		}
		for day := -1; day <= 1; day++ {
			for _, w := range usSessions {
				consider(EasternDate(y, mo, d+day, w.start/60, w.start%60))
			}
		}
		for _, cs := range c.closures {
			consider(cs.start)
			consider(cs.end)
		}
		return best
	}
	rng := rand.New(rand.NewPCG(7, 8))
	at := utc("2026-03-01T00:00:00Z")
	for i := range 5000 {
		at = at.Add(time.Duration(rng.IntN(40_000)-8_000) * time.Second)
		if at.After(utc("2026-11-05T00:00:00Z")) {
			at = utc("2026-03-05T00:00:00Z")
		}
		if got, want := c.nextBoundary(at), every(at); !got.Equal(want) {
			t.Fatalf("step %d: nextBoundary(%s) = %s, looking at every boundary %s", i, at, got, want)
		}
	}
}

// TestTradableSpanMatchesCalendar: whether a pair trades, answered from the
// span kept between two boundaries, is what the calendar says at every
// time asked, going forwards by seconds and hours and jumping back, for a
// pair of each kind (regular hours only, every session, weekends).
func TestTradableSpanMatchesCalendar(t *testing.T) {
	opts := testOptions()
	opts.Calendar.Closures = append(opts.Calendar.Closures, ClosureSpec{Remark: "storm", Start: "2026-03-11 10:00", End: "2026-03-11 13:00"})
	opts.StockPairs = []StockPairSpec{
		{Symbol: "DAY", Code: "DAY", PricePath: "NVDA", TradingPeriod: []exchange.TradingPeriod{exchange.Regular}},
		{Symbol: "ALL", Code: "ALL", PricePath: "NVDA", TradingPeriod: allPeriods, WeekendTradable: true},
	}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	at := utc("2026-03-06T12:00:00Z")
	steps := []time.Duration{time.Second, 2 * time.Second, 10 * time.Minute, 3 * time.Hour, -5 * time.Hour}
	for i := range 6000 {
		at = at.Add(steps[rng.IntN(len(steps))])
		for _, sym := range []string{"DAY", "ALL"} {
			p := m.pairBySym[sym]
			if got, want := m.pairTradable(p, at), m.tradableAt(p, at); got != want {
				t.Fatalf("step %d: %s at %s: tradable %v from the span, %v from the calendar", i, sym, at, got, want)
			}
		}
	}
}

// TestEarlyCloses: an early close closes the rest of its trading day from
// its time (13:00 unless given), and the overnight session of the next
// trading day opens at 20:00 as usual; the calendar publishes it as the
// closure it is.
func TestEarlyCloses(t *testing.T) {
	opts := testOptions()
	opts.Calendar = CalendarSpec{EarlyCloses: []EarlyCloseSpec{
		{Date: "2026-12-24", Remark: "Christmas Eve"},
		{Date: "2026-07-02", At: "14:00"},
	}}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		at   string
		want exchange.TradingPeriod
	}{
		{"2026-12-24 12:59", exchange.Regular},
		{"2026-12-24 13:00", ""},
		{"2026-12-24 16:30", ""},
		{"2026-12-24 19:59", ""},
		{"2026-12-24 20:00", exchange.Overnight},
		{"2026-07-02 13:59", exchange.Regular},
		{"2026-07-02 14:00", ""},
		{"2026-12-23 16:30", exchange.AfterHours},
	} {
		t.Run(tt.at, func(t *testing.T) {
			if got := m.Session(et(tt.at)); got != tt.want {
				t.Errorf("Session(%s ET) = %q, want %q", tt.at, got, tt.want)
			}
		})
	}
	var remarks []string
	for _, c := range m.Calendar().SpecificConfig {
		remarks = append(remarks, c.Remark+" "+c.StartTime+" - "+c.EndTime)
	}
	for _, want := range []string{"Christmas Eve 2026-12-24 13:00 - 2026-12-24 20:00", "early close 2026-07-02 14:00 - 2026-07-02 20:00"} {
		if !slices.Contains(remarks, want) {
			t.Errorf("calendar lacks %q: %q", want, remarks)
		}
	}
}
