package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines to log into.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runningSim is `engine sim --listen 127.0.0.1:0` started by startEngineSim.
type runningSim struct {
	url    string         // http://127.0.0.1:PORT from its one stdout line
	lines  *bufio.Scanner // the rest of its stdout
	stderr *lockedBuffer
	exit   <-chan int // its exit code once ctx is cancelled
}

// startEngineSim runs `engine sim --listen 127.0.0.1:0` (and extra flags)
// until ctx is cancelled and reads the address from its one stdout line.
func startEngineSim(t *testing.T, ctx context.Context, extra ...string) runningSim {
	t.Helper()
	outR, outW := io.Pipe()
	stderr := &lockedBuffer{}
	env := &cliEnv{stdout: outW, stderr: stderr, getenv: func(string) string { return "" }}
	exit := make(chan int, 1)
	go func() {
		code := dispatch(ctx, env, append([]string{"sim", "--listen", "127.0.0.1:0"}, extra...))
		outW.Close()
		exit <- code
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatalf("no line on stdout; stderr:\n%s", stderr.String())
	}
	first := lines.Text()
	m := regexp.MustCompile(`^listening on (http://127\.0\.0\.1:[1-9][0-9]*)$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("stdout line %q is not `listening on http://HOST:PORT`", first)
	}
	return runningSim{url: m[1], lines: lines, stderr: stderr, exit: exit}
}

// TestSimServesUntilCancelled runs `engine sim --listen 127.0.0.1:0`, reads
// its one stdout line, makes a request, cancels and expects exit 0.
func TestSimServesUntilCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sim := startEngineSim(t, ctx)
	lines, stderr, exit := sim.lines, sim.stderr, sim.exit
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(sim.url + "/api/v3/stock/market/stock-info")
	if err != nil {
		t.Fatal(err)
	}
	var env2 struct {
		Code string            `json:"code"`
		Data []json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env2); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || env2.Code != "00000" || len(env2.Data) == 0 {
		t.Fatalf("stock-info: HTTP %d code %s, %d pairs", resp.StatusCode, env2.Code, len(env2.Data))
	}

	// A private request signed by hand as the exchange notes describe, with
	// the demo key, against the wall clock the demo follows.
	ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
	path := "/api/v2/mix/account/accounts?productType=USDT-FUTURES"
	mac := hmac.New(sha256.New, []byte("demo-secret"))
	io.WriteString(mac, ts+"GET"+path)
	req, err := http.NewRequest("GET", sim.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("ACCESS-KEY", "demo-key")
	req.Header.Set("ACCESS-SIGN", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	req.Header.Set("ACCESS-PASSPHRASE", "demo-passphrase")
	req.Header.Set("ACCESS-TIMESTAMP", ts)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"marginCoin":"USDT"`) {
		t.Fatalf("accounts: HTTP %d %s", resp.StatusCode, body)
	}

	cancel()
	select {
	case code := <-exit:
		if code != exitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("engine sim did not stop after cancel")
	}
	if lines.Scan() {
		t.Errorf("more than one stdout line: %q", lines.Text())
	}
	// No line per request at the default level: a summary of them, written
	// at the latest when the simulator stops (issue 25), stamped to the
	// millisecond.
	log := stderr.String()
	if strings.Contains(log, "\trequest\t") {
		t.Errorf("a line per request at the default log level:\n%s", log)
	}
	summary := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} E[SD]T \d\d:\d\d:\d\d\.\d{3}Z\tINFO\thttp\trequests .*"requests": 2, "refused": 0, "dropped": 0, "by_operation": "accounts 1, stock-info 1"`)
	if !summary.MatchString(log) {
		t.Errorf("no summary of the two requests, with milliseconds, on stderr:\n%s", log)
	}
}

// TestSimLogsEveryRequestAtDebug: --log-level debug adds the line of each
// request to the summaries.
func TestSimLogsEveryRequestAtDebug(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sim := startEngineSim(t, ctx, "--log-level", "debug")
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(sim.url + "/api/v3/stock/market/stock-info")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case code := <-sim.exit:
		if code != exitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, sim.stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("engine sim did not stop after cancel")
	}
	log := sim.stderr.String()
	if !regexp.MustCompile(`\.\d{3}Z\tDEBUG\thttp\trequest\t.*"op": "stock-info"`).MatchString(log) {
		t.Errorf("no debug line for the request:\n%s", log)
	}
	if !strings.Contains(log, `"by_operation": "stock-info 1"`) {
		t.Errorf("no summary:\n%s", log)
	}
}

func TestSimCommandLineErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nclock:\n  start: 2026-03-10T14:30:00Z\nsettings:\n  one_way_trade_side: sometimes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	scenario := func(name, start string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("name: "+name+"\nclock:\n  start: "+start+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	early, late := scenario("early.yaml", "1969-12-31T23:59:59Z"), scenario("late.yaml", "9999-01-01T00:00:00Z")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"sim", "--frob"}, exitUsage, "flag provided but not defined"},
		{"stray argument", []string{"sim", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"zero speed", []string{"sim", "--speed", "0"}, exitUsage, "--speed must be a number above 0 and at most 1000 (got 0)"},
		{"negative speed", []string{"sim", "--speed", "-2"}, exitUsage, "--speed must be a number above 0 and at most 1000 (got -2)"},
		{"NaN speed", []string{"sim", "--speed", "NaN"}, exitUsage, "(got NaN)"},
		{"infinite speed", []string{"sim", "--speed", "+Inf"}, exitUsage, "(got +Inf)"},
		{"absurd speed", []string{"sim", "--speed", "1e300"}, exitUsage, "at most 1000 (got 1e+300)"},
		{"speed just above the maximum", []string{"sim", "--speed", "1000.5"}, exitUsage, "at most 1000"},
		{"clock start before 1970", []string{"sim", "--scenario", early}, exitFail, "clock start 1969-12-31T23:59:59Z is out of range: it must be from 1970 to 2199"},
		{"clock start far in the future", []string{"sim", "--scenario", late}, exitFail, "clock start 9999-01-01T00:00:00Z is out of range"},
		{"speed not a number", []string{"sim", "--speed", "fast"}, exitUsage, "invalid value"},
		{"unknown log level", []string{"sim", "--log-level", "chatty"}, exitUsage, `--log-level "chatty": want info or debug`},
		{"start not a time", []string{"sim", "--start", "9:30"}, exitUsage, `--start "9:30": not a time; write "2026-03-09 09:30"`},
		{"start in the spring-forward gap", []string{"sim", "--start", "2026-03-08 02:15"}, exitUsage, "does not exist in New York"},
		{"missing scenario file", []string{"sim", "--scenario", filepath.Join(dir, "none.yaml")}, exitFail, "none.yaml"},
		{"scenario error names file and line", []string{"sim", "--scenario", bad}, exitFail, "bad.yaml:5"},
		{"address in use or invalid", []string{"sim", "--listen", "127.0.0.1:-1"}, exitFail, "engine sim:"},
		{"help", []string{"sim", "-h"}, exitOK, "usage: engine sim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

// TestSimStartsAtTheGivenTime runs `engine sim --start` with a New York
// time: the venue's answers carry that time in requestTime (issue 15: a
// rehearsal could not be run at a chosen moment).
func TestSimStartsAtTheGivenTime(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	stderr := &lockedBuffer{}
	env := &cliEnv{stdout: outW, stderr: stderr, getenv: func(string) string { return "" }}
	exit := make(chan int, 1)
	go func() {
		code := dispatch(ctx, env, []string{"sim", "--listen", "127.0.0.1:0", "--start", "2026-03-09 09:29:50", "--speed", "2"})
		outW.Close()
		exit <- code
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatalf("no line on stdout; stderr:\n%s", stderr.String())
	}
	url := strings.TrimPrefix(lines.Text(), "listening on ")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url + "/api/v3/stock/market/states")
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		RequestTime int64 `json:"requestTime"`
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := time.UnixMilli(answer.RequestTime).UTC()
	want := time.Date(2026, 3, 9, 13, 29, 50, 0, time.UTC) // 09:29:50 New York, daylight time
	// Bounded by the test's timeout: the server answered within 10s of
	// wall time, 20s at speed 2.
	if got.Before(want) || got.After(want.Add(20*time.Second)) {
		t.Errorf("requestTime %v, want within 20s after %v", got, want)
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
}
