package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// cmdRecord polls a venue's market data, as the engine's pollers would, and
// writes it as a recording for engine backtest --recording. It only reads:
// the client it holds cannot send an order.
func cmdRecord(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine record", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	venue := fs.String("venue", "", "`live` (the real exchange) or the URL of a venue such as engine sim")
	out := fs.String("out", "", "recording `file` to write (JSON lines)")
	duration := fs.Duration("duration", 0, "stop after this `duration` (0: until interrupted)")
	rulesDirs := fs.String("rules", "", "rule `dirs`: record only what these rules read (default: every stock pair)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine record --venue URL|live --out FILE [--duration D] [--rules DIR]")
		fmt.Fprintln(fs.Output(), "\nRecords the venue's market data (sessions, stock pairs, books, fills, futures")
		fmt.Fprintln(fs.Output(), "tickers) for engine backtest --recording. Credentials as for engine run.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || *venue == "" || *out == "" || *duration < 0 {
		fmt.Fprintln(env.stderr, "engine record: --venue and --out are required, --duration is not negative, and there are no other arguments")
		return exitUsage
	}
	dirs := splitList(*rulesDirs)
	creds, err := loadCredentials(env.getenv, os.Stat, os.ReadFile)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine record: %v\n", err)
		return exitFail
	}
	if creds.IsZero() {
		fmt.Fprintf(env.stderr, "engine record: --venue %s needs credentials: set TICKRULES_API_KEY, TICKRULES_API_SECRET and TICKRULES_API_PASSPHRASE\n", *venue)
		return exitFail
	}
	base := *venue
	if base == "live" {
		base = liveBaseURL
	}
	log := newCLILogger(env)
	defer func() { _ = log.Sync() }()
	clk := clock.Real{}
	c, err := exchange.NewReadOnlyClient(exchange.ClientOptions{BaseURL: base, Credentials: creds, Clock: clk,
		Limiter: exchange.NewLimiter(exchange.LimiterOptions{Clock: clk}), Logger: log.Named("exchange")})
	if err != nil {
		fmt.Fprintf(env.stderr, "engine record: %v\n", err)
		return exitFail
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine record: %v\n", err)
		return exitFail
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	started := time.Now()
	// Lines are stamped with the venue's time, so that a backtest of a
	// recording of a simulator sees the simulator's session.
	vc := venueClock(ctx, newTimeProbe(base), log.Named("venue-clock"))
	st, err := backtest.Record(ctx, backtest.RecordOptions{Venue: c, VenueName: base, Clock: vc, Out: f, RuleDirs: dirs, Getenv: env.getenv, Logger: log})
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case errors.Is(err, assemble.ErrBadRules):
		fmt.Fprintf(env.stderr, "%v; nothing was recorded\n", err)
		return exitFail
	case err != nil:
		fmt.Fprintf(env.stderr, "engine record: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(env.stdout, "recorded %d lines in %s to %s\n", st.Lines, time.Since(started).Round(time.Second), *out)
	return exitOK
}
