package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// envRunEngine, set to 1 in the environment of a subprocess the fail-closed
// tests start, makes the test binary run the engine's main instead of the
// tests (TestMain): the tests kill and restart the very code under test,
// with no second build of the engine (with the race detector when the
// tests have it).
const envRunEngine = "TICKRULES_TEST_RUN_ENGINE"

// engineBinary returns the binary the fail-closed tests run as the engine
// (envRunEngine): this test binary.
func engineBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the engine as a subprocess")
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// testVenue is the demo simulator served over HTTP on loopback, in the
// test's process so that it outlives the engines the test kills; it counts
// the order requests that reach it per clientOid.
type testVenue struct {
	url  string
	x    *sim.Exchange
	clk  *server.WallClock // the venue's time, which the engine follows
	mu   sync.Mutex
	sent map[string]int // clientOid -> order requests that carried it
}

func startVenue(t *testing.T) *testVenue {
	t.Helper()
	v := &testVenue{sent: map[string]int{}}
	venue := simtest.NewRig(t, simtest.RigOptions{After: 90 * time.Minute, Speed: 1, HTTP: true, // 10:30 New York
		Server: server.Options{AuthClock: clock.Real{}, DisableRateLimits: true},
		Front: func(_ *simtest.Rig, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if info, ok := exchange.OpForPath(r.Method, r.URL.Path); ok && info.Mutating {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					var one struct {
						ClientOID string `json:"clientOid"`
						OrderList []struct {
							ClientOID string `json:"clientOid"`
						} `json:"orderList"`
					}
					_ = json.Unmarshal(body, &one)
					v.mu.Lock()
					if one.ClientOID != "" {
						v.sent[one.ClientOID]++
					}
					for _, it := range one.OrderList {
						v.sent[it.ClientOID]++
					}
					v.mu.Unlock()
				}
				h.ServeHTTP(w, r)
			})
		}})
	v.x, v.clk, v.url = venue.Exchange, venue.Wall, venue.URL
	return v
}

// orders returns, per clientOid, how many requests carried it and how many
// orders the venue holds under it.
func (v *testVenue) orders(t *testing.T) (sent, held map[string]int) {
	t.Helper()
	v.mu.Lock()
	sent = make(map[string]int, len(v.sent))
	for k, n := range v.sent {
		sent[k] = n
	}
	v.mu.Unlock()
	acct, _ := v.x.Account("demo-key")
	res, err := acct.PendingOrders(context.Background(), exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	held = map[string]int{}
	for _, o := range res.EntrustedList {
		held[o.ClientOID]++
	}
	return sent, held
}

// engineProc is one engine run subprocess whose JSON log the test reads.
type engineProc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  []string
	line chan struct{} // closed and replaced on every new line
	done chan struct{} // closed when the process has exited and its log is read
}

func startEngine(t *testing.T, bin string, env []string, args ...string) *engineProc {
	t.Helper()
	return startProc(t, bin, append([]string{envAPIKey + "=demo-key", envSecret + "=demo-secret", envPassphrase + "=demo-passphrase"}, env...),
		withoutStatusPage(append([]string{"run", "--log-format", "json"}, args...))...)
}

// startProc starts the engine binary with args (any command) and env, and
// collects its stderr line by line.
func startProc(t *testing.T, bin string, env []string, args ...string) *engineProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{envRunEngine + "=1", "PATH=" + os.Getenv("PATH")}, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &engineProc{cmd: cmd, line: make(chan struct{}), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.log = append(p.log, sc.Text())
			close(p.line)
			p.line = make(chan struct{})
			p.mu.Unlock()
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitFor waits until a log line contains want, or the process ends, or
// the deadline passes; it reports whether the line came.
func (p *engineProc) waitFor(want string, within time.Duration) bool {
	deadline := time.After(within)
	for i := 0; ; i++ {
		p.mu.Lock()
		for _, l := range p.log[min(i, len(p.log)):] {
			if strings.Contains(l, want) {
				p.mu.Unlock()
				return true
			}
		}
		i = len(p.log) - 1
		line := p.line
		p.mu.Unlock()
		select {
		case <-line:
		case <-p.done:
			return strings.Contains(p.text(), want)
		case <-deadline:
			return false
		}
	}
}

// wait waits for the process to end within d and returns its state.
func (p *engineProc) wait(t *testing.T, d time.Duration) *os.ProcessState {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("the engine did not stop within %s; log:\n%s", d, p.text())
		return nil
	}
}

