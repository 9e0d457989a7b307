package engine

import "time"

// This file holds what lets a backtest leap over the seconds in which
// nothing a rule reads changes: Step records, for every rule, whether its
// tick repeats on the same data and session (repeat), and SkipQuiet
// records the ticks of a leap as Step would have. It stays in the engine
// because what it records (the counters, the traces, the state machines'
// own times) is the engine's; the backtest's source of States says when
// a leap is safe (backtest.simulatorSource.QuietUntil). It records
// nothing unless the backtest's speed-ups are on (Options.Reuse);
// a live engine never calls it.

// repeat is what a rule's next ticks will be while nothing it reads
// changes: its last tick again, until (Unix nanoseconds; 0: no end) its
// state machine moves on time alone (a cooldown or a for: that ends).
type repeat struct {
	ok     bool
	rec    traceRec // the tick's record, when it says everything
	rich   Trace    // else the tick's trace (a failure's text): hasRich
	errors bool     // the tick counted an error: a failure that repeats
	// hasRich is set when rich is the tick's trace.
	hasRich bool
	until   int64
}

// quietRec is the record a quiet tick leaves (see ring.pushQuiet).
var quietRec = traceRec{phase: 1, reason: 2}

// repeatOf says whether r's tick, which left tr, repeats on the same data
// and session: a condition whose result (or failure: missing data fails
// the same way on the same data) holds there, no once period, no
// transition, no firing, no stale data, and the phase held until the state
// machine's own time (a cooldown repeats whatever the condition gives).
func (r *ruleRun) repeatOf(tr *Trace) repeat {
	if tr.Transition != "" || r.holds == nil || r.timing.Once != "" { // a firing is a transition
		return repeat{}
	}
	ph, okP := phaseCode(tr.Phase)
	re, okR := reasonCode(tr.Reason)
	out := repeat{ok: okP && okR, rec: traceRec{result: tr.Result, phase: ph, reason: re}}
	if tr.Detail != "" { // the condition failed (stale data has its own reason)
		out.rich, out.hasRich, out.errors = *tr, true, true
	}
	switch tr.Reason {
	case ReasonCooldown:
		out.until = r.state.CooldownFrom().Add(r.timing.Cooldown).UnixNano()
	case ReasonHolding:
		out.until = r.state.Since.Add(r.timing.For).UnixNano()
	case ReasonFalse, ReasonStillTrue, ReasonUnknown:
	default: // stale data, disabled, not started: they change with time
		out.ok = false
	}
	out.until = r.untilCrossing(out.until)
	return out
}

// quietRepeat is the repeat of a quiet tick (Engine.quiet).
func (r *ruleRun) quietRepeat() repeat {
	return repeat{ok: r.holds != nil, rec: quietRec, until: r.untilCrossing(0)}
}

// untilCrossing returns until (Unix nanoseconds; 0: no end) moved back to
// the instant the condition's clock limits may change its result, which
// the last run computed (Reuser.Judge's crossing; zero for a condition
// that reads no clock limit): a leap must not pass it.
func (r *ruleRun) untilCrossing(until int64) int64 {
	if r.last.until.IsZero() {
		return until
	}
	if c := r.last.until.UnixNano(); until == 0 || c < until {
		return c
	}
	return until
}

// SkipQuiet records up to n ticks after from, step apart, as Step would
// record them if nothing any rule reads changed until the last (the caller
// knows: the backtest's source of States says so): when the last Step left
// every rule in a tick that repeats on the same data and session (a quiet
// one, a cooldown, a for: holding), each rule counts the evaluations,
// reuses of its result and traces of those ticks, and the ticks end before
// any cooldown or for: does. A backtest's clock can then leap over the seconds
// between two price steps. It returns how many ticks it recorded: none
// when the last Step did not repeat or Options.Reuse is nil, and the
// caller then steps each tick.
func (e *Engine) SkipQuiet(from time.Time, step time.Duration, n int64) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opts.Reuse == nil || !e.steady || step <= 0 {
		return 0
	}
	at := from.UnixNano()
	for _, r := range e.rules {
		if u := r.repeat.until; u != 0 {
			// The ticks at + k*step before u.
			n = min(n, (u-at-1)/int64(step))
		}
	}
	if n <= 0 {
		return 0
	}
	for _, r := range e.rules {
		r.stats.Evaluations += n
		r.stats.Reused += n
		if r.repeat.errors {
			r.stats.Errors += n
		}
		// Only the last ticks stay in the ring.
		for k := max(1, n-int64(len(r.traces.recs))+1); k <= n; k++ {
			if r.repeat.hasRich {
				tr := r.repeat.rich
				tr.At, tr.Tick = from.Add(time.Duration(k)*step), e.ticks+k
				r.traces.push(&tr)
				continue
			}
			rec := r.repeat.rec
			rec.at, rec.tick = at+k*int64(step), e.ticks+k
			r.traces.pushRec(rec)
		}
	}
	e.ticks += n
	return n
}
