package engine

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
)

// Status is what the engine shows of itself at one moment: every rule's
// phase and why it does or does not fire, and the State of the last tick.
// It is a copy: reading it takes no lock.
type Status struct {
	Ticks   int64 `json:"ticks"`
	Skipped int64 `json:"ticks_skipped"`
	// State is the State of the last tick (nil before the first); States
	// are immutable, so it may be read from any goroutine.
	State *marketdata.State `json:"-"`
	// Ready is false until every polled part was fetched once.
	Ready bool `json:"ready"`
	// LastLoop is the clock's time when Run last finished a tick (zero
	// before the first): the tick loop's heartbeat.
	LastLoop time.Time    `json:"last_loop,omitzero"`
	Rules    []RuleStatus `json:"rules"`
}

// Heartbeat is the tick loop's pulse, read without waiting for a tick in
// progress: the health checks and the systemd watchdog use it.
type Heartbeat struct {
	// Last is the clock's time when Run last finished a tick; zero before
	// the first.
	Last time.Time
	// Ready is whether the last tick's State was fully polled.
	Ready bool
	// Tick is the time between two ticks (Options.Tick).
	Tick time.Duration
}

// Heartbeat returns the tick loop's pulse. It takes no lock, so it answers
// while a tick is stuck.
func (e *Engine) Heartbeat() Heartbeat {
	h := Heartbeat{Ready: e.polled.Load(), Tick: e.opts.Tick}
	if n := e.heartbeat.Load(); n != 0 {
		h.Last = time.Unix(0, n)
	}
	return h
}

// RuleStatus is one rule as a trader looks at it.
type RuleStatus struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	When        string `json:"when"`
	File        string `json:"file,omitempty"` // file:line of the rule
	Enabled     bool   `json:"enabled"`
	Phase       Phase  `json:"phase"`
	// Since is when the rule entered its phase (pending: when the
	// condition started to hold).
	Since     time.Time `json:"since,omitzero"`
	LastFired time.Time `json:"last_fired,omitzero"`
	Firings   int64     `json:"firings"`
	// LastEvaluated is the time of the rule's last tick.
	LastEvaluated time.Time `json:"last_evaluated,omitzero"`
	// Result, Reason and Detail are those of the last tick.
	Result bool   `json:"result"`
	Reason Reason `json:"reason"`
	Detail string `json:"detail,omitempty"`
	// StalePart names the part whose data was stale or missing.
	StalePart string `json:"stale_part,omitempty"`
	// Values are what the condition's terms read on the last tick's State.
	Values map[string]any `json:"values,omitempty"`
	// Until is when the reason ends on time alone: the end of a cooldown or
	// of a for: hold; zero when it does not.
	Until time.Time `json:"until,omitzero"`
	// Next says when the rule can fire next, in words; NextAt is that time
	// when it is known.
	Next   string    `json:"next"`
	NextAt time.Time `json:"next_at,omitzero"`
	// For, Cooldown and Once are the rule's timing as written.
	For      string     `json:"for,omitempty"`
	Cooldown string     `json:"cooldown,omitempty"`
	Once     Once       `json:"once,omitempty"`
	Stats    RuleCounts `json:"stats"`
}

// RuleCounts are a rule's RuleStats as the status API names them.
type RuleCounts struct {
	Evaluations int64 `json:"evaluations"`
	Firings     int64 `json:"firings"`
	Errors      int64 `json:"errors"`
	Stale       int64 `json:"stale"`
	Reused      int64 `json:"reused"`
}

// Status returns the engine's status. The values of each condition are
// computed on the last tick's State, so they are what the rule saw.
func (e *Engine) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.env.State()
	out := Status{Ticks: e.ticks, Skipped: e.skipped, State: st, Ready: st != nil && e.opts.Source.FullyPolled(),
		LastLoop: e.Heartbeat().Last}
	out.Rules = make([]RuleStatus, 0, len(e.rules))
	for _, r := range e.rules {
		out.Rules = append(out.Rules, e.ruleStatus(r, st))
	}
	return out
}

// RuleStatus returns the status of the named rule and its kept traces,
// oldest first; ok is false when no rule has that name.
func (e *Engine) RuleStatus(name string) (rs RuleStatus, traces []Trace, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.rules {
		if r.rule.Name == name {
			return e.ruleStatus(r, e.env.State()), r.traces.list(), true
		}
	}
	return RuleStatus{}, nil, false
}