func (p *engineProc) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "\n")
}

func (p *engineProc) count(want string) int { return strings.Count(p.text(), want) }

// exited reports whether the process has ended.
func (p *engineProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// threeLegs is a once-a-day rule of three resting orders (three legs), far
// below the market so that they stay pending and can be counted.
const threeLegs = `
rules:
  - name: three-legs
    when: now_ms > 0
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.01, price: 30000}
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.02, price: 30000}
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.03, price: 30000}
`

// batchOfThree is threeLegs as one batch_place: one request of three orders.
const batchOfThree = `
rules:
  - name: batch-of-three
    when: now_ms > 0
    once: per_day
    actions:
      - batch_place:
          symbol: BTCUSDT
          orders:
            - {open: long, type: limit, size: 0.01, price: 30000}
            - {open: long, type: limit, size: 0.02, price: 30000}
            - {open: long, type: limit, size: 0.03, price: 30000}
`

// TestCrashPoints kills the engine at every step of a firing of three legs
// and of a batch of three orders (TICKRULES_CRASH_AT), starts it again on
// the same state directory and checks that each order reached the venue
// exactly once, by clientOid, and that the rule did not fire again.
func TestCrashPoints(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	cases := []struct{ rules, point string }{
		{threeLegs, "intent-written"}, {threeLegs, "state-saved"},
		{threeLegs, "leg-sent:1"}, {threeLegs, "answer-received:1"},
		{threeLegs, "leg-sent:2"}, {threeLegs, "answer-received:2"},
		{threeLegs, "leg-sent:3"}, {threeLegs, "answer-received:3"},
		{batchOfThree, "intent-written"}, {batchOfThree, "state-saved"},
		{batchOfThree, "leg-sent:1"}, {batchOfThree, "answer-received:1"},
	}
	for _, tc := range cases {
		name, point := "three-legs/"+tc.point, tc.point
		if tc.rules == batchOfThree {
			name = "batch/" + tc.point
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := startVenue(t)
			rules, state := writeRules(t, tc.rules), t.TempDir()
			args := []string{"--rules", rules, "--venue", v.url, "--state-dir", state, "--tick", "200ms"}
			first := startEngine(t, bin, []string{envCrashAt + "=" + point}, args...)
			ps := first.wait(t, time.Minute)
			if ws, ok := ps.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("first run ended with %v, want killed at %s; log:\n%s", ps, point, first.text())
			}
			if first.count(`"msg":"rule fired"`) != 1 {
				t.Fatalf("first run: the rule did not fire once:\n%s", first.text())
			}
			second := startEngine(t, bin, nil, args...)
			if !second.waitFor(`"msg":"firing done"`, time.Minute) {
				t.Fatalf("second run did not finish the firing:\n%s", second.text())
			}
			_ = second.cmd.Process.Signal(syscall.SIGTERM)
			if ps := second.wait(t, 30*time.Second); ps.ExitCode() != exitOK {
				t.Fatalf("second run exit %d:\n%s", ps.ExitCode(), second.text())
			}
			if n := second.count(`"msg":"rule fired"`); n != 0 {
				t.Errorf("the once-a-day rule fired again after the restart (%d times)", n)
			}
			// The firing is in the saved rule state, whatever the crash
			// point: a third start cannot fire the rule again today.
			states, err := engine.NewStore(engine.AccountDir(state, v.url, "demo-key"))
			if err != nil {
				t.Fatal(err)
			}
			saved, err := states.Load()
			if err != nil {
				t.Fatal(err)
			}
			// The second run finished the firing after its tick: the
			// rule's cooldown and data run from then (engine/late.go).
			for name, st := range saved {
				if st.Firings != 1 || st.OncePeriod == "" || !st.OrdersAt.After(st.LastFired) {
					t.Errorf("saved state of %s: %+v, want one firing in today's period, its orders settled after it", name, st)
				}
			}
			if len(saved) != 1 {
				t.Errorf("saved states %v, want the rule's", saved)
			}
			sent, held := v.orders(t)
			if len(held) != 3 {
				t.Fatalf("the venue holds %v, want 3 orders", held)
			}
			for oid, n := range held {
				if n != 1 || sent[oid] != 1 {
					t.Errorf("clientOid %s: %d orders at the venue from %d requests, want exactly one of each", oid, n, sent[oid])
				}
			}
			if len(sent) != 3 {
				t.Errorf("requests per clientOid %v, want the three legs", sent)
			}
		})
	}
}

