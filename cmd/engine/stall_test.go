package main

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// stallingVenue is a loopback listener that accepts connections, reads what
// the client sends and never answers: a venue that hangs.
type stallingVenue struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	done  chan struct{}
}

func newStallingVenue(t *testing.T) *stallingVenue {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stallingVenue{ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			go func() { _, _ = c.Read(make([]byte, 1<<16)) }()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *stallingVenue) url() string { return "http://" + s.ln.Addr().String() }

func (s *stallingVenue) close() {
	s.ln.Close()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

// TestMaxRuntimeEndsAStalledStart: a venue that accepts connections and
// never answers holds engine run at start-up (catalog, accounts, the first
// poll); --max-runtime must still end the run, with an error, on time.
func TestMaxRuntimeEndsAStalledStart(t *testing.T) {
	t.Parallel()
	v := newStallingVenue(t)
	env := map[string]string{envAPIKey: "demo-key", envSecret: "demo-secret", envPassphrase: "demo-passphrase"}
	dir := writeRules(t, "rules:\n  - name: r\n    when: now_ms > 0\n    actions:\n      - log: {message: hi}\n")
	const limit = 2 * time.Second
	type result struct {
		code int
		err  string
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		code, errs := runWith(t, env, "--venue", v.url(), "--rules", dir, "--state-dir", t.TempDir(), "--max-runtime", limit.String(), "--metrics-addr", "")
		done <- result{code, errs}
	}()
	select {
	case r := <-done:
		took := time.Since(start)
		if r.code == exitOK {
			t.Errorf("a run that never started exited 0: %s", r.err)
		}
		if took > limit+5*time.Second {
			t.Errorf("--max-runtime %s ended the run after %s", limit, took)
		}
		t.Logf("ended after %s: %s", took.Round(time.Millisecond), r.err)
	case <-time.After(60 * time.Second): // a bound on the hang, not a synchronisation
		t.Fatal("--max-runtime did not end a run stalled at start-up")
	}
}

// TestMaxRuntimeEndsEveryStalledWait stalls each request engine run makes
// at start-up and in its first poll, one path at a time, in a live and a dry
// run, and refuses some with 429 or 503 every time (the client's retries):
// whichever wait hangs, --max-runtime ends the run on time.
func TestMaxRuntimeEndsEveryStalledWait(t *testing.T) {
	t.Parallel()
	// The requests of each kind of run, in the order it makes them (a dry
	// run reads no stock book but the orders and the price feed instead);
	// the client asks the live venue's stock paths first.
	live := []string{
		"/api/v2/public/time",
		"/api/v2/mix/market/contracts",
		"/api/v3/reality/market/stock-info",
		"/api/v2/mix/account/accounts",
		"/api/v3/account/reality-orderbook",
		"/api/v2/mix/position/all-position",
	}
	dryRun := []string{
		"/api/v2/mix/market/contracts",
		"/api/v3/reality/market/stock-info",
		"/api/v2/mix/account/accounts",
		"/api/v2/mix/position/all-position",
		"/api/v2/mix/order/orders-pending",
		"/api/v2/mix/market/ticker",
	}
	env := map[string]string{envAPIKey: "demo-key", envSecret: "demo-secret", envPassphrase: "demo-passphrase"}
	dir := writeRules(t, "rules:\n  - name: r\n    when: position(\"BTCUSDT\", \"long\").size == 0 && stock(\"TSLA\").bid > 0\n    actions:\n      - log: {message: hi}\n")
	// Long enough for a run on a loaded machine to reach the last path
	// before it is ended; the runs wait side by side. (6 s was not, once,
	// for a dry run's first ticker in a full CI run on two cores.)
	const limit = 10 * time.Second
	type stall struct {
		path, mode string
		dry        bool
	}
	var stalls []stall
	for _, path := range live {
		stalls = append(stalls, stall{path, "hang", false})
	}
	for _, path := range dryRun {
		stalls = append(stalls, stall{path, "hang", true})
	}
	for _, path := range []string{live[1], live[5]} {
		stalls = append(stalls, stall{path, "429", false}, stall{path, "503", false})
	}
	for _, st := range stalls {
		path, dry := st.path, st.dry
		{
			name := path + "/" + st.mode
			if dry {
				name += "/dry-run"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // each run mostly waits out its limit
				url, stalled := stallPath(t, path, st.mode)
				args := []string{"--venue", url, "--rules", dir, "--state-dir", t.TempDir(), "--max-runtime", limit.String(), "--metrics-addr", ""}
				if dry {
					args = append(args, "--dry-run")
				}
				done := make(chan int, 1)
				start := time.Now()
				go func() {
					code, _ := runWith(t, env, args...)
					done <- code
				}()
				select {
				case <-done:
					if took := time.Since(start); took > limit+5*time.Second {
						t.Errorf("--max-runtime %s ended the run after %s", limit, took)
					}
					if stalled.Load() == 0 {
						t.Errorf("the run ended before it asked for %s", path)
					}
				case <-time.After(60 * time.Second): // a bound on the hang, not a synchronisation
					t.Fatalf("--max-runtime did not end a run stalled on %s", path)
				}
			})
		}
	}
}

// stallPath serves the demo simulator over loopback HTTP, except that
// requests for path wait until the client gives up (mode hang), or are
// refused with 429 and an hour's Retry-After, or with 503, every time.
func stallPath(t *testing.T, path, mode string) (string, *atomic.Int64) {
	t.Helper()
	stalled := new(atomic.Int64)
	venue := demoSim(t, func(_ *simtest.Rig, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				stalled.Add(1)
			}
			switch {
			case r.URL.Path != path:
			case mode == "hang":
				<-r.Context().Done()
				return
			case mode == "429":
				w.Header().Set("Retry-After", "3600")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"code":"429","msg":"Too Many Requests","requestTime":0,"data":null}`))
				return
			case mode == "503":
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	return venue.URL, stalled
}

// demoSim serves engine sim's handler on loopback, behind front: the demo
// scenario, its clock at the regular session (90 minutes after the
// scenario's start) and following the wall clock, without rate limits.
func demoSim(t *testing.T, front func(*simtest.Rig, http.Handler) http.Handler) *simtest.Rig {
	t.Helper()
	return simtest.NewRig(t, simtest.RigOptions{After: 90 * time.Minute, Speed: 1, HTTP: true, Front: front,
		Server: server.Options{AuthClock: clock.Real{}, DisableRateLimits: true}})
}
