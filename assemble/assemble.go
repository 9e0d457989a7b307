// Package assemble wires a run of the rules: it reads the venue's catalog
// and position modes, loads the rules, and connects the pollers, the guard,
// the dispatcher, the executor and the engine the way engine run, the
// embedded demo and engine backtest need them. The engine package itself is
// the tick loop, the rule state machine, traces, the journal and reload;
// this package keeps what surrounds it for a run: the position modes read
// from the venue (modes.go), the rules held while the venue does not give
// the stock pairs (held.go) and the crash-point hook on the venue
// (crash.go).
package assemble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
)

// ErrBadRules is wrapped by New when the rule files have errors; the
// error's text lists every one of them.
var ErrBadRules = errors.New("the rules have errors")

// AccountsReader reads the balances and position mode of a product type.
type AccountsReader interface {
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
}

// Options is what engine run and engine backtest have in common:
// the venue's read and write sides, the clock and the rule directories.
type Options struct {
	Reader   poll.Reader
	Catalog  rules.CatalogReader
	Accounts AccountsReader
	Trader   actions.Venue
	Pricer   actions.Pricer
	Clock    engine.Clock
	Logger   *zap.Logger
	// RuleDirs are loaded with Getenv for ${VAR} references.
	RuleDirs []string
	Getenv   func(string) string
	// Closures, when set, also compiles the rules' conditions and formulas
	// to faster Go code (rules.LoadOptions.Closures): only the backtest
	// sets it. Nil runs them on expr's VM, as engine run does.
	Closures rules.ClosureCompiler
	Safety   *actions.Safety
	// OnHalt is told of every halt a protection of the safety file trips,
	// after the guard logs it (engine run notifies); nil: nothing more.
	OnHalt func(actions.Halt)
	Store  *engine.Store
	// Journal records every firing before its orders go out (nil: none).
	Journal *engine.Journal
	// Crash is the crash-point fault injection (nil: none).
	Crash *engine.CrashHook
	// Poller tunes the pollers; Reader, Clock, Logger, Demand and Contracts
	// are filled in by New.
	Poller poll.Options
	// NewSource, when set, makes the engine's source of States from the
	// filled-in Poller options instead of poll.New: a backtest's source made
	// for the simulator.
	NewSource func(poll.Options) (PolledSource, error)
}

// PolledSource is an engine.StateSource that polls a venue for the parts the rules
// demand: the live poller, or a backtest's source.
type PolledSource interface {
	engine.StateSource
	// Covers reports whether the source fetches everything d demands; the
	// error (poll.ErrNotPolled) names what it does not.
	Covers(d poll.Demand) error
}

// Assembly is a wired engine: the catalog and rules it loaded, the loader
// for reloads, the guard (kill switch), the poller and the engine itself.
// Nothing runs until the caller starts the poller and the engine.
type Assembly struct {
	safety  *actions.Safety // its protections add to what is polled
	Catalog *rules.Catalog
	Rules   *rules.RuleSet
	// Load loads the rules again; after New it rejects (with
	// poll.ErrNotPolled) rules that read what the pollers do not fetch.
	Load func(ctx context.Context) (*rules.RuleSet, error)
	// Modes are the position modes read at start; PositionModes gives them
	// as the engine knows them now.
	Modes map[exchange.ProductType]exchange.PosMode
	Guard *actions.Guard
	// Source is the engine's source of States; Poller is the same, when it
	// is the live poller (no NewSource given), else nil.
	Source PolledSource
	Poller *poll.Poller
	Engine *engine.Engine
	// Held are the rules left out of the run because the venue did not
	// give the stock pairs at start (rules.Catalog.StockPairsErr); RunPolls
	// asks for them again and runs these rules once they come. Read it
	// with HeldRules while the engine runs.
	Held []*rules.Rule

	opts     Options
	pollOpts poll.Options
	held     *heldPolls // the engine's source while rules are held; nil when none are
	modes    *modeBook  // the position modes as read last
	mu       sync.Mutex // guards cat and Held
	cat      *rules.Catalog
	// running is the rule set loaded last, for the poll log's held rules.
	running atomic.Pointer[rules.RuleSet]
}

// HeldRules returns the rules still held for the stock pairs.
func (a *Assembly) HeldRules() []*rules.Rule {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.Held)
}

func (a *Assembly) catalog() *rules.Catalog {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cat
}

// loadWith loads the rule files against cat, leaving out the rules held
// for the stock pairs when cat has none.
func (a *Assembly) loadWith(ctx context.Context, cat *rules.Catalog) (*rules.RuleSet, error) {
	rs, errs := rules.Load(ctx, a.opts.RuleDirs, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat, Getenv: a.opts.Getenv, Closures: a.opts.Closures})
	if rs == nil {
		return nil, fmt.Errorf("%s\n%w", errs.Error(), ErrBadRules)
	}
	rs, _ = holdStockRules(rs, cat)
	return rs, nil
}

