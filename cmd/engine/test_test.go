package main

import (
	"bytes"
	"context"
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
