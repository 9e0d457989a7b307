package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// simShutdownGrace is how long in-flight requests get to finish after
// SIGINT or SIGTERM.
const simShutdownGrace = 5 * time.Second

// cmdSim serves the simulated exchange over HTTP until ctx is cancelled.
// It prints exactly one line on stdout, "listening on http://HOST:PORT",
// once the listener is bound; every other line goes to stderr: a summary
// of the requests every simSummaryEvery, and one line per request at
// --log-level debug.
func cmdSim(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine sim", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	scenarioPath := fs.String("scenario", "", "scenario `file` (YAML); default: the built-in demo scenario")
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to listen on; port 0 picks a free port")
	speed := fs.Float64("speed", 1, "run the simulated clock `N` times faster than the wall clock (above 0, at most 1000)")
	levelText := fs.String("log-level", "info", "`level` of the log on stderr: info (a summary of the requests every 10s) or debug (also one line per request)")
	startText := fs.String("start", "", "start the simulated clock at this `time`: RFC 3339 or New York time such as \"2026-03-09 09:29:50\"; default: the scenario's clock.start, or now for the demo")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine sim [--scenario FILE] [--listen ADDR] [--start TIME] [--speed N] [--log-level debug]")
		fmt.Fprintln(fs.Output(), "\nServes the simulated exchange over HTTP on the spec's paths. Its clock follows")
		fmt.Fprintln(fs.Output(), "the wall clock (N times faster with --speed) from the scenario's clock.start,")
		fmt.Fprintln(fs.Output(), "or from now for the demo scenario; clock.end does not stop it.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	if err := checkSpeed(*speed); err != nil {
		fmt.Fprintf(env.stderr, "engine sim: %v\n", err)
		return exitUsage
	}
	level, err := zapcore.ParseLevel(*levelText)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine sim: --log-level %q: want info or debug\n", *levelText)
		return exitUsage
	}
	var startAt time.Time
	if *startText != "" {
		t, err := clock.ParseTime(*startText)
		if err != nil {
			fmt.Fprintf(env.stderr, "engine sim: --start %v\n", err)
			return exitUsage
		}
		startAt = t
	}

	// A scenario's clock starts at its start; the demo's at the wall clock's
	// now, so that over HTTP it follows real time.
	var sc *sim.Scenario
	start := time.Now()
	if *scenarioPath != "" {
		var err error
		if sc, err = sim.LoadScenario(*scenarioPath); err != nil {
			fmt.Fprintf(env.stderr, "engine sim: %v\n", err)
			return exitFail
		}
		start = sc.Clock.Start
		if err := checkClockStart(start); err != nil {
			fmt.Fprintf(env.stderr, "engine sim: %s: %v\n", *scenarioPath, err)
			return exitFail
		}
	} else {
		sc = sim.Demo()
	}
	if !startAt.IsZero() {
		start = startAt
	}
	clk, err := server.NewWallClock(start, *speed)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine sim: %v\n", err)
		return exitUsage
	}
	log := newConsoleLogger(env, level, traderTimeMillis)
	defer func() { _ = log.Sync() }()

	tally := &requestTally{}
	x, err := sim.New(sc, sim.Options{Clock: clk, Logger: log.Named("sim")})
	if err != nil {
		fmt.Fprintf(env.stderr, "engine sim: %v\n", err)
		return exitFail
	}
	handler := server.New(server.Options{
		Backend:   server.SimBackend(x),
		Clock:     clk,
		AuthClock: clock.Real{},
		Logger:    log.Named("http"),
		OnRequest: tally.add,
		Faults:    x.Faults(),
	})

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine sim: %v\n", err)
		return exitFail
	}
	srv := server.NewHTTPServer(handler, server.HTTPOptions{
		// The answer of a request waits out the injected latency first.
		WriteTimeout: server.DefaultWriteTimeout + time.Duration(float64(x.Faults().Latency) / *speed),
		Logger:       log.Named("http"),
		// Requests inherit ctx, so a request waiting out injected latency
		// ends when the command is told to stop.
		BaseContext: func(net.Listener) context.Context { return ctx },
	})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	summaryDone, summaryStopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(summaryStopped)
		tally.summarise(log.Named("http"), summaryDone)
	}()
	// The last summary is written once the server has stopped, so it
	// counts every request answered.
	defer func() { close(summaryDone); <-summaryStopped }()
	fmt.Fprintf(env.stdout, "listening on http://%s\n", ln.Addr())
	log.Info("simulator ready", zap.String("scenario", scenarioName(sc, *scenarioPath)),
		zap.Time("clock", clk.Now()), zap.Float64("speed", *speed))

	select {
	case err := <-served:
		fmt.Fprintf(env.stderr, "engine sim: %v\n", err)
		return exitFail
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), simShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		// Stopping was asked for and happens either way; the connections
		// still open after the grace period are cut.
		log.Warn("requests still running after the grace period; closing their connections", zap.Error(err))
		_ = srv.Close()
	}
	log.Info("simulator stopped")
	return exitOK
}

func scenarioName(sc *sim.Scenario, path string) string {
	if path != "" {
		return path
	}
	if sc.Name != "" {
		return sc.Name
	}
	return "demo"
}
