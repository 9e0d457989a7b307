package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTestCommand(t *testing.T) {
	t.Parallel()
	const rt = "../../ruletest/testdata"
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		// One example's test through the command: that every example
		// passes is ruletest's TestExamples, on the same runner; running
		// them all here too made this the suite's costliest test.
		{"examples pass", []string{"test", "--run", "^cancels an order pending for more than 15 minutes$", examplesDir}, exitOK,
			[]string{"ok: 1 tests in ", ": 1 passed, 0 failed"}, nil},
		{"verbose lists passing tests", []string{"test", "-v", rt + "/passing"}, exitOK,
			[]string{"PASS  fires at the open", "PASS  quiet when the spread is wide", "ok: 2 tests in 1 files: 2 passed, 0 failed"}, nil},
		{"a failing test exits 1 with the diff", []string{"test", rt + "/failing"}, exitFail,
			[]string{"FAIL  wrong size and price", "place_order: size was 1, expected 2", "FAIL: 5 tests in 1 files: 0 passed, 5 failed"}, nil},
		{"--run selects by name", []string{"test", "--run", "size", "-v", rt + "/failing"}, exitFail,
			[]string{"FAIL  wrong size and price", "1 tests in 1 files: 0 passed, 1 failed"}, nil},
		{"--run after the directory", []string{"test", rt + "/passing", "--run", "wide$", "-v"}, exitOK,
			[]string{"PASS  quiet when the spread is wide", "1 tests in 1 files: 1 passed"}, nil},
		{"--run matching nothing fails", []string{"test", "--run", "^nothing$", rt + "/passing"}, exitFail,
			nil, []string{`no test matches --run "^nothing$"`}},
		{"a bad regex is a usage error", []string{"test", "--run", "(", rt + "/passing"}, exitUsage,
			nil, []string{"--run: error parsing regexp"}},
		{"no directory", []string{"test"}, exitUsage, nil, []string{"name at least one directory"}},
		{"a directory without tests", []string{"test", "../../docs"}, exitFail, nil, []string{"no rule tests (*_test.yaml) in ../../docs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(context.Background(), &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, tc.args)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out.String(), errb.String())
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

// TestTestCommandReadsTheEnvironment: engine test reads a ${NAME} its test
// file's env: does not list from the environment, as engine run does, so the
// walkthrough's export covers it too; env: wins where it lists the name, and
// an unset name's hint says both ways (issue 25).
func TestTestCommandReadsTheEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rule := `rules:
  - name: buy-the-open
    when: market.session == "regular"
    once: per_session
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: limit, size: ${SIZE}, price: 400}
`
	test := `%s
tests:
  - name: fires at the open
    start: "2026-03-09 09:29"
    end: "09:31"
    expect:
      - rule: buy-the-open
        fires:
          - at: "09:30"
            actions:
              - place_order: {symbol: TSLAUSDT, side: buy, size: 2, price: 400, type: limit}
`
	write := func(sub, env string) string {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"r.yaml": rule, "r_test.yaml": fmt.Sprintf(test, env)} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	fromEnv, listed := write("from-env", ""), write("listed", "env: {SIZE: \"2\"}")
	environ := func(v string) func(string) string {
		return func(name string) string {
			if name == "SIZE" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name     string
		dir      string
		environ  func(string) string
		wantCode int
		want     string
	}{
		{"exported", fromEnv, environ("2"), exitOK, "1 passed, 0 failed"},
		{"env: wins over the environment", listed, environ("7"), exitOK, "1 passed, 0 failed"},
		{"unset", fromEnv, environ(""), exitFail,
			"hint: export SIZE=VALUE before running the command, list it under env: in r_test.yaml, or give a default: ${SIZE:-value}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLIEnv(t, tc.environ, "test", tc.dir)
			if code != tc.wantCode || !strings.Contains(stdout+stderr, tc.want) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.wantCode, tc.want, stdout, stderr)
			}
		})
	}
}
