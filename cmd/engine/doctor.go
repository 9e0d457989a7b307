package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/doctor"
	"github.com/tickrules/tickrules/exchange"
)

// doctorTimeout bounds a whole doctor run: a few dozen read requests.
const doctorTimeout = 90 * time.Second

// resolveVenue turns --venue into a base URL: live and demo are the real
// exchange (demo with the demo-trading header), anything else a URL.
func resolveVenue(name string) (base string, demo bool) {
	switch name {
	case "live":
		return liveBaseURL, false
	case "demo":
		return liveBaseURL, true
	}
	return name, false
}

// cmdDoctor checks an account and rules read-only and prints the checklist.
func cmdDoctor(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine doctor", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	venue := fs.String("venue", "", "`live` (the real exchange), demo (its demo trading) or the URL of a venue such as engine sim")
	rulesDirs := fs.String("rules", "", "rule `dirs` to check against the account (comma-separated)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine doctor --venue live|demo|URL [--rules DIR]")
		fmt.Fprintln(fs.Output(), "\nChecks, read-only, that the account and the rules are ready: credentials,")
		fmt.Fprintln(fs.Output(), "permissions, clock, position modes, symbols and sizes, balances, open orders")
		fmt.Fprintln(fs.Output(), "and positions, the polling budget and stock data access. Credentials as for")
		fmt.Fprintln(fs.Output(), "engine run. Exit status: 0 no blocker, 1 a blocker, 2 usage error.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	if *venue == "" {
		fmt.Fprintln(env.stderr, "engine doctor: --venue is required (live, demo or a URL)")
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	rep, err := runDoctor(ctx, env, *venue, splitList(*rulesDirs), clock.Real{}, zap.NewNop())
	if err != nil {
		fmt.Fprintf(env.stderr, "engine doctor: %v\n", err)
		return exitFail
	}
	if err := rep.Write(env.stdout); err != nil || rep.Blocked() {
		return exitFail
	}
	return exitOK
}

// runDoctor opens a read-only client to venue and runs the checks. clk is
// the local clock (tests skew it).
func runDoctor(ctx context.Context, env *cliEnv, venue string, ruleDirs []string, clk exchange.Clock, log *zap.Logger) (*doctor.Report, error) {
	creds, err := loadCredentials(env.getenv, os.Stat, os.ReadFile)
	if err != nil {
		return nil, err
	}
	if creds.IsZero() {
		return nil, fmt.Errorf("--venue %s needs credentials: set TICKRULES_API_KEY, TICKRULES_API_SECRET and TICKRULES_API_PASSPHRASE, or TICKRULES_CREDENTIALS_FILE", venue)
	}
	base, demo := resolveVenue(venue)
	// The limiter passes the one operation the doctor adds to the table.
	lim := exchange.NewLimiter(exchange.LimiterOptions{Ops: append(exchange.Ops(), exchange.AccountInfoOp())})
	v, err := readOnlyDoctorVenue(exchange.ClientOptions{BaseURL: base, Credentials: creds, Demo: demo, Clock: clk,
		Limiter: lim, Logger: log.Named("exchange")}, &http.Client{Timeout: exchange.DefaultHTTPTimeout})
	if err != nil {
		return nil, err
	}
	mode := "read-only"
	if demo {
		mode += ", demo trading"
	}
	fmt.Fprintf(env.stdout, "engine doctor: %s (%s)\n\n", base, mode)
	return doctor.Run(ctx, doctor.Options{Venue: v, RuleDirs: ruleDirs, Getenv: env.getenv, Demo: demo}), nil
}

// preflight runs the doctor before engine run trades the real exchange
// and reports whether it may start: a blocker stops it.
func preflight(ctx context.Context, env *cliEnv, venue string, ruleDirs []string, log *zap.Logger) bool {
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	rep, err := runDoctor(ctx, &cliEnv{stdout: env.stderr, stderr: env.stderr, getenv: env.getenv}, venue, ruleDirs, clock.Real{}, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine run: doctor: %v\n", err)
		return false
	}
	_ = rep.Write(env.stderr)
	if rep.Blocked() {
		fmt.Fprintln(env.stderr, "engine run: not started: engine doctor found a blocker (see above)")
		return false
	}
	return true
}
