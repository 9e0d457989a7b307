package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/metrics"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/status"
)

// liveBaseURL is the exchange's public REST endpoint (--venue live).
const liveBaseURL = "https://api.bitget.com"

// demoRunOffset is where the embedded demo's clock starts after the demo
// scenario's start (Monday 09:00 New York): at 09:29:30, half a minute
// before the regular session opens, so that a newcomer sees the pre-market
// state and then the open's rules fire well within a minute (at 09:29 the
// first firing came exactly 60s in, too close to "within a minute").
const demoRunOffset = 29*time.Minute + 30*time.Second

// runConfig is the parsed command line of engine run.
type runConfig struct {
	rules      []string
	venue      string
	dryRun     bool
	maxRuntime time.Duration
	stateDir   string
	safety     string
	notify     string
	tick       time.Duration
	logFormat  string
	metrics    string
	speed      float64
	keepState  bool

	// stateTimeout bounds how long the state directory may fail writes.
	stateTimeout time.Duration
}

func parseRun(env *cliEnv, args []string) (*runConfig, int) {
	c := &runConfig{}
	fs := flag.NewFlagSet("engine run", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var rulesDirs string
	fs.StringVar(&rulesDirs, "rules", "", "rule `dirs` (comma-separated; directories are read recursively)")
	fs.StringVar(&c.venue, "venue", "", "`live` (the real exchange), demo (its demo trading) or the URL of a venue such as engine sim; default: the embedded demo simulator")
	fs.BoolVar(&c.dryRun, "dry-run", false, "read from the venue, send orders to a paper account instead")
	fs.DurationVar(&c.maxRuntime, "max-runtime", 0, "stop after this `duration` (0: run until interrupted)")
	fs.StringVar(&c.stateDir, "state-dir", ".tickrules-state", "`dir` where rule states and order intents are kept across restarts, one subdirectory per venue and account")
	fs.DurationVar(&c.stateTimeout, "state-timeout", 30*time.Second, "stop (exit 1) when the state directory cannot be written for this long; no order is sent meanwhile")
	fs.StringVar(&c.safety, "safety", "", "safety `file` with risk limits and the kill-switch file")
	fs.StringVar(&c.notify, "notify", "", "notify `file`: where to send notifications (Telegram, Discord, Slack, webhooks); see docs/operating.md")
	fs.DurationVar(&c.tick, "tick", time.Second, "time between two evaluations of the rules")
	fs.StringVar(&c.logFormat, "log-format", "auto", "console, json, or auto (console on a terminal)")
	fs.StringVar(&c.metrics, "metrics-addr", defaultHTTPAddr, "serve the status page (/status), its JSON (/api/status) and Prometheus metrics (/metrics) on this `address`; empty: none")
	fs.Float64Var(&c.speed, "speed", 1, "embedded demo only: run its clock N times faster")
	fs.BoolVar(&c.keepState, "keep-state", false, "embedded demo only: keep the rule states of the previous demo run (by default each demo run starts afresh)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine run --rules DIR [--venue live|demo|URL] [--dry-run] [--max-runtime D]")
		fmt.Fprintln(fs.Output(), "\nRuns the rules on every tick. Credentials come from TICKRULES_API_KEY,")
		fmt.Fprintln(fs.Output(), "TICKRULES_API_SECRET and TICKRULES_API_PASSPHRASE, or from the file named by")
		fmt.Fprintln(fs.Output(), "TICKRULES_CREDENTIALS_FILE (readable only by you). Without a venue and without")
		fmt.Fprintln(fs.Output(), "credentials it runs on the embedded demo simulator.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, " (rule directories go in --rules)"); stop {
		return nil, code
	}
	c.rules = splitList(rulesDirs)
	if len(c.rules) == 0 {
		fmt.Fprintln(env.stderr, "engine run: --rules is required (try --rules examples/rules)")
		return nil, exitUsage
	}
	if c.stateTimeout <= 0 {
		fmt.Fprintln(env.stderr, "engine run: --state-timeout must be positive")
		return nil, exitUsage
	}
	if c.tick < 100*time.Millisecond {
		fmt.Fprintln(env.stderr, "engine run: --tick must be at least 100ms")
		return nil, exitUsage
	}
	if err := checkSpeed(c.speed); err != nil {
		fmt.Fprintf(env.stderr, "engine run: %v\n", err)
		return nil, exitUsage
	}
	switch c.logFormat {
	case "auto", "console", "json":
	default:
		fmt.Fprintf(env.stderr, "engine run: --log-format must be auto, console or json (got %q)\n", c.logFormat)
		return nil, exitUsage
	}
	return c, exitOK
}

func cmdRun(ctx context.Context, env *cliEnv, args []string) int {
	cfg, code := parseRun(env, args)
	if cfg == nil {
		return code
	}
	log := newRunLogger(env, cfg.logFormat)
	defer func() { _ = log.Sync() }()
	if cfg.maxRuntime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.maxRuntime)
		defer cancel()
	}
	// Trading the real exchange starts only when engine doctor finds no blocker.
	if (cfg.venue == "live" || cfg.venue == "demo") && !cfg.dryRun && !preflight(ctx, env, cfg.venue, cfg.rules, log) {
		return exitFail
	}
	v, err := openVenue(ctx, env, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine run: %v\n", err)
		return exitFail
	}
	defer v.close()
	log = log.WithOptions(zap.WithClock(logClock{v.clock})) // the venue's time: the simulator's in the demo
	code = runEngine(ctx, env, cfg, v, log)
	return code
}

