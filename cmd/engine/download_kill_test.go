package main

import (
	"bytes"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/internal/racetest"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestDownloadSurvivesKill downloads four months of hourly candles (trade,
// mark and index, a file per month each, and the funding) from the
// simulator served on loopback, as a subprocess it kills with SIGKILL
// after three progress lines (three pages), four times over. After every kill the store
// reads whole (every series loads, no half-written file is taken as data);
// the run after the last kill completes, asks the simulator less than a
// whole download does (it fetches only what is missing), and leaves the
// store byte for byte as a download never interrupted.
func TestDownloadSurvivesKill(t *testing.T) {
	t.Parallel()
	if racetest.Enabled {
		// Its six downloads take 18 s under -race and find no race; .ci/run
		// runs it without -race beside the walkthrough.
		t.Skip("the download kill test runs without -race")
	}
	bin := engineBinary(t)
	var candleCalls atomic.Int64
	sc := simtest.Scenario() // starts 2026-03-13 14:00 UTC
	r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 125 * 24 * time.Hour, HTTP: true,
		Server: server.Options{DisableRateLimits: true},
		Front: func(_ *simtest.Rig, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if strings.Contains(req.URL.Path, "candles") {
					candleCalls.Add(1)
				}
				h.ServeHTTP(w, req)
			})
		}})
	args := func(dir string) []string {
		return []string{"data", "download", "--symbols", "BTCUSDT", "--interval", "1H", "--from", "2026-03-14T00:00:00Z",
			"--to", "2026-07-14T00:00:00Z", "--venue", r.URL, "--dir", dir}
	}

	clean := t.TempDir()
	if code, _, stderr := runCLI(t, args(clean)...); code != exitOK {
		t.Fatalf("the clean download: exit %d: %s", code, stderr)
	}
	whole := candleCalls.Swap(0)

	killed := t.TempDir()
	kills := 0
	for range 4 {
		p := startProc(t, bin, nil, args(killed)...)
		if !p.waitForCount(" rows, ", 3, time.Minute) || p.exited() {
			<-p.done
			break // it finished: nothing was left to kill it in
		}
		_ = p.cmd.Process.Kill()
		<-p.done
		kills++
		if _, err := data.List(killed); err != nil {
			t.Fatalf("after kill %d the store does not read: %v", kills, err)
		}
		if _, err := data.LoadFunding(killed, "USDT-FUTURES", "BTCUSDT"); err != nil && !errors.Is(err, data.ErrNotDownloaded) {
			t.Fatalf("after kill %d the funding does not read: %v", kills, err)
		}
	}
	if kills < 3 {
		t.Fatalf("only %d runs were killed before the download finished; want 3 (a longer span?)", kills)
	}
	if entries, err := data.List(killed); err == nil && len(entries) == 3 && entries[0].Covered.To.Equal(entries[1].Covered.To) && entries[1].Covered.To.Equal(entries[2].Covered.To) &&
		!entries[0].Covered.To.Before(time.Date(2026, 7, 14, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("the killed runs had downloaded everything: the last run would resume nothing")
	}
	candleCalls.Store(0)
	if code, _, stderr := runCLI(t, args(killed)...); code != exitOK {
		t.Fatalf("the resumed download: exit %d: %s", code, stderr)
	}
	if resumed := candleCalls.Load(); resumed >= whole {
		t.Errorf("the resumed download asked %d times for candles, a whole one %d: it fetched more than what was missing", resumed, whole)
	}
	want, got := storeFiles(t, clean), storeFiles(t, killed)
	if len(want) < 12 {
		t.Fatalf("the clean store has %d files, want the months of three kinds", len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs from the uninterrupted download's", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is in the killed store only", name)
		}
	}
}

// storeFiles reads every file of a store but the hidden ones (a temporary
// file a kill left behind), by path inside it.
func storeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := filesUnder(t, dir)
	for name := range out {
		if strings.HasPrefix(filepath.Base(name), ".") {
			delete(out, name)
		}
	}
	return out
}
