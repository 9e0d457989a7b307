package engine

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
)

// ErrBadRules is wrapped by Assemble when the rule files have errors; the
// error's text lists every one of them.
var ErrBadRules = errors.New("the rules have errors")

// AccountsReader reads the balances and position mode of a product type.
type AccountsReader interface {
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
}

// AssembleOptions is what engine run and engine backtest have in common:
// the venue's read and write sides, the clock and the rule directories.
type AssembleOptions struct {
	Reader   poll.Reader
	Catalog  rules.CatalogReader
	Accounts AccountsReader
	Trader   actions.Venue
	Pricer   actions.Pricer
	Clock    Clock
	Logger   *zap.Logger
	// RuleDirs are loaded with Getenv for ${VAR} references.
	RuleDirs []string
	Getenv   func(string) string
	Safety   *actions.Safety
	Store    *Store
	// Journal records every firing before its orders go out (nil: none).
	Journal *Journal
	// Crash is the crash-point fault injection (nil: none).
	Crash *CrashHook
	// Poller tunes the pollers; Reader, Clock, Logger, Demand and Contracts
	// are filled in by Assemble.
	Poller poll.Options
	// NewSource, when set, makes the engine's source of States from the
	// filled-in Poller options instead of poll.New: a backtest's source made
	// for the simulator.
	NewSource func(poll.Options) (PolledSource, error)
}

// PolledSource is a StateSource that polls a venue for the parts the rules
// demand: the live poller, or a backtest's source.
type PolledSource interface {
	StateSource
	// Covers reports whether the source fetches everything d demands; the
	// error (poll.ErrNotPolled) names what it does not.
	Covers(d poll.Demand) error
}

// Assembly is a wired engine: the catalog and rules it loaded, the loader
// for reloads, the guard (kill switch), the poller and the engine itself.
// Nothing runs until the caller starts the poller and the engine.
type Assembly struct {
	Catalog *rules.Catalog
	Rules   *rules.RuleSet
	// Load loads the rules again; after Assemble it rejects (with
	// poll.ErrNotPolled) rules that read what the pollers do not fetch.
	Load  func(ctx context.Context) (*rules.RuleSet, error)
	Modes map[exchange.ProductType]exchange.PosMode
	Guard *actions.Guard
	// Source is the engine's source of States; Poller is the same, when it
	// is the live poller (no NewSource given), else nil.
	Source PolledSource
	Poller *poll.Poller
	Engine *Engine
}

// Assemble reads the catalog and the position modes from the venue, loads
// the rules and wires pollers, guard, dispatcher, executor and engine the
// way every subcommand that runs rules needs them. eng carries the engine's
// own tuning (Tick, TraceDepth, OnFiring); its Rules, Source, Executor,
// Clock, Logger and Store are filled in here.
func Assemble(ctx context.Context, opts AssembleOptions, eng Options) (*Assembly, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	log := opts.Logger
	cat, err := rules.FetchCatalog(ctx, opts.Catalog)
	if err != nil {
		return nil, fmt.Errorf("read contracts: %w", err)
	}
	a := &Assembly{Catalog: cat}
	a.Load = func(ctx context.Context) (*rules.RuleSet, error) {
		rs, errs := rules.Load(ctx, opts.RuleDirs, rules.LoadOptions{Catalog: cat, Getenv: opts.Getenv})
		if rs == nil {
			return nil, fmt.Errorf("%s\n%w", errs.Error(), ErrBadRules)
		}
		return rs, nil
	}
	if a.Rules, err = a.Load(ctx); err != nil {
		return nil, err
	}
	if a.Modes, err = ReadPositionModes(ctx, opts.Accounts); err != nil {
		return nil, err
	}
	a.Guard = actions.NewGuard(actions.GuardOptions{Safety: opts.Safety, Now: opts.Clock.Now})
	po := opts.Poller
	po.Reader, po.Clock, po.Logger = opts.Reader, opts.Clock, log.Named("poll")
	po.Demand, po.Contracts = Demand(a.Rules, cat), cat.Contracts
	if opts.NewSource != nil {
		a.Source, err = opts.NewSource(po)
	} else if a.Poller, err = poll.New(po); err == nil {
		a.Source = a.Poller
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
		if err := a.Source.Covers(Demand(rs, cat)); err != nil {
			return nil, fmt.Errorf("the new rules read what the running engine does not poll (%w); restart it to poll that", err)
		}
		return rs, nil
	}
	trader := opts.Trader
	if opts.Crash != nil {
		trader = crashVenue{Venue: trader, h: opts.Crash}
	}
	// Unknown outcomes come back Unsettled and the engine settles them:
	// off the tick loop when eng.SettleOffLoop is set.
	disp := actions.NewDispatcher(actions.DispatcherOptions{Venue: trader, Guard: a.Guard, Clock: opts.Clock, Logger: log.Named("actions"), Defer: true})
	exec := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: disp, Catalog: cat, Modes: a.Modes, Pricer: opts.Pricer, Logger: log.Named("actions")})
	eng.Rules, eng.Source, eng.Executor = a.Rules, a.Source, ActionsExecutor{X: exec}
	eng.Clock, eng.Logger, eng.Store, eng.Journal, eng.Crash = opts.Clock, log.Named("engine"), opts.Store, opts.Journal, opts.Crash
	if a.Engine, err = New(eng); err != nil {
		return nil, err
	}
	return a, nil
}

// ReadPositionModes reads the account's position mode per product type. A
// product type whose accounts carry no mode is left out: actions that need
// it then refuse to guess. The live venue's accounts list carries none, so
// a reader that can also read the single account (exchange.ModeSource:
// *exchange.Client, the simulator's accounts) is read with
// exchange.PositionModes.
func ReadPositionModes(ctx context.Context, r AccountsReader) (map[exchange.ProductType]exchange.PosMode, error) {
	if ms, ok := r.(exchange.ModeSource); ok {
		return exchange.PositionModes(ctx, ms)
	}
	modes := map[exchange.ProductType]exchange.PosMode{}
	for _, pt := range exchange.ProductTypes() {
		accounts, err := r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("read %s account (position mode): %w", pt, err)
		}
		for _, a := range accounts {
			if a.PosMode != "" {
				modes[pt] = a.PosMode
				break
			}
		}
	}
	return modes, nil
}