// venueSet is what engine run trades with: a Reader for the State, the
// Venue the actions write to (the paper account in dry-run), and the clock.
type venueSet struct {
	name   string
	reader poll.Reader
	cat    rules.CatalogReader
	accts  assemble.AccountsReader
	trader actions.Venue
	pricer actions.Pricer
	clock  engine.Clock
	// limiter is the client's rate limiter, for the metrics (nil in process).
	limiter metrics.LimiterStats
	close   func()
	// start, when set, is called with the futures symbols the rules name
	// before the engine starts (the dry run's price feed).
	start func(ctx context.Context, symbols []string) error
	// stateDir is the account's state directory (engine.AccountDir).
	stateDir string
	// resetState empties stateDir before the run: the embedded demo starts
	// afresh each time, so the README's first command fires every time.
	resetState bool
}

// openVenue picks the venue from the flags and the credentials. Credentials
// without --venue is an error, not a silent choice: the user must say live.
func openVenue(ctx context.Context, env *cliEnv, cfg *runConfig, log *zap.Logger) (*venueSet, error) {
	creds, err := loadCredentials(env.getenv, os.Stat, os.ReadFile)
	if err != nil {
		return nil, err
	}
	if cfg.venue == "" {
		if !creds.IsZero() {
			return nil, errors.New("credentials are set but no --venue is given; pass --venue live to trade the real account (or --venue URL)")
		}
		v, err := embeddedDemo(cfg, log)
		if v != nil {
			v.stateDir = engine.AccountDir(cfg.stateDir, "embedded-demo", "demo-key")
			v.resetState = !cfg.keepState
		}
		return v, err
	}
	base, demo := resolveVenue(cfg.venue)
	if creds.IsZero() {
		return nil, fmt.Errorf("--venue %s needs credentials: set TICKRULES_API_KEY, TICKRULES_API_SECRET and TICKRULES_API_PASSPHRASE (for engine sim's demo: demo-key, demo-secret, demo-passphrase)", cfg.venue)
	}
	// Requests are signed and rate-limited on the local clock, which the
	// venue checks its timestamps against; the rules read the venue's time.
	clk := clock.Real{}
	lim := exchange.NewLimiter(exchange.LimiterOptions{Clock: clk})
	opts := exchange.ClientOptions{BaseURL: base, Credentials: creds, Demo: demo, Clock: clk, Limiter: lim, Logger: log.Named("exchange")}
	vc := venueClock(ctx, newTimeProbe(base), log.Named("venue-clock"))
	if cfg.dryRun {
		v, err := dryRunVenue(ctx, opts, vc, log)
		if v != nil {
			// The paper account's states and intents are not the live account's.
			v.limiter, v.stateDir = lim, engine.AccountDir(cfg.stateDir, base, creds.APIKey)+"-dry-run"
		}
		return v, err
	}
	c, err := exchange.NewClient(opts)
	if err != nil {
		return nil, err
	}
	if demo {
		log.Warn("DEMO TRADING: orders go to the exchange's demo account", zap.String("venue", base))
	} else {
		log.Warn("LIVE TRADING: orders go to the venue", zap.String("venue", base))
	}
	stateDir := engine.AccountDir(cfg.stateDir, base, creds.APIKey)
	if demo {
		stateDir += "-demo" // the exchange's demo account is not the live one
	}
	return &venueSet{name: base, reader: c, cat: c, accts: c, trader: c, pricer: c, clock: vc, limiter: lim, close: func() {}, stateDir: stateDir}, nil
}

