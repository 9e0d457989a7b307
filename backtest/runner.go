package backtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/backtest/internal/native"
	"github.com/tickrules/tickrules/backtest/reuse"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
)

// DefaultSpan is how long a backtest runs when neither To nor the scenario
// gives an end (the demo scenario has none).
const DefaultSpan = 24 * time.Hour

// Options configure a backtest.
type Options struct {
	// Scenario is the simulated exchange to run against (required).
	Scenario *sim.Scenario
	// Market, when set, replaces the scenario's market (a recording).
	Market sim.Market
	// Source names the scenario or recording in the report (default: the
	// scenario's name).
	Source string
	// APIKey picks the scenario account the rules trade (default: the first).
	APIKey string
	// RuleDirs are the rule directories; Getenv resolves ${VAR} in them.
	RuleDirs []string
	Getenv   func(string) string
	// From and To bound the run; zero From is the scenario's start, zero To
	// is the scenario's end, or From + DefaultSpan when it has none.
	From, To time.Time
	// Step is the engine's tick (default 1s).
	Step time.Duration
	// SampleEvery is how often equity, prices, positions and sessions are
	// sampled for the report (default 1m). A run of more than 12,000
	// samples keeps a chosen few of them in the report (EquityPoint).
	SampleEvery time.Duration
	// Progress receives progress lines when the run takes longer than a
	// second of wall time; nil writes none. Wall is the wall clock it is
	// measured with (default time.Now).
	Progress io.Writer
	Wall     func() time.Time
	Logger   *zap.Logger
	// EvaluateEveryTick builds every State afresh from every answer, read
	// as a live exchange is read (decimal text, every poll asked), and runs
	// every condition on every tick (engine.Options.Reuse nil), as
	// engine run does: slower, and the report is the same byte for byte,
	// which the equivalence tests check.
	EvaluateEveryTick bool
	// Notes go into the report as they are (Report.Notes).
	Notes []string
	// Safety is the safety file the orders go through, as engine run
	// --safety: its limits refuse orders and its protections trip halts
	// (Report.Protections), kept in memory; a halt lifted only by hand
	// holds to the end of the run. Nil: no limits.
	Safety *actions.Safety
}

