package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim"
)

// backtestConfig is the parsed command line of engine backtest.
type backtestConfig struct {
	rules     []string
	scenario  string
	recording string
	from, to  time.Time
	out       string
	account   string
	safety    string
	step      time.Duration
	sample    time.Duration
	vary      []backtest.Vary
	jobs      int
	// walkTrain and walkTest are the windows of --walk-forward (zero: no
	// walk-forward); objective is what picks the best variant.
	walkTrain, walkTest time.Duration
	objective           string
	shard               backtest.Shard // zero: the whole sweep
	// history is the stored history of --data (backtest_data.go).
	history historyFlags
}

func parseBacktest(env *cliEnv, args []string) (*backtestConfig, int) {
	c := &backtestConfig{}
	fs := flag.NewFlagSet("engine backtest", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var rulesDirs, from, to string
	fs.StringVar(&rulesDirs, "rules", "", "rule `dirs` (comma-separated; directories are read recursively)")
	fs.StringVar(&c.scenario, "scenario", "", "scenario `file` (YAML); default: the built-in demo scenario")
	fs.StringVar(&c.recording, "recording", "", "replay a recording `file` written by engine record instead of a scenario")
	fs.StringVar(&from, "from", "", "start `time`: RFC 3339 or New York time such as \"2026-03-09 09:30\"; default: the scenario's or recording's start")
	fs.StringVar(&to, "to", "", "end `time`: RFC 3339 or New York time such as \"2026-03-09 16:00\"; default: the scenario's or recording's end, or one day after the start when the scenario has none (the demo)")
	c.history.register(fs)
	fs.StringVar(&c.out, "out", "backtest-report", "`dir` to write report.json and report.html to")
	fs.StringVar(&c.account, "account", "", "api `key` of the scenario account the rules trade; default: the first account")
	fs.StringVar(&c.safety, "safety", "", "safety `file` the orders go through, as engine run --safety: its limits refuse orders and its protections trip (listed in the report)")
	fs.DurationVar(&c.step, "step", time.Second, "time between two evaluations of the rules")
	fs.DurationVar(&c.sample, "sample", time.Minute, "how often equity, prices and positions are sampled for the report")
	fs.Func("vary", "run a sweep: `NAME=v1,v2,...` sets ${NAME} in the rules to each value in turn (repeat for more settings; every combination runs, each report in its own folder under --out, with compare.html)", func(s string) error {
		v, err := backtest.ParseVary(s)
		c.vary = append(c.vary, v)
		return err
	})
	fs.IntVar(&c.jobs, "jobs", runtime.NumCPU(), "how many variants of a sweep run at once")
	var walk string
	fs.StringVar(&walk, "walk-forward", "", "with --vary: `TRAIN/TEST` spans such as 60d/20d: on each training window pick the variant with the best --objective, run it on the test window after it, and report both (windows move on by TEST)")
	fs.StringVar(&c.objective, "objective", "sharpe", "what --walk-forward picks the best variant by: sharpe, sortino, calmar, cagr, return, profit_factor or expectancy")
	fs.Func("shard", "run only share `K/N` of a sweep (K from 0 to N-1: every N-th variant from the K-th); engine backtest merge puts the shards together", func(s string) (err error) {
		c.shard, err = backtest.ParseShard(s)
		return err
	})
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine backtest --rules DIR [--scenario FILE | --recording FILE | --data DIR [--symbols S,...]] [--from T --to T] [--out DIR] [--vary NAME=v1,v2,... --jobs N [--walk-forward TRAIN/TEST --objective NAME | --shard K/N]]")
		fmt.Fprintln(fs.Output(), "       engine backtest merge --out DIR SHARD_DIR...")
		fmt.Fprintln(fs.Output(), "\nRuns the rules against the simulator on a virtual clock, as fast as the CPU allows,")
		fmt.Fprintln(fs.Output(), "and writes DIR/report.json and DIR/report.html. With --vary, runs every combination of")
		fmt.Fprintln(fs.Output(), "the values and writes DIR/NAME=value,.../report.* and DIR/compare.html.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, " (rule directories go in --rules)"); stop {
		return nil, code
	}
	c.rules = splitList(rulesDirs)
	problems := []string{}
	if len(c.rules) == 0 {
		problems = append(problems, "--rules is required (try --rules examples/rules)")
	}
	if c.scenario != "" && c.recording != "" {
		problems = append(problems, "give --scenario or --recording, not both")
	}
	problems = append(problems, c.history.check(c, from, to)...)
	for _, tf := range []struct {
		name string
		text string
		dst  *time.Time
	}{{"--from", from, &c.from}, {"--to", to, &c.to}} {
		if tf.text == "" {
			continue
		}
		t, err := clock.ParseTime(tf.text)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %v", tf.name, err))
		}
		*tf.dst = t
	}
	if c.step <= 0 || c.sample <= 0 {
		problems = append(problems, "--step and --sample must be positive")
	}
	if c.jobs <= 0 {
		problems = append(problems, "--jobs must be positive")
	}
	if walk != "" {
		var err error
		if c.walkTrain, c.walkTest, err = backtest.ParseWalkForward(walk); err != nil {
			problems = append(problems, err.Error())
		}
		if len(c.vary) == 0 {
			problems = append(problems, "--walk-forward picks among the variants of --vary: give at least one --vary")
		}
	}
	if _, ok := backtest.Objective(c.objective); !ok {
		problems = append(problems, fmt.Sprintf("--objective %q: choose sharpe, sortino, calmar, cagr, return, profit_factor or expectancy", c.objective))
	}
	if c.shard.N > 0 && len(c.vary) == 0 {
		problems = append(problems, "--shard splits a sweep: give --vary too")
	}
	if c.shard.N > 0 && walk != "" {
		problems = append(problems, "--shard splits the variants of a sweep, not the windows of --walk-forward: run the walk-forward on one machine")
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(env.stderr, "engine backtest: %s\n", p)
		}
		return nil, exitUsage
	}
	return c, exitOK
}

