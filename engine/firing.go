package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
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

// pendingFiring is a firing whose intent is not yet known to be on disk.
type pendingFiring struct {
	f     *Firing
	in    *Intent
	added bool // handed to the journal (which retries a failed write)
}

// anySymbol stands for every symbol: an action without a literal symbol
// (cancel_all, a formula) may touch any of them.
const anySymbol = "*"

// touches lists the symbols the actions of r may trade (anySymbol when one
// cannot be known before the rule fires).
func touches(r *rules.Rule) []string {
	var out []string
	for _, a := range r.Actions {
		if a.Kind == rules.Log {
			continue
		}
		sym := r.Symbol
		if v := a.Params["symbol"]; v != nil {
			s, ok := v.Literal.(string)
			if v.IsFormula() || !ok {
				return []string{anySymbol}
			}
			sym = s
		}
		if sym == "" {
			return []string{anySymbol}
		}
		if !slices.Contains(out, sym) {
			out = append(out, sym)
		}
	}
	return out
}

// busySymbols counts the unsettled firings per symbol, and the firings
// being settled off the tick loop; the settling goroutines release them. It
// is safe for concurrent use.
type busySymbols struct {
	mu sync.Mutex
	n  map[string]int
	// settling counts the settling goroutines; changed is closed and
	// replaced whenever that count changes (Settling).
	settling int
	changed  chan struct{}
}

// settled adds d to the settling goroutines.
func (b *busySymbols) settled(d int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.settling += d
	if b.changed != nil {
		close(b.changed)
	}
	b.changed = make(chan struct{})
}

func (b *busySymbols) add(syms []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == nil {
		b.n = map[string]int{}
	}
	for _, s := range syms {
		b.n[s]++
	}
}

func (b *busySymbols) done(syms []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range syms {
		if b.n[s]--; b.n[s] <= 0 {
			delete(b.n, s)
		}
	}
}

// snapshot returns the busy symbols (nil when none).
func (b *busySymbols) snapshot() map[string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.n) == 0 {
		return nil
	}
	out := make(map[string]bool, len(b.n))
	for s := range b.n {
		out[s] = true
	}
	return out
}

// waits reports whether a rule touching syms must wait for busy.
func waits(busy map[string]bool, syms []string) bool {
	if len(busy) == 0 || len(syms) == 0 {
		return false
	}
	if busy[anySymbol] {
		return true
	}
	for _, s := range syms {
		if s == anySymbol || busy[s] {
			return true
		}
	}
	return false
}

// Settling returns how many firings are being settled off the tick loop
// and a channel that is closed when that number changes. Tests wait on it.
func (e *Engine) Settling() (int, <-chan struct{}) {
	e.busy.mu.Lock()
	defer e.busy.mu.Unlock()
	if e.busy.changed == nil {
		e.busy.changed = make(chan struct{})
	}
	return e.busy.settling, e.busy.changed
}