// embeddedDemo runs the demo scenario in process; its clock starts just
// before the regular session and follows the wall clock (times --speed).
func embeddedDemo(cfg *runConfig, log *zap.Logger) (*venueSet, error) {
	sc := sim.Demo()
	clk, err := server.NewWallClock(sc.Clock.Start.Add(demoRunOffset), cfg.speed)
	if err != nil {
		return nil, err
	}
	x, err := sim.New(sc, sim.Options{Clock: clk, Logger: log.Named("sim")})
	if err != nil {
		return nil, err
	}
	acct, ok := x.Account("demo-key")
	if !ok {
		return nil, errors.New("the demo scenario has no demo-key account")
	}
	log.Info("no venue and no credentials: running on the embedded demo simulator",
		zap.String("account", "demo-key (one-way)"), zap.Time("simulated_time", clk.Now()))
	return &venueSet{name: "embedded demo", reader: acct, cat: acct, accts: acct, trader: acct, pricer: acct, clock: clk, close: func() {}}, nil
}

// runEngine loads the rules and runs pollers, engine and reload watcher
// until ctx ends.
func runEngine(ctx context.Context, env *cliEnv, cfg *runConfig, v *venueSet, log *zap.Logger) int {
	var safety *actions.Safety
	if cfg.safety != "" {
		var err error
		if safety, err = actions.LoadSafety(cfg.safety); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
	}
	st, code := openState(env, v)
	if st == nil {
		return code
	}
	defer st.lock.Unlock()
	notifier, err := openNotifier(env, cfg.notify, cfg.dryRun, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine run: %v\n", err)
		return exitFail
	}
	reg := prometheus.NewRegistry()
	var mx *metrics.Metrics
	live := newLiveStatus(log)
	live.notify = notifier
	var polls poll.Options
	if notifier != nil {
		polls.OnFetch = func(part marketdata.Part, key string, _ time.Duration, err error) { notifier.fetched(part, key, err) }
	}
	sd := newSystemdNotifier(log.Named("systemd"))
	var eng *engine.Engine // set once assembled, before its tick loop runs
	eopts := engine.Options{Tick: cfg.tick, OnFiring: live.onFiring, SettleOffLoop: true, StateTimeout: cfg.stateTimeout,
		OnTick: tickHooks(sd, func() *engine.Engine { return eng }, env.getenv(envStallFile))}
	if cfg.metrics != "" {
		if mx, err = metrics.New(reg); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
		polls.OnFetch = func(part marketdata.Part, key string, took time.Duration, err error) {
			mx.ObservePoll(part, key, took, err)
			notifier.fetched(part, key, err)
		}
		eopts.OnFiring = func(f *engine.Firing) { live.onFiring(f); mx.ObserveLegs(f.Legs) }
	}
	asm, err := assembleRun(ctx, env, cfg, v, st, safety, polls, eopts, notifier, log)
	if errors.Is(err, assemble.ErrBadRules) {
		fmt.Fprintf(env.stderr, "%v; nothing was started\n", err)
		return exitFail
	} else if err != nil {
		fmt.Fprintf(env.stderr, "engine run: %s: %v\n", v.name, err)
		return exitFail
	}
	if v.start != nil {
		if err := v.start(ctx, assemble.FuturesSymbols(asm.Rules)); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
	}
	if err := checkNotifyRoutes(asm.Rules, notifier.targets()); err != nil {
		fmt.Fprintf(env.stderr, "engine run: %v; nothing was started\n", err)
		return exitFail
	}
	rs, guard, poller := asm.Rules, asm.Guard, asm.Poller
	// A reload that names a target the notify file lacks is refused like
	// a rule file with an error: the rules running keep running.
	load := func(ctx context.Context) (*rules.RuleSet, error) {
		next, err := asm.Load(ctx)
		if err != nil {
			return nil, err
		}
		if err := checkNotifyRoutes(next, notifier.targets()); err != nil {
			return nil, err
		}
		return next, nil
	}
	eng = asm.Engine
	notifier.start(ctx)
	board := live.start(ctx, cfg, v, asm, v.clock.Now())
	defer live.stop(ctx)
	defer sd.stopping() // first of the way out: systemd then waits for the summary
	if mx != nil {
		src := metrics.Sources{Engine: eng, Limiter: v.limiter, Parts: asm.PollParts(), Clock: v.clock, Heartbeat: eng, Kill: asm.Guard}
		if o, ok := v.clock.(metrics.ClockOffset); ok { // the venue's clock; the embedded demo has none
			src.Offset = o
		}
		if err := serveMetrics(ctx, env, cfg, reg, src, board, log); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
	}
	log.Info("engine started", zap.String("venue", v.name), zap.Bool("dry_run", cfg.dryRun), zap.Int("rules", len(rs.Rules)),
		zap.Strings("polls", poller.Tasks()), zap.String("state_dir", v.stateDir))

	sighup := make(chan os.Signal, 1)
	killsig := make(chan os.Signal, 2)
	signal.Notify(sighup, syscall.SIGHUP)
	signal.Notify(killsig, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sighup)
	defer signal.Stop(killsig)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-killsig:
				if s == syscall.SIGUSR1 {
					guard.Kill("SIGUSR1")
					log.Warn("kill switch on: no new orders until SIGUSR2; cancels and closes still run")
				} else {
					_ = resumeTrading(guard, log, "SIGUSR2")
				}
			}
		}
	}()
	go func() { _ = asm.RunPolls(ctx) }()
	go engine.Watch(ctx, engine.WatchOptions{Dirs: cfg.rules, Load: load, Engine: eng, Clock: v.clock, Logger: log.Named("reload"), Signal: sighup})
	if err := eng.Run(ctx); errors.Is(err, engine.ErrStateUnwritable) {
		log.Error("engine stopped: the state directory cannot be written", zap.Error(err))
		fmt.Fprintf(env.stderr, "engine run: %v; fix the state directory %s and start again\n", err, v.stateDir)
		return exitFail
	}
	return exitOK
}

