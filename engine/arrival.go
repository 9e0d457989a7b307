package engine

import (
	"context"
	"time"
)

// arrivalSource is a StateSource that says when a poll brought new data
// (the live poller), so that Run evaluates the rules at once instead of
// at the next tick of the timer: fresh data would otherwise wait up to a
// whole Tick.
type arrivalSource interface {
	// Arrived receives after a poll stored an answer that changed; the
	// source never blocks on it and keeps at most one signal pending.
	Arrived() <-chan struct{}
}

// arrivals is the channel Run ticks on besides its timer: nil (never
// ready) when the source does not say when data arrives (a backtest's
// source, a rule test's).
func (e *Engine) arrivals() <-chan struct{} {
	s, ok := e.opts.Source.(arrivalSource)
	if !ok {
		return nil
	}
	return s.Arrived()
}

// gather waits Coalesce after a first arrival for the polls that land
// together with it (the poller fetches the parts due at one time one
// after another), takes their signals, and returns the time of the one
// tick they make.
func (e *Engine) gather(ctx context.Context, arrived <-chan struct{}) (time.Time, error) {
	select {
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-e.opts.Clock.After(e.opts.Coalesce):
	}
	select {
	case <-arrived:
	default:
	}
	return e.opts.Clock.Now(), nil
}
