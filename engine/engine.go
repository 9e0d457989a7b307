package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr/vm"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// StateSource gives the engine one immutable State per tick and says whether
// it can be trusted: the pollers satisfy it, and so does a recording.
type StateSource interface {
	State(now time.Time) (*marketdata.State, error)
	// FullyPolled is false until every part has been fetched once; no rule
	// fires before that (after a restart half a State could look true).
	FullyPolled() bool
	// Stale returns the first of parts that is missing or too old.
	Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool)
}

// dataSharer is a StateSource whose States of successive ticks share their
// data while no answer changes (the pollers). Shared data keeps the ages
// and the trade window of the tick it was built at, so the engine names
// the time fields the rules read: those follow every tick.
type dataSharer interface {
	SetTimedFields(f marketdata.TimeFieldSet)
}

// Executor runs the actions of one firing and reports one Leg per request.
// An Executor that also plans its requests before sending them
// (ActionsExecutor) has each firing's intent recorded in the Journal first,
// and its unknown outcomes settled off the tick loop.
type Executor interface {
	Execute(ctx context.Context, f *Firing) []actions.Leg
}

// Clock is the engine's time source.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// PhaseFiring is one rule firing: the rule, the tick, and what the executor needs
// to evaluate the rule's formulas against the same State the condition saw.
type Firing struct {
	Rule  *rules.Rule
	At    time.Time
	Seq   int64 // the rule's firing count, 1 for its first firing
	State *marketdata.State
	Env   *rules.Env
	VM    *vm.VM
	Trace Trace
	Legs  []actions.Leg
}

// Options configure an Engine.
type Options struct {
	Rules    *rules.RuleSet
	Source   StateSource
	Executor Executor
	Clock    Clock
	Logger   *zap.Logger
	// Store persists rule states; nil keeps them in memory only.
	Store *Store
	// States are the rule states to start from when there is no Store:
	// a rule test's prior firings (firings_today, minutes_since_fired).
	States map[string]RuleState
	// Modifications are the orders' counts of moves to start from when
	// there is no Store, by client order id: a rule test's orders stated
	// with modifications (an order's .modifications).
	Modifications map[string]Modification
	// Journal records every firing's intent before its orders are sent;
	// nil records none (backtests). It needs an Executor that plans
	// (ActionsExecutor).
	Journal *Journal
	// SettleOffLoop settles orders whose outcome is unknown in a goroutine,
	// so that the tick loop goes on evaluating every rule meanwhile (rules
	// trading the same symbols wait); false settles them within the tick
	// (backtests: the same scenario gives the same result).
	SettleOffLoop bool
	// StateTimeout is how long the state directory may fail writes, orders
	// held back all along, before Run stops with ErrStateUnwritable
	// (default 30s).
	StateTimeout time.Duration
	// RecoverWithin is how old an unfinished firing of a rule without once
	// may be at start and still be finished (default 5m); a once rule's
	// firing is finished within its period.
	RecoverWithin time.Duration
	// Crash is the crash-point fault injection (nil: none).
	Crash *CrashHook
	// TraceDepth is how many evaluations are kept per rule (default 32).
	TraceDepth int
	// Tick is the time between evaluations when no new data arrives
	// (default 1s).
	Tick time.Duration
	// Coalesce is how long Run waits, once a poll has brought new data,
	// for the polls landing together with it, so that they make one tick
	// (default 5ms).
	Coalesce time.Duration
	// OnFiring, when set, is called after the actions of each firing ran
	// (backtest reports and metrics use it).
	OnFiring func(*Firing)
	// Reuse turns on the backtest's speed-ups, which only backtest.Run
	// sets (package backtest/reuse): a condition whose data did not change
	// is answered from its last result, a source that can share data
	// between ticks is told which time fields the rules read (dataSharer),
	// and SkipQuiet may record quiet ticks without stepping them (skip.go).
	// Nil, the default and what engine run uses, every condition runs on
	// expr's VM on every tick over the State the source built for it. The
	// results cannot differ; the backtest's equivalence tests compare the
	// two ways.
	Reuse Reuser
	// OnState, when set, is told each tick's State before the rules run
	// on it: the guard applies the safety file's protections to it.
	OnState func(*marketdata.State)
	// OnTick, when set, is called by Run after each tick, on the tick
	// loop: engine run pings the systemd watchdog from it, so a loop that
	// stops ticking stops the pings. It must return quickly.
	OnTick func(ctx context.Context, at time.Time)
}

