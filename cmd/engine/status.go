package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/status"
)

// defaultHTTPAddr is where engine run serves its status page, status API
// and metrics, and where engine status and engine why look for them:
// loopback only, so nothing is reachable from another machine unless the
// user says so.
const defaultHTTPAddr = "127.0.0.1:9477"

// statusTimeout bounds one request of engine status and engine why.
const statusTimeout = 10 * time.Second

// liveStatus is what engine run keeps for the status page and for the
// closing summary: the recorder of firings, orders and fills, and the
// watcher that reads fills and balances off the tick loop.
type liveStatus struct {
	log    *zap.Logger
	rec    *status.Recorder
	watch  *status.Watcher // nil when the venue cannot list fills
	board  *status.Board   // for the positions of the closing summary
	notify *engineNotifier // nil without --notify
}

func newLiveStatus(log *zap.Logger) *liveStatus {
	return &liveStatus{log: log.Named("trade"), rec: status.NewRecorder(status.RecorderOptions{})}
}

// onFiring records a firing's requests and logs one line per order.
func (s *liveStatus) onFiring(f *engine.Firing) {
	orders := s.rec.ObserveFiring(f.Rule.Name, f.Seq, f.At, f.Legs)
	for _, o := range orders {
		logOrder(s.log, o)
	}
	for _, l := range f.Legs {
		if l.Kind == "notify" { // logged whether or not a target gets it
			s.log.Info("notify", zap.String("rule", f.Rule.Name), zap.String("message", l.Note))
		}
	}
	s.notify.firing(f, orders)
}

// start wires the board over the assembled engine and starts the watcher;
// it returns the board the HTTP listener serves.
func (s *liveStatus) start(ctx context.Context, cfg *runConfig, v *venueSet, asm *assemble.Assembly, started time.Time) *status.Board {
	health := status.NewHealth(status.HealthOptions{Engine: asm.Engine, Clock: v.clock, StateDir: v.stateDir, Guard: asm.Guard})
	board := status.NewBoard(status.BoardOptions{Engine: asm.Engine, Guard: asm.Guard, Parts: asm.PollParts(), Recorder: s.rec,
		Clock: v.clock, Venue: v.name, DryRun: cfg.dryRun, Started: started, Health: health,
		Resume: func(from string) error {
			return resumeTrading(asm.Guard, s.log, "engine resume or the status page, from "+from)
		}})
	s.board = board
	fills, ok := v.reader.(status.FillsReader)
	if !ok {
		s.log.Warn("this venue cannot list fills: fills and P&L are not shown")
		return board
	}
	var products []exchange.ProductType
	for pt := range asm.Modes {
		products = append(products, pt)
	}
	slices.Sort(products)
	s.watch = status.NewWatcher(status.WatcherOptions{Fills: fills, Accounts: v.accts, Products: products, Recorder: s.rec,
		Clock: v.clock, Since: started, OnFill: func(f status.FillRecord) { logFill(s.log, f) }})
	// The balances at start are the base of the P&L: read before any tick.
	if err := s.watch.Poll(ctx); err != nil {
		s.log.Warn("reading fills and balances failed; retried every few seconds", zap.Error(err))
	}
	go s.watch.Run(ctx, func(err error) { s.log.Warn("reading fills and balances failed", zap.Error(err)) })
	return board
}

// stop reads the last fills and balances and logs the closing summary.
func (s *liveStatus) stop(ctx context.Context) {
	if s.watch != nil {
		// The engine's context is over; the last read gets a few seconds of its own.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := s.watch.Poll(rctx); err != nil {
			s.log.Warn("last read of fills and balances failed; the summary may miss the latest", zap.Error(err))
		}
		cancel()
	}
	_, _, _, totals := s.rec.Recent()
	var positions []status.Position
	if s.board != nil {
		positions = s.board.Snapshot().Positions // as of the engine's last State
	}
	logSummary(s.log.Named("summary"), totals, positions, s.rec.Accounts())
	s.notify.stopped(ctx, time.Time{}, totals)
}

// statusFlags are the flags of the commands that ask a running engine.
func statusFlags(env *cliEnv, name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	return fs, fs.String("addr", defaultHTTPAddr, "`address` of the running engine (its --metrics-addr)")
}

