package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// The parity matrix (issue 15, item 1): the rules under
// testdata/parity/rules run on the demo scenario four ways, and every way
// must fire the same rules with the same actions and key parameters, at
// times within one poll interval of the backtest's.
const (
	parityRuleDir = "testdata/parity/rules"
	paritySpan    = 7 * time.Minute
	parityTick    = time.Second
	// parityTolerance is how far a firing's time may be from the
	// backtest's: one poll interval of the fastest parts (books,
	// positions, orders).
	parityTolerance = time.Second
	// paritySyncEvery is how often ways (c) and (d) ask the venue's time,
	// as venueClock does (venueSyncEvery).
	paritySyncEvery = venueSyncEvery
	// parityStepBound bounds the wall time of one tick: a tick that waits
	// on a clock nobody moves fails the test instead of hanging it.
	parityStepBound = time.Minute
)

// parityStart is 09:29 New York on the demo scenario's Monday: a minute of
// pre-market, then the open of the regular session.
var parityStart = time.Date(2026, 3, 9, 9, 29, 0, 0, clock.NewYork())

// parityAccounts are the demo scenario's accounts the matrix trades, one
// in one-way mode, one in hedge mode, each with its golden file
// testdata/parity/firings-NAME.golden. The coverage check reads the first:
// the hedge account has no spot records, so one rule of the matrix fires
// only on the first.
var parityAccounts = []struct {
	name  string
	creds exchange.Credentials
}{
	{"one-way", exchange.Credentials{APIKey: "demo-key", Secret: "demo-secret", Passphrase: "demo-passphrase"}},
	{"hedge", exchange.Credentials{APIKey: "demo-hedge-key", Secret: "demo-hedge-secret", Passphrase: "demo-hedge-passphrase"}},
}

// parityLeg is what the matrix compares of one action of a firing: its
// kind, its outcome and its request with the ids left out (order ids and
// client order ids are made by each venue and each account, so they differ
// between the simulator and a paper account; everything else must not).
type parityLeg struct {
	Kind    string
	Outcome string
	Params  string
	Note    string
}

// parityFiring is one firing of one way.
type parityFiring struct {
	At   time.Time
	Rule string
	Legs []parityLeg
}

func (f parityFiring) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", f.At.In(clock.NewYork()).Format("15:04:05"), f.Rule)
	for _, l := range f.Legs {
		fmt.Fprintf(&b, "\n    %s %s %s", l.Kind, l.Outcome, l.Params)
		if l.Note != "" {
			fmt.Fprintf(&b, " (%s)", l.Note)
		}
	}
	return b.String()
}

// idKey matches the request fields that carry ids chosen by the venue or
// the account (orderId, clientOid, newClientOid, orderIdList, ...).
var idKey = regexp.MustCompile(`(?i)(oid|orderid)`)

