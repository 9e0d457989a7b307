package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestDataDownloadAndList runs engine data download against the simulator
// served on loopback, twice (the second run fetches nothing new), and
// engine data list on the store.
func TestDataDownloadAndList(t *testing.T) {
	t.Parallel()
	sc := simtest.Scenario() // starts 2026-03-13 14:00 UTC
	r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 3 * 24 * time.Hour, HTTP: true,
		Server: server.Options{DisableRateLimits: true}})
	dir := t.TempDir()
	args := []string{"data", "download", "--symbols", "btcusdt", "--from", "2026-03-13", "--to", "2026-03-15T00:00:00Z",
		"--interval", "1H", "--venue", r.URL, "--dir", dir}
	for run := range 2 {
		var out, errb bytes.Buffer
		env := &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		if code := dispatch(context.Background(), env, args); code != exitOK {
			t.Fatalf("run %d: exit %d\nstderr: %s", run, code, errb.String())
		}
		// 34 hours from the 14:00 listing to the 15th: the table lists the
		// three kinds, and no gap (the hours before the listing are not one).
		for _, want := range []string{"SYMBOL", "BTCUSDT  1H        trade  2026-03-13 14:00  2026-03-14 23:00  34    0"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, out.String())
			}
		}
		if run == 0 && !strings.Contains(errb.String(), "BTCUSDT trade 1H (USDT-FUTURES): 34 rows") {
			t.Errorf("no progress line in:\n%s", errb.String())
		}
	}
	l, err := data.Load(dir, data.Series{Product: exchange.USDTFutures, Symbol: "BTCUSDT", Kind: data.KindMark, Interval: exchange.Gran1H}, time.Time{}, time.Time{})
	if err != nil || len(l.Candles) != 34 {
		t.Fatalf("%d mark candles, %v", len(l.Candles), err)
	}

	var out bytes.Buffer
	env := &cliEnv{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
	if code := dispatch(context.Background(), env, []string{"data", "list", "--dir", dir}); code != exitOK || !strings.Contains(out.String(), "index") {
		t.Fatalf("list: exit %d\n%s", code, out.String())
	}
}

func TestDataUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"data"}, "usage: engine data download"},
		{"unknown subcommand", []string{"data", "fetch"}, `unknown subcommand "fetch"`},
		{"no symbols", []string{"data", "download", "--from", "2026-08-01"}, "--symbols and --from are required"},
		{"bad interval", []string{"data", "download", "--symbols", "X", "--from", "2026-08-01", "--interval", "2m"}, `interval "2m"`},
		{"bad date", []string{"data", "download", "--symbols", "X", "--from", "08/01/2026"}, "neither a date"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			env := &cliEnv{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
			if code := dispatch(context.Background(), env, tc.args); code != exitUsage || !strings.Contains(out.String(), tc.want) {
				t.Fatalf("exit %d, output %q; want %d and %q", code, out.String(), exitUsage, tc.want)
			}
		})
	}
}
