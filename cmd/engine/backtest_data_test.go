package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

func TestBacktestDataFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"data without a span", []string{"backtest", "--rules", smallRules, "--data", "data"}, exitUsage, "--data needs --from and --to"},
		{"data and scenario", []string{"backtest", "--rules", smallRules, "--data", "data", "--scenario", "a.yaml", "--from", "2026-09-01", "--to", "2026-09-02"}, exitUsage, "give one of --scenario, --recording and --data"},
		{"symbols without data", []string{"backtest", "--rules", smallRules, "--symbols", "TSLAUSDT"}, exitUsage, "give --data too"},
		{"bad interval", []string{"backtest", "--rules", smallRules, "--data", "data", "--interval", "7m", "--from", "2026-09-01", "--to", "2026-09-02"}, exitUsage, `--interval interval "7m": want one of`},
		{"nothing stored", []string{"backtest", "--rules", smallRules, "--data", "testdata/no-store", "--symbols", "TSLAUSDT", "--from", "2026-09-01", "--to", "2026-09-02"}, exitFail,
			"to fetch it: engine data download --dir testdata/no-store --product USDT-FUTURES --symbols TSLAUSDT --interval 1m --from 2026-09-01T04:00:00Z --to 2026-09-02T04:00:00Z"},
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

// TestDownloadThenBacktestData downloads a few hours of 1m candles from the
// simulator served on loopback (engine data download) and replays them
// (engine backtest --data): the report names the store, its notes say what
// is modelled, and the rules traded.
func TestDownloadThenBacktestData(t *testing.T) {
	t.Parallel()
	sc := simtest.Scenario() // starts 2026-03-13 14:00 UTC
	r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 6 * time.Hour, HTTP: true,
		Server: server.Options{DisableRateLimits: true}})
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "data", "download", "--symbols", "BTCUSDT", "--from", "2026-03-13T14:00:00Z",
		"--to", "2026-03-13T18:00:00Z", "--venue", r.URL, "--dir", dir)
	if code != exitOK {
		t.Fatalf("download: exit %d: %s", code, stderr)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "backtest", "--rules", smallRules, "--data", dir, "--from", "2026-03-13T14:00:00Z", "--to", "2026-03-13T16:00:00Z", "--out", out)
	if code != exitOK {
		t.Fatalf("backtest: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "7201 ticks") || !strings.Contains(stdout, "\nnote: prices replay the stored 1m candles") {
		t.Errorf("stdout %q", stdout)
	}
	rep := checkBacktestReport(t, out, "stored history "+dir+" (BTCUSDT 1m)", "2026-03-13T14:00:00Z", "2026-03-13T16:00:00Z")
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "modelled") {
		t.Errorf("notes %q", notes)
	}
	// A sweep over the same store: the variants run at once, each on a
	// scenario of its own built from the history read once.
	sweep := t.TempDir()
	code, stdout, stderr = runCLI(t, "backtest", "--rules", "../../examples/rules", "--data", dir, "--from", "2026-03-13T14:00:00Z", "--to", "2026-03-13T14:30:00Z",
		"--vary", "TSLA_DIP_SIZE=1,2", "--jobs", "2", "--out", sweep)
	if code != exitOK || !strings.Contains(stdout, "2 variants") {
		t.Fatalf("sweep: exit %d: %s\n%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), "<h2>Notes on the data</h2>") {
		t.Errorf("report.html without its notes (%v)", err)
	}
}