// TestStateDirUnwritable: when the state directory cannot be written, no
// order reaches the venue and the engine exits non-zero within
// --state-timeout: before start (a real read-only directory when the test
// is not root, else the injected fault), after start and on a full disk
// (TICKRULES_STATE_FAULT fails the writes after the start-up write).
func TestStateDirUnwritable(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	tests := []struct {
		name   string
		fault  string
		before bool // the engine must refuse to start
	}{
		{"read-only before start", "read-only-after:0", true},
		{"read-only after start", "read-only-after:1", false},
		{"full after start", "full-after:1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := startVenue(t)
			rules, state := writeRules(t, threeLegs), t.TempDir()
			env := []string{envStateFault + "=" + tt.fault}
			if tt.before && os.Getuid() != 0 {
				// A real read-only directory (root would write it anyway).
				env = nil
				if err := os.Chmod(state, 0o500); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = os.Chmod(state, 0o700) })
			}
			start := time.Now()
			p := startEngine(t, bin, env, "--rules", rules, "--venue", v.url, "--state-dir", state, "--tick", "200ms", "--state-timeout", "2s")
			ps := p.wait(t, 30*time.Second)
			took := time.Since(start)
			if ps.ExitCode() == exitOK || ps.ExitCode() < 0 {
				t.Fatalf("exit %d, want a failure; log:\n%s", ps.ExitCode(), p.text())
			}
			if sent, _ := v.orders(t); len(sent) != 0 {
				t.Errorf("orders reached the venue: %v", sent)
			}
			log := p.text()
			if tt.before {
				if strings.Contains(log, `"msg":"rule fired"`) || !strings.Contains(log, "cannot be written") {
					t.Errorf("want a refusal to start that names the state directory:\n%s", log)
				}
				return
			}
			for _, want := range []string{`"msg":"rule fired"`, `"level":"error","ts"`, "CANNOT WRITE THE STATE DIRECTORY", "the state directory cannot be written"} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %q:\n%s", want, log)
				}
			}
			// Started, polled, fired, held its orders 2s: well within 20s.
			if took > 20*time.Second {
				t.Errorf("took %s to stop", took)
			}
		})
	}
}

// TestSecondEngineRefuses: a second engine on the same state directory and
// account refuses to start and names the first one's pid; the first goes
// on.
func TestSecondEngineRefuses(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	v := startVenue(t)
	rules, state := writeRules(t, threeLegs), t.TempDir()
	args := []string{"--rules", rules, "--venue", v.url, "--state-dir", state, "--tick", "200ms"}
	first := startEngine(t, bin, nil, args...)
	if !first.waitFor(`"msg":"engine started"`, time.Minute) {
		t.Fatalf("first engine did not start:\n%s", first.text())
	}
	second := startEngine(t, bin, nil, args...)
	ps := second.wait(t, 30*time.Second)
	want := "in use by another engine (pid " + strconv.Itoa(first.cmd.Process.Pid) + ")"
	if ps.ExitCode() != exitFail || !strings.Contains(second.text(), want) {
		t.Fatalf("second engine: exit %d, want %d and %q:\n%s", ps.ExitCode(), exitFail, want, second.text())
	}
	if !first.waitFor(`"msg":"firing done"`, time.Minute) {
		t.Fatalf("first engine did not go on:\n%s", first.text())
	}
	if second.count(`"msg":"rule fired"`) != 0 {
		t.Error("the second engine fired")
	}
}