// symbols lists the symbols in's legs trade.
func (in *Intent) symbols() []string {
	var out []string
	for _, l := range in.Legs {
		if l.Plan.Done != nil {
			continue
		}
		s := l.Plan.Symbol
		if s == "" {
			s = anySymbol
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
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
	send := e.pending
	e.pending = nil
	for _, pf := range send {
		e.send(ctx, px, pf)
	}
	e.recover(ctx, px, st, now)
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
		if err, _ := j.Failing(); err != nil {
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
		if err, s := j.Failing(); err != nil && (since.IsZero() || s.Before(since)) {
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
		e.journalUpdate(in, k, legs)
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
// leg without an answer may have reached the venue.
func (e *Engine) settle(ctx context.Context, px planner, f *Firing, in *Intent, restart bool) {
	run := func() {
		for k := range in.Legs {
			l := in.Legs[k]
			if l.settled() {
				continue
			}
			var legs []actions.Leg
			switch {
			case len(l.Legs) > 0:
				legs = px.Settle(ctx, l.Plan, l.Legs)
			case restart:
				legs = px.Settle(ctx, l.Plan, nil)
			default:
				legs = px.Send(ctx, l.Plan)
				e.opts.Crash.At(CrashAnswerReceived)
				if slices.ContainsFunc(legs, func(x actions.Leg) bool { return x.Outcome == actions.Unsettled }) {
					legs = px.Settle(ctx, l.Plan, legs)
				}
			}
			e.journalUpdate(in, k, legs)
			if !in.Legs[k].settled() {
				// ctx ended: the intent stays in the journal for the next start.
				e.opts.Logger.Error("outcome of an order still unknown at shutdown; it is settled at the next start",
					zap.String("rule", in.Rule), zap.String("firing", in.ID))
				e.busy.done(in.symbols())
				return
			}
		}
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

// journalUpdate records the answers of leg k of in.
func (e *Engine) journalUpdate(in *Intent, k int, legs []actions.Leg) {
	if j := e.opts.Journal; j != nil {
		if err := j.Update(e.opts.Clock.Now(), in.ID, k, legs); err != nil {
			e.opts.Logger.Error("CANNOT WRITE THE STATE DIRECTORY: the answer of an order is not recorded", zap.String("firing", in.ID), zap.Error(err))
		}
		return
	}
	in.Legs[k].Legs = legs
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
		if e.opts.OnFiring != nil {
			e.opts.OnFiring(f)
		}
	}
	e.close(in)
}

// restore carries the rule states of the journal's open intents into saved
// (a crash between the intent and the rule-state file) and keeps those
// intents to be finished once the State is ready. It reports whether
// saved changed.
func (e *Engine) restore(saved map[string]RuleState) bool {
	j := e.opts.Journal
	if j == nil {
		return false
	}
	changed := false
	for _, in := range j.Open() {
		if s, ok := saved[in.Rule]; !ok || s.Firings < in.State.Firings {
			saved[in.Rule] = in.State
			changed = true
		}
		e.recovering = append(e.recovering, in)
		e.busy.add(in.symbols())
		e.opts.Logger.Warn("an earlier run left a firing unfinished; it is settled by clientOid once the data is in",
			zap.String("rule", in.Rule), zap.String("firing", in.ID))
	}
	return changed
}

// recover finishes the intents an earlier run left open, or abandons those
// whose window has passed, with the reason in the log.
func (e *Engine) recover(ctx context.Context, px planner, st *marketdata.State, now time.Time) {
	if len(e.recovering) == 0 || st == nil || !e.opts.Source.FullyPolled() {
		return
	}
	ins := e.recovering
	e.recovering = nil
	for _, in := range ins {
		var rule *rules.Rule
		for _, r := range e.rules {
			if r.rule.Name == in.Rule {
				rule = r.rule
			}
		}
		if why := e.passed(in, rule, st, now); why != "" {
			var oids []string
			for _, l := range in.Legs {
				if !l.settled() {
					oids = append(oids, l.Plan.ClientOIDs...)
				}
			}
			e.opts.Logger.Error("unfinished firing abandoned: its orders not yet at the venue are not sent",
				zap.String("rule", in.Rule), zap.String("firing", in.ID), zap.String("reason", why), zap.Strings("clientOid", oids))
			e.close(in)
			continue
		}
		var f *Firing
		if rule != nil {
			f = &Firing{Rule: rule, At: in.At, Seq: in.Seq}
		}
		e.settle(ctx, px, f, in, true)
	}
}

// passed says why the window of an unfinished firing has passed ("" when
// it has not): its rule is gone, its once period is over, or it is older
// than RecoverWithin.
func (e *Engine) passed(in *Intent, rule *rules.Rule, st *marketdata.State, now time.Time) string {
	switch {
	case rule == nil:
		return "the rule " + in.Rule + " is no longer in the rule files"
	case in.Once != "":
		p, err := e.periodKey(in.Once, st)
		if err != nil {
			return "" // cannot tell yet: the period decides, not the age
		}
		if p != in.Period {
			return fmt.Sprintf("once %s: it fired in %s, and that is over (now %s)", in.Once, in.Period, p)
		}
	case now.Sub(in.At) > e.opts.RecoverWithin:
		return fmt.Sprintf("it fired %s ago, more than %s (RecoverWithin)", now.Sub(in.At).Round(time.Second), e.opts.RecoverWithin)
	}
	return ""
}
