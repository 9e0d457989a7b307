package engine

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/marketdata"
)

// ErrStateUnwritable is returned by Run when the state directory could not
// be written for longer than Options.StateTimeout: no order was sent
// meanwhile, and the engine stops rather than trade without a record.
var ErrStateUnwritable = errors.New("the state directory cannot be written")

// ReasonWaiting is the trace reason of a rule that touches a symbol with an
// order whose outcome is being settled: it is evaluated again once that
// order is settled, so it cannot act on a position it does not know.
const ReasonWaiting Reason = "waiting for an unsettled order on a symbol it trades"

// planner is an Executor that builds a firing's requests before sending
// them, so the engine can record the intent first (ActionsExecutor).
type planner interface {
	Plan(ctx context.Context, f *Firing) []actions.Plan
	Send(ctx context.Context, p actions.Plan) []actions.Leg
	Settle(ctx context.Context, p actions.Plan, prior []actions.Leg) []actions.Leg
}

// Plan builds the requests of f without sending them.
func (a ActionsExecutor) Plan(ctx context.Context, f *Firing) []actions.Plan {
	return a.X.Plan(ctx, f.Rule, f.At, f.Env, f.VM, f.State)
}

// Send sends one planned request.
func (a ActionsExecutor) Send(ctx context.Context, p actions.Plan) []actions.Leg {
	return a.X.Send(ctx, p)
}

// Settle settles the unknown outcomes of one planned request.
func (a ActionsExecutor) Settle(ctx context.Context, p actions.Plan, prior []actions.Leg) []actions.Leg {
	return a.X.Settle(ctx, p, prior)
}

// pendingFiring is a firing whose intent is not yet known to be on disk, or
// whose next legs wait for the state directory (held).
type pendingFiring struct {
	f       *Firing
	in      *Intent
	added   bool // handed to the journal (which retries a failed write)
	restart bool // the intent comes from an earlier run (see settle)
}

// dispatch records and sends the firings of a tick: with a planner, each
// firing's intent is written to the journal, then the rule states, and only
// then are the orders sent; a write that fails holds every order back
// (retried on the next ticks, see persist). changed says whether a rule's
// state changed on this tick.
func (e *Engine) dispatch(ctx context.Context, now time.Time, st *marketdata.State, firings []*Firing, changed bool) {
	px, ok := e.opts.Executor.(planner)
	if !ok {
		if changed || e.storeDirty {
			e.saveStates(now)
		}
		for _, f := range firings {
			f.Legs = e.opts.Executor.Execute(ctx, f)
			e.modifications.record(f)
			if e.opts.OnFiring != nil {
				e.opts.OnFiring(f)
			}
		}
		return
	}
	for _, f := range firings {
		in := &Intent{ID: f.Rule.Name + "#" + strconv.FormatInt(f.Seq, 10) + "@" + f.At.UTC().Format(time.RFC3339Nano),
			Rule: f.Rule.Name, At: f.At, Seq: f.Seq, Once: Once(f.Rule.Once)}
		if in.Once != "" {
			in.Period, _ = e.period(in.Once, st)
		}
		for _, r := range e.rules {
			if r.rule == f.Rule {
				in.State = r.state
			}
		}
		for _, p := range px.Plan(ctx, f) {
			in.Legs = append(in.Legs, IntentLeg{Plan: p})
		}
		e.busy.add(in.symbols())
		e.pending = append(e.pending, &pendingFiring{f: f, in: in})
	}
	if !e.persist(now, changed) {
		return
	}
	// The firings held by an earlier failure go first, then this tick's.
	e.heldMu.Lock()
	held := e.held
	e.held = nil
	e.heldMu.Unlock()
	for _, pf := range held {
		e.settle(ctx, px, pf.f, pf.in, pf.restart)
	}
	send := e.pending
	e.pending = nil
	for _, pf := range send {
		e.send(ctx, px, pf)
	}
	e.recover(ctx, px, st, now)
}

