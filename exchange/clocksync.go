package exchange

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// TimestampWindow is how far ACCESS-TIMESTAMP may be from the venue's clock
// before it answers 40008 "Request timestamp expired" (exchange notes).
const TimestampWindow = 30 * time.Second

// ClockSkewWarning is the offset from which SyncClock reports a
// *ClockSkewError: half the venue's window, so that a drifting clock is
// reported well before an uncorrected request would be refused.
const ClockSkewWarning = TimestampWindow / 2

// DefaultClockSync is how often the client measures the venue's clock again
// when ClientOptions.ClockSync is zero.
const DefaultClockSync = 5 * time.Minute

// clockSyncRetry is how soon a failed measurement is tried again (or the
// period, when that is shorter): often enough to catch up after an outage,
// rarely enough that a venue without the time endpoint costs nothing.
const clockSyncRetry = time.Minute

// ErrClockSkew is matched by a *ClockSkewError.
var ErrClockSkew = errors.New("local clock far from the venue's clock")

// ClockSkewError reports that the local clock is at least ClockSkewWarning
// away from the venue's. The client still signs with the corrected time;
// the error says the machine's clock needs fixing (NTP) before the offset
// grows past what a correction measured minutes ago can cover.
type ClockSkewError struct {
	Offset    time.Duration // venue clock minus local clock
	RoundTrip time.Duration // of the measuring request; the offset is known to ±RoundTrip/2
}

// Error reads like "local clock is 21.3s behind the venue's (limit 30s)".
func (e *ClockSkewError) Error() string {
	dir := "behind"
	if e.Offset < 0 {
		dir = "ahead of"
	}
	return fmt.Sprintf("local clock is %s %s the venue's (the venue refuses requests more than %s off with 40008; signing corrects for it, fix the machine's clock)",
		e.Offset.Abs().Round(time.Millisecond), dir, TimestampWindow)
}

// Is makes errors.Is(err, ErrClockSkew) true.
func (e *ClockSkewError) Is(target error) bool { return target == ErrClockSkew }

// clockSync is the client's measured offset to the venue's clock.
type clockSync struct {
	every  time.Duration // <= 0: never measured on its own
	offset atomic.Int64  // venue minus local, ns
	// sem serialises measurements; next (guarded by sem) is the local time
	// from which the next one is due, zero before the first.
	sem  chan struct{}
	next time.Time
}

func newClockSync(every time.Duration) *clockSync {
	if every == 0 {
		every = DefaultClockSync
	}
	return &clockSync{every: every, sem: make(chan struct{}, 1)}
}

// ServerTime returns the venue's clock (GET /api/v2/public/time).
func (c *Client) ServerTime(ctx context.Context) (time.Time, error) {
	st, err := do[ServerTime](ctx, c, OpServerTime, nil)
	if err != nil {
		return time.Time{}, err
	}
	t := st.ServerTime.Time()
	if t.IsZero() {
		return time.Time{}, fmt.Errorf("%s: %w: serverTime %q is not Unix milliseconds", OpServerTime, ErrBadResponse, string(st.ServerTime))
	}
	return t, nil
}

// ClockOffset returns the last measured offset of the venue's clock to the
// local clock (venue minus local); signed requests are stamped with the
// local time plus it. Zero before the first measurement.
func (c *Client) ClockOffset() time.Duration { return time.Duration(c.sync.offset.Load()) }

// SyncClock measures the offset to the venue's clock, taking the middle of
// the request's round trip as the moment the venue read its clock, stores
// it for signing and returns it. An offset of ClockSkewWarning or more is
// stored too and returned with a *ClockSkewError.
func (c *Client) SyncClock(ctx context.Context) (time.Duration, error) {
	select {
	case c.sync.sem <- struct{}{}:
	case <-ctx.Done():
		return c.ClockOffset(), fmt.Errorf("sync clock: %w", ctx.Err())
	}
	defer func() { <-c.sync.sem }()
	return c.measure(ctx)
}

// measure runs one measurement; the caller holds sync.sem.
func (c *Client) measure(ctx context.Context) (time.Duration, error) {
	sent := c.clock.Now()
	venue, err := c.ServerTime(ctx)
	if err != nil {
		c.sync.next = sent.Add(min(clockSyncRetry, c.sync.every))
		return c.ClockOffset(), fmt.Errorf("sync clock: %w", err)
	}
	got := c.clock.Now()
	rtt := got.Sub(sent)
	offset := venue.Sub(sent.Add(rtt / 2))
	c.sync.offset.Store(int64(offset))
	c.sync.next = got.Add(c.sync.every)
	if offset.Abs() >= ClockSkewWarning {
		return offset, &ClockSkewError{Offset: offset, RoundTrip: rtt}
	}
	return offset, nil
}

// syncIfDue measures the clock before a signed request when no measurement
// was made yet or the last is older than the period. A failure is logged
// and the request goes on with the last offset: the time endpoint being
// down must not stop trading, and the venue's 40008 would say the rest.
func (c *Client) syncIfDue(ctx context.Context) {
	if c.sync.every < 0 {
		return
	}
	select {
	case c.sync.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-c.sync.sem }()
	if !c.sync.next.IsZero() && c.clock.Now().Before(c.sync.next) {
		return
	}
	offset, err := c.measure(ctx)
	switch {
	case errors.Is(err, ErrClockSkew):
		c.log.Warn("local clock far from the venue's; signing with the corrected time",
			zap.Duration("offset", offset), zap.Error(err))
	case err != nil:
		c.log.Warn("could not read the venue's clock; signing with the last offset",
			zap.Duration("offset", offset), zap.Error(err))
	}
}

// venueNow is the local time corrected by the measured offset: what
// ACCESS-TIMESTAMP carries.
func (c *Client) venueNow() time.Time { return c.clock.Now().Add(c.ClockOffset()) }
