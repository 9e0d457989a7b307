package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// docExample is one file that docs/scenarios.md shows whole: a fenced block
// whose first line is "# scenario: NAME" or "# file: NAME".
type docExample struct {
	name, text string
	scenario   bool
}

// scenarioDocExamples reads the complete files of docs/scenarios.md.
func scenarioDocExamples(t *testing.T) []docExample {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []docExample
	var block []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			if in && len(block) > 0 {
				first := block[0]
				for _, p := range []struct {
					prefix   string
					scenario bool
				}{{"# scenario: ", true}, {"# file: ", false}} {
					if name, ok := strings.CutPrefix(first, p.prefix); ok {
						text := strings.Join(block, "\n") + "\n"
						if !p.scenario {
							text = strings.Join(block[1:], "\n") + "\n" // the file itself has no title line
						}
						out = append(out, docExample{name: strings.TrimSpace(name), text: text, scenario: p.scenario})
					}
				}
			}
			in, block = !in, nil
			continue
		}
		if in {
			block = append(block, line)
		}
	}
	return out
}

// TestScenarioDocExamplesLoad: every complete scenario docs/scenarios.md
// shows loads and builds a simulator, and together they show every kind of
// price path and every calendar case the page explains (issue 25: the
// formats were only in Go package docs).
func TestScenarioDocExamplesLoad(t *testing.T) {
	examples := scenarioDocExamples(t)
	dir := t.TempDir()
	for _, e := range examples {
		if err := os.WriteFile(filepath.Join(dir, e.name), []byte(e.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]bool{}
	names := map[string]bool{}
	for _, e := range examples {
		if !e.scenario {
			continue
		}
		if names[e.name] {
			t.Errorf("two examples are named %s", e.name)
		}
		names[e.name] = true
		t.Run(e.name, func(t *testing.T) {
			sc, err := LoadScenario(filepath.Join(dir, e.name))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := New(sc, Options{Clock: clock.NewVirtual(sc.Clock.Start)}); err != nil {
				t.Fatal(err)
			}
			for _, p := range sc.Prices {
				kinds["points"] = kinds["points"] || len(p.Points) > 0
				kinds["csv"] = kinds["csv"] || p.CSV != ""
				kinds["random_walk"] = kinds["random_walk"] || p.RandomWalk != nil
				kinds["candles rows"] = kinds["candles rows"] || p.Candles != nil && len(p.Candles.Rows) > 0
				kinds["candles file"] = kinds["candles file"] || p.Candles != nil && p.Candles.File != ""
			}
			c := sc.Calendar
			kinds["regular_closed"] = kinds["regular_closed"] || c.RegularClosed != nil
			kinds["closures"] = kinds["closures"] || len(c.Closures) > 0
			kinds["us_holidays"] = kinds["us_holidays"] || c.USHolidays
			kinds["early_closes"] = kinds["early_closes"] || len(c.EarlyCloses) > 0
			for _, a := range sc.Accounts {
				kinds["spot_records"] = kinds["spot_records"] || len(a.SpotRecords) > 0
			}
			for _, sp := range sc.StockPairs {
				kinds["weekend_tradable"] = kinds["weekend_tradable"] || sp.WeekendTradable
			}
		})
	}
	for _, k := range []string{"points", "csv", "random_walk", "candles rows", "candles file", "regular_closed", "closures", "us_holidays", "early_closes", "spot_records", "weekend_tradable"} {
		if !kinds[k] {
			t.Errorf("no example of docs/scenarios.md shows %s", k)
		}
	}
	if len(names) < 10 {
		t.Errorf("%d scenario examples found; the page shows ten", len(names))
	}
}

// TestScenarioDocsListSpotTypes: the page lists the spot record types the
// loader accepts, spelt as the venue spells them.
func TestScenarioDocsListSpotTypes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range exchange.SpotTaxTypes() {
		want = append(want, "`"+string(s)+"`")
	}
	if line := "The types, as the venue spells them: " + strings.Join(want, ", ") + "."; !slices.Contains(strings.Split(string(b), "\n"), line) {
		t.Errorf("docs/scenarios.md lacks the line\n%s", line)
	}
}