// Reuser says when a condition's last result may stand for running it
// again (Options.Reuse). The engine keeps the result, the States it was
// computed and last answered on, and its counters; the Reuser only judges.
// Its one implementation, backtest/reuse, is the backtest's: the code that
// trades money never carries it.
type Reuser interface {
	// Judge returns, for a condition that reads reads, holds (whether its
	// result, last answered on prev and computed on ran, holds on st;
	// until is what crossing returned for ran) and crossing (the earliest
	// instant after st.Now at which a result computed on st may change
	// with the clock alone; zero: none can). Both nil: the result never
	// holds on another State, and the rule's ticks never repeat
	// (SkipQuiet).
	Judge(reads rules.Reads) (
		holds func(st, prev, ran *marketdata.State, until time.Time) bool,
		crossing func(st *marketdata.State) time.Time,
	)
}

// Engine evaluates the rules on every tick and dispatches the firings.
type Engine struct {
	opts Options

	mu    sync.Mutex
	rules []*ruleRun // in evaluation order: priority high first, then name
	env   *rules.Env
	vm    vm.VM
	ticks int64
	// skipped counts ticks Run dropped because a tick overran.
	skipped int64
	tc      tickCache
	// steady is set when the last Step left every rule in a tick that
	// repeats while the data it reads and the session stay the same (see
	// SkipQuiet).
	steady bool

	// busy counts the unsettled firings per symbol (see firing.go).
	busy busySymbols
	// pending are fired firings whose intent or rule state is not yet on
	// disk: their orders wait for the write.
	pending []*pendingFiring
	// recovering are the intents an earlier run left open.
	recovering []*Intent
	// held are firings whose answers could not be written: their next legs
	// wait for the state directory (heldMu: settling goroutines add to it).
	heldMu sync.Mutex
	held   []*pendingFiring
	// storeDirty is set while the rule states on disk are behind (a save
	// failed since storeSince).
	storeDirty bool
	storeSince time.Time
	// wg counts the settling goroutines.
	wg sync.WaitGroup

	// heartbeat is the clock's time (Unix nanoseconds) when Run last
	// finished a tick, and polled whether that tick's State was fully
	// polled. They are atomics, read without e.mu, so the health check
	// answers even while a tick is stuck holding the lock.
	heartbeat atomic.Int64
	polled    atomic.Bool

	// extremes are the open positions' highs and lows since entry
	// (extremes.go), modifications how often each order was moved
	// (modifications.go).
	extremes      extremes
	modifications modifications
}

// tickCache holds what every rule of one tick would otherwise compute again:
// the once-period keys and the staleness of each distinct set of parts
// (ruleRun.readsIdx indexes stale; plan numbers the distinct sets).
type tickCache struct {
	periods [2]periodEntry // OncePerDay, OncePerSession
	stale   []staleEntry
}

type periodEntry struct {
	done bool
	key  string
	err  error
}

type staleEntry struct {
	done  bool
	part  marketdata.Part
	stale bool
}

// reset empties the cache for a new tick, keeping its storage.
func (c *tickCache) reset() {
	c.periods = [2]periodEntry{}
	clear(c.stale)
}