// hold keeps a firing whose answers could not be recorded: its next legs
// are sent once the state directory can be written again (its symbols stay
// busy meanwhile).
func (e *Engine) hold(f *Firing, in *Intent, restart bool) {
	e.opts.Logger.Error("CANNOT WRITE THE STATE DIRECTORY: the rest of this firing waits until it can be written",
		zap.String("rule", in.Rule), zap.String("firing", in.ID))
	e.heldMu.Lock()
	defer e.heldMu.Unlock()
	e.held = append(e.held, &pendingFiring{f: f, in: in, restart: restart})
}

// persist writes the pending intents, then the rule states; it reports
// whether both are on disk. A failure is logged loudly every tick until a
// write works again or Run gives up (StateTimeout).
func (e *Engine) persist(now time.Time, changed bool) bool {
	j := e.opts.Journal
	if j != nil {
		var add []*Intent
		for _, pf := range e.pending {
			if !pf.added && pf.in.sends() {
				add = append(add, pf.in)
			}
			pf.added = true
		}
		if len(add) > 0 {
			_ = j.Add(now, add...)
		} else {
			_ = j.Flush(now)
		}
		if _, err := j.Failing(); err != nil {
			e.logUnwritable(now, err)
			if changed {
				e.storeDirty = true
			}
			return false
		}
		if len(add) > 0 {
			e.opts.Crash.At(CrashIntentWritten)
		}
	}
	if changed || e.storeDirty {
		if !e.saveStates(now) {
			return false
		}
	}
	if len(e.pending) > 0 {
		e.opts.Crash.At(CrashStateSaved)
	}
	return true
}

// saveStates saves the rule states; it reports whether they are on disk.
func (e *Engine) saveStates(now time.Time) bool {
	if e.opts.Store == nil {
		return true
	}
	if err := e.opts.Store.Save(e.snapshot()); err != nil {
		if !e.storeDirty || e.storeSince.IsZero() {
			e.storeSince = now
		}
		e.storeDirty = true
		e.logUnwritable(now, err)
		return false
	}
	e.storeDirty, e.storeSince = false, time.Time{}
	return true
}

// logUnwritable says, at error level and in plain words, that orders are
// held back.
func (e *Engine) logUnwritable(now time.Time, err error) {
	since := e.unwritableSince()
	if since.IsZero() {
		since = now
	}
	e.opts.Logger.Error("CANNOT WRITE THE STATE DIRECTORY: no order is sent until it can be written; the engine stops if this lasts",
		zap.Error(err), zap.Int("orders_held", len(e.pending)), zap.Duration("failing_for", now.Sub(since)), zap.Duration("stops_after", e.opts.StateTimeout))
}

// unwritableSince is when the state directory started failing writes (zero
// when every file is up to date).
func (e *Engine) unwritableSince() time.Time {
	var since time.Time
	if e.storeDirty {
		since = e.storeSince
	}
	if j := e.opts.Journal; j != nil {
		if s, err := j.Failing(); err != nil && (since.IsZero() || s.Before(since)) {
			since = s
		}
	}
	return since
}

// send sends the legs of a recorded firing in order; at the first leg whose
// outcome is unknown the rest of the firing is handed to settle.
func (e *Engine) send(ctx context.Context, px planner, pf *pendingFiring) {
	f, in := pf.f, pf.in
	for k := range in.Legs {
		legs := px.Send(ctx, in.Legs[k].Plan)
		e.opts.Crash.At(CrashAnswerReceived)
		if !e.journalUpdate(in, k, legs) {
			e.hold(f, in, false)
			return
		}
		if !in.Legs[k].settled() {
			e.settle(ctx, px, f, in, false)
			return
		}
	}
	e.finish(f, in)
}

