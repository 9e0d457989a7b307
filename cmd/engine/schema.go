package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tickrules/tickrules/actions"
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
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	if _, err := env.stdout.Write(rules.Schema(actions.Defs())); err != nil {
		return exitFail
	}
	return exitOK
}
