package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim/simtest"
)

const (
	examplesDir = "../../examples/rules"
	badDir      = "../../rules/testdata/bad"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{"examples are valid", []string{"check", examplesDir}, exitOK,
			[]string{"examples/rules/cut-losses.yaml: 3 rules OK", "examples/rules/flatten-before-close.yaml: 1 rule OK",
				"polling budget", "stock-orderbook: ", " of 10 req/s (per uid)"}, nil},
		{"a bad file exits 1 with file:line:col, source and caret", []string{"check", badDir + "/size-zero.yaml"}, exitFail,
			[]string{"size-zero.yaml: 1 error"},
			// Its market order has no once, cooldown or position test either:
			// engine check warns about that too (issue 25).
			[]string{"size-zero.yaml:10:17: size must be greater than 0, got 0", "          size: 0\n", "^",
				`size-zero.yaml:6:9: warning: rule "o" sends a market order each time its condition turns true`, "1 error, 1 warning"}},
		{"every error of several files", []string{"check", badDir + "/size-zero.yaml", badDir + "/unknown-variable.yaml"}, exitFail,
			nil, []string{"size-zero.yaml:10:17", "unknown-variable.yaml:4:11: unknown variable markt", "hint: did you mean market?", "2 errors"}},
		{"warnings alone pass", []string{"check", badDir + "/percent-for-ratio.yaml"}, exitOK,
			[]string{"percent-for-ratio.yaml: 1 rule OK, 1 warning"}, []string{"warning: unrealized_pnl_pct"}},
		{"flags after the directory", []string{"check", badDir + "/size-zero.yaml", "--format", "text"}, exitFail, nil, []string{"size-zero.yaml:10:17"}},
		{"no directory is a usage error", []string{"check"}, exitUsage, nil, []string{"name at least one"}},
		{"unknown format is a usage error", []string{"check", "--format", "xml", examplesDir}, exitUsage, nil, []string{"--format must be text or json"}},
		{"missing directory", []string{"check", "no/such/dir"}, exitFail, nil, []string{"no/such/dir: no such file or directory"}},
		{"help", []string{"check", "-h"}, exitOK, nil, []string{"usage: engine check"}},
		{"--strict fails on warnings", []string{"check", "--strict", badDir + "/percent-for-ratio.yaml"}, exitFail,
			[]string{"percent-for-ratio.yaml: 1 error"}, []string{"percent-for-ratio.yaml:", "unrealized_pnl_pct is compared with -5", "1 error, 0 warnings"}},
		{"--strict passes clean examples", []string{"check", "--strict", examplesDir}, exitOK, []string{"flatten-before-close.yaml: 1 rule OK"}, nil},
		{"a comment-only file fails", []string{"check", badDir + "/trader-comments-only.yaml"}, exitFail,
			nil, []string{"the file holds only comments: it has no rules", "--allow-empty"}},
		{"--allow-empty accepts it with a warning", []string{"check", "--allow-empty", badDir + "/trader-comments-only.yaml"}, exitOK,
			[]string{"trader-comments-only.yaml: 0 rules OK, 1 warning"}, []string{"warning: the file holds only comments"}},
		{"sizes weighed against the demo account", []string{"check", badDir + "/trader-size-in-usdt.yaml"}, exitOK,
			[]string{"1 rule OK, 1 warning"}, []string{"20.5 times the equity of the demo scenario's account (100,000 USDT)", "did you mean size: 12.2?"}},
		{"sizes above the demo contract's largest order", []string{"check", badDir + "/trader-size-extra-zeros.yaml"}, exitFail,
			nil, []string{"size 50000 is above the largest order TSLAUSDT accepts (5000)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout does not contain %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "check", "--format", "json", badDir+"/size-zero.yaml", examplesDir)
	if code != exitFail {
		t.Errorf("exit code %d, want %d", code, exitFail)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	// The error, and the warning about its unguarded market order.
	if rep.OK || len(rep.Findings) != 2 || rep.Findings[1].Line != 10 || rep.Findings[1].Column != 17 ||
		rep.Findings[0].Severity != rulefmt.SeverityWarning {
		t.Errorf("report %+v", rep)
	}
	examples, err := rules.RuleFiles(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1+len(examples) || rep.Files[0].Errors != 1 || rep.Files[1].Rules == 0 {
		t.Errorf("files %+v", rep.Files)
	}

	code, stdout, _ = runCLI(t, "check", "--format", "json", examplesDir)
	if code != exitOK {
		t.Errorf("exit code %d for valid rules", code)
	}
	rep = checkReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.Findings) != 0 || len(rep.Budget) == 0 {
		t.Errorf("report %+v", rep)
	}
}

// TestCheckVenue reads the catalog from a running simulator: a symbol the
// demo has is accepted, one it lacks is reported.
func TestCheckVenue(t *testing.T) {
	t.Parallel()
	// A virtual clock, moved on 2s before each check, keeps the public
	// stock-info limit (1 request/s per IP) from throttling the checks and
	// stays within the 30s timestamp window of the client's wall clock.
	venue := simtest.NewRig(t, simtest.RigOptions{Start: time.Now(), HTTP: true})
	clk := venue.Virtual
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "rules:\n  - name: g\n    when: stock(\"TSLA\").spread_bps < 8\n    actions: [close_positions: { symbol: TSLAUSDT }]\n")
	bad := write("bad.yaml", "rules:\n  - name: b\n    when: market.is_open\n    actions: [close_positions: { symbol: MSFTUSDT }]\n")
	if code, stdout, stderr := checkAt(clk, t, "check", "--venue", venue.URL, good); code != exitOK {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr := checkAt(clk, t, "check", "--venue", venue.URL, bad)
	if code != exitFail || !strings.Contains(stderr, "MSFTUSDT is not a futures contract") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	// With the hedge-mode demo account's credentials, a one-way raw field is
	// a mistake the check can prove.
	raw := write("raw.yaml", "rules:\n  - name: r\n    when: market.is_open\n    actions:\n      - place_order: { symbol: TSLAUSDT, side: buy, reduce_only: true, type: market, size: 1 }\n")
	hedge := map[string]string{"TICKRULES_API_KEY": "demo-hedge-key", "TICKRULES_API_SECRET": "demo-hedge-secret", "TICKRULES_API_PASSPHRASE": "demo-hedge-passphrase"}
	code, _, stderr = checkEnvAt(clk, t, func(k string) string { return hedge[k] }, "check", "--venue", venue.URL, raw)
	if code != exitFail || !strings.Contains(stderr, "reduce_only is for one-way mode; this account is in hedge mode") {
		t.Errorf("hedge account: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := checkAt(clk, t, "check", "--venue", venue.URL, raw); code != exitOK {
		t.Errorf("without credentials the mode is unknown and raw fields pass: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := checkAt(clk, t, "check", "--venue", "http://127.0.0.1:1", good); code != exitFail || !strings.Contains(stderr, "--venue") {
		t.Errorf("unreachable venue: exit %d\n%s", code, stderr)
	}
}

// checkAt and checkEnvAt run the CLI after moving the venue's clock on.
func checkAt(clk *clock.Virtual, t *testing.T, args ...string) (int, string, string) {
	clk.Advance(2 * time.Second)
	return runCLI(t, args...)
}

func checkEnvAt(clk *clock.Virtual, t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	clk.Advance(2 * time.Second)
	return runCLIEnv(t, getenv, args...)
}

func TestSchemaAndDocsCommands(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "schema")
	if code != exitOK || stdout != string(rules.Schema(actions.Defs())) || !json.Valid([]byte(stdout)) {
		t.Errorf("engine schema: exit %d, output is not the schema", code)
	}
	code, stdout, _ = runCLI(t, "docs", "--out", "-")
	if code != exitOK || stdout != string(rules.Reference(actions.Defs())) {
		t.Errorf("engine docs --out -: exit %d", code)
	}
	// With no flags it prints: it once wrote docs/reference.md into
	// whatever folder it was run in (issue 25).
	code, stdout, _ = runCLI(t, "docs")
	if code != exitOK || stdout != string(rules.Reference(actions.Defs())) {
		t.Errorf("engine docs: exit %d, printed %.60q; want the reference on stdout", code, stdout)
	}
	out := filepath.Join(t.TempDir(), "sub", "reference.md")
	code, stdout, _ = runCLI(t, "docs", "--out", out)
	got, err := os.ReadFile(out)
	if code != exitOK || err != nil || string(got) != string(rules.Reference(actions.Defs())) || !strings.Contains(stdout, "wrote ") {
		t.Errorf("engine docs --out FILE: exit %d, %v", code, err)
	}
	if code, _, _ := runCLI(t, "schema", "extra"); code != exitUsage {
		t.Errorf("engine schema extra: exit %d", code)
	}
}

func runCLIEnv(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdout: &out, stderr: &errb, getenv: getenv}
	code = dispatch(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func TestDocsCommandWritesADirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "offline")
	code, stdout, stderr := runCLI(t, "docs", "--out", dir)
	if code != exitOK || !strings.Contains(stdout, "wrote ") {
		t.Fatalf("engine docs --out DIR: exit %d, %s%s", code, stdout, stderr)
	}
	for name, want := range map[string][]byte{"reference.md": rules.Reference(actions.Defs()), "rules.schema.json": rules.Schema(actions.Defs())} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != string(want) {
			t.Errorf("%s: not the generated file (%v)", name, err)
		}
	}
	for _, name := range []string{"writing-rules.md", "safety.md", "safety.schema.json", "scenarios.md"} {
		want, _ := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || len(want) == 0 || string(got) != string(want) {
			t.Errorf("%s: not the guide of docs/ (%v)", name, err)
		}
	}
}
