package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
	"github.com/tickrules/tickrules/status"
)

// notifySocket is the unixgram socket a test gives engine run as
// NOTIFY_SOCKET: it collects what the engine tells systemd.
type notifySocket struct {
	path string
	conn *net.UnixConn
	mu   sync.Mutex
	msgs []notice
	got  chan struct{} // closed and replaced on every message
}

// notice is one datagram and when it arrived.
type notice struct {
	text string
	at   time.Time
}

func newNotifySocket(t *testing.T) *notifySocket {
	t.Helper()
	// A socket's path is limited to 108 bytes: a short directory of its own.
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &notifySocket{path: filepath.Join(dir, "notify"), got: make(chan struct{})}
	s.conn, err = net.ListenUnixgram("unixgram", &net.UnixAddr{Name: s.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := s.conn.Read(buf)
			if err != nil {
				return
			}
			s.mu.Lock()
			s.msgs = append(s.msgs, notice{text: string(buf[:n]), at: time.Now()})
			close(s.got)
			s.got = make(chan struct{})
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() { s.conn.Close(); <-done })
	return s
}

// waitFor waits until a datagram contains want, within d; it reports
// whether one came.
func (s *notifySocket) waitFor(want string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		for _, m := range s.msgs {
			if strings.Contains(m.text, want) {
				s.mu.Unlock()
				return true
			}
		}
		got := s.got
		s.mu.Unlock()
		select {
		case <-got:
		case <-deadline:
			return false
		}
	}
}

// since returns the datagrams containing want that arrived after t.
func (s *notifySocket) since(want string, t time.Time) []notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []notice
	for _, m := range s.msgs {
		if strings.Contains(m.text, want) && m.at.After(t) {
			out = append(out, m)
		}
	}
	return out
}

// getProbe reads a probe of the engine at addr, with its HTTP status.
func getProbe(t *testing.T, addr, path string) (int, status.Probe) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p status.Probe
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return resp.StatusCode, p
}

// TestHealthProbesAndSystemdNotify runs engine run (a subprocess, as under
// systemd) against the simulator with the positions poll held back: /readyz
// answers 503 until the first full poll and 200 after it, with READY=1 on
// the notify socket the test provides; the tick loop pings WATCHDOG=1; once
// the stall fault stops the tick loop /healthz answers 503 with why and the
// pings stop; SIGTERM brings STOPPING=1.
func TestHealthProbesAndSystemdNotify(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	venue := simtest.NewRig(t, simtest.RigOptions{After: 90 * time.Minute, Speed: 1, HTTP: true,
		Server: server.Options{AuthClock: clock.Real{}, DisableRateLimits: true},
		Front: func(_ *simtest.Rig, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/all-position") {
					select {
					case held <- struct{}{}:
					default:
					}
					select { // the fault: the first full poll waits for the test
					case <-release:
					case <-r.Context().Done():
						return
					}
				}
				h.ServeHTTP(w, r)
			})
		}})
	rules := writeRules(t, "rules:\n  - name: watch-long\n    when: position(\"BTCUSDT\", \"long\").size > 0\n    actions:\n      - log: {message: long}\n")
	sock := newNotifySocket(t)
	stall := filepath.Join(t.TempDir(), "stall")
	p := startEngine(t, bin, []string{"NOTIFY_SOCKET=" + sock.path, "WATCHDOG_USEC=3000000", envStallFile + "=" + stall},
		"--venue", venue.URL, "--rules", rules, "--state-dir", t.TempDir(), "--tick", "100ms", "--metrics-addr", "127.0.0.1:0")
	if !p.waitFor("status page at http://", 60*time.Second) {
		t.Fatalf("no status page; log:\n%s", p.text())
	}
	m := regexp.MustCompile(`status page at http://([0-9.:]+)/status`).FindStringSubmatch(p.text())
	if m == nil {
		t.Fatalf("no status address in the log:\n%s", p.text())
	}
	addr := m[1]

	// Before the first full poll: the loop ticks (a watchdog ping comes
	// from it), live but not ready, and no READY=1.
	select {
	case <-held:
	case <-time.After(60 * time.Second): // a bound, not a synchronisation
		t.Fatalf("the positions poll never came; log:\n%s", p.text())
	}
	if !sock.waitFor("WATCHDOG=1", 30*time.Second) {
		t.Fatalf("no WATCHDOG=1 from the tick loop; log:\n%s", p.text())
	}
	if code, pr := getProbe(t, addr, "/readyz"); code != http.StatusServiceUnavailable || pr.OK || !strings.Contains(strings.Join(pr.Reasons, ";"), "first full poll") {
		t.Errorf("/readyz before the first full poll: %d %+v, want 503 waiting for the first full poll", code, pr)
	}
	if code, pr := getProbe(t, addr, "/healthz"); code != http.StatusOK || !pr.OK || pr.LastLoop.IsZero() {
		t.Errorf("/healthz of a ticking engine: %d %+v, want 200", code, pr)
	}
	if n := sock.since("READY=1", time.Time{}); len(n) != 0 {
		t.Errorf("READY=1 before the first full poll: %v", n)
	}

	// The poll goes through: ready.
	close(release)
	if !sock.waitFor("READY=1", 30*time.Second) {
		t.Fatalf("no READY=1 after the first full poll; log:\n%s", p.text())
	}
	if code, pr := getProbe(t, addr, "/readyz"); code != http.StatusOK || !pr.OK || len(pr.Reasons) != 0 {
		t.Errorf("/readyz after the first full poll: %d %+v, want 200", code, pr)
	}
	var out, errb syncBuffer
	e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if code := dispatch(context.Background(), e, []string{"status", "--addr", addr, "--probe", "readyz"}); code != exitOK || out.String() != "readyz: ok\n" {
		t.Errorf("engine status --probe readyz: exit %d, %q %s", code, out.String(), errb.String())
	}

	// The fault: the tick loop stops. /healthz says so once five seconds
	// (MinStall) have passed without a tick, and the pings stop with it.
	if err := os.WriteFile(stall, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stalled status.Probe
	deadline := time.Now().Add(60 * time.Second)
	poll := time.NewTicker(200 * time.Millisecond) // polls the probe; the stall itself is what it waits for
	defer poll.Stop()
	for {
		code, pr := getProbe(t, addr, "/healthz")
		if code == http.StatusServiceUnavailable {
			stalled = pr
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz never failed while the tick loop was stalled; last %d %+v", code, pr)
		}
		<-poll.C
	}
	if stalled.OK || len(stalled.Reasons) != 1 || !strings.Contains(stalled.Reasons[0], "the tick loop is stalled") {
		t.Errorf("/healthz of a stalled loop: %+v", stalled)
	}
	if pings := sock.since("WATCHDOG=1", time.Now().Add(-3*time.Second)); len(pings) != 0 {
		t.Errorf("%d watchdog pings in the last 3s of a loop stalled for 5s: %v", len(pings), pings)
	}
	var out2 syncBuffer
	e = &cliEnv{stdout: &out2, stderr: &errb, getenv: func(string) string { return "" }}
	if code := dispatch(context.Background(), e, []string{"status", "--addr", addr, "--probe", "healthz"}); code != exitFail || !strings.Contains(out2.String(), "the tick loop is stalled") {
		t.Errorf("engine status --probe healthz of a stalled loop: exit %d, %q", code, out2.String())
	}

	// Stopping is announced.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !sock.waitFor("STOPPING=1", 30*time.Second) {
		t.Errorf("no STOPPING=1 on SIGTERM; log:\n%s", p.text())
	}
	p.wait(t, 60*time.Second)
}
