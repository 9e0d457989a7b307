package ruletest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
)

// Options configure a run of rule tests.
type Options struct {
	// Run, when set, selects the tests whose names it matches.
	Run *regexp.Regexp
	// Logger receives the engine's and the actions' logs (default: none;
	// a test's outcome is its report).
	Logger *zap.Logger
	// Getenv is the environment: a ${NAME} the test file's env: does not
	// list is read from it, as engine run reads every ${NAME} (nil: none).
	Getenv func(string) string
}

// FileResult is the outcome of one test file.
type FileResult struct {
	Path string
	// Errors are the findings that stopped the file from running: a bad
	// test file, or rule files that do not load.
	Errors rulefmt.Errors
	Tests  []TestResult
}

// TestResult is the outcome of one test.
type TestResult struct {
	Name string
	// Failures say, one sentence each, what differed from the expectation.
	Failures []string
	Elapsed  time.Duration
}

// Passed reports whether the test met every expectation.
func (r TestResult) Passed() bool { return len(r.Failures) == 0 }

// Failed reports whether the file did not load or any of its tests failed.
func (r FileResult) Failed() bool {
	if r.Errors.HasErrors() {
		return true
	}
	for _, t := range r.Tests {
		if !t.Passed() {
			return true
		}
	}
	return false
}

// RunDir runs every test file under path (see Find).
func RunDir(ctx context.Context, path string, opts Options) ([]FileResult, error) {
	files, err := Find(path)
	if err != nil {
		return nil, fmt.Errorf("find rule tests in %s: %w", path, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no rule tests (*_test.yaml) in %s", path)
	}
	out := make([]FileResult, 0, len(files))
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, RunFile(ctx, f, opts))
	}
	return out, nil
}

// RunFile loads and runs one test file.
func RunFile(ctx context.Context, path string, opts Options) FileResult {
	res := FileResult{Path: path}
	f, errs := LoadFile(path)
	if errs != nil {
		res.Errors = errs
		return res
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	fx, errs := prepare(ctx, f, opts.Getenv)
	if errs != nil {
		res.Errors = errs
		return res
	}
	for _, t := range f.Tests {
		if opts.Run != nil && !opts.Run.MatchString(t.Name) {
			continue
		}
		start := time.Now()
		tr := fx.run(ctx, t, opts.Logger)
		tr.Elapsed = time.Since(start)
		res.Tests = append(res.Tests, tr)
	}
	return res
}

// fixture is what every test of a file shares: the loaded rules and the
// scenario's catalog and calendar.
type fixture struct {
	file   *File
	rs     *rules.RuleSet
	cat    *rules.Catalog
	states []exchange.MarketState
	cal    exchange.Calendar
	tick   time.Duration
	// accounts are the scenario's accounts by uid, read at then, the
	// scenario's start, for tests that start from one.
	accounts map[string]accountReader
	then     time.Time
}

func fileError(path, msg string) rulefmt.Errors {
	return rulefmt.Errors{{File: path, Severity: rulefmt.SeverityError, Message: msg}}
}

func prepare(ctx context.Context, f *File, environ func(string) string) (*fixture, rulefmt.Errors) {
	dir := filepath.Dir(f.Path)
	sc := sim.Demo()
	if f.Scenario != "" {
		var err error
		if sc, err = sim.LoadScenario(filepath.Join(dir, f.Scenario)); err != nil {
			return nil, fileError(f.Path, fmt.Sprintf("scenario %s: %v", f.Scenario, err))
		}
	}
	x, err := sim.New(sc, sim.Options{Clock: clock.NewVirtual(sc.Clock.Start)})
	if err != nil {
		return nil, fileError(f.Path, fmt.Sprintf("scenario: %v", err))
	}
	accts := x.Accounts()
	if len(accts) == 0 {
		return nil, fileError(f.Path, "scenario: it has no account to read the contracts with")
	}
	cat, err := rules.FetchCatalog(ctx, accts[0])
	if err != nil {
		return nil, fileError(f.Path, fmt.Sprintf("scenario catalog: %v", err))
	}
	if f.Scenario != "" {
		// A symbol the rules name that the scenario lacks is the
		// scenario's to add.
		cat.Source = "the scenario " + f.Scenario
	}
	fx := &fixture{file: f, cat: cat, tick: f.Tick.D, accounts: map[string]accountReader{}, then: sc.Clock.Start}
	for _, a := range accts {
		fx.accounts[a.UID()] = a
	}
	if fx.tick <= 0 {
		fx.tick = time.Second
	}
	if fx.states, err = x.Public().MarketStates(ctx); err == nil {
		fx.cal, err = x.Public().MarketCalendar(ctx)
	}
	if err != nil {
		return nil, fileError(f.Path, fmt.Sprintf("scenario calendar: %v", err))
	}
	paths, err := ruleFilesOf(f)
	if err != nil {
		return nil, fileError(f.Path, err.Error())
	}
	// The test file's env: wins: it is what makes a test the same on every
	// machine. A name it does not list comes from the environment, so that
	// the export that serves engine run and engine backtest serves the
	// rule tests too.
	getenv := func(name string) string {
		if v, ok := f.Env[name]; ok {
			return v
		}
		if environ != nil {
			return environ(name)
		}
		return ""
	}
	rs, errs := rules.Load(ctx, paths, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat, Getenv: getenv,
		EnvAlso: "list it under env: in " + filepath.Base(f.Path)})
	if rs == nil {
		return nil, errs
	}
	fx.rs = rs
	return fx, nil
}