func cmdBacktest(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) > 0 && args[0] == "merge" {
		return cmdBacktestMerge(env, args[1:])
	}
	cfg, code := parseBacktest(env, args)
	if cfg == nil {
		return code
	}
	if env.getenv("GOGC") == "" {
		// A backtest is a batch job that allocates a State per tick and
		// keeps little: collecting less often is about a fifth faster for
		// a few more megabytes (measured in BENCHMARKS.md).
		debug.SetGCPercent(400)
	}
	opts := backtest.Options{RuleDirs: cfg.rules, Getenv: env.getenv, From: cfg.from, To: cfg.to, APIKey: cfg.account,
		Step: cfg.step, SampleEvery: cfg.sample, Progress: env.stderr, Logger: zap.NewNop()}
	if cfg.safety != "" {
		var err error
		if opts.Safety, err = actions.LoadSafety(cfg.safety); err != nil {
			// A file that is wrong, not the command line: as engine run.
			fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
			return exitFail
		}
	}
	prepare, err := backtestSource(cfg)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	if err := prepare(&opts); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	if opts.To.IsZero() && opts.Scenario.Clock.End.IsZero() {
		start := opts.From
		if start.IsZero() {
			start = opts.Scenario.Clock.Start
		}
		fmt.Fprintf(env.stderr, "engine backtest: scenario %s has no end; running one day, to %s (set --to for another end)\n",
			opts.Scenario.Name, start.Add(backtest.DefaultSpan).UTC().Format(time.RFC3339))
	}
	if cfg.walkTrain > 0 {
		return runWalkForward(ctx, env, cfg, opts, prepare)
	}
	if len(cfg.vary) > 0 {
		return runSweep(ctx, env, cfg, opts, prepare)
	}
	rep, err := backtest.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	if err := rep.WriteFiles(cfg.out); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	firings := 0
	for _, r := range rep.Summary.Rules {
		firings += r.Firings
	}
	fmt.Fprintf(env.stdout, "%d ticks, %d firings, %d orders, %d fills; wrote %s/%s and %s/%s\n", rep.Ticks, firings,
		rep.Summary.Orders, rep.Summary.Fills, cfg.out, backtest.JSONFile, cfg.out, backtest.HTMLFile)
	if err := rep.WriteSummaryTable(env.stdout); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(env.stdout, "note: %s\n", n)
	}
	return exitOK
}

// backtestSource returns what sets a backtest's scenario (and market, for
// a recording) in its options. A sweep calls it for every variant, so that
// variants running at once share no scenario; a recording is read once.
func backtestSource(cfg *backtestConfig) (func(*backtest.Options) error, error) {
	switch {
	case cfg.history.dir != "":
		return historySource(cfg)
	case cfg.recording != "":
		rec, err := backtest.LoadRecording(cfg.recording)
		if err != nil {
			return nil, err
		}
		return rec.Apply, nil
	case cfg.scenario != "":
		return func(o *backtest.Options) (err error) {
			o.Scenario, err = sim.LoadScenario(cfg.scenario)
			return err
		}, nil
	default:
		return func(o *backtest.Options) error {
			o.Scenario = sim.Demo()
			return nil
		}, nil
	}
}

// runSweep runs the variants of --vary, prints a line as each finishes
// and the comparison table, and writes compare.html.
func runSweep(ctx context.Context, env *cliEnv, cfg *backtestConfig, opts backtest.Options, prepare func(*backtest.Options) error) int {
	start := time.Now()
	res, err := backtest.Sweep(ctx, backtest.SweepOptions{Base: opts, Prepare: prepare, Vary: cfg.vary, Jobs: cfg.jobs, Out: cfg.out,
		Shard: cfg.shard,
		Done: func(v backtest.VariantResult) {
			fmt.Fprintf(env.stderr, "done %s (%s)\n", v.Name, time.Since(start).Round(time.Millisecond))
		}})
	if err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	if cfg.shard.N > 0 {
		return finishShard(env, cfg, res)
	}
	if err := res.WriteCompare(cfg.out); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(env.stdout, "%d variants; wrote a report per variant under %s/ and %s/%s\n", len(res.Variants), cfg.out, cfg.out, backtest.CompareFile)
	if err := res.WriteTable(env.stdout); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	return exitOK
}

// runWalkForward runs --walk-forward: a sweep on each training window, the
// best variant on the test window after it; prints a line as each run
// finishes and the table of windows, and writes walkforward.json.
func runWalkForward(ctx context.Context, env *cliEnv, cfg *backtestConfig, opts backtest.Options, prepare func(*backtest.Options) error) int {
	start := time.Now()
	res, err := backtest.WalkForward(ctx, backtest.WalkForwardOptions{
		Sweep: backtest.SweepOptions{Base: opts, Prepare: prepare, Vary: cfg.vary, Jobs: cfg.jobs, Out: cfg.out,
			Done: func(v backtest.VariantResult) {
				fmt.Fprintf(env.stderr, "done %s (%s)\n", v.Name, time.Since(start).Round(time.Millisecond))
			}},
		Train: cfg.walkTrain, Test: cfg.walkTest, Objective: cfg.objective})
	if err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	if err := res.WriteFile(cfg.out); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(env.stdout, "%d windows; wrote each run's report under %s/window-NN/ and %s/%s\n", len(res.Windows), cfg.out, cfg.out, backtest.WalkForwardFile)
	if err := res.WriteTable(env.stdout); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	return exitOK
}
