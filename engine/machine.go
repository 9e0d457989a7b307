package engine

import (
	"time"
)

// Phase is where a rule is in its life cycle.
type Phase string

// Rule phases. A rule moves inactive -> pending (its condition holds, waiting
// for `for`) -> firing (actions ran on this transition) -> cooldown (if it has
// one) -> inactive. Firing is edge-triggered: actions run on the transition
// into firing, never on every tick that the condition stays true.
const (
	PhaseInactive Phase = "inactive"
	PhasePending  Phase = "pending"
	PhaseFiring   Phase = "firing"
	PhaseCooldown Phase = "cooldown"
)

// Once limits a rule to one firing per market session or per day.
type Once string

// Once values; the empty Once has no such limit.
const (
	OncePerSession Once = "per_session"
	OncePerDay     Once = "per_day"
)

// Timing is the part of a rule that drives its state machine.
type Timing struct {
	// For: the condition must hold this long before firing.
	For time.Duration
	// Cooldown: after a firing, no new firing for this long (counted from
	// when its orders went out, when that was later: RuleState.CooldownFrom).
	Cooldown time.Duration
	Once     Once
}

// Outcome is the result of evaluating a condition on one tick.
type Outcome int

// Evaluation outcomes. Unknown covers an evaluation error and stale or
// missing data: the rule cannot tell, so it must not fire, and a pending
// hold restarts, because the condition was not seen to hold throughout.
const (
	False Outcome = iota
	True
	Unknown
)

// Reason says why a tick did or did not fire; it goes into the trace.
type Reason string

// Reasons.
const (
	ReasonFired      Reason = "fired"
	ReasonFalse      Reason = "condition false"
	ReasonHolding    Reason = "holding (for)"
	ReasonStillTrue  Reason = "already fired; waiting for the condition to turn false"
	ReasonCooldown   Reason = "cooldown"
	ReasonOnce       Reason = "already fired once in this period"
	ReasonUnknown    Reason = "condition could not be evaluated"
	ReasonNotStarted Reason = "waiting for the first full poll"
	ReasonStale      Reason = "stale data"
	ReasonDisabled   Reason = "disabled"
)

// RuleState is the persisted state of one rule. The zero value is a rule that
// has never been true.
type RuleState struct {
	Phase Phase `json:"phase"`
	// Since is when the condition started to hold (pending) or when the rule
	// entered its current phase.
	Since time.Time `json:"since"`
	// LastFired is the time of the last firing.
	LastFired time.Time `json:"last_fired,omitzero"`
	// OncePeriod is the session or day key of the last firing (for Once).
	OncePeriod string `json:"once_period,omitempty"`
	// Firings counts firings over the rule's life.
	Firings int64 `json:"firings"`
	// OrdersAt is when the orders of the last firing were settled (at the
	// venue, or known not to be), when that was after the tick that fired
	// it: a firing finished after a restart, or whose answer was unclear
	// and was settled by client order id (zero otherwise, and cleared by
	// the next firing). The cooldown runs from it (CooldownFrom), and the
	// rule does not fire on account data fetched before it (see late.go).
	OrdersAt time.Time `json:"orders_at,omitzero"`
	// FiringsDay is the New York date (2006-01-02) of the last firing and
	// FiringsToday how often the rule fired on that date, for
	// firings_today (counts.go). Version 3 of the rule-state file.
	FiringsDay   string `json:"firings_day,omitempty"`
	FiringsToday int    `json:"firings_today,omitempty"`
}

// countFiring counts a firing on the New York date day.
func (s *RuleState) countFiring(day string) {
	if s.FiringsDay != day {
		s.FiringsDay, s.FiringsToday = day, 0
	}
	s.FiringsToday++
}

// firingsOn returns how often the rule fired on the New York date day.
func (s RuleState) firingsOn(day string) int {
	if s.FiringsDay != day {
		return 0
	}
	return s.FiringsToday
}

// CooldownFrom is when the rule's cooldown starts: its last firing, or,
// when its orders went out later than that (OrdersAt), when they did, so a
// firing sent late is not followed at once by the next one.
func (s RuleState) CooldownFrom() time.Time {
	if s.OrdersAt.After(s.LastFired) {
		return s.OrdersAt
	}
	return s.LastFired
}

// Step advances s by one tick at now with the condition's outcome; period is
// the key of the current session or day for t.Once (for example
// "regular@2026-03-09" or "2026-03-09"). It returns the new state, whether the
// rule fires on this tick, and why.
func Step(s RuleState, t Timing, now time.Time, out Outcome, period string) (RuleState, bool, Reason) {
	if s.Phase == "" {
		s.Phase = PhaseInactive
	}
	// Cooldown runs on time alone; when it ends the rule starts over.
	if s.Phase == PhaseCooldown {
		if now.Sub(s.CooldownFrom()) < t.Cooldown {
			return s, false, ReasonCooldown
		}
		s.Phase, s.Since = PhaseInactive, now
	}
	switch out {
	case Unknown:
		if s.Phase == PhasePending {
			s.Phase, s.Since = PhaseInactive, now
		}
		return s, false, ReasonUnknown
	case False:
		if s.Phase == PhaseFiring && t.Cooldown > 0 && now.Sub(s.CooldownFrom()) < t.Cooldown {
			s.Phase, s.Since = PhaseCooldown, now
			return s, false, ReasonFalse
		}
		if s.Phase != PhaseInactive {
			s.Phase, s.Since = PhaseInactive, now
		}
		return s, false, ReasonFalse
	}
	// The condition holds.
	switch s.Phase {
	case PhaseFiring:
		if t.Cooldown > 0 {
			if now.Sub(s.CooldownFrom()) < t.Cooldown {
				return s, false, ReasonCooldown
			}
			// Cooldown over and still true: hold again from now, as if new.
			s.Phase, s.Since = PhasePending, now
			break
		}
		return s, false, ReasonStillTrue
	case PhaseInactive:
		s.Phase, s.Since = PhasePending, now
	}
	if now.Sub(s.Since) < t.For {
		return s, false, ReasonHolding
	}
	if t.Once != "" && s.OncePeriod == period && s.Firings > 0 {
		// Stay pending: the rule fires as soon as a new period begins.
		return s, false, ReasonOnce
	}
	s.Phase, s.Since, s.LastFired, s.OrdersAt = PhaseFiring, now, now, time.Time{}
	s.Firings++
	if t.Once != "" {
		s.OncePeriod = period
	}
	return s, true, ReasonFired
}