func (o *Options) defaults() error {
	if o.Scenario == nil {
		return errors.New("backtest: no scenario")
	}
	if o.Source == "" {
		o.Source = o.Scenario.Name
	}
	if o.APIKey == "" {
		if len(o.Scenario.Accounts) == 0 {
			return errors.New("backtest: the scenario has no account")
		}
		o.APIKey = o.Scenario.Accounts[0].APIKey
	}
	if o.From.IsZero() {
		o.From = o.Scenario.Clock.Start
	}
	if o.To.IsZero() {
		o.To = o.Scenario.Clock.End
		if o.To.IsZero() {
			o.To = o.From.Add(DefaultSpan)
		}
	}
	if !o.To.After(o.From) {
		return fmt.Errorf("backtest: the end %s is not after the start %s", stamp(o.To), stamp(o.From))
	}
	if o.From.Before(o.Scenario.Clock.Start) {
		return fmt.Errorf("backtest: the start %s is before the scenario's start %s", stamp(o.From), stamp(o.Scenario.Clock.Start))
	}
	if o.Step <= 0 {
		o.Step = time.Second
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = time.Minute
	}
	if o.Wall == nil {
		o.Wall = time.Now
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return nil
}

// Run runs the backtest and returns its report. It stops early, with the
// context's error, when ctx is cancelled.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r, err := newRunner(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// scenarioCatalog names the scenario as the source of the contracts, so
// that a rule naming a contract the scenario lacks is reported as missing
// from the scenario, not only as a mistake of the rule.
type scenarioCatalog struct {
	*sim.Account
	source string
}

// CatalogSource implements rules.CatalogSourcer.
func (c scenarioCatalog) CatalogSource() string { return c.source }

// runner is one backtest in progress.
type runner struct {
	opts  Options
	v     *clock.Virtual
	x     *sim.Exchange
	acct  *sim.Account
	asm   *assemble.Assembly
	rep   *Report
	smp   *sampler
	prog  *progress
	ticks int64
	count map[string]*RuleSummary
	// sim is the source of States made for the simulator; nil when the
	// account is read as a live venue is, by the live poller (asm.Poller).
	sim *simulatorSource
	// everyTick runs every tick, skipping none (skipQuietTicks): set by
	// tests that compare both ways. skippedTicks counts the ticks
	// skipQuietTicks skipped.
	everyTick    bool
	skippedTicks int64
}

func newRunner(ctx context.Context, opts Options) (*runner, error) {
	v := clock.NewVirtual(opts.From)
	x, err := sim.New(opts.Scenario, sim.Options{Clock: v, Market: opts.Market, Logger: opts.Logger.Named("sim")})
	if err != nil {
		return nil, err
	}
	acct, ok := x.Account(opts.APIKey)
	if !ok {
		return nil, fmt.Errorf("backtest: the scenario has no account with the api key given")
	}
	r := &runner{opts: opts, v: v, x: x, acct: acct, count: map[string]*RuleSummary{},
		rep: &Report{Version: ReportVersion, Source: opts.Source, From: stamp(opts.From), To: stamp(opts.To), Step: opts.Step.String(),
			Firings: []Firing{}, Orders: []Order{}, Fills: []Fill{}, Positions: []PositionsAt{}, Equity: []EquityPoint{},
			Prices: []PriceSeries{}, Sessions: []SessionBand{}, Notes: opts.Notes}}
	// The account is read by the live poller, as a live exchange is read
	// (textReader), when every State is to be built afresh, or when its
	// market has no books in numbers (a recording); else by the source
	// made for the simulator. The reports of both ways are compared in
	// tests.
	var reader poll.Reader = textReader{acct}
	var newSource func(poll.Options) (assemble.PolledSource, error) // nil: the live poller
	if acct.HasBookNumbers() && !opts.EvaluateEveryTick {
		reader = newNumericReader(acct)
		newSource = func(o poll.Options) (assemble.PolledSource, error) {
			src, err := newSimulatorSource(o)
			if err != nil {
				return nil, err
			}
			r.sim = src
			return src, nil
		}
	}
	// The backtest's speed-ups: conditions compiled to Go closures, results
	// reused while what they read is the same, States sharing their data
	// (the source above) and leaps over quiet seconds. EvaluateEveryTick
	// runs as engine run does, without any of them.
	var closures rules.ClosureCompiler
	if !opts.EvaluateEveryTick {
		closures = native.NewCompiler()
	}
	var cat rules.CatalogReader = acct
	if opts.Scenario.Source != "" {
		cat = scenarioCatalog{acct, "the scenario " + opts.Scenario.Source}
	}
	r.asm, err = assemble.New(ctx, assemble.Options{Reader: reader, Catalog: cat, Accounts: acct, Trader: acct, Pricer: acct,
		Clock: waitingClock{v}, Logger: opts.Logger, RuleDirs: opts.RuleDirs, Getenv: opts.Getenv, NewSource: newSource, Closures: closures,
		Safety: opts.Safety, OnHalt: r.onHalt,
		// A State may be built every tick from the same answers: parse
		// each fetched book and list of fills once.
		Poller: poll.Options{Build: marketdata.BuildOptions{Parsed: marketdata.NewParseCache()}}},
		engineOptions(opts.Step, r.onFiring, opts.EvaluateEveryTick))
	if err != nil {
		return nil, fmt.Errorf("backtest: %w", err)
	}
	for _, rule := range r.asm.Rules.Rules {
		r.count[rule.Name] = &RuleSummary{Rule: rule.Name}
	}
	r.smp = newSampler(acct, r.asm.Catalog, assemble.FuturesSymbols(r.asm.Rules), expectedSamples(opts))
	r.prog = &progress{w: opts.Progress, wall: opts.Wall, from: opts.From, to: opts.To}
	return r, nil
}

// expectedSamples is about how many samples a run takes: one every
// SampleEvery, or every tick when the step is longer, and the last at To.
func expectedSamples(opts Options) int {
	return int(opts.To.Sub(opts.From)/max(opts.Step, opts.SampleEvery)) + 2
}

// run steps the engine from From to To, sampling as it goes, then collects
// the orders and fills and sums up.
func (r *runner) run(ctx context.Context) (*Report, error) {
	r.prog.start()
	nextSample := r.opts.From
	// The pollers' requests yield to orders; made once, not every tick.
	pollCtx := exchange.WithPriority(ctx, exchange.PriorityLow)
	for t := r.opts.From; !t.After(r.opts.To); t = t.Add(r.opts.Step) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.v.Set(t)
		// A failed poll keeps the previous answer, which ages into
		// staleness; the engine then reports the rule as stale, as live.
		_ = r.pollDue(pollCtx)
		// Sampled before the step: the first sample is the account as the
		// run found it, before any order of the rules.
		if !t.Before(nextSample) {
			if err := r.smp.sample(ctx, t); err != nil {
				return nil, err
			}
			nextSample = nextSample.Add(r.opts.SampleEvery)
		}
		r.asm.Engine.Step(ctx, t)
		r.ticks++
		// A tick that waited (the look-up of a modified order) moved the
		// clock on: the ticks it took are not run, as a live engine's tick
		// loop would have run them later, on newer data.
		for t.Add(r.opts.Step).Before(r.v.Now()) && t.Add(r.opts.Step).Before(r.opts.To) {
			t = t.Add(r.opts.Step)
		}
		t = r.skipQuietTicks(t, nextSample)
		r.prog.report(t)
	}
	if last := r.smp.last(); last.Before(r.opts.To) {
		if err := r.smp.sample(ctx, r.opts.To); err != nil {
			return nil, err
		}
	}
	r.prog.done()
	return r.finish(ctx)
}

// pollDue polls what is due at the clock's time.
func (r *runner) pollDue(ctx context.Context) error {
	if r.sim != nil {
		return r.sim.PollDue(ctx)
	}
	return r.asm.Poller.PollDue(ctx)
}

