package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/simtest"
)

// syncBuffer is a bytes.Buffer safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runWith runs engine run in process with env and args and returns its
// exit code and log. Without --metrics-addr in args it serves no status
// page, so that runs in parallel tests do not compete for the default
// address.
func runWith(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out, errb syncBuffer
	e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	code := dispatch(context.Background(), e, withoutStatusPage(append([]string{"run"}, args...)))
	return code, errb.String()
}

// runUntilStarted is runWith for a test that needs the run only to be
// accepted and to start: it ends the run once the log says the engine has
// started, however long the start took on a loaded machine, as Ctrl-C
// would. --max-runtime, when args give none, bounds a run that never
// starts.
func runUntilStarted(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	if !slices.Contains(args, "--max-runtime") {
		args = append(args, "--max-runtime", "1m")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errb syncBuffer
	e := &cliEnv{stdout: &out, stderr: stopWhenStarted{w: &errb, stop: stop}, getenv: func(k string) string { return env[k] }}
	code := dispatch(ctx, e, withoutStatusPage(append([]string{"run"}, args...)))
	return code, errb.String()
}

// stopWhenStarted passes the log on to w and calls stop once a line says
// the engine has started (the logger writes a line at a time).
type stopWhenStarted struct {
	w    io.Writer
	stop context.CancelFunc
}

func (s stopWhenStarted) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if bytes.Contains(p, []byte("engine started")) {
		s.stop()
	}
	return n, err
}

// withoutStatusPage adds --metrics-addr "" to the arguments of an engine
// run that name no address of their own.
func withoutStatusPage(args []string) []string {
	if slices.Contains(args, "--metrics-addr") {
		return args
	}
	return append(args, "--metrics-addr", "")
}

func writeRules(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"no rules", nil, nil, exitUsage, "--rules is required"},
		{"stray argument", nil, []string{"--rules", "x", "extra"}, exitUsage, "unexpected argument"},
		{"bad log format", nil, []string{"--rules", "x", "--log-format", "xml"}, exitUsage, "--log-format"},
		{"credentials without venue", map[string]string{envAPIKey: "k", envSecret: secretMark, envPassphrase: "p"}, []string{"--rules", "x"}, exitFail, "pass --venue live"},
		{"venue without credentials", nil, []string{"--rules", "x", "--venue", "http://127.0.0.1:1"}, exitFail, "needs credentials"},
		{"bad rules", nil, []string{"--rules", "testdata/does-not-exist", "--max-runtime", "5s"}, exitFail, "nothing was started"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWith(t, tt.env, append(tt.args, "--state-dir", t.TempDir())...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tt.code, tt.want)
			}
			if strings.Contains(stderr, secretMark) {
				t.Errorf("stderr shows the secret")
			}
		})
	}
}

// TestRunEmbeddedDemo is README's first command, sped up: on the embedded
// demo a session rule fires at 09:30 New York, a minute after the start.
func TestRunEmbeddedDemo(t *testing.T) {
	t.Parallel()
	rules := writeRules(t, `
rules:
  - name: at-the-open
    when: market.session == "regular"
    once: per_session
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`)
	code, stderr := runWith(t, nil, "--rules", rules, "--speed", "60", "--tick", "100ms", "--max-runtime", "4s", "--state-dir", t.TempDir(), "--log-format", "json")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{"embedded demo", `"msg":"rule fired","rule":"at-the-open"`, `"msg":"order sent"`, `"clientOid":"tr-`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, `"msg":"rule fired"`); n != 1 {
		t.Errorf("fired %d times, want once per session", n)
	}
}

// TestRunDryRunSendsNothing runs engine run --dry-run against engine sim's
// server and counts the mutating requests that reach it: zero, while the
// rule fires and its order is filled on the paper account.
func TestRunDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	var posts, gets atomic.Int64
	venue := demoSim(t, func(_ *simtest.Rig, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if info, ok := exchange.OpForPath(r.Method, r.URL.Path); ok && info.Mutating || r.Method == http.MethodPost {
				posts.Add(1)
			} else {
				gets.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	x := venue.Exchange
	rules := writeRules(t, `
rules:
  - name: buy
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`)
	env := map[string]string{envAPIKey: "demo-key", envSecret: "demo-secret", envPassphrase: "demo-passphrase"}
	code, stderr := runWith(t, env, "--rules", rules, "--venue", venue.URL, "--dry-run", "--tick", "100ms", "--max-runtime", "8s", "--state-dir", t.TempDir(), "--log-format", "json")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if n := posts.Load(); n != 0 {
		t.Fatalf("%d mutating requests reached the venue in a dry run", n)
	}
	if gets.Load() == 0 {
		t.Fatal("the dry run read nothing from the venue")
	}
	if !strings.Contains(stderr, "DRY RUN") || strings.Count(stderr, `"msg":"rule fired"`) != 1 || !strings.Contains(stderr, `"msg":"order sent"`) {
		t.Errorf("log:\n%s", stderr)
	}
	// The closing summary has the paper account's P&L: the fill's fee.
	if !strings.Contains(stderr, `"msg":"P&L since start","account":"USDT-FUTURES USDT"`) || strings.Contains(stderr, `"account":"USDT-FUTURES USDT","start_equity":"100000","equity":"100000"`) {
		t.Errorf("no paper P&L in the summary:\n%s", stderr)
	}
	acct, _ := x.Account("demo-key")
	pos, err := acct.AllPositions(context.Background(), exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil || len(pos) != 0 {
		t.Errorf("the venue's account has positions %+v (%v); the order must have gone to paper", pos, err)
	}
}

// TestRunServesMetrics runs the embedded demo with --metrics-addr on a
// loopback port and scrapes it as soon as it is served: the engine's rules
// and the polled parts are there.
func TestRunServesMetrics(t *testing.T) {
	t.Parallel()
	rules := writeRules(t, `
rules:
  - name: watch-btc
    when: position("BTCUSDT", "long").size > 0
    actions:
      - log: {message: long}
`)
	var scraped string
	var scrapeErr error
	var out, errb syncBuffer
	e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		onMetrics: func(addr string) {
			if !strings.HasPrefix(addr, "127.0.0.1:") {
				scrapeErr = fmt.Errorf("metrics on %s, not loopback", addr)
				return
			}
			resp, err := http.Get("http://" + addr + "/metrics")
			if err != nil {
				scrapeErr = err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			scraped, scrapeErr = string(b), err
		}}
	// The scrape runs while the engine starts, before its first tick; the
	// run's time counts from before the start, so under the race suite's
	// load a 1 s run ended (and closed the listener) before the scrape.
	code := dispatch(context.Background(), e, []string{"run", "--rules", rules, "--metrics-addr", "127.0.0.1:0",
		"--tick", "100ms", "--max-runtime", "5s", "--state-dir", t.TempDir(), "--log-format", "json"})
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	if scrapeErr != nil {
		t.Fatal(scrapeErr)
	}
	for _, want := range []string{
		`tickrules_rule_evaluations_total{rule="watch-btc"} 0`,
		`tickrules_engine_ticks_total 0`,
		`tickrules_stale_part{part="positions"} 1`, // nothing polled yet
	} {
		if !strings.Contains(scraped, want+"\n") {
			t.Errorf("scrape lacks %q:\n%s", want, scraped)
		}
	}
	if !strings.Contains(errb.String(), `"msg":"serving Prometheus metrics"`) {
		t.Errorf("log does not say where metrics are served:\n%s", errb.String())
	}
}
