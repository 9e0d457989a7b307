package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// smallRules is the backtest package's own rule set.
const smallRules = "../../backtest/testdata/rules"

func TestBacktestFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no rules", []string{"backtest"}, exitUsage, "--rules is required"},
		{"scenario and recording", []string{"backtest", "--rules", smallRules, "--scenario", "a.yaml", "--recording", "b.jsonl"}, exitUsage, "not both"},
		{"bad time", []string{"backtest", "--rules", smallRules, "--from", "monday"}, exitUsage, `--from "monday": not a time; write "2026-03-09 09:30" (New York time)`},
		{"time in the spring-forward gap", []string{"backtest", "--rules", smallRules, "--to", "2026-03-08 02:30"}, exitUsage, "does not exist in New York"},
		{"stray argument", []string{"backtest", "--rules", smallRules, "extra"}, exitUsage, `unexpected argument "extra"`},
		{"bad step", []string{"backtest", "--rules", smallRules, "--step", "0s"}, exitUsage, "must be positive"},
		{"bad vary", []string{"backtest", "--rules", smallRules, "--vary", "STOP"}, exitUsage, "write NAME=value1,value2"},
		{"bad jobs", []string{"backtest", "--rules", smallRules, "--vary", "STOP=1", "--jobs", "0"}, exitUsage, "--jobs must be positive"},
		{"walk-forward without vary", []string{"backtest", "--rules", smallRules, "--walk-forward", "60d/20d"}, exitUsage, "give at least one --vary"},
		{"bad walk-forward", []string{"backtest", "--rules", smallRules, "--vary", "STOP=1", "--walk-forward", "60d"}, exitUsage, "write TRAIN/TEST"},
		{"bad objective", []string{"backtest", "--rules", smallRules, "--objective", "luck"}, exitUsage, `--objective "luck": choose sharpe`},
		{"vary used nowhere", []string{"backtest", "--rules", smallRules, "--vary", "STOP=1,2", "--to", "2026-03-09T13:01:00Z"}, exitFail, "references ${STOP}"},
		{"missing scenario", []string{"backtest", "--rules", smallRules, "--scenario", "testdata/none.yaml"}, exitFail, "none.yaml"},
		{"missing recording", []string{"backtest", "--rules", smallRules, "--recording", "testdata/none.jsonl"}, exitFail, "none.jsonl"},
		// The demo has no end: the default of one day is said out loud.
		{"bad rules, demo without --to", []string{"backtest", "--rules", "testdata/does-not-exist"}, exitFail, "has no end; running one day, to 2026-03-10T13:00:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestBacktestTimeFlags checks that --from and --to read New York local
// times as rule tests do, not only RFC 3339 (issue 15: they took UTC only).
func TestBacktestTimeFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, from, to   string
		wantFrom, wantTo string
	}{
		{"new york minutes", "2026-03-09 09:20", "2026-03-09 09:50", "2026-03-09T13:20:00Z", "2026-03-09T13:50:00Z"},
		{"new york date and seconds", "2026-03-09", "2026-03-09 16:00:30", "2026-03-09T04:00:00Z", "2026-03-09T20:00:30Z"},
		{"rfc 3339", "2026-03-09T13:20:00Z", "2026-03-09T09:50:00-04:00", "2026-03-09T13:20:00Z", "2026-03-09T13:50:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			env := &cliEnv{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
			cfg, code := parseBacktest(env, []string{"--rules", smallRules, "--from", tc.from, "--to", tc.to})
			if cfg == nil {
				t.Fatalf("exit %d: %s", code, out.String())
			}
			if got := cfg.from.UTC().Format(time.RFC3339); got != tc.wantFrom {
				t.Errorf("from = %s, want %s", got, tc.wantFrom)
			}
			if got := cfg.to.UTC().Format(time.RFC3339); got != tc.wantTo {
				t.Errorf("to = %s, want %s", got, tc.wantTo)
			}
		})
	}
}

// TestBacktestWritesReports runs engine backtest on the demo for half an
// hour: both files are written and report.json names the run.
func TestBacktestWritesReports(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "backtest", "--rules", smallRules, "--from", "2026-03-09T13:20:00Z", "--to", "2026-03-09T13:50:00Z", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "1801 ticks") || !strings.Contains(stdout, "report.html") ||
		!regexp.MustCompile(`(?m)^account +return +max drawdown.*\nUSDT-FUTURES USDT +-?\d`).MatchString(stdout) {
		t.Errorf("stdout %q", stdout)
	}
	checkBacktestReport(t, out, "demo", "2026-03-09T13:20:00Z", "2026-03-09T13:50:00Z")
}

func checkBacktestReport(t *testing.T, dir, source, from, to string) *backtest.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, backtest.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep backtest.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Source != source || (from != "" && rep.From != from) || (to != "" && rep.To != to) || len(rep.Firings) == 0 {
		t.Errorf("report source %q from %s to %s with %d firings; want %q, %s, %s and firings", rep.Source, rep.From, rep.To, len(rep.Firings), source, from, to)
	}
	html, err := os.ReadFile(filepath.Join(dir, backtest.HTMLFile))
	// Every firing shows as a marker: of its fill or of its own.
	if err != nil || !strings.Contains(string(html), `"kind":"`) {
		t.Errorf("report.html without markers (%v)", err)
	}
	return &rep
}