// ruleRun is the runtime of one rule.
type ruleRun struct {
	rule   *rules.Rule
	timing Timing
	// reads are the parts the rule needs fresh: what its condition reads,
	// plus the market session for once: per_session. Fixed at plan time.
	reads    marketdata.PartSet
	readsIdx int // index of reads in tickCache.stale
	state    RuleState
	traces   ring
	stats    RuleStats
	// holds says when last may stand for running the condition again, and
	// crossing when a result may change with the clock alone (Reuser.Judge;
	// both nil without Options.Reuse, or when the condition reads
	// something that moves on every tick).
	holds    func(st, prev, ran *marketdata.State, until time.Time) bool
	crossing func(st *marketdata.State) time.Time
	last     lastRun
	// repeat is what the rule's next ticks will be (SkipQuiet).
	repeat repeat
	// touch are the symbols the rule's actions trade (anySymbol: any).
	touch []string
}

// lastRun is the last result of a rule's condition and the State it was
// computed on.
type lastRun struct {
	st   *marketdata.State
	tick int64
	ok   bool
	err  error
	msg  string // err's text, once asked for: a reused failure is reported every tick

	// ran is the State the condition last ran on, and until the instant
	// its clock limits may change its result (Reuser.Judge's crossing;
	// zero: never).
	ran   *marketdata.State
	until time.Time
}

// errText is the text of the last run's error, written once.
func (c *lastRun) errText() string {
	if c.msg == "" {
		c.msg = c.err.Error()
	}
	return c.msg
}

// RuleStats counts one rule's evaluations since the engine started (or the
// rule was first loaded); a reload carries them over by name. They feed the
// metrics, read at scrape time, so the tick pays one increment for them.
type RuleStats struct {
	Evaluations int64 // ticks on which the rule was evaluated or skipped
	Firings     int64
	Errors      int64 // evaluations that failed (not stale data)
	Stale       int64 // evaluations skipped because a part was stale or missing
	// Waiting counts the ticks the rule waited for an unsettled order on a
	// symbol it trades (ReasonWaiting). Included in Evaluations.
	Waiting int64
	// Reused counts evaluations answered without running the condition:
	// what it reads was the same as when it last ran, and none of its
	// comparisons with the clock could have changed since (see reuse).
	// Included in Evaluations.
	Reused int64
}