// ruleStatus describes r; e.mu is held.
func (e *Engine) ruleStatus(r *ruleRun, st *marketdata.State) RuleStatus {
	rr := r.rule
	s := RuleStatus{Name: rr.Name, Description: rr.Description, When: rr.When, Enabled: rr.Enabled,
		Phase: r.state.Phase, Since: r.state.Since, LastFired: r.state.LastFired, Firings: r.state.Firings,
		Once: r.timing.Once, Stats: RuleCounts{Evaluations: r.stats.Evaluations, Firings: r.stats.Firings,
			Errors: r.stats.Errors, Stale: r.stats.Stale, Reused: r.stats.Reused}}
	if rr.Pos.File != "" {
		s.File = rr.Pos.String()
	}
	if s.Phase == "" {
		s.Phase = PhaseInactive
	}
	if r.timing.For > 0 {
		s.For = r.timing.For.String()
	}
	if r.timing.Cooldown > 0 {
		s.Cooldown = r.timing.Cooldown.String()
	}
	if last, ok := r.traces.last(); ok {
		s.LastEvaluated, s.Result, s.Reason, s.Detail = last.At, last.Result, last.Reason, last.Detail
	}
	if st != nil && (s.Reason == ReasonStale || s.Reason == ReasonUnknown) {
		if part, stale := e.opts.Source.Stale(st, r.reads); stale {
			s.Reason, s.StalePart = ReasonStale, part.String()
		}
	}
	if st != nil && rr.Enabled {
		s.Values = rr.Condition.Explain(&e.vm, e.env)
	}
	s.Until, s.NextAt, s.Next = nextFiring(r, s.Reason, st)
	return s
}

// last returns the newest kept trace, if any.
func (r *ring) last() (Trace, bool) {
	if !r.full && r.pos == 0 {
		return Trace{}, false
	}
	i := r.pos - 1
	if i < 0 {
		i = len(r.recs) - 1
	}
	return r.trace(r.recs[i]), true
}

// nextFiring says when r can fire next after a tick whose reason was
// reason: until is when the reason ends on time alone, at when the rule
// can fire at the earliest (zero when unknown), and the words for both.
func nextFiring(r *ruleRun, reason Reason, st *marketdata.State) (until, at time.Time, next string) {
	s, t := r.state, r.timing
	switch reason {
	case ReasonFired, ReasonStillTrue:
		if t.Cooldown > 0 {
			until = s.CooldownFrom().Add(t.Cooldown)
			return until, until.Add(t.For), "after the cooldown, when the condition holds again"
		}
		return time.Time{}, time.Time{}, "when the condition turns false and then true again"
	case ReasonCooldown:
		until = s.CooldownFrom().Add(t.Cooldown)
		return until, until.Add(t.For), "at the end of the cooldown if the condition holds"
	case ReasonHolding:
		until = s.Since.Add(t.For)
		return until, until, "when the condition has held for " + t.For.String()
	case ReasonOnce:
		if t.Once == OncePerDay && st != nil {
			e := st.EasternNow()
			at = time.Date(e.Year(), e.Month(), e.Day()+1, 0, 0, 0, 0, e.Location())
			return at, at, "tomorrow (New York time), if the condition holds"
		}
		if st != nil {
			if m, err := st.Market(0); err == nil && !m.NextSessionStart.IsZero() {
				return m.NextSessionStart, m.NextSessionStart, "in the next session, if the condition holds"
			}
		}
		return time.Time{}, time.Time{}, "in the next session, if the condition holds"
	case ReasonStale:
		return time.Time{}, time.Time{}, "when fresh data arrives and the condition holds"
	case ReasonBeforeOrders:
		return time.Time{}, time.Time{}, "when the account data shows its last orders and the condition holds"
	case ReasonDisabled:
		return time.Time{}, time.Time{}, "never: the rule is disabled"
	case ReasonNotStarted:
		return time.Time{}, time.Time{}, "after the first full poll, when the condition holds"
	case ReasonUnknown:
		return time.Time{}, time.Time{}, "when the condition can be evaluated and holds"
	}
	if t.For > 0 {
		return time.Time{}, time.Time{}, "when the condition has held for " + t.For.String()
	}
	return time.Time{}, time.Time{}, "when the condition turns true"
}