// keyParams returns the request without its ids, as canonical JSON (map
// keys sorted by encoding/json).
func keyParams(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("request %s: %v", raw, err)
	}
	out, err := json.Marshal(dropIDs(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func dropIDs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !idKey.MatchString(k) {
				out[k] = dropIDs(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = dropIDs(e)
		}
		return out
	}
	return v
}

// firingOf turns an engine firing into the matrix's form.
func firingOf(t *testing.T, f *engine.Firing) parityFiring {
	pf := parityFiring{At: f.At, Rule: f.Rule.Name}
	for _, l := range f.Legs {
		pf.Legs = append(pf.Legs, legOf(t, l.Kind, string(l.Outcome), actions.RequestJSON(l.Request), l.Note))
	}
	return pf
}

func legOf(t *testing.T, kind, outcome string, req json.RawMessage, note string) parityLeg {
	return parityLeg{Kind: kind, Outcome: outcome, Params: keyParams(t, req), Note: note}
}

// parityBacktest is way (a): package backtest on the demo scenario.
func parityBacktest(t *testing.T, ctx context.Context, creds exchange.Credentials) []parityFiring {
	rep, err := backtest.Run(ctx, backtest.Options{Scenario: sim.Demo(), APIKey: creds.APIKey, RuleDirs: []string{parityRuleDir},
		From: parityStart, To: parityStart.Add(paritySpan), Step: parityTick})
	if err != nil {
		t.Fatalf("backtest: %v", err)
	}
	var out []parityFiring
	for _, f := range rep.Firings {
		at, err := time.Parse(time.RFC3339Nano, f.Time)
		if err != nil {
			t.Fatalf("backtest firing time %q: %v", f.Time, err)
		}
		pf := parityFiring{At: at, Rule: f.Rule}
		for _, a := range f.Actions {
			pf.Legs = append(pf.Legs, legOf(t, a.Kind, a.Outcome, a.Request, a.Note))
		}
		out = append(out, pf)
	}
	return out
}

// parityClocks are the clocks of one way: the venue's market clock, the
// local clock (requests are signed and waited on with it) and the clock
// the engine reads. The embedded simulator has one clock for all three.
type parityClocks struct {
	venue  *clock.Virtual
	local  *clock.Virtual
	engine engine.Clock
	// sync asks the venue's time and gives it to the engine's clock (nil:
	// the engine reads the venue's clock itself).
	sync func(ctx context.Context)
}

// set moves the clocks to venue time at; the local clock keeps its own
// date, the same distance from its start.
func (c *parityClocks) set(at time.Time) {
	if c.local != c.venue {
		c.local.Advance(at.Sub(c.venue.Now()))
	}
	c.venue.Set(at)
}

// parityEmbedded is way (b): engine run on the embedded simulator, its
// venueSet as embeddedDemo makes it but on a virtual clock.
func parityEmbedded(t *testing.T, _ context.Context, creds exchange.Credentials) (*venueSet, *parityClocks) {
	v := clock.NewVirtual(parityStart)
	x, err := sim.New(sim.Demo(), sim.Options{Clock: v})
	if err != nil {
		t.Fatal(err)
	}
	acct, ok := x.Account(creds.APIKey)
	if !ok {
		t.Fatalf("no account %s", creds.APIKey)
	}
	return &venueSet{name: "embedded demo", reader: acct, cat: acct, accts: acct, trader: acct, pricer: acct, clock: v, close: func() {}},
		&parityClocks{venue: v, local: v, engine: v}
}

// parityServedSim is engine sim on a virtual market clock, served on a
// loopback port, with the local clock it checks signatures against, and
// the engine's clock following the venue's time as venueClock does: the
// time endpoint's answer, read by timeProbe, given to a clock.Venue over
// the local clock.
func parityServedSim(t *testing.T, ctx context.Context) (string, *parityClocks) {
	v := clock.NewVirtual(parityStart)
	// The local clock is another day and hour: the engine must read the
	// venue's time, never its own.
	local := clock.NewVirtual(time.Date(2026, 11, 25, 17, 3, 0, 0, time.UTC))
	x, err := sim.New(sim.Demo(), sim.Options{Clock: v})
	if err != nil {
		t.Fatal(err)
	}
	// Rate limits are off: on virtual clocks that stand still within a
	// tick, the per-second buckets would refuse a tick's polls.
	srv := httptest.NewServer(server.New(server.Options{Backend: server.SimBackend(x), Clock: v, AuthClock: local, DisableRateLimits: true}))
	t.Cleanup(srv.Close)
	vc := clock.NewVenue(local)
	probe := newTimeProbe(srv.URL)
	c := &parityClocks{venue: v, local: local, engine: vc}
	c.sync = func(ctx context.Context) {
		sent := local.Now()
		at, err := probe.ServerTime(ctx)
		if err != nil {
			t.Fatalf("venue time: %v", err)
		}
		vc.Observe(at, sent, local.Now())
	}
	c.sync(ctx)
	return srv.URL, c
}

// parityClientOptions are the client options openVenue makes for a URL,
// on the local virtual clock and without the client-side rate limiter
// (the server's limits are off too).
func parityClientOptions(url string, creds exchange.Credentials, c *parityClocks) exchange.ClientOptions {
	return exchange.ClientOptions{BaseURL: url, Credentials: creds, Clock: c.local}
}

// parityVenue is way (c): engine run --venue URL against engine sim, the
// venueSet openVenue makes for a URL.
func parityVenue(t *testing.T, ctx context.Context, creds exchange.Credentials) (*venueSet, *parityClocks) {
	url, c := parityServedSim(t, ctx)
	client, err := exchange.NewClient(parityClientOptions(url, creds, c))
	if err != nil {
		t.Fatal(err)
	}
	return &venueSet{name: url, reader: client, cat: client, accts: client, trader: client, pricer: client, clock: c.engine, close: func() {}}, c
}

// parityDryRun is way (d): engine run --venue URL --dry-run against engine
// sim, the venueSet of dryRunVenue itself.
func parityDryRun(t *testing.T, ctx context.Context, creds exchange.Credentials) (*venueSet, *parityClocks) {
	url, c := parityServedSim(t, ctx)
	v, err := dryRunVenue(ctx, parityClientOptions(url, creds, c), c.engine, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

// runParityWay assembles the engine on v with runEngine's assembleRun
// (state directory and journal as openState opens them, the engine options
// runEngine gives) and steps it over the
// matrix's span: at every tick the clocks move, the venue's time is asked
// as often as venueClock asks it, the pollers poll what is due, and the
// engine runs one tick at its clock's time. The ticks run in order, so
// the run is deterministic; the poller and the engine of engine run do the
// same work concurrently.
func runParityWay(t *testing.T, ctx context.Context, v *venueSet, c *parityClocks) []parityFiring {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	v.stateDir = t.TempDir()
	clk := &parityEngineClock{Clock: v.clock}
	v.clock = clk
	env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	st, code := openState(env, v)
	if st == nil {
		t.Fatalf("open state (exit %d): %s", code, env.stderr)
	}
	defer st.lock.Unlock()
	var mu sync.Mutex
	var out []parityFiring
	eopts := engine.Options{Tick: parityTick, SettleOffLoop: true, StateTimeout: 30 * time.Second, // as runEngine
		OnFiring: func(f *engine.Firing) {
			mu.Lock()
			defer mu.Unlock()
			out = append(out, firingOf(t, f))
		}}
	cfg := &runConfig{rules: []string{parityRuleDir}, tick: parityTick, stateTimeout: 30 * time.Second}
	asm, err := assembleRun(ctx, env, cfg, v, st, nil, poll.Options{}, eopts, nil, zap.NewNop())
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	if v.start != nil {
		if err := v.start(ctx, assemble.FuturesSymbols(asm.Rules)); err != nil {
			t.Fatal(err)
		}
	}
	nextSync := parityStart.Add(paritySyncEvery)
	for at := parityStart; !at.After(parityStart.Add(paritySpan)); at = at.Add(parityTick) {
		c.set(at)
		if c.sync != nil && !at.Before(nextSync) {
			c.sync(ctx)
			nextSync = nextSync.Add(paritySyncEvery)
		}
		clk.fire(c.engine.Now())
		clk.quiesce(t, asm.Engine, at)
		_ = asm.Poller.PollDue(ctx) // as Poller.Run: a failed part ages into staleness
		now := c.engine.Now()
		if !now.Equal(at) {
			t.Fatalf("the engine reads %v at the venue's %v", now, at)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			asm.Engine.Step(ctx, now)
		}()
		select {
		case <-done:
		case <-time.After(parityStepBound):
			t.Fatalf("the tick at %v did not end within %v", at, parityStepBound)
		}
		clk.quiesce(t, asm.Engine, at)
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(out)
}

// parityEngineClock is the clock the engine of a way reads: the way's
// engine clock for the time, and waits that the stepper fires when it
// moves the clocks. Only the firings settled off the tick loop wait on it
// (a modified order is looked up by its new client order id a second
// later); counting those waits lets the stepper move the clocks only once
// each settling firing waits or is done, and go on only once the waits it
// fired have run, so that no tick depends on the scheduler.
type parityEngineClock struct {
	engine.Clock
	mu      sync.Mutex
	waits   []parityWait
	changed chan struct{} // closed and replaced whenever waits change
}

type parityWait struct {
	at time.Time
	ch chan time.Time
}

// After registers a wait of d, fired by fire.
func (c *parityEngineClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	at := c.Now().Add(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, parityWait{at: at, ch: ch})
	c.notify()
	return ch
}

// notify wakes whoever waits for a change; c.mu is held.
func (c *parityEngineClock) notify() {
	if c.changed != nil {
		close(c.changed)
	}
	c.changed = make(chan struct{})
}

// fire fires the waits due at now.
func (c *parityEngineClock) fire(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(now) {
			keep = append(keep, w)
			continue
		}
		w.ch <- now
	}
	c.waits = keep
	c.notify()
}

// pending returns the waits not fired yet and a channel closed at the
// next change.
func (c *parityEngineClock) pending() (int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return len(c.waits), c.changed
}

// quiesce waits until every firing the engine settles off the tick loop
// waits on the clock or is done.
func (c *parityEngineClock) quiesce(t *testing.T, eng *engine.Engine, at time.Time) {
	t.Helper()
	bound := time.After(parityStepBound)
	for {
		n, settled := eng.Settling()
		w, waited := c.pending()
		if w >= n {
			return
		}
		select {
		case <-settled:
		case <-waited:
		case <-bound:
			t.Fatalf("at %v, %d firings are settling and %d wait on the clock after %v", at, n, w, parityStepBound)
		}
	}
}

// TestParityMatrix runs the rule sets of testdata/parity/rules four ways
// over the same span of the demo scenario and compares their firings with
// the backtest's, which are kept in testdata/parity/firings-*.golden, for
// each of the demo scenario's accounts (one-way and hedge mode):
//
//	(a) backtest: package backtest, as engine backtest runs it;
//	(b) embedded: engine run on the embedded simulator;
//	(c) venue: engine run --venue URL against engine sim over HTTP;
//	(d) dry-run: engine run --venue URL --dry-run against it.
func TestParityMatrix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ways := []struct {
		name string
		open func(t *testing.T, ctx context.Context, creds exchange.Credentials) (*venueSet, *parityClocks)
	}{
		{"embedded", parityEmbedded},
		{"venue", parityVenue},
		{"dry-run", parityDryRun},
	}
	for i, acct := range parityAccounts {
		t.Run(acct.name, func(t *testing.T) {
			t.Parallel()
			ref := parityBacktest(t, ctx, acct.creds)
			var golden strings.Builder
			for _, f := range ref {
				golden.WriteString(f.String() + "\n")
			}
			compareGolden(t, filepath.Join("testdata", "parity", "firings-"+acct.name+".golden"), golden.String())
			if i == 0 {
				checkParityCoverage(t, ref)
			}
			for _, w := range ways {
				t.Run(w.name, func(t *testing.T) {
					t.Parallel()
					v, c := w.open(t, ctx, acct.creds)
					got := runParityWay(t, ctx, v, c)
					compareFirings(t, ref, got)
				})
			}
		})
	}
}

// compareFirings reports every difference between the backtest's firings
// and a way's, rule by rule: the same number of firings, each within
// parityTolerance of the backtest's, with the same legs.
func compareFirings(t errorReporter, want, got []parityFiring) {
	t.Helper()
	byRule := func(fs []parityFiring) map[string][]parityFiring {
		m := map[string][]parityFiring{}
		for _, f := range fs {
			m[f.Rule] = append(m[f.Rule], f)
		}
		return m
	}
	w, g := byRule(want), byRule(got)
	names := map[string]bool{}
	for n := range w {
		names[n] = true
	}
	for n := range g {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		wf, gf := w[n], g[n]
		if len(wf) != len(gf) {
			t.Errorf("%s fired %d times, the backtest %d times\n--- got\n%s\n--- backtest\n%s", n, len(gf), len(wf), joinFirings(gf), joinFirings(wf))
			continue
		}
		for i := range wf {
			d := gf[i].At.Sub(wf[i].At)
			if d < -parityTolerance || d > parityTolerance {
				t.Errorf("%s firing %d at %v, %v from the backtest's", n, i+1, gf[i].At.In(clock.NewYork()), d)
			}
			if !slices.Equal(gf[i].Legs, wf[i].Legs) {
				t.Errorf("%s firing %d differs from the backtest's\n--- got\n%s\n--- backtest\n%s", n, i+1, gf[i], wf[i])
			}
		}
	}
}

// errorReporter is what compareFirings reports to: a *testing.T, or a
// recorder in the test that shows it finds differences.
type errorReporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// differenceRecorder records what compareFirings reports.
type differenceRecorder struct{ errs []string }

func (r *differenceRecorder) Helper() {}

func (r *differenceRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCompareFiringsFindsDifferences shows that the matrix's comparison
// fails on each kind of difference it is there to catch, and passes a
// firing one poll interval late.
func TestCompareFiringsFindsDifferences(t *testing.T) {
	t.Parallel()
	at := parityStart.Add(time.Minute)
	buy := parityLeg{Kind: "place_order", Outcome: "ok", Params: `{"price":"174.24","side":"buy","size":"1","symbol":"NVDAUSDT"}`}
	ref := []parityFiring{{At: at, Rule: "r", Legs: []parityLeg{buy}}}
	with := func(f func(*parityFiring)) []parityFiring {
		c := parityFiring{At: at, Rule: "r", Legs: []parityLeg{buy}}
		f(&c)
		return []parityFiring{c}
	}
	leg := func(f func(*parityLeg)) func(*parityFiring) {
		return func(p *parityFiring) { f(&p.Legs[0]) }
	}
	tests := []struct {
		name string
		got  []parityFiring
		want string // a fragment of the report; empty: no difference
	}{
		{"same", with(func(*parityFiring) {}), ""},
		{"one poll interval late", with(func(p *parityFiring) { p.At = at.Add(parityTolerance) }), ""},
		{"later than a poll interval", with(func(p *parityFiring) { p.At = at.Add(parityTolerance + time.Millisecond) }), "from the backtest's"},
		{"missing", nil, "fired 0 times, the backtest 1 times"},
		{"twice", append(with(func(*parityFiring) {}), ref...), "fired 2 times"},
		{"another rule", with(func(p *parityFiring) { p.Rule = "other" }), "other fired 1 times, the backtest 0 times"},
		{"other price", with(leg(func(l *parityLeg) { l.Params = strings.Replace(l.Params, "174.24", "174.25", 1) })), "differs"},
		{"other kind", with(leg(func(l *parityLeg) { l.Kind = "batch_place" })), "differs"},
		{"refused", with(leg(func(l *parityLeg) { l.Outcome = "rejected" })), "differs"},
		{"no legs", with(func(p *parityFiring) { p.Legs = nil }), "differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r differenceRecorder
			compareFirings(&r, ref, tt.got)
			report := strings.Join(r.errs, "\n")
			if tt.want == "" && len(r.errs) > 0 {
				t.Errorf("reported a difference: %s", report)
			}
			if tt.want != "" && !strings.Contains(report, tt.want) {
				t.Errorf("report %q lacks %q", report, tt.want)
			}
		})
	}
}

// TestKeyParamsLeaveOutIDs shows which request fields the matrix leaves
// out: the ids a venue or an account makes, and nothing else.
func TestKeyParamsLeaveOutIDs(t *testing.T) {
	t.Parallel()
	got := keyParams(t, json.RawMessage(`{"symbol":"NVDAUSDT","orderId":"1","clientOid":"a","newClientOid":"b","size":"1",`+
		`"orderList":[{"clientOid":"c","price":"2"}],"orderIdList":[{"orderId":"3"}]}`))
	if want := `{"orderList":[{"price":"2"}],"size":"1","symbol":"NVDAUSDT"}`; got != want {
		t.Errorf("keyParams = %s, want %s", got, want)
	}
}

func joinFirings(fs []parityFiring) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// checkParityCoverage fails when the matrix leaves out a family of the
// State (a marketdata.Part), a helper function or variable of the rule
// language (the clock functions among them), or an action kind: each must
// be read or taken by a rule that fired in the backtest. A part, function,
// variable or action kind added later without a rule here fails this.
func checkParityCoverage(t *testing.T, fired []parityFiring) {
	t.Helper()
	cat, err := rules.FetchCatalog(context.Background(), parityCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	rs, errs := rules.Load(context.Background(), []string{parityRuleDir}, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
	if rs == nil {
		t.Fatalf("load %s: %v", parityRuleDir, errs)
	}
	firedRules := map[string]bool{}
	kinds := map[string]bool{}
	for _, f := range fired {
		firedRules[f.Rule] = true
		for _, l := range f.Legs {
			kinds[l.Kind] = true
		}
	}
	var parts marketdata.PartSet
	names := map[string]bool{}
	for _, r := range rs.Rules {
		if reason, gap := parityKnownGaps[r.Name]; gap {
			// Expected never to fire; if it fires, the gap is closed and
			// the rule must leave this table and count as coverage.
			if firedRules[r.Name] {
				t.Errorf("rule %s fired: the known gap %q is closed; remove it from parityKnownGaps", r.Name, reason)
			}
			continue
		}
		if !firedRules[r.Name] {
			t.Errorf("rule %s never fired in the backtest: it covers nothing", r.Name)
			continue
		}
		parts = parts.Union(r.Reads().Parts)
		for _, p := range r.Programs() {
			for n := range exprNames(t, p.Source) {
				names[n] = true
			}
		}
	}
	for name, reason := range parityKnownGaps {
		if _, ok := rs.Rule(name); !ok {
			t.Errorf("the known gap %s (%s) has no rule in %s", name, reason, parityRuleDir)
		}
		names[parityGapFunction[name]] = true
	}
	t.Run("state-families", func(t *testing.T) {
		for _, p := range marketdata.Parts() {
			if !parts.Has(p) {
				t.Errorf("no rule of the parity matrix that fired reads the State's %s part: add one to %s", p, parityRuleDir)
			}
		}
	})
	t.Run("functions-and-variables", func(t *testing.T) {
		for _, f := range rules.Functions() {
			if !names[f.Name] {
				t.Errorf("no rule of the parity matrix that fired calls %s(): add one to %s", f.Name, parityRuleDir)
			}
		}
		for _, v := range rules.Variables() {
			if !names[v.Name] {
				t.Errorf("no rule of the parity matrix that fired reads %s: add one to %s", v.Name, parityRuleDir)
			}
		}
	})
	t.Run("action-kinds", func(t *testing.T) {
		for _, d := range actions.Defs() {
			if !kinds[string(d.Kind)] {
				t.Errorf("no firing of the parity matrix takes the action %s: add a rule to %s", d.Kind, parityRuleDir)
			}
		}
	})
}

// parityKnownGaps are the rules of the matrix that fire in no way, with
// why: each stands for a part of the rule language that never has a value
// against the venue, so no way can fire it. The matrix compares them like
// every rule (no way may fire them), and the coverage check counts the one
// function each of them is there for (parityGapFunction) as covered.
// None today: position_mode() was one until the State took the modes the
// engine reads from the single account (the live venue's accounts list
// names none).
var parityKnownGaps = map[string]string{}

// parityGapFunction is the function each known gap stands for.
var parityGapFunction = map[string]string{}

// parityCatalog is the demo scenario's catalog, read from a simulator.
func parityCatalog(t *testing.T) rules.CatalogReader {
	x, err := sim.New(sim.Demo(), sim.Options{Clock: clock.NewVirtual(parityStart)})
	if err != nil {
		t.Fatal(err)
	}
	acct, _ := x.Account(parityAccounts[0].creds.APIKey)
	return acct
}

// exprNames returns the names of the variables and functions an
// expression reads.
func exprNames(t *testing.T, src string) map[string]bool {
	t.Helper()
	tree, err := parser.Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	out := map[string]bool{}
	ast.Find(tree.Node, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IdentifierNode:
			out[x.Value] = true
		case *ast.CallNode:
			if id, ok := x.Callee.(*ast.IdentifierNode); ok {
				out[id.Value] = true
			}
		}
		return false
	})
	return out
}
