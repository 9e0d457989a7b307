package status_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/status"
)

// pulse is a HeartbeatSource the test sets by hand.
type pulse struct{ hb engine.Heartbeat }

func (p *pulse) Heartbeat() engine.Heartbeat { return p.hb }

// killSwitch is a KillSwitchSource the test sets by hand.
type killSwitch struct {
	on  bool
	why string
}

func (k *killSwitch) Killed() (bool, string) { return k.on, k.why }

func TestHealthProbes(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		hb        engine.Heartbeat
		age       time.Duration // the clock's time after hb.Last
		ticks     int           // StallTicks
		stateDir  string
		kill      bool
		extra     string // an extra check's failure ("" passes)
		live      bool
		ready     []string // substrings of the readiness reasons, in order
		liveWhy   string
		readyDirs bool
	}{
		{name: "ticking and polled", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: time.Second}, age: 3 * time.Second,
			stateDir: dir, live: true},
		{name: "not polled yet", hb: engine.Heartbeat{Last: t0, Tick: time.Second}, age: time.Second,
			stateDir: dir, live: true, ready: []string{"first full poll"}},
		{name: "no tick yet", hb: engine.Heartbeat{Tick: time.Second}, stateDir: dir,
			liveWhy: "has not finished a tick yet", ready: []string{"has not finished a tick yet", "first full poll"}},
		{name: "five ticks of 1s pass", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: time.Second}, age: 5 * time.Second,
			stateDir: dir, live: true},
		{name: "past five ticks of 1s", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: time.Second}, age: 5*time.Second + time.Millisecond,
			stateDir: dir, liveWhy: "the tick loop is stalled: its last tick finished 5.001s ago (more than 5s, 5 ticks of 1s)",
			ready: []string{"stalled"}},
		{name: "short ticks stall after MinStall", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: 100 * time.Millisecond}, age: 4 * time.Second,
			stateDir: dir, live: true},
		{name: "long ticks stall after StallTicks of them", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: 10 * time.Second}, age: 31 * time.Second,
			ticks: 3, stateDir: dir, liveWhy: "more than 30s, 3 ticks of 10s", ready: []string{"stalled"}},
		{name: "state directory not writable", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: time.Second},
			stateDir: notADir, live: true, ready: []string{"the state directory " + notADir + " cannot be written"}},
		{name: "kill switch on", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: time.Second},
			stateDir: dir, kill: true, live: true, ready: []string{"halted: the kill switch is on (SIGUSR1)"}},
		{name: "an extra check", hb: engine.Heartbeat{Last: t0, Ready: true, Tick: time.Second},
			stateDir: dir, extra: "halted by rule stop-all", live: true, ready: []string{"halted by rule stop-all"}},
		{name: "every reason at once", hb: engine.Heartbeat{Tick: time.Second}, stateDir: notADir, kill: true, extra: "halted",
			liveWhy: "not finished", ready: []string{"not finished", "first full poll", "cannot be written", "kill switch", "halted"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := clock.NewVirtual(t0.Add(c.age))
			extra := []status.ReadyCheck{{Name: "extra", Check: func() string { return c.extra }}}
			h := status.NewHealth(status.HealthOptions{Engine: &pulse{c.hb}, Clock: clk, StallTicks: c.ticks, StateDir: c.stateDir,
				Guard: &killSwitch{on: c.kill, why: "SIGUSR1"}, Checks: extra})
			live := h.Live()
			if live.OK != c.live || live.OK != (len(live.Reasons) == 0) {
				t.Errorf("live %+v, want ok %t", live, c.live)
			}
			if c.liveWhy != "" && (len(live.Reasons) != 1 || !strings.Contains(live.Reasons[0], c.liveWhy)) {
				t.Errorf("live reasons %q, want one with %q", live.Reasons, c.liveWhy)
			}
			ready := h.Ready()
			if ready.OK != (len(c.ready) == 0) || len(ready.Reasons) != len(c.ready) {
				t.Fatalf("ready %+v, want reasons with %q", ready, c.ready)
			}
			for i, want := range c.ready {
				if !strings.Contains(ready.Reasons[i], want) {
					t.Errorf("ready reason %d %q, want it to contain %q", i, ready.Reasons[i], want)
				}
			}
			if !c.hb.Last.Equal(live.LastLoop) {
				t.Errorf("last loop %s, want %s", live.LastLoop, c.hb.Last)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the writability check left files: %v", entries)
			}
		})
	}
}

// TestProbeHandlers: /healthz and /readyz answer 200 when they pass and
// 503 with the reasons when not, and FetchProbe and the snapshot read them.
func TestProbeHandlers(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	clk := clock.NewVirtual(t0)
	src := &pulse{engine.Heartbeat{Last: t0, Tick: time.Second}}
	health := status.NewHealth(status.HealthOptions{Engine: src, Clock: clk})
	b := status.NewBoard(status.BoardOptions{Engine: oddEngine{}, Recorder: status.NewRecorder(status.RecorderOptions{}),
		Clock: clk, Health: health})
	srv := httptest.NewServer(status.Handler(b))
	defer srv.Close()
	steps := []struct {
		name           string
		ready          bool
		advance        time.Duration
		live, ready200 int
	}{
		{name: "not polled", live: 200, ready200: 503},
		{name: "polled", ready: true, live: 200, ready200: 200},
		{name: "stalled", ready: true, advance: time.Minute, live: 503, ready200: 503},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			src.hb.Ready = s.ready
			clk.Advance(s.advance)
			for path, want := range map[string]int{"/healthz": s.live, "/readyz": s.ready200} {
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("%s: HTTP %d, want %d", path, resp.StatusCode, want)
				}
				p, err := status.FetchProbe(context.Background(), srv.Client(), srv.URL, path)
				if err != nil {
					t.Fatal(err)
				}
				if p.OK != (want == http.StatusOK) || p.OK == (len(p.Reasons) > 0) {
					t.Errorf("%s: FetchProbe %+v for HTTP %d", path, p, want)
				}
			}
			snap := b.Snapshot()
			if snap.Health == nil || snap.Health.Live.OK != (s.live == 200) || snap.Health.Ready.OK != (s.ready200 == 200) {
				t.Errorf("snapshot health %+v", snap.Health)
			}
			var table strings.Builder
			if err := status.WriteTable(&table, snap); err != nil {
				t.Fatal(err)
			}
			wantLine := "health: ok; readiness: ok"
			if s.ready200 != 200 {
				wantLine = "readiness: NOT OK ("
			}
			if !strings.Contains(table.String(), wantLine) {
				t.Errorf("engine status does not show %q:\n%s", wantLine, table.String())
			}
		})
	}
	// A board without a Health serves no probes.
	plain := httptest.NewServer(status.Handler(status.NewBoard(status.BoardOptions{Engine: oddEngine{},
		Recorder: status.NewRecorder(status.RecorderOptions{}), Clock: clk})))
	defer plain.Close()
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(plain.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s without a Health: HTTP %d, want 404", path, resp.StatusCode)
		}
	}
	if _, err := status.FetchProbe(context.Background(), plain.Client(), plain.URL, "/healthz"); err == nil {
		t.Error("FetchProbe of a 404 gave no error")
	}
}
