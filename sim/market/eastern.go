package market

import "time"

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
	// 02:00 EST on the second Sunday of March is 07:00 UTC; 02:00 EDT on the
	// first Sunday of November is 06:00 UTC.
	march := nthSunday(year, time.March, 2)
	november := nthSunday(year, time.November, 1)
	start = time.Date(year, time.March, march, 7, 0, 0, 0, time.UTC)
	end = time.Date(year, time.November, november, 6, 0, 0, 0, time.UTC)
	return start, end
}

// nthSunday returns the day of month of the n-th Sunday of month.
func nthSunday(year int, month time.Month, n int) int {
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC).Weekday()
	return 1 + (7-int(first))%7 + 7*(n-1)
}

// IsDST reports whether US Eastern time observes daylight saving time at t.
func IsDST(t time.Time) bool {
	start, end := dstBounds(t.UTC().Year())
	return !t.Before(start) && t.Before(end)
}

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
