package engine

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
)

// lateModes are the position modes the venue did not give at start: asked
// for again every poll.RefusedRetry (retry), and given to the executor
// (mode) once read. Until then an order on such a product type is refused
// with the cause: one-way and hedge orders carry different fields, so the
// engine never guesses.
type lateModes struct {
	mu     sync.Mutex
	failed map[exchange.ProductType]error
	read   map[exchange.ProductType]exchange.PosMode
}

func newLateModes(e *exchange.ModeError) *lateModes {
	l := &lateModes{failed: map[exchange.ProductType]error{}, read: map[exchange.ProductType]exchange.PosMode{}}
	for pt, err := range e.Failed {
		l.failed[pt] = err
	}
	return l
}

// mode is actions.ExecutorOptions.LateModes.
func (l *lateModes) mode(pt exchange.ProductType) (exchange.PosMode, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.read[pt]; ok {
		return m, nil
	}
	if err, ok := l.failed[pt]; ok {
		return "", fmt.Errorf("the position mode of %s could not be read (%v): its orders wait until the engine reads it (asked again every %s)", pt, err, poll.RefusedRetry)
	}
	return "", fmt.Errorf("position mode of %s is not known (accounts not read)", pt)
}

// retry asks for the failed modes every poll.RefusedRetry until each is
// read or ctx ends.
func (l *lateModes) retry(ctx context.Context, r AccountsReader, clk Clock, log *zap.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-clk.After(poll.RefusedRetry):
		}
		if l.retryOnce(ctx, r, log) {
			return
		}
	}
}

// retryOnce asks once for every mode still failed; it reports whether none
// is left.
func (l *lateModes) retryOnce(ctx context.Context, r AccountsReader, log *zap.Logger) (done bool) {
	l.mu.Lock()
	var pts []exchange.ProductType
	for _, pt := range exchange.ProductTypes() {
		if _, ok := l.failed[pt]; ok {
			pts = append(pts, pt)
		}
	}
	l.mu.Unlock()
	for _, pt := range pts {
		m, err := readMode(ctx, r, pt)
		l.mu.Lock()
		switch {
		case err != nil:
			l.failed[pt] = err
		case m == "":
			// The venue now answers but names no mode (no account): the
			// same as a product type never traded; orders stay refused.
			delete(l.failed, pt)
		default:
			delete(l.failed, pt)
			l.read[pt] = m
			log.Info("the position mode of "+string(pt)+" was read: its orders go out again", zap.String("mode", string(m)))
		}
		l.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.failed) == 0
}
