package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/tickrules/tickrules/rules"
)

// cmdSchema prints the JSON Schema of rule files on stdout.
func cmdSchema(_ context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine schema", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine schema > docs/rules.schema.json")
		fmt.Fprintln(fs.Output(), "\nPrints the JSON Schema of rule files, for editors (yaml-language-server) and CI.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "engine schema: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if _, err := env.stdout.Write(rules.Schema()); err != nil {
		return exitFail
	}
	return exitOK
}
