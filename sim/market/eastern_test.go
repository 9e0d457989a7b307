package market

import (
	"testing"
	"time"
	_ "time/tzdata" // the reference zone, on any machine
)

// TestEasternMatchesTZData checks the computed rule against the tz database
// for every hour of 2007-2040 (the rule's years) and both change instants.
func TestEasternMatchesTZData(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2041, 1, 1, 0, 0, 0, 0, time.UTC)
	for at := time.Date(2007, 1, 1, 0, 30, 0, 0, time.UTC); at.Before(end); at = at.Add(time.Hour) {
		want := at.In(ny)
		got := Eastern(at)
		_, wantOff := want.Zone()
		_, gotOff := got.Zone()
		if IsDST(at) != want.IsDST() || gotOff != wantOff || got.Hour() != want.Hour() {
			t.Fatalf("at %s: Eastern %s dst=%v, tzdata %s dst=%v", at, got, IsDST(at), want, want.IsDST())
		}
	}
	for year := 2007; year <= 2040; year++ {
		start, stop := dstBounds(year)
		for _, edge := range []time.Time{start, stop} {
			if IsDST(edge) != edge.In(ny).IsDST() || IsDST(edge.Add(-time.Nanosecond)) != edge.Add(-time.Nanosecond).In(ny).IsDST() {
				t.Fatalf("%d: change at %s disagrees with tzdata", year, edge)
			}
		}
	}
}

func TestEasternDate(t *testing.T) {
	tests := []struct {
		name      string
		y         int
		mo        time.Month
		d, h, min int
		want      string
	}{
		{"winter", 2026, time.January, 15, 9, 30, "2026-01-15T14:30:00Z"},
		{"summer", 2026, time.July, 2, 9, 30, "2026-07-02T13:30:00Z"},
		{"march change, before", 2026, time.March, 8, 1, 59, "2026-03-08T06:59:00Z"},
		{"march change, missing hour moves on", 2026, time.March, 8, 2, 30, "2026-03-08T07:30:00Z"},
		{"march change, after", 2026, time.March, 8, 3, 0, "2026-03-08T07:00:00Z"},
		{"november change, first 01:30 is daylight", 2026, time.November, 1, 1, 30, "2026-11-01T05:30:00Z"},
		{"november change, after", 2026, time.November, 1, 2, 0, "2026-11-01T07:00:00Z"},
		{"day after the march change", 2026, time.March, 9, 9, 30, "2026-03-09T13:30:00Z"},
		{"day after the november change", 2026, time.November, 2, 9, 30, "2026-11-02T14:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EasternDate(tt.y, tt.mo, tt.d, tt.h, tt.min).UTC().Format(time.RFC3339)
			if got != tt.want {
				t.Fatalf("EasternDate = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestDaysFromCivil checks the integer date arithmetic of the DST rule
// against time.Date, every day over five centuries and around year 0
// (midnight UTC, so the Unix seconds divide by 86400 exactly).
func TestDaysFromCivil(t *testing.T) {
	for _, span := range [][2]int{{1800, 2300}, {-401, 401}} {
		for d := time.Date(span[0], 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < span[1]; d = d.AddDate(0, 0, 1) {
			if got, want := daysFromCivil(d.Year(), d.Month(), d.Day()), d.Unix()/86400; got != want {
				t.Fatalf("%s: %d days, want %d", d.Format("2006-01-02"), got, want)
			}
		}
	}
	for year := 1900; year <= 2200; year++ {
		for _, c := range []struct {
			month time.Month
			n     int
		}{{time.March, 2}, {time.November, 1}} {
			d := time.Unix(nthSunday(year, c.month, c.n)*86400, 0).UTC()
			if d.Weekday() != time.Sunday || d.Month() != c.month || (d.Day()-1)/7 != c.n-1 {
				t.Fatalf("%d: the %d. Sunday of %s is not %s", year, c.n, c.month, d.Format("2006-01-02 Monday"))
			}
		}
	}
}

// TestIsDSTTableMatchesRule: the table of spans gives what the rule gives
// for the years it holds, at and around each change, and the years outside
// it are still answered by the rule.
func TestIsDSTTableMatchesRule(t *testing.T) {
	rule := func(at time.Time) bool {
		start, end := dstBoundsUnix(at.UTC().Year())
		return at.Unix() >= start && at.Unix() < end
	}
	for year := dstFirstYear - 5; year <= dstLastYear+5; year++ {
		start, stop := dstBounds(year)
		for _, at := range []time.Time{start, stop, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year, 7, 1, 0, 0, 0, 0, time.UTC)} {
			for _, d := range []time.Duration{-time.Second, -time.Nanosecond, 0, time.Nanosecond, time.Second} {
				if got, want := IsDST(at.Add(d)), rule(at.Add(d)); got != want {
					t.Fatalf("IsDST(%s) = %v, the rule says %v", at.Add(d), got, want)
				}
			}
		}
	}
}