// cmdStatus prints what a running engine is doing, read from its status API.
func cmdStatus(ctx context.Context, env *cliEnv, args []string) int {
	fs, addr := statusFlags(env, "engine status")
	probe := fs.String("probe", "", "`healthz` or readyz: print only that probe and exit 1 when it fails (a container's HEALTHCHECK)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine status [--addr HOST:PORT] [--probe healthz|readyz]")
		fmt.Fprintln(fs.Output(), "\nPrints every rule with why it is or is not firing, the account, recent orders and fills,")
		fmt.Fprintln(fs.Output(), "the health of the polled data and of the engine, from a running engine run. The same is at")
		fmt.Fprintln(fs.Output(), "http://"+defaultHTTPAddr+"/status in a browser.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	switch *probe {
	case "":
	case "healthz", "readyz":
		return printProbe(ctx, env, *addr, *probe)
	default:
		fmt.Fprintf(env.stderr, "engine status: --probe must be healthz or readyz (got %q)\n", *probe)
		return exitUsage
	}
	snap, err := status.FetchSnapshot(ctx, http.DefaultClient, *addr)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine status: %v\n", err)
		return exitFail
	}
	if err := status.WriteTable(env.stdout, snap); err != nil {
		fmt.Fprintf(env.stderr, "engine status: %v\n", err)
		return exitFail
	}
	return exitOK
}

// printProbe prints the probe name of the engine at addr: ok, or each
// reason it fails; exit 1 when it fails or no engine answers.
func printProbe(ctx context.Context, env *cliEnv, addr, name string) int {
	p, err := status.FetchProbe(ctx, http.DefaultClient, addr, "/"+name)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine status: %v\n", err)
		return exitFail
	}
	if p.OK {
		fmt.Fprintf(env.stdout, "%s: ok\n", name)
		return exitOK
	}
	fmt.Fprintf(env.stdout, "%s: NOT OK\n", name)
	for _, r := range p.Reasons {
		fmt.Fprintf(env.stdout, "  - %s\n", r)
	}
	return exitFail
}

// cmdResume lifts the halt of a running engine through its status API, as
// SIGUSR2 does.
func cmdResume(ctx context.Context, env *cliEnv, args []string) int {
	fs, addr := statusFlags(env, "engine resume")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine resume [--addr HOST:PORT]")
		fmt.Fprintln(fs.Output(), "\nLifts the halt of the engine run on this machine: a rule's halt (until: manual or not yet over),")
		fmt.Fprintln(fs.Output(), "a tripped protection of the safety file, and the kill switch of SIGUSR1, as kill -USR2 PID does.")
		fmt.Fprintln(fs.Output(), "A kill-switch file stays until you remove it. Only from the engine's own machine: the engine")
		fmt.Fprintln(fs.Output(), "refuses the request from anywhere else.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	k, err := status.Resume(ctx, http.DefaultClient, *addr)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine resume: %v\n", err)
		return exitFail
	}
	if k.On {
		fmt.Fprintf(env.stdout, "lifted; new orders are still stopped: %s\n", k.Reason)
		return exitFail
	}
	fmt.Fprintln(env.stdout, "lifted: new orders go again")
	return exitOK
}

// cmdWhy prints one rule's status and its recent evaluations.
func cmdWhy(ctx context.Context, env *cliEnv, args []string) int {
	fs, addr := statusFlags(env, "engine why")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine why RULE [--addr HOST:PORT]")
		fmt.Fprintln(fs.Output(), "\nPrints why RULE does or does not fire: its phase, what its condition read, when it can")
		fmt.Fprintln(fs.Output(), "fire next, and its recent evaluations, from a running engine run.")
		fs.PrintDefaults()
	}
	names, code, stop := parseWithPaths(fs, args)
	if stop {
		return code
	}
	if len(names) != 1 {
		fmt.Fprintln(env.stderr, "engine why: name one rule, e.g. engine why buy-the-open-dip")
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	d, err := status.FetchRule(ctx, http.DefaultClient, *addr, names[0])
	if err != nil {
		if errors.Is(err, status.ErrNoRule) {
			fmt.Fprintf(env.stderr, "engine why: the running engine has no rule named %q (engine status lists them)\n", names[0])
		} else {
			fmt.Fprintf(env.stderr, "engine why: %v\n", err)
		}
		return exitFail
	}
	if err := status.WriteRule(env.stdout, d); err != nil {
		fmt.Fprintf(env.stderr, "engine why: %v\n", err)
		return exitFail
	}
	return exitOK
}
