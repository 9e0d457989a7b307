package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// parseFlagsOnly parses args for a command that takes flags only. When stop
// is true the command returns code at once: 0 after -h, 2 on a usage error
// (flag has already reported it, or an unexpected argument is reported here,
// followed by hint).
func parseFlagsOnly(env *cliEnv, fs *flag.FlagSet, args []string, hint string) (code int, stop bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "%s: unexpected argument %q%s\n", fs.Name(), fs.Arg(0), hint)
		return exitUsage, true
	}
	return exitOK, false
}

// splitList splits a comma-separated flag value such as --rules a,b and
// drops empty items.
func splitList(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// parseWithPaths parses flags that may come before, between or after the
// positional arguments (engine check DIR --format json) and returns the
// positional ones. stop and code are as for parseFlagsOnly.
func parseWithPaths(fs *flag.FlagSet, args []string) (paths []string, code int, stop bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, true
			}
			return nil, exitUsage, true
		}
		if fs.NArg() == 0 {
			return paths, exitOK, false
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