// ruleFilesOf lists the rule files a test file names, or those beside it.
func ruleFilesOf(f *File) ([]string, error) {
	dir := filepath.Dir(f.Path)
	if len(f.RuleFiles) > 0 {
		out := make([]string, len(f.RuleFiles))
		for i, p := range f.RuleFiles {
			out[i] = filepath.Join(dir, p)
			if _, err := os.Stat(out[i]); err != nil {
				return nil, fmt.Errorf("rule_files: %w", err)
			}
		}
		return out, nil
	}
	all, err := rules.RuleFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range all {
		if filepath.Dir(p) == filepath.Clean(dir) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule files beside the test file in %s; name them in the test's rule_files", dir)
	}
	return out, nil
}

// actual is one firing seen in a test.
type actual struct {
	at   time.Time
	legs []actions.Leg
}

// probe is why a rule did not fire at a time an expectation names.
type probe struct {
	reason string
}

// source builds the State of each tick from the world.
type source struct {
	w    *world
	last *marketdata.State
}

func (s *source) State(now time.Time) (*marketdata.State, error) {
	in, err := s.w.input(now)
	if err != nil {
		s.last = nil
		return nil, err
	}
	st, err := marketdata.NewState(in, marketdata.BuildOptions{})
	s.last = st
	return st, err
}

func (s *source) FullyPolled() bool { return true }

func (s *source) Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	for _, p := range parts.Parts() {
		if !st.Fetched(p) {
			return p, true
		}
	}
	return 0, false
}

// run runs one test and compares what happened with what was expected.
func (fx *fixture) run(ctx context.Context, t *Test, log *zap.Logger) TestResult {
	res := TestResult{Name: t.Name}
	fail := func(format string, args ...any) { res.Failures = append(res.Failures, fmt.Sprintf(format, args...)) }
	for _, e := range t.Expect {
		if _, ok := fx.rs.Rule(e.Rule); !ok {
			fail("%s:%s: %s", fx.file.Path, where(e.line, e.column), fx.unknownRule(e.Rule))
		}
	}
	for name, f := range t.Fired {
		if _, ok := fx.rs.Rule(name); !ok {
			fail("%s:%s: fired: %s", fx.file.Path, where(f.line, f.column), fx.unknownRule(name))
		}
	}
	if len(res.Failures) > 0 {
		return res
	}
	w := newWorld(fx.cat, fx.states, fx.cal)
	if uid := t.State.Account; uid != "" {
		if err := fx.startFromAccount(ctx, w, uid, t.Start.T); err != nil {
			fail("%s: state: account %s: %v", fx.file.Path, uid, err)
			return res
		}
	}
	if err := w.apply(&t.State, t.Start.T); err != nil {
		fail("%s: state: %v", fx.file.Path, err)
		return res
	}
	if msg := w.modeMismatch(fx.rs); msg != "" {
		fail("%s: state: %s", fx.file.Path, msg)
		return res
	}
	v := clock.NewVirtual(t.Start.T)
	src := &source{w: w}
	// A guard without limits: a rule's halt stops the others' entries here
	// as in engine run.
	guard := actions.NewGuard(actions.GuardOptions{Now: v.Now})
	d := actions.NewDispatcher(actions.DispatcherOptions{Venue: &recorder{now: v.Now}, Guard: guard, Clock: instantWaits{now: v.Now}, Logger: log})
	x := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: fx.cat, Modes: w.modes, Logger: log})
	eng, err := engine.New(engine.Options{Rules: fx.rs, Source: src, Executor: engine.ActionsExecutor{X: x},
		Clock: v, Logger: log, TraceDepth: 1, Tick: fx.tick, States: priorFirings(t), Modifications: priorModifications(t)})
	if err != nil {
		fail("engine: %v", err)
		return res
	}
	// The times at which a rule is expected to fire are where the report
	// must say why it did not.
	probeAt := map[string]map[time.Time]*probe{}
	for _, e := range t.Expect {
		for _, fi := range e.Fires {
			if probeAt[e.Rule] == nil {
				probeAt[e.Rule] = map[time.Time]*probe{}
			}
			probeAt[e.Rule][fi.At.T] = nil
		}
	}
	fired := map[string][]actual{}
	next := 0
	for now := t.Start.T; !now.After(t.End.T); now = now.Add(fx.tick) {
		if err := ctx.Err(); err != nil {
			fail("stopped: %v", err)
			return res
		}
		for next < len(t.Changes) && !t.Changes[next].At.T.After(now) {
			c := t.Changes[next]
			if err := w.apply(&c.State, c.At.T); err != nil {
				fail("%s: change at %s: %v", fx.file.Path, c.At.Text, err)
				return res
			}
			next++
		}
		v.Set(now)
		for _, f := range eng.Step(ctx, now) {
			fired[f.Rule.Name] = append(fired[f.Rule.Name], actual{at: f.At, legs: f.Legs})
		}
		for rule, at := range probeAt {
			if _, ok := at[now]; ok {
				at[now] = fx.probe(eng, rule, src.last)
			}
		}
	}
	for _, e := range t.Expect {
		c := comparison{t: t, e: e, fired: fired[e.Rule], probes: probeAt[e.Rule], tick: fx.tick}
		res.Failures = append(res.Failures, c.diff()...)
	}
	return res
}