// New returns an engine over opts.Rules, with rule states restored from
// opts.Store.
func New(opts Options) (*Engine, error) {
	if opts.Rules == nil || opts.Source == nil || opts.Executor == nil || opts.Clock == nil {
		return nil, errors.New("engine: Rules, Source, Executor and Clock are required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.TraceDepth <= 0 {
		opts.TraceDepth = 32
	}
	if opts.Tick <= 0 {
		opts.Tick = time.Second
	}
	if opts.Coalesce <= 0 {
		opts.Coalesce = 5 * time.Millisecond
	}
	if opts.StateTimeout <= 0 {
		opts.StateTimeout = 30 * time.Second
	}
	if opts.RecoverWithin <= 0 {
		opts.RecoverWithin = 5 * time.Minute
	}
	if _, ok := opts.Executor.(planner); opts.Journal != nil && !ok {
		return nil, errors.New("engine: a Journal needs an Executor that plans its requests (ActionsExecutor)")
	}
	e := &Engine{opts: opts, env: rules.NewEnv(nil), extremes: extremes{byKey: map[string]Extreme{}}}
	e.modifications.byOID = maps.Clone(opts.Modifications)
	if e.modifications.byOID == nil {
		e.modifications.byOID = map[string]Modification{}
	}
	saved := map[string]RuleState{}
	for name, st := range opts.States {
		saved[name] = st
	}
	if opts.Store != nil {
		var err error
		if saved, err = opts.Store.Load(); err != nil {
			return nil, fmt.Errorf("engine: restore rule states: %w", err)
		}
		now := opts.Clock.Now()
		for name, st := range saved {
			if fixed, what := st.Future(now); what != "" {
				opts.Logger.Error("saved rule state is in the future; counted as now (check the clock)", zap.String("rule", name),
					zap.String("saved", what), zap.Time("now", now))
				saved[name] = fixed
			}
		}
	}
	if opts.Store != nil {
		ex, err := opts.Store.LoadExtremes()
		if err != nil {
			return nil, fmt.Errorf("engine: restore the positions' highs and lows: %w", err)
		}
		e.extremes.byKey = ex
		if e.modifications.byOID, err = opts.Store.LoadModifications(); err != nil {
			return nil, fmt.Errorf("engine: restore how often orders were modified: %w", err)
		}
	}
	e.storeDirty = e.restore(saved)
	e.rules = e.plan(opts.Rules, saved, nil)
	e.shareData(opts.Rules)
	return e, nil
}

// shareData tells a source that can share data between ticks which time
// fields rs reads, when the backtest's speed-ups are on (Options.Reuse);
// else every field follows every tick.
func (e *Engine) shareData(rs *rules.RuleSet) {
	if s, ok := e.opts.Source.(dataSharer); ok {
		timed := marketdata.AllTimeFields
		if e.opts.Reuse != nil {
			timed = rs.Reads().DataTimeFields
		}
		s.SetTimedFields(timed)
	}
}

// plan orders the rules and gives each its saved state, carried by name;
// stats, when given, carry the counters of a reload over by name.
func (e *Engine) plan(rs *rules.RuleSet, saved map[string]RuleState, stats map[string]RuleStats) []*ruleRun {
	runs := make([]*ruleRun, 0, len(rs.Rules))
	for _, r := range rs.Rules {
		run := &ruleRun{
			rule:   r,
			timing: Timing{For: r.For, Cooldown: r.Cooldown, Once: Once(r.Once)},
			reads:  r.Reads().Parts,
			state:  saved[r.Name],
			traces: newRing(e.opts.TraceDepth),
			stats:  stats[r.Name],
			touch:  touches(r),
		}
		if e.opts.Reuse != nil {
			run.holds, run.crossing = e.opts.Reuse.Judge(r.Condition.Reads)
		}
		if run.timing.Once == OncePerSession {
			run.reads = run.reads.Add(marketdata.PartMarket)
		}
		runs = append(runs, run)
	}
	sets := map[marketdata.PartSet]int{}
	for _, run := range runs {
		i, ok := sets[run.reads]
		if !ok {
			i = len(sets)
			sets[run.reads] = i
		}
		run.readsIdx = i
	}
	e.tc.stale = make([]staleEntry, len(sets))
	slices.SortStableFunc(runs, func(a, b *ruleRun) int {
		if c := cmp.Compare(b.rule.Priority, a.rule.Priority); c != 0 {
			return c
		}
		return cmp.Compare(a.rule.Name, b.rule.Name)
	})
	return runs
}

// Reload swaps in a new rule set; rules keep their state by name. A rule set
// with errors never reaches here: the caller keeps the old one.
func (e *Engine) Reload(rs *rules.RuleSet) {
	e.mu.Lock()
	defer e.mu.Unlock()
	saved := make(map[string]RuleState, len(e.rules))
	stats := make(map[string]RuleStats, len(e.rules))
	for _, r := range e.rules {
		saved[r.rule.Name] = r.state
		stats[r.rule.Name] = r.stats
	}
	e.rules = e.plan(rs, saved, stats)
	e.steady = false // the new rules have not run yet
	e.shareData(rs)
	e.opts.Logger.Info("rules reloaded", zap.Int("rules", len(e.rules)))
}

// Step runs one tick at now: it builds the State, evaluates every rule,
// advances the state machines, persists what changed, and then runs the
// actions of the rules that fired, in priority order. Nothing a rule does in
// a tick changes the State the other rules of that tick read.
func (e *Engine) Step(ctx context.Context, now time.Time) []*Firing {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ticks++
	// Asked before the State is built: a poll that completes in between
	// must not make a State built from half the data look complete.
	polled := e.opts.Source.FullyPolled()
	st, err := e.opts.Source.State(now)
	if err != nil {
		e.opts.Logger.Warn("state built with errors", zap.Error(err))
	}
	ready := st != nil && polled
	e.polled.Store(ready)
	if st != nil {
		e.extremes.observe(st)
		e.modifications.observe(st)
		if e.opts.OnState != nil {
			e.opts.OnState(st)
		}
	}
	e.env.SetState(st)
	if fc := e.firingCounts(st); fc != nil {
		e.env.SetFirings(fc)
	} else {
		e.env.SetFirings(nil)
	}
	e.tc.reset()
	var firings []*Firing
	changed := false
	nowNano := now.UnixNano()
	e.steady = ready
	busy := e.busy.snapshot()
	for _, r := range e.rules {
		if busy != nil && waits(busy, r.touch) {
			r.stats.Evaluations++
			r.stats.Waiting++
			tr := Trace{At: now, Tick: e.ticks, Reason: ReasonWaiting, Phase: r.state.Phase}
			r.traces.push(&tr)
			r.repeat = repeat{}
			e.steady = false
			continue
		}
		if ready && e.quiet(r, st, nowNano) {
			r.repeat = r.quietRepeat()
			e.steady = e.steady && r.repeat.ok
			continue
		}
		tr := Trace{At: now, Tick: e.ticks}
		fired := e.evaluate(r, st, ready, &tr)
		if tr.Transition != "" {
			changed = true
			e.logTransition(r, &tr)
		}
		r.traces.push(&tr)
		r.repeat = r.repeatOf(&tr)
		e.steady = e.steady && r.repeat.ok
		if fired {
			r.stats.Firings++
			firings = append(firings, &Firing{Rule: r.rule, At: now, Seq: r.state.Firings, State: st, Env: e.env, VM: &e.vm, Trace: tr})
		}
	}
	// The intents, then the rule states, are on disk before any order is
	// sent: a crash after this point restarts with the firing recorded,
	// finishes its orders and cannot fire the same rule twice.
	e.dispatch(ctx, now, st, firings, changed)
	e.saveExtremes()
	e.saveModifications(now)
	return firings
}

// quiet handles the most common tick of all - an enabled, inactive rule
// without once, fresh data and a false condition - without building a
// Trace, and reports whether it did. Any other case is left to evaluate,
// which sees exactly what it would have seen without this shortcut (the
// condition is pure over the State, so evaluating it again gives the same
// result).
func (e *Engine) quiet(r *ruleRun, st *marketdata.State, nowNano int64) bool {
	if !r.rule.Enabled || r.timing.Once != "" || (r.state.Phase != PhaseInactive && r.state.Phase != "") {
		return false
	}
	if _, stale := e.stale(st, r); stale {
		return false
	}
	if ok, err := e.condition(r, st); err != nil || ok {
		return false
	}
	r.state.Phase = PhaseInactive
	r.stats.Evaluations++
	r.traces.pushQuiet(nowNano, e.ticks)
	return true
}

// condition runs r's condition on st, unless its result is known: quiet
// already ran it this tick, or st has what the condition read in the State
// it last ran on (Options.Reuse).
func (e *Engine) condition(r *ruleRun, st *marketdata.State) (bool, error) {
	c := &r.last
	switch {
	case c.st == st && c.tick == e.ticks:
		return c.ok, c.err
	case r.holds != nil && r.holds(st, c.st, c.ran, c.until):
		r.stats.Reused++
		c.st, c.tick = st, e.ticks
		return c.ok, c.err
	}
	ok, err := r.rule.Condition.EvalBool(&e.vm, e.env)
	*c = lastRun{st: st, ran: st, tick: e.ticks, ok: ok, err: err}
	if r.crossing != nil {
		c.until = r.crossing(st)
	}
	return ok, err
}

// evaluate runs one rule's condition and advances its state machine; it
// fills tr and reports whether the rule fires.
func (e *Engine) evaluate(r *ruleRun, st *marketdata.State, ready bool, tr *Trace) bool {
	if r.state.Phase == "" {
		r.state.Phase = PhaseInactive
	}
	before := r.state.Phase
	out := Unknown
	switch {
	case !r.rule.Enabled:
		tr.Reason, tr.Phase = ReasonDisabled, r.state.Phase
		return false
	case !ready:
		tr.Reason, tr.Phase = ReasonNotStarted, r.state.Phase
		return false
	}
	r.stats.Evaluations++
	period, perr := e.period(r.timing.Once, st)
	part, stale := e.stale(st, r)
	var old bool // account data older than the rule's late orders (late.go)
	if stale {
		r.stats.Stale++
		tr.Detail = "stale or missing data: " + part.String()
	} else if perr != nil {
		r.stats.Errors++
		tr.Detail = perr.Error()
	} else if part, old = beforeOrders(r.state, st, r.reads); old {
		tr.Detail = beforeOrdersDetail(r.state, st, part)
	} else {
		ok, err := e.condition(r, st)
		switch {
		case err != nil:
			r.stats.Errors++
			tr.Detail = r.last.errText()
		case ok:
			out, tr.Result = True, true
		default:
			out = False
		}
	}
	if out == False && r.state.Phase == PhaseInactive {
		// The common quiet tick, exactly what Step does for it, without
		// copying the state in and out.
		tr.Reason, tr.Phase = ReasonFalse, PhaseInactive
		return false
	}
	var fired bool
	r.state, fired, tr.Reason = Step(r.state, r.timing, tr.At, out, period)
	if fired {
		r.state.countFiring(easternDay(st))
	}
	if tr.Reason == ReasonUnknown && stale {
		tr.Reason = ReasonStale
	} else if tr.Reason == ReasonUnknown && old {
		tr.Reason = ReasonBeforeOrders
	}
	tr.Phase = r.state.Phase
	if r.state.Phase != before || fired {
		tr.Transition = string(before) + " -> " + string(r.state.Phase)
		tr.Values = explain(r.rule, &e.vm, e.env)
	}
	return fired
}

// period is periodKey, computed once per tick for each kind of Once.
func (e *Engine) period(once Once, st *marketdata.State) (string, error) {
	i := 0
	switch once {
	case OncePerDay:
	case OncePerSession:
		i = 1
	default:
		return "", nil
	}
	c := &e.tc.periods[i]
	if !c.done {
		c.key, c.err = e.periodKey(once, st)
		c.done = true
	}
	return c.key, c.err
}

// stale asks the source about the parts r reads, once per tick for each
// distinct set of parts.
func (e *Engine) stale(st *marketdata.State, r *ruleRun) (marketdata.Part, bool) {
	c := &e.tc.stale[r.readsIdx]
	if !c.done {
		c.part, c.stale = e.opts.Source.Stale(st, r.reads)
		c.done = true
	}
	return c.part, c.stale
}

// periodKey is the key of the current session or Eastern day for Once.
func (e *Engine) periodKey(once Once, st *marketdata.State) (string, error) {
	switch once {
	case OncePerDay:
		return st.EasternNow().Format("2006-01-02"), nil
	case OncePerSession:
		m, err := st.Market(0)
		if err != nil {
			return "", err
		}
		if !m.IsOpen {
			return "closed@" + m.NextSessionStart.UTC().Format(time.RFC3339), nil
		}
		start := st.Now.Add(-time.Duration(m.MinutesSinceOpen * float64(time.Minute)))
		return m.Session + "@" + start.UTC().Truncate(time.Minute).Format(time.RFC3339), nil
	}
	return "", nil
}

func (e *Engine) logTransition(r *ruleRun, tr *Trace) {
	fields := []zap.Field{zap.String("rule", r.rule.Name), zap.String("transition", tr.Transition),
		zap.String("reason", string(tr.Reason)), zap.Time("at", tr.At), zap.Any("values", tr.Values)}
	if tr.Detail != "" {
		fields = append(fields, zap.String("detail", tr.Detail))
	}
	if tr.Reason == ReasonFired {
		e.opts.Logger.Info("rule fired", fields...)
		return
	}
	e.opts.Logger.Info("rule state changed", fields...)
}

// snapshot copies every rule's state, by name.
func (e *Engine) snapshot() map[string]RuleState {
	out := make(map[string]RuleState, len(e.rules))
	for _, r := range e.rules {
		out[r.rule.Name] = r.state
	}
	return out
}

// Traces returns the kept evaluations of the named rule, oldest first.
func (e *Engine) Traces(rule string) []Trace {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.rules {
		if r.rule.Name == rule {
			return r.traces.list()
		}
	}
	return nil
}

// Stats returns every rule's counters, by name, and the ticks Run skipped.
func (e *Engine) Stats() (rules map[string]RuleStats, ticks, skipped int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]RuleStats, len(e.rules))
	for _, r := range e.rules {
		out[r.rule.Name] = r.stats
	}
	return out, e.ticks, e.skipped
}

