package notify

import (
	"fmt"
	"time"
)

// EventKind names one kind of notification; a target lists the kinds it gets.
type EventKind string

// The event kinds.
const (
	Message       EventKind = "notify"         // a rule's notify action
	RuleFired     EventKind = "rule_fired"     // a rule fired
	OrderFailed   EventKind = "order_failed"   // a request of a firing failed
	GuardBlocked  EventKind = "guard_blocked"  // a risk guard stopped an order
	DataStale     EventKind = "data_stale"     // polled data has not been read for a while
	EngineStopped EventKind = "engine_stopped" // the engine stopped
	Halted        EventKind = "halt"           // a rule's halt stopped new entries
	// Suppressed is sent by the rate limit itself: how many messages it held
	// back. Targets do not subscribe to it; it goes wherever the limit acted.
	Suppressed EventKind = "suppressed"
)

// EventKinds returns the kinds a target can subscribe to, in the order the
// documentation lists them.
func EventKinds() []EventKind {
	return []EventKind{Message, RuleFired, OrderFailed, GuardBlocked, DataStale, EngineStopped, Halted}
}

func knownEvent(k EventKind) bool {
	for _, e := range EventKinds() {
		if e == k {
			return true
		}
	}
	return false
}

// Event is one notification.
type Event struct {
	Kind EventKind
	At   time.Time
	Rule string // the rule it concerns, if any
	Text string // the message, in plain words
	// To, when set, are the names of the only targets that get the event,
	// whatever their events (a notify action's to:).
	To []string
}

// line is the text a chat target shows: the event and rule, then the text.
func (e Event) line() string {
	if e.Rule == "" {
		return fmt.Sprintf("tickrules %s: %s", e.Kind, e.Text)
	}
	return fmt.Sprintf("tickrules %s [%s]: %s", e.Kind, e.Rule, e.Text)
}