// TestBacktestSweep runs a sweep of two sizes of the example rules over the
// first minutes of the demo's session: a report per variant, compare.html
// linking both, and the comparison table on stdout.
func TestBacktestSweep(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "backtest", "--rules", "../../examples/rules", "--from", "2026-03-09T13:25:00Z", "--to", "2026-03-09T13:45:00Z",
		"--out", out, "--vary", "TSLA_DIP_SIZE=1,2", "--jobs", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "2 variants") ||
		!regexp.MustCompile(`(?m)^account +variant +return +max drawdown +trades +win rate\nUSDT-FUTURES USDT +TSLA_DIP_SIZE=[12] +-?\d`).MatchString(stdout) {
		t.Errorf("stdout %q", stdout)
	}
	page, err := os.ReadFile(filepath.Join(out, backtest.CompareFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"TSLA_DIP_SIZE=1", "TSLA_DIP_SIZE=2"} {
		for _, f := range []string{backtest.JSONFile, backtest.HTMLFile} {
			if _, err := os.Stat(filepath.Join(out, v, f)); err != nil {
				t.Error(err)
			}
		}
		if !strings.Contains(string(page), `href="`+v+`/report.html"`) || !strings.Contains(stderr, "done "+v) {
			t.Errorf("%s is not linked from compare.html or not said done on stderr %q", v, stderr)
		}
	}
}

// TestBacktestWalkForward runs engine backtest --walk-forward over 100
// minutes of the demo (40 min training, 20 min test: windows starting at
// 0, 20 and 40 min) and checks
// the table of windows and walkforward.json.
func TestBacktestWalkForward(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "backtest", "--rules", "../../examples/rules", "--from", "2026-03-09T13:20:00Z", "--to", "2026-03-09T15:00:00Z",
		"--out", out, "--vary", "TSLA_DIP_SIZE=1,2", "--jobs", "2", "--walk-forward", "40m/20m", "--objective", "return")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "3 windows") ||
		!regexp.MustCompile(`(?m)^window +train from +test from +test to +best +in-sample return +out-of-sample return`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^3 +2026-03-09 10:00 +2026-03-09 10:40 +2026-03-09 11:00 +TSLA_DIP_SIZE=[12] `).MatchString(stdout) ||
		!strings.Contains(stdout, "mean return: in sample") {
		t.Errorf("stdout %q", stdout)
	}
	data, err := os.ReadFile(filepath.Join(out, backtest.WalkForwardFile))
	if err != nil {
		t.Fatal(err)
	}
	var res backtest.WalkForwardResult
	if err := json.Unmarshal(data, &res); err != nil || len(res.Windows) != 3 || res.Objective != "return" {
		t.Errorf("walkforward.json: %v, %+v", err, res)
	}
}

// TestRecordThenBacktest records ten seconds of engine sim's server with
// engine record, then replays the recording with engine backtest.
func TestRecordThenBacktest(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	// The server's clock runs 30 times faster from 09:29 EDT, so the ten
	// seconds recorded (less the start, which may take several on a
	// loaded machine) hold up to five minutes of the demo market.
	venue := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 29 * time.Minute, Speed: 30, HTTP: true,
		Server: server.Options{AuthClock: clock.Real{}}})
	creds := map[string]string{"TICKRULES_API_KEY": "demo-key", "TICKRULES_API_SECRET": "demo-secret", "TICKRULES_API_PASSPHRASE": "demo-passphrase"}
	getenv := func(k string) string { return creds[k] }

	file := filepath.Join(t.TempDir(), "rec.jsonl")
	code, stdout, stderr := runCLIEnv(t, getenv, "record", "--venue", venue.URL, "--out", file, "--duration", "10s", "--rules", smallRules)
	if code != exitOK || !strings.Contains(stdout, "recorded ") {
		t.Fatalf("record: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "demo-secret") || strings.Contains(stdout, "demo-secret") {
		t.Error("the secret appears in the output")
	}
	// Every line is stamped with the venue's time, 09:29 New York and the
	// few minutes after, not the local clock (issue 15: a backtest of a
	// recording of the simulator saw the wrong session).
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	from, to := sc.Clock.Start.Add(29*time.Minute), sc.Clock.Start.Add(40*time.Minute)
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var stamp struct {
			Start time.Time `json:"start"`
			T     time.Time `json:"t"`
		}
		if err := json.Unmarshal([]byte(line), &stamp); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		at := stamp.T
		if i == 0 {
			at = stamp.Start
		}
		if at.Before(from) || at.After(to) {
			t.Fatalf("line %d is stamped %v, not the venue's time between %v and %v", i+1, at, from, to)
		}
	}
	out := t.TempDir()
	code, _, stderr = runCLI(t, "backtest", "--rules", smallRules, "--recording", file, "--out", out)
	if code != exitOK {
		t.Fatalf("backtest --recording: exit %d: %s", code, stderr)
	}
	rep := checkBacktestReport(t, out, "rec.jsonl", "", "")
	if len(rep.Fills) == 0 {
		t.Errorf("the replay filled nothing: %+v", rep.Summary)
	}
}

func TestRecordFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no venue", []string{"record", "--out", "x"}, exitUsage, "--venue and --out are required"},
		{"no out", []string{"record", "--venue", "live"}, exitUsage, "--venue and --out are required"},
		{"no credentials", []string{"record", "--venue", "http://127.0.0.1:1", "--out", "x"}, exitFail, "needs credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestBacktestBadSafetyFile: a safety file that cannot be read stops the
// backtest before it runs, with exit 1 (a file is wrong, as engine run says
// it), and names the file's mistake.
func TestBacktestBadSafetyFile(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "safety.yaml")
	if err := os.WriteFile(bad, []byte("max_daily_los: {USDT: 5}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "backtest", "--rules", smallRules, "--safety", bad, "--from", "2026-03-09T13:20:00Z", "--to", "2026-03-09T13:21:00Z", "--out", t.TempDir())
	if code != exitFail || !strings.Contains(stderr, "max_daily_los") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the unknown key", code, stderr, exitFail)
	}
}
