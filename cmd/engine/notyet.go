package main

import (
	"context"
	"fmt"
)

// notYet is the placeholder of a subcommand whose issue has not landed. It
// says so plainly and exits 2 rather than pretending to work.
func notYet(name, issue string) func(context.Context, *cliEnv, []string) int {
	return func(_ context.Context, env *cliEnv, _ []string) int {
		fmt.Fprintf(env.stderr, "engine %s: not implemented yet (%s)\n", name, issue)
		return exitUsage
	}
}