// mountTmpfs mounts a tmpfs of size bytes on a new directory, or skips the
// test where mounting is not allowed (not root, no CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); the injected faults of TestStateDirUnwritable stand in", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes into dir until the file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return
		}
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for range 1 << 16 {
		if _, err := f.Write(block); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
	t.Fatal("the file system did not fill")
}

// readOnly mounts a read-only view of dir over it. (The engine holds its
// lock file open for writing, so the tmpfs itself cannot be remounted
// read-only; every new write goes by path, through the view.)
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Fatal(err)
	}
}

// TestStateDirRealFileSystem is TestStateDirUnwritable on a real small
// tmpfs: full and read-only, before and after start. The rule fires three seconds after the engine starts, so
// the test changes the file system first.
func TestStateDirRealFileSystem(t *testing.T) {
	t.Parallel()
	bin := engineBinary(t)
	tests := []struct {
		name   string
		before bool
		change func(t *testing.T, dir string)
	}{
		{"full before start", true, fill},
		{"full after start", false, fill},
		{"read-only before start", true, readOnly},
		{"read-only after start", false, readOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := mountTmpfs(t, 256<<10)
			v := startVenue(t)
			at := v.clk.Now().Add(3 * time.Second).UnixMilli() // the engine reads the venue's time
			rules := writeRules(t, strings.Replace(threeLegs, "when: now_ms > 0", "when: now_ms > "+strconv.FormatInt(at, 10), 1))
			if tt.before {
				tt.change(t, state)
			}
			p := startEngine(t, bin, nil, "--rules", rules, "--venue", v.url, "--state-dir", state, "--tick", "200ms", "--state-timeout", "2s")
			if !tt.before {
				if !p.waitFor(`"msg":"engine started"`, time.Minute) {
					t.Fatalf("did not start:\n%s", p.text())
				}
				tt.change(t, state)
			}
			ps := p.wait(t, time.Minute)
			if ps.ExitCode() != exitFail {
				t.Fatalf("exit %d, want %d; log:\n%s", ps.ExitCode(), exitFail, p.text())
			}
			if sent, _ := v.orders(t); len(sent) != 0 {
				t.Errorf("orders reached the venue: %v", sent)
			}
			log := p.text()
			want := "CANNOT WRITE THE STATE DIRECTORY"
			if tt.before {
				want = "read-only file system" // the lock file cannot be made
				if strings.HasPrefix(tt.name, "full") {
					want = "cannot be written, so no order could be recorded"
				}
			}
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
			if !tt.before && !strings.Contains(log, `"msg":"rule fired"`) {
				t.Errorf("the rule did not fire, so nothing was held back:\n%s", log)
			}
		})
	}
}

// TestRunWarnsOfOldStateFile: the rule states an older engine kept at the
// top of --state-dir are not silently ignored.
func TestRunWarnsOfOldStateFile(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	if err := os.WriteFile(filepath.Join(state, "rule-state.json"), []byte(`{"version":1,"rules":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := writeRules(t, "rules:\n  - name: quiet\n    when: now_ms < 0\n    actions:\n      - log: {message: never}\n")
	code, stderr := runUntilStarted(t, nil, "--rules", rules, "--state-dir", state, "--log-format", "json")
	want := "holds the rule states of an older engine; this one keeps them in " + engine.AccountDir(state, "embedded-demo", "demo-key")
	if code != exitOK || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want a warning %q:\n%s", code, want, stderr)
	}
}
