package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"
)

// maxSpeed is the fastest a simulated clock may run (--speed): a thousand
// simulated seconds per wall second is a trading day in about 25 s. Faster
// clocks make sub-second waits round to nothing and, run for months, would
// overflow the simulated time.
const maxSpeed = 1000

// checkSpeed rejects a --speed that is not a number, not positive, or
// faster than maxSpeed, in words a user can act on.
func checkSpeed(speed float64) error {
	if math.IsNaN(speed) || math.IsInf(speed, 0) || speed <= 0 || speed > maxSpeed {
		return fmt.Errorf("--speed must be a number above 0 and at most %d (got %v)", maxSpeed, speed)
	}
	return nil
}

// Simulated clocks start within these years: millisecond timestamps before
// 1970 are negative, and after 2200 nothing a rule or a client computes
// is meaningful.
var (
	minClockStart = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxClockStart = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// checkClockStart rejects a simulated clock start outside
// [minClockStart, maxClockStart).
func checkClockStart(start time.Time) error {
	if start.Before(minClockStart) || !start.Before(maxClockStart) {
		return fmt.Errorf("clock start %s is out of range: it must be from %d to %d", start.Format(time.RFC3339), minClockStart.Year(), maxClockStart.Year()-1)
	}
	return nil
}

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
