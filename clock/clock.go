// Package clock provides the real clock and a virtual clock that tests,
// backtests and the simulator advance by hand. Consumers declare the small
// interface they need (usually Now and After); both clocks satisfy it.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Real is the wall clock.
type Real struct{}

// Now returns the current time.
func (Real) Now() time.Time { return time.Now() }

// After waits for d on the wall clock.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Virtual is a clock that moves only when Advance or Set is called. Waiters
// created with After fire, in deadline order, when the clock passes their
// deadline. It is safe for concurrent use.
type Virtual struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	changed chan struct{} // closed and replaced whenever a waiter is added
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewVirtual returns a virtual clock reading start.
func NewVirtual(start time.Time) *Virtual {
	return &Virtual{now: start, changed: make(chan struct{})}
}

// Now returns the clock's current time.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// After returns a channel that receives the clock's time once it has advanced
// by d. A non-positive d fires at once.
func (v *Virtual) After(d time.Duration) <-chan time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- v.now
		return ch
	}
	v.waiters = append(v.waiters, waiter{at: v.now.Add(d), ch: ch})
	close(v.changed)
	v.changed = make(chan struct{})
	return ch
}

// Advance moves the clock forward by d and fires every waiter that is due.
func (v *Virtual) Advance(d time.Duration) { v.Set(v.Now().Add(d)) }

// Set moves the clock to t (never backwards) and fires every waiter that is due.
func (v *Virtual) Set(t time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t.After(v.now) {
		v.now = t
	}
	if len(v.waiters) == 0 { // the common case of a backtest's tick
		return
	}
	sort.SliceStable(v.waiters, func(i, j int) bool { return v.waiters[i].at.Before(v.waiters[j].at) })
	keep := v.waiters[:0]
	for _, w := range v.waiters {
		if !w.at.After(v.now) {
			w.ch <- v.now
			continue
		}
		keep = append(keep, w)
	}
	v.waiters = keep
}

// Waiters returns how many After channels have not fired yet.
func (v *Virtual) Waiters() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.waiters)
}

// WaitForWaiters blocks until at least n After channels are pending or done
// is closed. Tests use it instead of sleeping: it returns once the code under
// test has started waiting on the clock. It reports whether n was reached.
func (v *Virtual) WaitForWaiters(n int, done <-chan struct{}) bool {
	for {
		v.mu.Lock()
		count, changed := len(v.waiters), v.changed
		v.mu.Unlock()
		if count >= n {
			return true
		}
		select {
		case <-changed:
		case <-done:
			return false
		}
	}
}