// RunPolls runs the pollers until ctx ends: the live poller, and while
// rules are held for the stock pairs, asks the venue for them again every
// poll.RefusedRetry and then polls for every rule (the same retry as a
// part the venue refuses); and reads the position modes again every
// poll.ModeEvery.
func (a *Assembly) RunPolls(ctx context.Context) error {
	go a.modes.run(ctx)
	if a.held == nil {
		return a.Poller.Run(ctx)
	}
	go a.releaseHeld(ctx)
	return a.held.Run(ctx)
}

// PollParts is what status and metrics read of the pollers: the parts
// polled and their staleness, from the poller running now.
func (a *Assembly) PollParts() interface {
	Parts() marketdata.PartSet
	State(now time.Time) (*marketdata.State, error)
	Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool)
	Interval(part marketdata.Part) time.Duration
} {
	if a.held != nil {
		return a.held
	}
	return a.Poller
}

// New reads the catalog and the position modes from the venue, loads
// the rules and wires pollers, guard, dispatcher, executor and engine the
// way every subcommand that runs rules needs them. eng carries the engine's
// own tuning (Tick, TraceDepth, OnFiring); its Rules, Source, Executor,
// Clock, Logger, Store and Journal are filled in here.
func New(ctx context.Context, opts Options, eng engine.Options) (*Assembly, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	log := opts.Logger
	cat, err := rules.FetchCatalog(ctx, opts.Catalog)
	if err != nil {
		return nil, fmt.Errorf("read the venue's catalog: %w", err)
	}
	a := &Assembly{Catalog: cat, opts: opts, cat: cat}
	a.Load = func(ctx context.Context) (*rules.RuleSet, error) { return a.loadWith(ctx, a.catalog()) }
	if cat.StockPairsErr != nil {
		all, errs := rules.Load(ctx, opts.RuleDirs, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat, Getenv: opts.Getenv, Closures: opts.Closures})
		if all == nil {
			return nil, fmt.Errorf("%s\n%w", errs.Error(), ErrBadRules)
		}
		a.Rules, a.Held = holdStockRules(all, cat)
		// One warning for the whole degradation: what failed and why, and
		// which rules wait for it.
		if len(a.Held) > 0 {
			log.Warn("the venue did not give the stock pairs: the rules that read stock data are held until it does, every other rule trades; asking again every "+poll.RefusedRetry.String(),
				zap.Error(cat.StockPairsErr), zap.Int("held", len(a.Held)), zap.String("held_rules", RuleNames(a.Held)))
		} else {
			log.Warn("the venue did not give the stock pairs; no rule reads stock data, so every rule trades", zap.Error(cat.StockPairsErr))
		}
	} else if a.Rules, err = a.Load(ctx); err != nil {
		return nil, err
	}
	a.Modes, err = ReadPositionModes(ctx, opts.Accounts)
	var modeErr *exchange.ModeError
	if errors.As(err, &modeErr) {
		for _, pt := range modeErr.ProductTypes() {
			log.Warn("the position mode of "+string(pt)+" could not be read: its orders are refused until it is (one-way and hedge orders differ, so the engine does not guess), the other product types trade; asking again every "+poll.ModeEvery.String(),
				zap.String("product_type", string(pt)), zap.Error(modeErr.Failed[pt]))
		}
	} else if err != nil {
		return nil, err
	}
	a.modes = newModeBook(a.Modes, modeErr, opts.Accounts, opts.Clock, log.Named("modes"))
	gopts := actions.GuardOptions{Safety: opts.Safety, Now: opts.Clock.Now, OnTrip: func(h actions.Halt) {
		log.Error("a protection of the safety file tripped: no new entries", zap.String("halt", h.String()))
		if opts.OnHalt != nil {
			opts.OnHalt(h)
		}
	}}
	if opts.Store != nil {
		// A halt (a rule's or a protection's) holds across a restart
		// until it ends or is lifted by hand.
		if gopts.Halt, err = opts.Store.LoadHalt(); err != nil {
			return nil, fmt.Errorf("restore the halt: %w", err)
		}
		gopts.SaveHalt = opts.Store.SaveHalt
		// max_drawdown's peaks hold across a restart too: a fall that
		// began before it still counts from the same peak.
		if gopts.EquityPeaks, err = opts.Store.LoadEquityPeaks(); err != nil {
			return nil, fmt.Errorf("restore max_drawdown's equity peaks: %w", err)
		}
		store := opts.Store
		gopts.SaveEquityPeaks = func(p actions.EquityPeaks) error {
			err := store.SaveEquityPeaks(p)
			if err != nil {
				log.Error("max_drawdown's equity peaks could not be kept in the state directory; trying again on the next tick", zap.Error(err))
			}
			return err
		}
		if gopts.Halt.Active(opts.Clock.Now()) {
			log.Error("a halt kept in the state directory holds: no new entries", zap.String("halt", gopts.Halt.String()))
		}
	}
	a.Guard = actions.NewGuard(gopts)
	po := opts.Poller
	po.Reader, po.Clock, po.Logger = opts.Reader, opts.Clock, log.Named("poll")
	if po.Build.PositionModes == nil {
		po.Build.PositionModes = a.modes.known
	}
	a.safety = opts.Safety
	po.Demand, po.Contracts = a.demand(a.Rules, cat), cat.Contracts
	a.running.Store(a.Rules)
	if po.HeldRules == nil {
		po.HeldRules = a.heldBy
	}
	a.pollOpts = po
	if opts.NewSource != nil {
		a.Source, err = opts.NewSource(po)
	} else if a.Poller, err = poll.New(po); err == nil {
		a.Source = a.Poller
		if len(a.Held) > 0 {
			a.held = &heldPolls{cur: a.Poller, swapped: make(chan struct{}), arrived: make(chan struct{}, 1)}
			a.Source = a.held
		}
	}
	if err != nil {
		return nil, err
	}
	// The pollers are planned for the rules loaded now. A reload whose
	// rules read more is rejected, with what is missing, rather than run
	// with data that would never come (its rules would stay stale).
	load := a.Load
	a.Load = func(ctx context.Context) (*rules.RuleSet, error) {
		rs, err := load(ctx)
		if err != nil {
			return nil, err
		}
		if err := a.Source.Covers(a.demand(rs, a.catalog())); err != nil {
			return nil, fmt.Errorf("the new rules read what the running engine does not poll (%w); restart it to poll that", err)
		}
		a.running.Store(rs)
		return rs, nil
	}
	// The live poller builds every State afresh: position_mode() and the
	// orders built from the State follow a new mode read at the next tick.
	var trader actions.Venue = modeVenue{Venue: opts.Trader, book: a.modes}
	if opts.Crash != nil {
		trader = crashVenue{Venue: trader, h: opts.Crash}
	}
	// Unknown outcomes come back Unsettled and the engine settles them:
	// off the tick loop when eng.SettleOffLoop is set.
	disp := actions.NewDispatcher(actions.DispatcherOptions{Venue: trader, Guard: a.Guard, Clock: opts.Clock, Logger: log.Named("actions"), Defer: true})
	xo := actions.ExecutorOptions{Dispatcher: disp, Catalog: cat, ModeOf: a.modes.mode, Pricer: opts.Pricer, Logger: log.Named("actions")}
	exec := actions.NewExecutor(xo)
	eng.Rules, eng.Source, eng.Executor = a.Rules, a.Source, engine.ActionsExecutor{X: exec}
	eng.Clock, eng.Logger, eng.Store, eng.Journal, eng.Crash = opts.Clock, log.Named("engine"), opts.Store, opts.Journal, opts.Crash
	eng.OnState = a.Guard.Observe
	if a.Engine, err = engine.New(eng); err != nil {
		return nil, err
	}
	return a, nil
}

