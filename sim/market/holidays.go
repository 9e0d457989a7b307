package market

import (
	"fmt"
	"time"
)

// usHolidayYearsOpenEnded is how many years after the start US holidays are
// generated for a scenario without an end (the wall-clock demo).
const usHolidayYearsOpenEnded = 2

// USHolidays returns the full-day closures of the US stock exchanges
// (NYSE rules) in year: New Year's Day, Martin Luther King Jr. Day,
// Washington's Birthday, Good Friday, Memorial Day, Juneteenth (from 2022),
// Independence Day, Labor Day, Thanksgiving Day and Christmas Day. A holiday
// on a Saturday is observed the Friday before, except New Year's Day, which
// is then not observed; one on a Sunday the Monday after. Each closure runs
// from 20:00 the day before, so the overnight session leading into the
// holiday is closed too, to 00:00 the day after. Early closes (13:00) are
// not included: list them as closures.
func USHolidays(year int) []ClosureSpec {
	type holiday struct {
		remark string
		date   time.Time
	}
	day := func(m time.Month, d int) time.Time { return time.Date(year, m, d, 0, 0, 0, 0, time.UTC) }
	list := []holiday{
		{"Martin Luther King Jr. Day", nthWeekday(year, time.January, time.Monday, 3)},
		{"Washington's Birthday", nthWeekday(year, time.February, time.Monday, 3)},
		{"Good Friday", easter(year).AddDate(0, 0, -2)},
		{"Memorial Day", lastWeekday(year, time.May, time.Monday)},
		{"Independence Day", observed(day(time.July, 4))},
		{"Labor Day", nthWeekday(year, time.September, time.Monday, 1)},
		{"Thanksgiving Day", nthWeekday(year, time.November, time.Thursday, 4)},
		{"Christmas Day", observed(day(time.December, 25))},
	}
	if ny := day(time.January, 1); ny.Weekday() != time.Saturday {
		list = append([]holiday{{"New Year's Day", observed(ny)}}, list...)
	}
	if year >= 2022 {
		list = append(list, holiday{"Juneteenth", observed(day(time.June, 19))})
	}
	out := make([]ClosureSpec, 0, len(list))
	for _, h := range list {
		out = append(out, ClosureSpec{
			Remark: h.remark,
			Start:  h.date.AddDate(0, 0, -1).Format("2006-01-02") + " 20:00",
			End:    h.date.AddDate(0, 0, 1).Format("2006-01-02") + " 00:00",
		})
	}
	return out
}

// observed moves a Saturday holiday to Friday and a Sunday one to Monday.
func observed(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDate(0, 0, -1)
	case time.Sunday:
		return d.AddDate(0, 0, 1)
	}
	return d
}

// nthWeekday is the n-th wd of month.
func nthWeekday(year int, month time.Month, wd time.Weekday, n int) time.Time {
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	return first.AddDate(0, 0, (int(wd)-int(first.Weekday())+7)%7+7*(n-1))
}

// lastWeekday is the last wd of month.
func lastWeekday(year int, month time.Month, wd time.Weekday) time.Time {
	last := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC)
	return last.AddDate(0, 0, -((int(last.Weekday()) - int(wd) + 7) % 7))
}

// easter is Easter Sunday of the Gregorian calendar (the anonymous
// Gregorian algorithm, Meeus/Jones/Butcher).
func easter(year int) time.Time {
	a, b, c := year%19, year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	dayOfMonth := (h+l-7*m+114)%31 + 1
	return time.Date(year, time.Month(month), dayOfMonth, 0, 0, 0, 0, time.UTC)
}

// usHolidayClosures generates the holidays of every year the scenario spans.
func usHolidayClosures(start, end time.Time) ([]ClosureSpec, error) {
	if start.IsZero() {
		return nil, fmt.Errorf("calendar: us_holidays needs the scenario start")
	}
	last := start.Year() + usHolidayYearsOpenEnded
	if !end.IsZero() {
		last = end.Year()
	}
	var out []ClosureSpec
	for y := start.Year(); y <= last; y++ {
		out = append(out, USHolidays(y)...)
	}
	return out, nil
}
