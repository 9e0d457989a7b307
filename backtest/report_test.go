package backtest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/")

// demoStart is the demo scenario's start: Monday 2026-03-09 09:00 EDT.
var demoStart = sim.Demo().Clock.Start

// goldenCases are the golden reports: the project's example rules over the
// first hour of the demo's first regular session, and this package's own
// small rule set over the morning. examples/rules belongs to the rule
// authors: when they change it, regenerate with -update and review.
var goldenCases = []struct {
	name     string
	rules    string
	from, to time.Time
	getenv   map[string]string
}{
	{"examples", "../examples/rules", demoStart.Add(25 * time.Minute), demoStart.Add(90 * time.Minute), map[string]string{"TSLA_DIP_SIZE": "2"}},
	{"small", "testdata/rules", demoStart, demoStart.Add(3 * time.Hour), nil},
}

func runGolden(t *testing.T, i int) *Report {
	t.Helper()
	c := goldenCases[i]
	rep, err := Run(context.Background(), Options{Scenario: sim.Demo(), RuleDirs: []string{c.rules}, From: c.from, To: c.to,
		Getenv: func(k string) string { return c.getenv[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestGoldenReports(t *testing.T) {
	t.Parallel()
	for i, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			rep := runGolden(t, i)
			got, err := rep.JSON()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "report-"+c.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./backtest -run TestGoldenReports -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("report differs from %s (go test ./backtest -run TestGoldenReports -update, then review the diff):\n%s", path, firstDiff(got, want))
			}
			if len(rep.Firings) == 0 || len(rep.Fills) == 0 || len(rep.Equity) < 2 || len(rep.Sessions) == 0 {
				t.Errorf("a golden report that shows nothing: %d firings, %d fills, %d equity samples, %d sessions",
					len(rep.Firings), len(rep.Fills), len(rep.Equity), len(rep.Sessions))
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n got: " + g[i] + "\nwant: " + w[i]
		}
	}
	return "one is a prefix of the other: " + itoa(len(g)) + " lines against " + itoa(len(w))
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSameInputsSameBytes runs the same backtest twice, each on a fresh
// simulator: the reports (JSON and HTML) must be byte-identical.
func TestSameInputsSameBytes(t *testing.T) {
	t.Parallel()
	run := func() ([]byte, []byte) {
		rep, err := Run(context.Background(), Options{Scenario: sim.Demo(), RuleDirs: []string{"testdata/rules"},
			From: demoStart.Add(30 * time.Minute), To: demoStart.Add(90 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		js, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return js, rep.HTML()
	}
	j1, h1 := run()
	j2, h2 := run()
	if !bytes.Equal(j1, j2) {
		t.Errorf("report.json differs between two runs:\n%s", firstDiff(j1, j2))
	}
	if !bytes.Equal(h1, h2) {
		t.Errorf("report.html differs between two runs:\n%s", firstDiff(h1, h2))
	}
}