// startFromAccount gives w the state of the scenario account uid.
func (fx *fixture) startFromAccount(ctx context.Context, w *world, uid string, start time.Time) error {
	r, ok := fx.accounts[uid]
	if !ok {
		uids := sortedKeys(fx.accounts)
		return fmt.Errorf("the scenario has no account with this uid (it has %s)", strings.Join(uids, ", "))
	}
	a, err := readAccount(ctx, r, fx.then)
	if err != nil {
		return err
	}
	return w.applyAccount(a, start)
}

// probe says why rule did not fire on the tick just stepped: the engine's
// reason, and for a false condition the values it read.
func (fx *fixture) probe(eng *engine.Engine, rule string, st *marketdata.State) *probe {
	trs := eng.Traces(rule)
	if len(trs) == 0 {
		return &probe{reason: "it was not evaluated"}
	}
	tr := trs[len(trs)-1]
	why := string(tr.Reason)
	if tr.Detail != "" {
		why += ": " + tr.Detail
	}
	if tr.Reason == engine.ReasonFalse && st != nil {
		r, _ := fx.rs.Rule(rule)
		if vals := r.Condition.Explain(rules.NewVM(), rules.NewEnv(st)); len(vals) > 0 {
			why += "; " + describeValues(vals)
		}
	}
	return &probe{reason: why}
}

// describeValues lists what a condition read, in the words of the rule.
func describeValues(vals map[string]any) string {
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		switch v := vals[k].(type) {
		case string:
			parts[i] = fmt.Sprintf("%s was %q", k, v)
		case float64:
			parts[i] = fmt.Sprintf("%s was %.6g", k, v)
		case bool, nil:
			parts[i] = fmt.Sprintf("%s was %v", k, v)
		default:
			// An object or list the term gives whole, as JSON in the rule
			// language's field names: %v would print Go pointers.
			b, err := json.Marshal(v)
			if err != nil {
				parts[i] = fmt.Sprintf("%s was %v", k, v)
				continue
			}
			parts[i] = fmt.Sprintf("%s was %s", k, b)
		}
	}
	return strings.Join(parts, ", ")
}

// priorModifications are the counts of moves of the orders the test's
// state gives with modifications, by client order id.
func priorModifications(t *Test) map[string]engine.Modification {
	var out map[string]engine.Modification
	for i, o := range t.State.Orders {
		if o.Modifications > 0 {
			if out == nil {
				out = map[string]engine.Modification{}
			}
			out[orderClientOID(o, i)] = engine.Modification{Count: o.Modifications, At: t.Start.T}
		}
	}
	return out
}

// priorFirings are the rule states a test's fired: gives: each rule in its
// cooldown from its last firing, as after that firing.
func priorFirings(t *Test) map[string]engine.RuleState {
	if len(t.Fired) == 0 {
		return nil
	}
	out := make(map[string]engine.RuleState, len(t.Fired))
	for name, f := range t.Fired {
		st := engine.RuleState{Phase: engine.PhaseCooldown, Since: f.Last.T, LastFired: f.Last.T, Firings: int64(max(f.Today, 1))}
		if f.Today > 0 {
			st.FiringsDay, st.FiringsToday = f.Last.T.In(eastern).Format(time.DateOnly), f.Today
		}
		out[name] = st
	}
	return out
}

// unknownRule explains an expectation for a rule that is not loaded.
func (fx *fixture) unknownRule(name string) string {
	var names []string
	for _, r := range fx.rs.Rules {
		names = append(names, r.Name)
		if strings.HasPrefix(r.Name, name+"[") {
			return fmt.Sprintf("rule %s runs once per symbol; name one instance, like %s", name, r.Name)
		}
	}
	msg := fmt.Sprintf("no rule named %s in the rule files under test", name)
	if s := rulefmt.Suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg
}
