package market

import (
	"sort"
	"time"
)

// The simulator computes US Eastern time from the date with the rule in force
// since 2007 (daylight saving time from 02:00 local on the second Sunday of
// March to 02:00 local on the first Sunday of November) instead of loading
// America/New_York from tzdata: the rule is what the venue publishes, and a
// scenario must give byte-identical responses whatever tzdata version the
// machine or the Go release carries. The rule is applied to every year, also
// before 2007.

const (
	estOffset = -5 * time.Hour
	edtOffset = -4 * time.Hour
)

var (
	zoneEST = time.FixedZone("EST", int(estOffset/time.Second))
	zoneEDT = time.FixedZone("EDT", int(edtOffset/time.Second))
	// zoneUTCMinus4 is the fixed zone in which the venue publishes the trading
	// week of stock futures (Monday 00:00 to Saturday 00:00 UTC-4).
	zoneUTCMinus4 = time.FixedZone("UTC-4", int(edtOffset/time.Second))
)

// dstBounds returns the instants at which daylight saving time starts and
// ends in year.
func dstBounds(year int) (start, end time.Time) {
	s, e := dstBoundsUnix(year)
	return time.Unix(s, 0).UTC(), time.Unix(e, 0).UTC()
}

// dstBoundsUnix is dstBounds in Unix seconds, with integer date arithmetic
// only: every Eastern conversion of the simulator asks it, so it avoids
// time.Date. 02:00 EST on the second Sunday of March is 07:00 UTC; 02:00
// EDT on the first Sunday of November is 06:00 UTC.
func dstBoundsUnix(year int) (start, end int64) {
	march := nthSunday(year, time.March, 2)
	november := nthSunday(year, time.November, 1)
	return march*86400 + 7*3600, november*86400 + 6*3600
}

// nthSunday returns the n-th Sunday of month as days since 1970-01-01.
func nthSunday(year int, month time.Month, n int) int64 {
	first := daysFromCivil(year, month, 1)
	weekday := (first%7 + 11) % 7 // 1970-01-01 was a Thursday (4); Sunday is 0
	return first + (7-weekday)%7 + int64(7*(n-1))
}

// daysFromCivil returns the days from 1970-01-01 to year-month-day in the
// proleptic Gregorian calendar (H. Hinnant's days_from_civil).
func daysFromCivil(year int, month time.Month, day int) int64 {
	y := int64(year)
	m := int64(month)
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// IsDST reports whether US Eastern time observes daylight saving time at t.
func IsDST(t time.Time) bool {
	u := t.Unix()
	if u >= dstSpans[0][0] && u < dstSpans[len(dstSpans)-1][1] {
		// The span that starts last at or before u, if u is inside it.
		i := sort.Search(len(dstSpans), func(i int) bool { return dstSpans[i][0] > u }) - 1
		return i >= 0 && u < dstSpans[i][1]
	}
	start, end := dstBoundsUnix(t.UTC().Year())
	return u >= start && u < end
}

// dstSpans are the daylight-saving spans of the years the simulator meets,
// as dstBoundsUnix gives them: a constant table, computed once, because
// every Eastern conversion asks whether its instant is in one.
var dstSpans = func() (spans [dstLastYear - dstFirstYear + 1][2]int64) {
	for i := range spans {
		spans[i][0], spans[i][1] = dstBoundsUnix(dstFirstYear + i)
	}
	return spans
}()

// The years of dstSpans; other years are computed when asked.
const (
	dstFirstYear = 2000
	dstLastYear  = 2100
)

// Eastern returns t in US Eastern time (a fixed zone named EST or EDT).
func Eastern(t time.Time) time.Time {
	if IsDST(t) {
		return t.In(zoneEDT)
	}
	return t.In(zoneEST)
}

// EasternDate returns the instant of the local Eastern wall time y-m-d h:min.
// A wall time that does not exist (02:00-02:59 on the March change day) is
// read with the standard offset, so it lands one hour later in daylight time;
// a wall time that occurs twice (01:00-01:59 on the November change day) is
// the first, daylight, occurrence.
func EasternDate(year int, month time.Month, day, hour, minute int) time.Time {
	// Try daylight time first: it is the first occurrence of an ambiguous
	// wall time, and it is right whenever the result is in daylight time.
	if t := time.Date(year, month, day, hour, minute, 0, 0, zoneEDT); IsDST(t) {
		return t
	}
	return time.Date(year, month, day, hour, minute, 0, 0, zoneEST)
}
