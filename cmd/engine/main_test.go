package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata/ (doctor checklists, console log lines).
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testsAtOnce is how many of this package's parallel tests run at once
// unless -parallel says otherwise. Most of them wait on real time (engines
// that run for a few seconds of wall clock, subprocesses killed and
// started again, venues that answer late), not on the CPU, so the default
// of one per core leaves a 2-core machine idle for minutes.
const testsAtOnce = 8

// TestMain runs testsAtOnce parallel tests at once where -parallel is not
// given. In a subprocess of the fail-closed tests (envRunEngine) it is the
// engine instead: main, with the arguments the test gave.
func TestMain(m *testing.M) {
	if os.Getenv(envRunEngine) == "1" {
		main() // exits
	}
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < testsAtOnce {
		if err := flag.Set("test.parallel", strconv.Itoa(testsAtOnce)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = dispatch(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"help lists every subcommand", []string{"help"}, exitOK, "backtest", ""},
		{"dash h is help", []string{"-h"}, exitOK, "commands:", ""},
		{"no command is a usage error", nil, exitUsage, "", "usage: engine"},
		{"unknown command exits 2 with usage", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestHelpNamesAllCommands(t *testing.T) {
	t.Parallel()
	_, stdout, _ := runCLI(t, "help")
	for _, c := range commands() {
		if !strings.Contains(stdout, "  "+c.name+" ") {
			t.Errorf("help does not list %q:\n%s", c.name, stdout)
		}
	}
}

// compareGolden compares got with the golden file at path, or rewrites it
// with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
