package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/metrics"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
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
	tick       time.Duration
	logFormat  string
	metrics    string
	speed      float64
}

func parseRun(env *cliEnv, args []string) (*runConfig, int) {
	c := &runConfig{}
	fs := flag.NewFlagSet("engine run", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var rulesDirs string
	fs.StringVar(&rulesDirs, "rules", "", "rule `dirs` (comma-separated; directories are read recursively)")
	fs.StringVar(&c.venue, "venue", "", "`live` (the real exchange) or the URL of a venue such as engine sim; default: the embedded demo simulator")
	fs.BoolVar(&c.dryRun, "dry-run", false, "read from the venue, send orders to a paper account instead")
	fs.DurationVar(&c.maxRuntime, "max-runtime", 0, "stop after this `duration` (0: run until interrupted)")
	fs.StringVar(&c.stateDir, "state-dir", ".tickrules-state", "`dir` where rule states are kept across restarts")
	fs.StringVar(&c.safety, "safety", "", "safety `file` with risk limits and the kill-switch file")
	fs.DurationVar(&c.tick, "tick", time.Second, "time between two evaluations of the rules")
	fs.StringVar(&c.logFormat, "log-format", "auto", "console, json, or auto (console on a terminal)")
	fs.StringVar(&c.metrics, "metrics-addr", "", "serve Prometheus metrics on this `address` (e.g. 127.0.0.1:9090)")
	fs.Float64Var(&c.speed, "speed", 1, "embedded demo only: run its clock N times faster")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine run --rules DIR [--venue live|URL] [--dry-run] [--max-runtime D]")
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
	v, err := openVenue(ctx, env, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine run: %v\n", err)
		return exitFail
	}
	defer v.close()
	code = runEngine(ctx, env, cfg, v, log)
	return code
}

// venueSet is what engine run trades with: a Reader for the State, the
// Venue the actions write to (the paper account in dry-run), and the clock.
type venueSet struct {
	name   string
	reader marketdata.Reader
	cat    rules.CatalogReader
	accts  engine.AccountsReader
	trader actions.Venue
	pricer actions.Pricer
	clock  engine.Clock
	// limiter is the client's rate limiter, for the metrics (nil in process).
	limiter metrics.LimiterStats
	close   func()
	// start, when set, is called with the futures symbols the rules name
	// before the engine starts (the dry run's price feed).
	start func(ctx context.Context, symbols []string) error
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
		return embeddedDemo(cfg, log)
	}
	base := cfg.venue
	if base == "live" {
		base = liveBaseURL
	}
	if creds.IsZero() {
		return nil, fmt.Errorf("--venue %s needs credentials: set TICKRULES_API_KEY, TICKRULES_API_SECRET and TICKRULES_API_PASSPHRASE (for engine sim's demo: demo-key, demo-secret, demo-passphrase)", cfg.venue)
	}
	clk := clock.Real{}
	lim := exchange.NewLimiter(exchange.LimiterOptions{Clock: clk})
	opts := exchange.ClientOptions{BaseURL: base, Credentials: creds, Clock: clk, Limiter: lim, Logger: log.Named("exchange")}
	if cfg.dryRun {
		v, err := dryRunVenue(ctx, opts, log)
		if v != nil {
			v.limiter = lim
		}
		return v, err
	}
	c, err := exchange.NewClient(opts)
	if err != nil {
		return nil, err
	}
	log.Warn("LIVE TRADING: orders go to the venue", zap.String("venue", base))
	return &venueSet{name: base, reader: c, cat: c, accts: c, trader: c, pricer: c, clock: clk, limiter: lim, close: func() {}}, nil
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
	store, err := engine.NewStore(cfg.stateDir)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine run: %v\n", err)
		return exitFail
	}
	reg := prometheus.NewRegistry()
	var mx *metrics.Metrics
	var polls marketdata.PollerOptions
	eopts := engine.Options{Tick: cfg.tick}
	if cfg.metrics != "" {
		if mx, err = metrics.New(reg); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
		polls.OnFetch = mx.ObservePoll
		eopts.OnFiring = func(f *engine.Firing) { mx.ObserveLegs(f.Legs) }
	}
	asm, err := engine.Assemble(ctx, engine.AssembleOptions{Reader: v.reader, Catalog: v.cat, Accounts: v.accts, Trader: v.trader,
		Pricer: v.pricer, Clock: v.clock, Logger: log, RuleDirs: cfg.rules, Getenv: env.getenv, Safety: safety, Store: store, Poller: polls},
		eopts)
	if errors.Is(err, engine.ErrBadRules) {
		fmt.Fprintf(env.stderr, "%v; nothing was started\n", err)
		return exitFail
	} else if err != nil {
		fmt.Fprintf(env.stderr, "engine run: %s: %v\n", v.name, err)
		return exitFail
	}
	if v.start != nil {
		if err := v.start(ctx, engine.FuturesSymbols(asm.Rules)); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
	}
	rs, guard, poller, eng, load := asm.Rules, asm.Guard, asm.Poller, asm.Engine, asm.Load
	if mx != nil {
		if err := serveMetrics(ctx, env, cfg, reg, metrics.Sources{Engine: eng, Limiter: v.limiter, Parts: poller, Clock: v.clock}, log); err != nil {
			fmt.Fprintf(env.stderr, "engine run: %v\n", err)
			return exitFail
		}
	}
	log.Info("engine started", zap.String("venue", v.name), zap.Bool("dry_run", cfg.dryRun), zap.Int("rules", len(rs.Rules)),
		zap.Strings("polls", poller.Tasks()), zap.String("state_dir", cfg.stateDir))

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
					guard.Resume()
					log.Warn("kill switch off (SIGUSR2)")
				}
			}
		}
	}()
	go func() { _ = poller.Run(ctx) }()
	go engine.Watch(ctx, engine.WatchOptions{Dirs: cfg.rules, Load: load, Engine: eng, Clock: v.clock, Logger: log.Named("reload"), Signal: sighup})
	_ = eng.Run(ctx)
	log.Info("engine stopped", zap.Int64("firings", totalFirings(eng)))
	return exitOK
}

// serveMetrics registers the scrape-time sources and serves reg on
// cfg.metrics until ctx ends.
func serveMetrics(ctx context.Context, env *cliEnv, cfg *runConfig, reg *prometheus.Registry, src metrics.Sources, log *zap.Logger) error {
	if err := metrics.RegisterSources(reg, src); err != nil {
		return err
	}
	addr, err := metrics.Serve(ctx, cfg.metrics, reg, log.Named("metrics"))
	if err != nil {
		return err
	}
	log.Info("serving Prometheus metrics", zap.String("url", "http://"+addr.String()+"/metrics"))
	if env.onMetrics != nil {
		env.onMetrics(addr.String())
	}
	return nil
}

func totalFirings(e *engine.Engine) int64 {
	var n int64
	for _, s := range e.States() {
		n += s.Firings
	}
	return n
}

// newRunLogger logs to stderr: readable lines on a terminal, JSON otherwise.
func newRunLogger(env *cliEnv, format string) *zap.Logger {
	if format == "auto" {
		format = "json"
		if f, ok := env.stderr.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				format = "console"
			}
		}
	}
	if format == "console" {
		return newCLILogger(env)
	}
	cfg := zap.NewProductionEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(cfg), zapcore.Lock(zapcore.AddSync(env.stderr)), zapcore.InfoLevel))
}
