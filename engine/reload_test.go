package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/rules"
)

func TestWatchKeepsOldRulesOnBadReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("rules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	e, err := New(Options{Rules: ruleSet(t, rules.Rule{Name: "old", When: after(0), Enabled: true}), Source: &fakeSource{}, Executor: rec, Clock: stubClock{}})
	if err != nil {
		t.Fatal(err)
	}
	v := clock.NewVirtual(t0)
	results := make(chan error, 4)
	sig := make(chan os.Signal, 1)
	next := []*rules.RuleSet{nil, ruleSet(t, rules.Rule{Name: "new", When: after(0), Enabled: true})}
	load := func(context.Context) (*rules.RuleSet, error) {
		rs := next[0]
		next = next[1:]
		if rs == nil {
			return nil, errors.New("a.yaml:3:5: unknown key wen")
		}
		return rs, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, WatchOptions{Dirs: []string{dir}, Load: load, Engine: e, Clock: v, Signal: sig, OnResult: func(err error) { results <- err }})
	}()

	// A change to the file with a bad rule set: rejected, old rules stay.
	// The watcher is waiting on the clock before the file changes, so it
	// has taken its first fingerprint.
	if !v.WaitForWaiters(1, done) {
		t.Fatal("watcher stopped")
	}
	if err := os.WriteFile(file, []byte("rules:\n  - name: x\n    wen: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v.Advance(2 * time.Second)
	if err := recv(t, results); err == nil {
		t.Fatal("bad rule set accepted")
	}
	e.Step(context.Background(), t0)
	if len(rec.firings) != 1 || rec.firings[0] != "old" {
		t.Fatalf("after a bad reload fired %v, want the old rule", rec.firings)
	}
	// SIGHUP forces a reload, which now succeeds.
	sig <- os.Interrupt
	if err := recv(t, results); err != nil {
		t.Fatal(err)
	}
	rec.firings = nil
	e.Step(context.Background(), t0.Add(time.Second))
	if len(rec.firings) != 1 || rec.firings[0] != "new" {
		t.Fatalf("after a good reload fired %v, want new", rec.firings)
	}
	cancel()
	<-done
}

// recv takes the next reload result; the bound is a hang detector, not a
// synchronisation: results arrive as soon as the watcher has reloaded.
func recv(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("no reload result within 30s")
		return nil
	}
}