// settle finishes in off the tick loop (SettleOffLoop) or here: the legs in
// doubt are settled by client order id, the legs not yet sent are sent.
// restart says the intent comes from the journal of an earlier run: every
// leg without an answer may have reached the venue. A cancel or close in
// doubt, or a closing order confirmed absent, is sent again only for what
// existed at the firing (actions.Plan.At).
func (e *Engine) settle(ctx context.Context, px planner, f *Firing, in *Intent, restart bool) {
	run := func() {
		for k := range in.Legs {
			l := in.Legs[k]
			if l.settled() {
				continue
			}
			p := l.Plan
			if p.At.IsZero() {
				// Recorded before plans carried their firing's time: a
				// cancel, close or closing order sent again needs it
				// (actions.Plan.At).
				p.At = in.At
			}
			var legs []actions.Leg
			switch {
			case len(l.Legs) > 0:
				legs = px.Settle(ctx, p, l.Legs)
			case restart:
				legs = px.Settle(ctx, p, nil)
			default:
				legs = px.Send(ctx, p)
				e.opts.Crash.At(CrashAnswerReceived)
				if slices.ContainsFunc(legs, func(x actions.Leg) bool { return x.Outcome == actions.Unsettled }) {
					legs = px.Settle(ctx, p, legs)
				}
			}
			if !e.journalUpdate(in, k, legs) {
				e.hold(f, in, restart)
				return
			}
			if !in.Legs[k].settled() {
				// ctx ended: the intent stays in the journal for the next start.
				e.opts.Logger.Error("outcome of an order still unknown at shutdown; it is settled at the next start",
					zap.String("rule", in.Rule), zap.String("firing", in.ID))
				e.busy.done(in.symbols())
				return
			}
		}
		// Its orders went out (or were found at the venue) after its
		// tick: the rule's cooldown and data run from now (late.go).
		e.ordersLate(in, !e.opts.SettleOffLoop)
		e.finish(f, in)
	}
	if !e.opts.SettleOffLoop {
		run()
		return
	}
	e.wg.Add(1)
	e.busy.settled(1)
	go func() {
		defer e.wg.Done()
		defer e.busy.settled(-1)
		run()
	}()
}

// journalUpdate records the answers of leg k of in; it reports false when
// they could not be written (they are kept, and written with the next write
// that works).
func (e *Engine) journalUpdate(in *Intent, k int, legs []actions.Leg) bool {
	if j := e.opts.Journal; j != nil {
		if err := j.Update(e.opts.Clock.Now(), in.ID, k, legs); err != nil {
			e.opts.Logger.Error("CANNOT WRITE THE STATE DIRECTORY: the answer of an order is not recorded", zap.String("firing", in.ID), zap.Error(err))
			return false
		}
		return true
	}
	in.Legs[k].Legs = legs
	return true
}

// close removes in from the journal and frees its symbols.
func (e *Engine) close(in *Intent) {
	if j := e.opts.Journal; j != nil {
		if err := j.Close(e.opts.Clock.Now(), in.ID); err != nil {
			e.opts.Logger.Error("CANNOT WRITE THE STATE DIRECTORY: a finished firing stays in the journal", zap.String("firing", in.ID), zap.Error(err))
		}
	}
	e.busy.done(in.symbols())
}

// finish closes a firing whose legs are all settled.
func (e *Engine) finish(f *Firing, in *Intent) {
	var oids []string
	for _, l := range in.Legs {
		for _, x := range l.Legs {
			oids = append(oids, x.ClientOIDs...)
		}
	}
	e.opts.Logger.Info("firing done", zap.String("rule", in.Rule), zap.String("firing", in.ID), zap.Strings("clientOid", oids))
	if f != nil {
		f.Legs = f.Legs[:0]
		for _, l := range in.Legs {
			f.Legs = append(f.Legs, l.Legs...)
			if l.Plan.Done != nil && len(l.Legs) == 0 {
				f.Legs = append(f.Legs, *l.Plan.Done)
			}
		}
		e.modifications.record(f)
		if e.opts.OnFiring != nil {
			e.opts.OnFiring(f)
		}
	}
	e.close(in)
}