// PositionModes returns the position modes as the engine knows them now:
// read at start, every poll.ModeEvery while RunPolls runs, and at once
// after the venue refused an order for not fitting its mode.
func (a *Assembly) PositionModes() map[exchange.ProductType]exchange.PosMode {
	return a.modes.snapshot()
}

// ReadPositionModes reads the account's position mode per product type,
// each on its own: a product type whose mode cannot be read is left out
// and named in an *exchange.ModeError returned with the modes of the
// others. A product type whose accounts carry no mode is left out without
// an error: actions that need it then refuse to guess. The live venue's
// accounts list carries none, so a reader that can also read the single
// account (exchange.ModeSource: *exchange.Client, the simulator's
// accounts) is read with exchange.PositionModes.
func ReadPositionModes(ctx context.Context, r AccountsReader) (map[exchange.ProductType]exchange.PosMode, error) {
	if ms, ok := r.(exchange.ModeSource); ok {
		return exchange.PositionModes(ctx, ms)
	}
	modes := map[exchange.ProductType]exchange.PosMode{}
	failed := map[exchange.ProductType]error{}
	for _, pt := range exchange.ProductTypes() {
		m, err := accountsMode(ctx, r, pt)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			failed[pt] = err
		case m != "":
			modes[pt] = m
		}
	}
	if len(failed) > 0 {
		return modes, &exchange.ModeError{Failed: failed}
	}
	return modes, nil
}

// readMode reads the position mode of one product type, as
// ReadPositionModes does.
func readMode(ctx context.Context, r AccountsReader, pt exchange.ProductType) (exchange.PosMode, error) {
	if ms, ok := r.(exchange.ModeSource); ok {
		return exchange.PositionMode(ctx, ms, pt)
	}
	return accountsMode(ctx, r, pt)
}

// accountsMode is the mode the accounts list of pt carries ("" if none).
func accountsMode(ctx context.Context, r AccountsReader, pt exchange.ProductType) (exchange.PosMode, error) {
	accounts, err := r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
	if err != nil {
		return "", fmt.Errorf("read %s account (position mode): %w", pt, err)
	}
	for _, a := range accounts {
		if a.PosMode != "" {
			return a.PosMode, nil
		}
	}
	return "", nil
}
