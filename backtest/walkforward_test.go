package backtest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/sim"
)

func TestParseWalkForward(t *testing.T) {
	cases := []struct {
		in          string
		train, test time.Duration
		err         bool
	}{
		{"60d/20d", 60 * 24 * time.Hour, 20 * 24 * time.Hour, false},
		{"6h/2h", 6 * time.Hour, 2 * time.Hour, false},
		{" 1d / 90m ", 24 * time.Hour, 90 * time.Minute, false},
		{"60d", 0, 0, true},
		{"0d/1d", 0, 0, true},
		{"x/1d", 0, 0, true},
		{"1d/-2h", 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			train, test, err := ParseWalkForward(c.in)
			if (err != nil) != c.err || train != c.train || test != c.test {
				t.Errorf("ParseWalkForward(%q) = %s, %s, %v; want %s, %s, error %v", c.in, train, test, err, c.train, c.test, c.err)
			}
		})
	}
}

// walkForwardRules is the package's small rule set with the BTC
// take-profit threshold as ${TP}.
func walkForwardRules(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/rules/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const tp = "unrealized_pnl_pct > 0.002"
	if !bytes.Contains(data, []byte(tp)) {
		t.Fatalf("small.yaml has no %q: update this test", tp)
	}
	dir := t.TempDir()
	data = bytes.Replace(data, []byte(tp), []byte("unrealized_pnl_pct > ${TP}"), 1)
	if err := os.WriteFile(filepath.Join(dir, "small.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWalkForward runs a walk-forward of two take-profit settings over
// three hours of the demo, 1 h training and 30 min test windows (4
// windows: starting at 0, 30, 60 and 90 min), twice, with 2 jobs and with
// 1: the results are the same byte for byte. Each window's pick is the
// variant of highest in-sample Sharpe, its test span follows its training
// span, and its out-of-sample figures are those of the test report on
// disk.
func TestWalkForward(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	rules := walkForwardRules(t)
	run := func(jobs int) (*WalkForwardResult, string, []byte) {
		out := t.TempDir()
		res, err := WalkForward(context.Background(), WalkForwardOptions{
			Sweep: SweepOptions{
				Base:    Options{RuleDirs: []string{rules}, From: demoStart, To: demoStart.Add(3 * time.Hour)},
				Prepare: func(o *Options) error { o.Scenario = sim.Demo(); return nil },
				Vary:    []Vary{{"TP", []string{"0.001", "0.004"}}},
				Jobs:    jobs, Out: out,
			},
			Train: time.Hour, Test: 30 * time.Minute, Objective: "sharpe",
		})
		if err != nil {
			t.Fatal(err)
		}
		js, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return res, out, js
	}
	res, out, js := run(2)
	_, _, again := run(1)
	if !bytes.Equal(js, again) {
		t.Fatalf("a second walk-forward differs:\n%s", firstDiff(js, again))
	}
	if len(res.Windows) != 4 {
		t.Fatalf("%d windows, want 4", len(res.Windows))
	}
	for i, w := range res.Windows {
		t.Run(w.TrainFrom, func(t *testing.T) {
			if want := stamp(demoStart.Add(time.Duration(i) * 30 * time.Minute)); w.TrainFrom != want || w.TestFrom != w.TrainTo {
				t.Errorf("window %d trains from %s to %s, tests from %s; want training from %s and the test right after", i+1, w.TrainFrom, w.TrainTo, w.TestFrom, want)
			}
			best, bestScore := "", decimal.Decimal{}
			for _, s := range w.Scores {
				if d, err := decimal.NewFromString(s.Objective); err == nil && (best == "" || d.GreaterThan(bestScore)) {
					best, bestScore = s.Variant, d
				}
			}
			if best != "" && w.Best != best {
				t.Errorf("picked %s, but %s has the highest in-sample Sharpe (%+v)", w.Best, best, w.Scores)
			}
			data, err := os.ReadFile(filepath.Join(out, "window-0"+string(rune('1'+i)), "test", w.Best, JSONFile))
			if err != nil {
				t.Fatal(err)
			}
			var rep Report
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			a, _ := objectiveAccount(rep.Summary.Accounts, w.Account)
			if rep.From != w.TestFrom || rep.To != w.TestTo || a.Metrics.Sharpe != w.OutOfSample || a.ReturnPct != w.OutOfSampleReturnPct {
				t.Errorf("test report %s to %s, Sharpe %q return %q; the window says %s to %s, %q, %q",
					rep.From, rep.To, a.Metrics.Sharpe, a.ReturnPct, w.TestFrom, w.TestTo, w.OutOfSample, w.OutOfSampleReturnPct)
			}
		})
	}
	var table strings.Builder
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "out-of-sample sharpe") || strings.Count(table.String(), "\n") != 6 {
		t.Errorf("table:\n%s", table.String())
	}
}

// TestWalkForwardRefuses a span shorter than one window and an unknown
// objective.
func TestWalkForwardRefuses(t *testing.T) {
	base := SweepOptions{Base: Options{Scenario: sim.Demo(), RuleDirs: []string{"testdata/rules"}, From: demoStart, To: demoStart.Add(time.Hour)},
		Vary: []Vary{{"TP", []string{"1"}}}, Out: t.TempDir()}
	for _, c := range []struct {
		name, objective, want string
		train                 time.Duration
	}{
		{"too short", "sharpe", "shorter than one training and one test window", time.Hour},
		{"unknown objective", "luck", "choose one of sharpe", time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := WalkForward(context.Background(), WalkForwardOptions{Sweep: base, Train: c.train, Test: time.Minute, Objective: c.objective})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestSummariseWindows: means over the windows where both figures have a
// meaning ((1.5 + 0.5) / 2 = 1 in sample, (-0.5 + 0.25) / 2 = -0.125 out),
// and the out-of-sample returns compounded over every window: 1.02 * 0.99
// * 1.01 = 1.019898, +1.9898 %.
func TestSummariseWindows(t *testing.T) {
	got := summariseWindows([]WindowResult{
		{InSample: "1.5", OutOfSample: "-0.5", OutOfSampleReturnPct: "2"},
		{InSample: "0.5", OutOfSample: "0.25", OutOfSampleReturnPct: "-1"},
		{InSample: "3", OutOfSample: "", OutOfSampleReturnPct: "1"},
	})
	want := WalkForwardNote{MeanInSample: "1", MeanOutOfSample: "-0.125", OutOfSampleReturnPct: "1.9898", WindowsWithoutFigures: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
