package marketdata

import "time"

// Market is the US stock market session at the time of the State. Times and
// minutes are from State.Now, never from the wall clock.
type Market struct {
	Session              string    `expr:"session" json:"session"`
	IsOpen               bool      `expr:"is_open" json:"is_open"`
	IsHoliday            bool      `expr:"is_holiday" json:"is_holiday"`
	IsWeekend            bool      `expr:"is_weekend" json:"is_weekend"`
	Holiday              string    `expr:"holiday" json:"holiday"`
	MinutesSinceOpen     float64   `expr:"minutes_since_open" json:"minutes_since_open"`
	MinutesToClose       float64   `expr:"minutes_to_close" json:"minutes_to_close"`
	NextSession          string    `expr:"next_session" json:"next_session"`
	NextSessionStart     time.Time `expr:"next_session_start" json:"next_session_start"`
	MinutesToNextSession float64   `expr:"minutes_to_next_session" json:"minutes_to_next_session"`
	DST                  bool      `expr:"dst" json:"dst"`

	have Need
}

// SessionClosed is the session name when no session is in progress.
const SessionClosed = "closed"

// newMarket derives the minutes to the next session from now, and marks the
// session minutes as known only while a session is in progress: 0 minutes to
// close must not read as "about to close" at night.
func newMarket(in SessionInfo, now time.Time) *Market {
	m := marketAt(in, now)
	return &m
}

// marketAt is newMarket's value.
func marketAt(in SessionInfo, now time.Time) Market {
	m := Market{
		Session:          in.Session,
		IsOpen:           in.IsOpen,
		IsHoliday:        in.IsHoliday,
		IsWeekend:        in.IsWeekend,
		Holiday:          in.HolidayRemark,
		MinutesSinceOpen: in.MinutesSinceOpen,
		MinutesToClose:   in.MinutesToClose,
		NextSession:      in.Next,
		NextSessionStart: in.NextStart,
		DST:              in.DST,
		have:             NeedMarket,
	}
	if in.Next != "" && !in.NextStart.IsZero() {
		m.MinutesToNextSession = in.NextStart.Sub(now).Minutes()
		m.have |= NeedNextSession
	}
	if in.Session != "" && in.Session != SessionClosed {
		m.have |= NeedSessionOpen
	}
	return m
}
