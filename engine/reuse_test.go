package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/backtest/reuse"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// swapSource serves one State until the test swaps it, like a poller whose
// answers did not change.
type swapSource struct {
	fakeSource
	st *marketdata.State
}

func (s *swapSource) State(time.Time) (*marketdata.State, error) { return s.st, nil }

func newData(t *testing.T) *marketdata.State {
	t.Helper()
	st, err := marketdata.NewState(marketdata.BuildInput{Now: t0}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestFalseResultReusedOnSameData: a condition that reads nothing moving
// with time is run once while the data it reads stays the same, whether
// it was false or failed (missing data fails the same way on the same
// data), even when other data changes; one that reads the clock is run on
// every tick.
func TestFalseResultReusedOnSameData(t *testing.T) {
	rs := ruleSet(t,
		rules.Rule{Name: "pure", When: "1 > 2", Enabled: true},
		rules.Rule{Name: "clock", When: "now_ms < 0", Enabled: true},
		rules.Rule{Name: "missing", When: `position("TSLAUSDT", "long").size > 0`, Enabled: true},
	)
	for _, every := range []bool{false, true} {
		src := &swapSource{st: newData(t)}
		e, err := New(Options{Rules: rs, Source: src, Executor: &recorder{}, Clock: stubClock{}, Reuse: reuserIf(!every)})
		if err != nil {
			t.Fatal(err)
		}
		for s := range 10 {
			if s == 5 {
				src.st = newData(t) // new data, but none that they read
			}
			e.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
		}
		stats, _, _ := e.Stats()
		want := map[string]int64{"pure": 9, "clock": 0, "missing": 9}
		if every {
			want["pure"], want["missing"] = 0, 0
		}
		for name, n := range want {
			if got := stats[name].Reused; got != n {
				t.Errorf("plain=%v: rule %s reused %d results, want %d", every, name, got, n)
			}
			if got := stats[name].Evaluations; got != 10 {
				t.Errorf("plain=%v: rule %s counted %d evaluations, want 10", every, name, got)
			}
		}
		if tr := e.Traces("pure"); len(tr) != 10 || tr[9].Reason != ReasonFalse {
			t.Errorf("traces of a reused result: %d, last %+v", len(tr), tr[len(tr)-1])
		}
		if tr := e.Traces("missing"); len(tr) != 10 || tr[9].Detail == "" || tr[9].Detail != tr[4].Detail || tr[9].Detail != tr[5].Detail {
			t.Errorf("a reused failure must read as the failure it repeats: %+v", tr)
		}
		if stats["missing"].Errors != 10 {
			t.Errorf("errors counted %d, want 10 (one per tick, reused or not)", stats["missing"].Errors)
		}
	}
}

// timedSource records the parts the engine asks to have aged every tick.
type timedSource struct {
	swapSource
	timed []marketdata.TimeFieldSet
}

func (s *timedSource) SetTimedFields(f marketdata.TimeFieldSet) { s.timed = append(s.timed, f) }

// TestEngineTimesTheFieldsRead: the engine asks the source to bring to
// every tick the time fields its rules read, and only those (all of them
// on the plain path, none when no rule reads one), and asks again on
// a reload.
func TestEngineTimesTheFieldsRead(t *testing.T) {
	orders := marketdata.TimeFieldsOf("order", "age_seconds")
	for _, tc := range []struct {
		name, when string
		every      bool
		want       marketdata.TimeFieldSet
	}{
		{"no time field", `orders_count("TSLAUSDT") > 0 && has_stop_loss("TSLAUSDT", "long")`, false, 0},
		{"the orders' age", `orders("TSLAUSDT")[0].age_seconds > 60 && has_stop_loss("TSLAUSDT", "long")`, false, orders},
		{"every tick", `orders_count("TSLAUSDT") > 0`, true, marketdata.AllTimeFields},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &timedSource{swapSource: swapSource{st: newData(t)}}
			e, err := New(Options{Rules: loaded(t, tc.when), Source: src, Executor: &recorder{}, Clock: stubClock{}, Reuse: reuserIf(!tc.every)})
			if err != nil {
				t.Fatal(err)
			}
			e.Reload(loaded(t, `stock("TSLA").vwap > 0`))
			stocks := marketdata.TimeFieldsOf("stock", "vwap")
			if tc.every {
				stocks = marketdata.AllTimeFields
			}
			if want := []marketdata.TimeFieldSet{tc.want, stocks}; len(src.timed) != 2 || src.timed[0] != want[0] || src.timed[1] != want[1] {
				t.Errorf("timed parts %v, want %v", src.timed, want)
			}
		})
	}
}

// loaded loads one rule with condition when, as rule files are: the reads
// of a rule set are found by the load.
func loaded(t *testing.T, when string) *rules.RuleSet {
	t.Helper()
	dir := t.TempDir()
	body := "rules:\n  - name: r\n    when: '" + when + "'\n    actions:\n      - cancel_all: {}\n"
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, errs := rules.Load(context.Background(), []string{dir}, rules.LoadOptions{Actions: actions.Defs()})
	if rs == nil {
		t.Fatalf("rules: %v", errs)
	}
	return rs
}

// reuserIf is the backtest's condition-result reuse when on, else nil (what
// engine run has).
func reuserIf(on bool) Reuser {
	if on {
		return reuse.Results{}
	}
	return nil
}
