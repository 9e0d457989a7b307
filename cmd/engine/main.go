// Command engine is the one binary of tickrules: it runs rules against an
// account, checks and tests rule files, backtests them, records live state,
// serves the simulated exchange and generates the reference docs.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand. run gets the arguments after the subcommand name
// and returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) int
}

// cliEnv is what a subcommand may touch of the outside world; tests swap it.
type cliEnv struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// onMetrics, when set, is told the address engine run serves metrics
	// on (tests scrape it).
	onMetrics func(addr string)
}

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found problems (bad rules, failed tests)
	exitUsage = 2 // the command line itself is wrong
)

func commands() []command {
	return []command{
		{"run", "run the rules against an account (or the embedded simulator)", cmdRun},
		{"check", "check rule files for every mistake that can be found without running", cmdCheck},
		{"test", "run the *_test.yaml rule tests", cmdTest},
		{"backtest", "replay a scenario or a recording through the rules and write a report", cmdBacktest},
		{"record", "record polled state as JSON lines for later backtests", cmdRecord},
		{"data", "download the venue's candle and funding history into a local store, and list it", cmdData},
		{"sim", "serve the simulated exchange over HTTP", cmdSim},
		{"doctor", "check, read-only, that an account and its rules are ready to trade", cmdDoctor},
		{"docs", "write the generated reference of variables, functions and actions", cmdDocs},
		{"schema", "print the JSON Schema of rule files", cmdSchema},
		{"status", "show what a running engine is doing: rules, account, orders, fills", cmdStatus},
		{"why", "show why a rule of a running engine does or does not fire", cmdWhy},
		{"resume", "lift a running engine's halt (a rule's halt, a tripped protection, SIGUSR1)", cmdResume},
		{"version", "print the version and source commit of this binary", cmdVersion},
		{"help", "show this help", nil},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, &cliEnv{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// dispatch runs the subcommand named by args[0].
func dispatch(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) == 0 {
		usage(env.stderr)
		return exitUsage
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" {
		usage(env.stdout)
		return exitOK
	}
	if name == "--version" || name == "-version" {
		return cmdVersion(ctx, env, args[1:])
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c.run(ctx, env, args[1:])
		}
	}
	fmt.Fprintf(env.stderr, "engine: unknown command %q\n\n", name)
	usage(env.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: engine <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "engine <command> -h" for the flags of a command.`)
}
