package market

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestUSHolidays(t *testing.T) {
	// The exchanges' published holiday calendars.
	tests := []struct {
		year int
		want []string
	}{
		{2021, []string{"2021-01-01", "2021-01-18", "2021-02-15", "2021-04-02", "2021-05-31", "2021-07-05", "2021-09-06", "2021-11-25", "2021-12-24"}},
		{2022, []string{"2022-01-17", "2022-02-21", "2022-04-15", "2022-05-30", "2022-06-20", "2022-07-04", "2022-09-05", "2022-11-24", "2022-12-26"}},
		{2026, []string{"2026-01-01", "2026-01-19", "2026-02-16", "2026-04-03", "2026-05-25", "2026-06-19", "2026-07-03", "2026-09-07", "2026-11-26", "2026-12-25"}},
		{2027, []string{"2027-01-01", "2027-01-18", "2027-02-15", "2027-03-26", "2027-05-31", "2027-06-18", "2027-07-05", "2027-09-06", "2027-11-25", "2027-12-24"}},
		{2028, []string{"2028-01-17", "2028-02-21", "2028-04-14", "2028-05-29", "2028-06-19", "2028-07-04", "2028-09-04", "2028-11-23", "2028-12-25"}},
	}
	for _, tt := range tests {
		t.Run(time.Date(tt.year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006"), func(t *testing.T) {
			var got []string
			for _, c := range USHolidays(tt.year) {
				start, err1 := time.Parse(closureLayout, c.Start)
				end, err2 := time.Parse(closureLayout, c.End)
				if err1 != nil || err2 != nil || !strings.HasSuffix(c.Start, " 20:00") || !strings.HasSuffix(c.End, " 00:00") || end.Sub(start) != 28*time.Hour {
					t.Fatalf("closure %+v is not 20:00 the day before to 00:00 the day after", c)
				}
				got = append(got, start.AddDate(0, 0, 1).Format("2006-01-02"))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("holidays\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestEaster(t *testing.T) {
	for _, want := range []string{"1818-03-22", "2000-04-23", "2019-04-21", "2024-03-31", "2025-04-20", "2026-04-05", "2027-03-28", "2038-04-25"} {
		d, _ := time.Parse("2006-01-02", want)
		if got := easter(d.Year()).Format("2006-01-02"); got != want {
			t.Errorf("easter(%d) = %s, want %s", d.Year(), got, want)
		}
	}
}

func TestUSHolidaysOption(t *testing.T) {
	opts := testOptions()
	opts.Calendar = CalendarSpec{USHolidays: true, Closures: []ClosureSpec{{Remark: "Early close", Start: "2026-11-27 13:00", End: "2026-11-28 00:00"}}}
	opts.Start, opts.End = utc("2026-03-09T13:00:00Z"), time.Time{}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	// 2026 to 2028 for an open-ended scenario, with the listed closure.
	if n := len(m.Calendar().SpecificConfig); n != 10+10+9+1 {
		t.Fatalf("%d closures, want 30", n)
	}
	for _, at := range []string{"2026-11-25 20:00", "2026-11-26 12:00", "2026-11-27 13:00", "2027-03-26 10:00", "2028-12-25 10:00"} {
		if s := m.Session(et(at)); s != "" {
			t.Errorf("Session(%s) = %q, want closed", at, s)
		}
	}
	if s := m.Session(et("2026-11-27 00:00")); s == "" {
		t.Error("the overnight session after Thanksgiving is closed")
	}
	opts.Start = time.Time{}
	opts.Paths = nil
	opts.StockPairs = nil
	if _, err := New(opts); err == nil || !strings.Contains(err.Error(), "us_holidays needs the scenario start") {
		t.Fatalf("New without a start: %v", err)
	}
}