// States returns every rule's state, by name.
func (e *Engine) States() map[string]RuleState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snapshot()
}

// Run steps on a grid of Tick from the clock's time at start until ctx is
// done and, when the source says that a poll brought new data (see
// arrivalSource), as soon as it has, the polls landing together gathered
// into one tick. A tick that overruns does not shift the grid: the ticks it
// covered are skipped (and counted), never replayed in a burst, and the
// next tick runs at the next grid point after the clock's time. A tick on
// arrival at or after a grid point stands for that point. Ticks never run
// concurrently.
func (e *Engine) Run(ctx context.Context) error {
	defer e.wg.Wait()
	arrived := e.arrivals() // nil: never ready
	grid := e.opts.Clock.Now()
	at := grid
	var timer <-chan time.Time
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.Step(ctx, at)
		e.heartbeat.Store(e.opts.Clock.Now().UnixNano())
		if e.opts.OnTick != nil {
			e.opts.OnTick(ctx, at)
		}
		if err := e.unwritable(); err != nil {
			return err
		}
		if !at.Before(grid) { // the grid's tick, or a tick on arrival that stands for it
			var missed int64
			grid, missed = nextTick(grid, e.opts.Clock.Now(), e.opts.Tick)
			if missed > 0 {
				e.mu.Lock()
				e.skipped += missed
				e.mu.Unlock()
				e.opts.Logger.Warn("tick overran; ticks skipped", zap.Int64("skipped", missed), zap.Time("next", grid))
			}
			timer = e.opts.Clock.After(grid.Sub(e.opts.Clock.Now()))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer:
			at = grid
		case <-arrived:
			var err error
			if at, err = e.gather(ctx, arrived); err != nil {
				return err
			}
		}
	}
}

// unwritable returns ErrStateUnwritable once the state directory has
// failed writes for longer than StateTimeout.
func (e *Engine) unwritable() error {
	e.mu.Lock()
	since := e.unwritableSince()
	e.mu.Unlock()
	if since.IsZero() {
		return nil
	}
	if d := e.opts.Clock.Now().Sub(since); d > e.opts.StateTimeout {
		return fmt.Errorf("%w for %s (longer than %s); no order was sent meanwhile", ErrStateUnwritable, d.Round(time.Millisecond), e.opts.StateTimeout)
	}
	return nil
}

// nextTick is the first point of the grid last + k*tick (k >= 1) that is not
// before now, and how many grid points before it were missed.
func nextTick(last, now time.Time, tick time.Duration) (time.Time, int64) {
	k := int64(1)
	if d := now.Sub(last); d > tick {
		k = int64((d + tick - 1) / tick) // ceil(d / tick)
	}
	return last.Add(time.Duration(k) * tick), k - 1
}