// skipQuietTicks skips the ticks after t that cannot differ from it: every rule's
// tick at t repeats while the data it reads and the session stay the same
// (quiet, in a cooldown, holding for its for:, failing on missing data),
// and the source knows that they do until some time
// (simulatorSource.QuietUntil: the simulator's next price step, the next
// poll it does not cover, the end of the session's segment). Those ticks are recorded as the
// engine would record them (Engine.SkipQuiet), not run; the next sample is
// always run. It returns the last tick skipped, or t.
func (r *runner) skipQuietTicks(t, nextSample time.Time) time.Time {
	if r.everyTick || r.sim == nil {
		return t
	}
	until := r.sim.QuietUntil(t)
	if until.IsZero() {
		return t
	}
	if nextSample.Before(until) {
		until = nextSample
	}
	// The ticks t + k*step, k >= 1, before until and not after To.
	step := r.opts.Step
	n := int64((until.Sub(t) - 1) / step)
	n = min(n, int64(r.opts.To.Sub(t)/step))
	if n <= 0 {
		return t
	}
	n = r.asm.Engine.SkipQuiet(t, step, n)
	r.ticks += n
	r.skippedTicks += n
	return t.Add(time.Duration(n) * step)
}

// waitingClock is the backtest's virtual clock as the engine and its
// dispatcher see it: a wait moves the clock on by its duration. A tick runs
// to its end before the next one starts, so nothing else would ever move
// the clock while the dispatcher waits, for instance to look up a modified
// order by its new client order id a second later, as it does on the
// venue; without this the backtest stopped there for good.
type waitingClock struct{ v *clock.Virtual }

// Now returns the virtual clock's time.
func (c waitingClock) Now() time.Time { return c.v.Now() }

// After moves the virtual clock on by d and returns its channel, fired.
func (c waitingClock) After(d time.Duration) <-chan time.Time {
	ch := c.v.After(d)
	c.v.Advance(d)
	return ch
}

// onHalt records a protection of the safety file that tripped.
func (r *runner) onHalt(h actions.Halt) {
	p := ProtectionTrip{Time: stamp(h.At), Protection: h.Protection, Reason: h.Reason}
	if !h.Until.IsZero() {
		p.Until = stamp(h.Until)
	}
	r.rep.Protections = append(r.rep.Protections, p)
}

// onFiring records one firing with its legs.
func (r *runner) onFiring(f *engine.Firing) {
	fr := Firing{Time: stamp(f.At), Rule: f.Rule.Name, Trace: traceValues(f.Trace.Values), Actions: make([]Action, 0, len(f.Legs))}
	c := r.count[f.Rule.Name]
	if c == nil { // not in the loaded set (a backtest never reloads): counted all the same
		c = &RuleSummary{Rule: f.Rule.Name}
		r.count[f.Rule.Name] = c
	}
	c.Firings++
	for _, l := range f.Legs {
		// report.json holds the exact JSON body sent (null for a message).
		a := Action{Kind: l.Kind, Request: actions.RequestJSON(l.Request), Outcome: string(l.Outcome), OrderIDs: l.OrderIDs, Error: l.Error, Note: l.Note}
		if a.OrderIDs == nil {
			a.OrderIDs = []string{}
		}
		if l.Outcome != actions.OK {
			c.Errors++
		}
		fr.Actions = append(fr.Actions, a)
	}
	r.rep.Firings = append(r.rep.Firings, fr)
}

// finish reads the orders and fills from the simulated account and writes
// the summary.
func (r *runner) finish(ctx context.Context) (*Report, error) {
	rep := r.rep
	rep.Ticks = r.ticks
	var err error
	if rep.Orders, err = readOrders(ctx, r.acct); err != nil {
		return nil, err
	}
	if rep.Fills, err = readFills(ctx, r.acct); err != nil {
		return nil, err
	}
	r.smp.fill(rep)
	if err := r.smp.closingBalances(ctx); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(r.count))
	for n := range r.count {
		names = append(names, n)
	}
	slices.Sort(names)
	rep.Summary.Rules = make([]RuleSummary, 0, len(names))
	for _, n := range names {
		rep.Summary.Rules = append(rep.Summary.Rules, *r.count[n])
	}
	rep.Summary.Orders, rep.Summary.Fills = len(rep.Orders), len(rep.Fills)
	rep.Summary.Accounts = r.smp.accountSummaries(rep.Fills, r.asm.Catalog)
	ruleFigures(rep)
	return rep, nil
}

// traceValues copies the trace values of a firing for JSON: a float that is
// not finite (JSON has no NaN) becomes its text.
func traceValues(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = jsonSafe(v)
	}
	return out
}

func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
	case float32:
		return jsonSafe(float64(x))
	case map[string]any:
		return traceValues(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	}
	return v
}

// engineOptions are the engine's options for a backtest ticking every
// step: with the backtest's condition-result reuse (package reuse) unless
// everyTick asks for what engine run does.
func engineOptions(step time.Duration, onFiring func(*engine.Firing), everyTick bool) engine.Options {
	o := engine.Options{Tick: step, OnFiring: onFiring}
	if !everyTick {
		o.Reuse = reuse.Results{}
	}
	return o
}
