package notify

import (
	"fmt"
	"sync"
	"time"
)

// target is one configured destination: its resolved URL, its queue and
// its rate limit. The queue and the limit are guarded by mu; Notify holds
// it only to append, so the engine never waits on a send.
type target struct {
	name    string
	kind    TargetKind
	url     string   // holds the token for telegram, discord, slack, webhook via url_env
	secrets []string // scrubbed from every error
	chatID  string
	events  map[EventKind]bool
	max     int // messages per minute
	size    int // queue bound
	wake    chan struct{}

	mu      sync.Mutex
	queue   []Event
	dropped int64
	// The rate limit's current minute: when it began, how many messages
	// it let through and how many it held back.
	windowStart time.Time
	inWindow    int
	held        int
}

// add applies the rate limit and queues ev. It reports whether ev was
// admitted and how many old messages were dropped to make room.
func (t *target) add(now time.Time, ev Event) (admitted bool, dropped int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	dropped = t.rollLocked(now)
	if t.inWindow >= t.max {
		t.held++
		return false, dropped
	}
	t.inWindow++
	dropped += t.pushLocked(ev)
	return true, dropped
}

// rollLocked starts a new minute when the current one is over, queueing
// the count of the messages held back in it.
func (t *target) rollLocked(now time.Time) (dropped int) {
	if !t.windowStart.IsZero() && now.Sub(t.windowStart) < time.Minute {
		return 0
	}
	if t.held > 0 {
		dropped = t.pushLocked(t.heldEvent(now))
	}
	t.windowStart, t.inWindow, t.held = now, 0, 0
	return dropped
}

func (t *target) heldEvent(now time.Time) Event {
	return Event{Kind: Suppressed, At: now,
		Text: fmt.Sprintf("%d more messages suppressed (at most %d a minute to %s)", t.held, t.max, t.name)}
}

// summarize queues the count of held-back messages when the minute is
// over, or at once when force is set (the engine is stopping).
func (t *target) summarize(now time.Time, force bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if force && t.held > 0 {
		t.pushLocked(t.heldEvent(now))
		t.held = 0
		return
	}
	t.rollLocked(now)
}

// untilRoll returns how long until the current minute ends, when messages
// were held back in it.
func (t *target) untilRoll(now time.Time) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == 0 {
		return 0, false
	}
	return t.windowStart.Add(time.Minute).Sub(now), true
}

// pushLocked appends ev, dropping the oldest message when the queue is
// full, and wakes the sender.
func (t *target) pushLocked(ev Event) (dropped int) {
	if len(t.queue) >= t.size {
		copy(t.queue, t.queue[1:])
		t.queue = t.queue[:len(t.queue)-1]
		t.dropped++
		dropped = 1
	}
	t.queue = append(t.queue, ev)
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return dropped
}

// requeue puts back a message whose send was cut short by the engine
// stopping, at the front, unless newer messages filled the queue.
func (t *target) requeue(ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) >= t.size {
		return
	}
	t.queue = append([]Event{ev}, t.queue...)
}

func (t *target) pop() (Event, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) == 0 {
		return Event{}, false
	}
	ev := t.queue[0]
	copy(t.queue, t.queue[1:])
	t.queue = t.queue[:len(t.queue)-1]
	return ev, true
}

func (t *target) queued() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.queue)
}

func (t *target) droppedTotal() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}
