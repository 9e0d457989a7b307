package engine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// fakeSource serves States at any time; ready and stale are switches.
type fakeSource struct {
	notReady bool
	stale    bool
}

func (f *fakeSource) State(now time.Time) (*marketdata.State, error) {
	return marketdata.NewState(marketdata.BuildInput{Now: now}, marketdata.BuildOptions{})
}
func (f *fakeSource) FullyPolled() bool { return !f.notReady }
func (f *fakeSource) Stale(*marketdata.State, marketdata.PartSet) (marketdata.Part, bool) {
	return marketdata.PartMarket, f.stale
}

// recorder is an Executor that records firings and what the store held
// when each one ran.
type recorder struct {
	firings []string
	store   *Store
	saved   []RuleState
}

func (r *recorder) Execute(_ context.Context, f *Firing) []actions.Leg {
	r.firings = append(r.firings, f.Rule.Name)
	if r.store != nil {
		states, _ := r.store.Load()
		r.saved = append(r.saved, states[f.Rule.Name])
	}
	return []actions.Leg{{Kind: "log", Outcome: actions.OK}}
}

var t0 = time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)

// ruleSet compiles conditions into a rule set; a condition can read the tick
// time through now_ms, which makes it scriptable.
func ruleSet(t *testing.T, specs ...rules.Rule) *rules.RuleSet {
	t.Helper()
	c := rules.NewCompiler(rules.CompilerOptions{})
	rs := &rules.RuleSet{}
	for i := range specs {
		r := specs[i]
		p, errs := c.Condition(r.When)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", r.When, errs[0].Msg)
		}
		r.Condition = p
		if r.Name == "" {
			r.Name = "r"
		}
		rs.Rules = append(rs.Rules, &r)
	}
	return rs
}

// after is a condition true from t0 + sec on.
func after(sec int) string {
	return "now_ms >= " + itoa(t0.Add(time.Duration(sec)*time.Second).UnixMilli())
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestEngineFiresOnceAndPersistsFirst(t *testing.T) {
	store, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{store: store}
	rs := ruleSet(t, rules.Rule{Name: "a", When: after(2), Enabled: true, For: time.Second})
	_, err = New(Options{Rules: rs, Source: &fakeSource{}, Executor: rec, Clock: nil, Store: store})
	if err == nil {
		t.Fatal("New accepted a nil clock")
	}
	e, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: rec, Clock: stubClock{}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 10; s++ {
		e.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
	}
	if len(rec.firings) != 1 {
		t.Fatalf("fired %d times, want 1", len(rec.firings))
	}
	if rec.saved[0].Phase != PhaseFiring || rec.saved[0].Firings != 1 {
		t.Errorf("state on disk when the actions ran: %+v; it must already say firing", rec.saved[0])
	}
	tr := e.Traces("a")
	if len(tr) != 10 || tr[2].Reason != ReasonHolding || tr[3].Reason != ReasonFired || tr[3].Transition != "pending -> firing" || tr[4].Reason != ReasonStillTrue {
		t.Errorf("traces: %+v", tr[:5])
	}
	if v, ok := tr[3].Values["now_ms"]; !ok || v != float64(t0.Add(3*time.Second).UnixMilli()) {
		t.Errorf("firing trace values %v; want now_ms", tr[3].Values)
	}

	// A restart with the condition still true must not fire again.
	rec2 := &recorder{}
	e2, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: rec2, Clock: stubClock{}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	e2.Step(context.Background(), t0.Add(11*time.Second))
	if len(rec2.firings) != 0 {
		t.Errorf("fired again after a restart")
	}
}

func TestEngineDoesNotFire(t *testing.T) {
	tests := []struct {
		name   string
		src    *fakeSource
		rule   rules.Rule
		reason Reason
	}{
		{"before the first full poll", &fakeSource{notReady: true}, rules.Rule{When: after(0), Enabled: true}, ReasonNotStarted},
		{"on stale data", &fakeSource{stale: true}, rules.Rule{When: after(0), Enabled: true}, ReasonStale},
		{"when disabled", &fakeSource{}, rules.Rule{When: after(0), Enabled: false}, ReasonDisabled},
		{"when the data is missing", &fakeSource{}, rules.Rule{When: `market.is_open`, Enabled: true}, ReasonUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			e, err := New(Options{Rules: ruleSet(t, tt.rule), Source: tt.src, Executor: rec, Clock: stubClock{}})
			if err != nil {
				t.Fatal(err)
			}
			for s := 0; s < 3; s++ {
				e.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
			}
			if len(rec.firings) != 0 {
				t.Fatalf("fired")
			}
			tr := e.Traces("r")
			if tr[2].Reason != tt.reason {
				t.Errorf("reason %q (%s), want %q", tr[2].Reason, tr[2].Detail, tt.reason)
			}
		})
	}
}

func TestEnginePriorityAndReload(t *testing.T) {
	rec := &recorder{}
	rs := ruleSet(t,
		rules.Rule{Name: "low", When: after(0), Enabled: true, Priority: 1},
		rules.Rule{Name: "high", When: after(0), Enabled: true, Priority: 9},
		rules.Rule{Name: "mid-b", When: after(0), Enabled: true, Priority: 5},
		rules.Rule{Name: "mid-a", When: after(0), Enabled: true, Priority: 5},
	)
	e, err := New(Options{Rules: rs, Source: &fakeSource{}, Executor: rec, Clock: stubClock{}})
	if err != nil {
		t.Fatal(err)
	}
	e.Step(context.Background(), t0)
	if got := strings.Join(rec.firings, ","); got != "high,mid-a,mid-b,low" {
		t.Errorf("firing order %s", got)
	}
	// Reload: "high" keeps its state (no second firing), "new" starts fresh.
	e.Reload(ruleSet(t, rules.Rule{Name: "high", When: after(0), Enabled: true}, rules.Rule{Name: "new", When: after(0), Enabled: true}))
	rec.firings = nil
	e.Step(context.Background(), t0.Add(time.Second))
	if got := strings.Join(rec.firings, ","); got != "new" {
		t.Errorf("after reload fired %q, want new", got)
	}
}

func TestStoreRejectsCorruptFile(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), "move it away") {
		t.Errorf("corrupt state file: %v", err)
	}
}

type stubClock struct{}

func (stubClock) Now() time.Time                       { return t0 }
func (stubClock) After(time.Duration) <-chan time.Time { return nil }
