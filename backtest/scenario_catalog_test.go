package backtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

// TestMissingContractNamesTheScenario: a rule naming a contract the
// scenario lacks is reported as missing from the scenario.
func TestMissingContractNamesTheScenario(t *testing.T) {
	dir := t.TempDir()
	rule := "rules:\n  - name: r\n    when: market.is_open\n    actions:\n      - place_order: {symbol: SOLUSDT, open: long, type: market, size: 1}\n"
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(rule), 0o600); err != nil {
		t.Fatal(err)
	}
	sc := sim.Demo()
	_, err := Run(context.Background(), Options{Scenario: sc, RuleDirs: []string{dir}, To: sc.Clock.Start.Add(time.Minute),
		Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "SOLUSDT is not a futures contract in the scenario demo.yaml") {
		t.Errorf("got %v", err)
	}
}