// assembleRun wires the engine of engine run on v: the rules of cfg, the
// state files st, the pollers' options polls and the engine's options
// eopts. The parity test assembles its engines with it too.
func assembleRun(ctx context.Context, env *cliEnv, cfg *runConfig, v *venueSet, st *stateFiles, safety *actions.Safety, polls poll.Options, eopts engine.Options, notifier *engineNotifier, log *zap.Logger) (*assemble.Assembly, error) {
	return assemble.New(ctx, assemble.Options{Reader: v.reader, Catalog: v.cat, Accounts: v.accts, Trader: v.trader,
		Pricer: v.pricer, Clock: v.clock, Logger: log, RuleDirs: cfg.rules, Getenv: env.getenv, Safety: safety, OnHalt: notifier.halted, Store: st.store, Journal: st.journal, Crash: st.crash, Poller: polls},
		eopts)
}

// resumeTrading lifts the guard's halt and SIGUSR1 kill switch, asked by
// by (SIGUSR2, engine resume, the status page), and logs it. The error is
// the state directory's: the halt is lifted in memory all the same.
func resumeTrading(guard *actions.Guard, log *zap.Logger, by string) error {
	err := guard.Resume()
	if err != nil {
		log.Error("the halt is lifted, but the state directory still has it: it holds again after a restart", zap.Error(err))
	}
	log.Warn("kill switch off and any halt lifted", zap.String("by", by))
	return err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// stateFiles are the open files of an account's state directory.
type stateFiles struct {
	lock    *engine.DirLock
	store   *engine.Store
	journal *engine.Journal
	crash   *engine.CrashHook
}

// openState locks the account's state directory (a second engine on it
// refuses to start), opens the rule states and the intent journal, and
// writes the journal once, so a directory that cannot be written stops the
// engine before it starts. The fault-injection variables are read here.
func openState(env *cliEnv, v *venueSet) (*stateFiles, int) {
	fail := func(err error) (*stateFiles, int) {
		fmt.Fprintf(env.stderr, "engine run: %v\n", err)
		return nil, exitFail
	}
	var sf stateFiles
	var opts engine.StateOptions
	var err error
	if s := env.getenv(envCrashAt); s != "" {
		if sf.crash, err = engine.ParseCrashAt(s); err != nil {
			return fail(err)
		}
	}
	if s := env.getenv(envStateFault); s != "" {
		if opts.Fault, err = parseStateFault(s); err != nil {
			return fail(err)
		}
	}
	if sf.lock, err = engine.LockDir(v.stateDir); err != nil {
		return fail(err)
	}
	if v.resetState {
		if err := sf.lock.Reset(); err != nil {
			_ = sf.lock.Unlock()
			return fail(err)
		}
	}
	if old := filepath.Join(filepath.Dir(filepath.Dir(v.stateDir)), "rule-state.json"); fileExists(old) {
		// An engine before the per-account directories kept its rule
		// states here; started without them, once rules could fire again.
		fmt.Fprintf(env.stderr, "engine run: warning: %s holds the rule states of an older engine; this one keeps them in %s: move the file there (with the engine stopped) to carry them over\n", old, v.stateDir)
	}
	if sf.store, err = engine.OpenStore(v.stateDir, opts); err == nil {
		sf.journal, err = engine.OpenJournal(v.stateDir, opts)
	}
	if err == nil {
		if err = sf.journal.Add(v.clock.Now()); err != nil {
			err = fmt.Errorf("the state directory cannot be written, so no order could be recorded before it is sent: %w", err)
		}
	}
	if err != nil {
		_ = sf.lock.Unlock()
		return fail(err)
	}
	return &sf, exitOK
}

// serveMetrics registers the scrape-time sources and serves reg and the
// status page and API of board on cfg.metrics until ctx ends. The default
// address being taken (another engine on this machine) is a warning, not a
// failure: the engine trades the same without its status page.
func serveMetrics(ctx context.Context, env *cliEnv, cfg *runConfig, reg *prometheus.Registry, src metrics.Sources, board *status.Board, log *zap.Logger) error {
	if err := metrics.RegisterSources(reg, src); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler(reg))
	mux.Handle("/", status.Handler(board))
	addr, err := metrics.ServeHandler(ctx, cfg.metrics, mux, log.Named("metrics"))
	if err != nil && cfg.metrics == defaultHTTPAddr {
		log.Warn("no status page: its address is taken (another engine?); pass --metrics-addr HOST:PORT for this one", zap.Error(err))
		return nil
	}
	if err != nil {
		return err
	}
	log.Info("status page at http://" + addr.String() + "/status")
	log.Info("serving Prometheus metrics", zap.String("url", "http://"+addr.String()+"/metrics"))
	if env.onMetrics != nil {
		env.onMetrics(addr.String())
	}
	return nil
}
