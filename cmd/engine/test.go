package main

import (
	"context"
	"flag"
	"fmt"
	"regexp"

	"github.com/tickrules/tickrules/ruletest"
)

// cmdTest runs the *_test.yaml rule tests under each DIR. Results go to
// stdout, problems with the command line to stderr.
func cmdTest(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine test", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	run := fs.String("run", "", "run only the tests whose names match this `REGEX`")
	verbose := fs.Bool("v", false, "list passing tests too, and every difference of a failing test (without it, the first 5 and a count)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine test [--run REGEX] [-v] DIR|FILE...")
		fmt.Fprintln(fs.Output(), "\nRuns the *_test.yaml rule tests (see docs/rule-tests.md).")
		fmt.Fprintln(fs.Output(), "Exit status: 0 all passed, 1 a test failed or a file could not run, 2 usage error.")
		fs.PrintDefaults()
	}
	paths, code, stop := parseWithPaths(fs, args)
	if stop {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintln(env.stderr, "engine test: name at least one directory or test file")
		fs.Usage()
		return exitUsage
	}
	opts := ruletest.Options{Getenv: env.getenv}
	if *run != "" {
		var err error
		if opts.Run, err = regexp.Compile(*run); err != nil {
			fmt.Fprintf(env.stderr, "engine test: --run: %v\n", err)
			return exitUsage
		}
	}
	var results []ruletest.FileResult
	for _, p := range paths {
		rs, err := ruletest.RunDir(ctx, p, opts)
		results = append(results, rs...)
		if err != nil {
			fmt.Fprintf(env.stderr, "engine test: %v\n", err)
			return exitFail
		}
	}
	if err := ruletest.Write(env.stdout, results, *verbose, true); err != nil {
		return exitFail
	}
	sum := ruletest.Summarize(results)
	if sum.Tests == 0 && opts.Run != nil && sum.BrokenFiles == 0 {
		fmt.Fprintf(env.stderr, "engine test: no test matches --run %q\n", *run)
		return exitFail
	}
	status := "ok"
	if !sum.OK() {
		status = "FAIL"
	}
	fmt.Fprintf(env.stdout, "%s: %s\n", status, sum)
	if !sum.OK() {
		return exitFail
	}
	return exitOK
}
