package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// traderPrefix names the bad files written the way traders write formulas
// and rules (spreadsheets, word processors, chat messages). Each starts
// with "# mistake: ..." and "# expect: line N", the line where the mistake
// is, written with the file and not taken from the checker's output.
const traderPrefix = "trader-"

// minHintShare is the share of the trader files whose first finding comes
// with a hint that shows the fix ("did you mean ...").
const minHintShare = 0.90

// testAccount is the account the trader files' sizes are weighed against:
// the demo scenario's equity, leverage and TSLA and NVDA prices.
func testAccount() *AccountFacts {
	return &AccountFacts{
		Source:   "the test scenario",
		Equity:   map[string]decimal.Decimal{"USDT": decimal.NewFromInt(100_000)},
		Prices:   map[string]decimal.Decimal{"TSLAUSDT": decimal.RequireFromString("412.35"), "NVDAUSDT": decimal.RequireFromString("182.40")},
		Leverage: decimal.NewFromInt(10),
	}
}

var (
	expectLineRE  = regexp.MustCompile(`(?m)^# expect: line (\d+)$`)
	goldenFirstRE = regexp.MustCompile(`^[^\n]*?\.yaml:(\d+):(\d+): `)
)

// TestTraderCorpus checks, from the goldens TestBadRules compares, that
// every trader file is caught at the line where its mistake is, and that
// at least minHintShare of them have a hint showing the fix. It reports the
// share it measured.
func TestTraderCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata/bad", traderPrefix+"*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("%d trader files; the corpus needs at least 40", len(files))
	}
	withFix := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := expectLineRE.FindSubmatch(src)
			if m == nil {
				t.Fatal(`no "# expect: line N" header`)
			}
			want, _ := strconv.Atoi(string(m[1]))
			golden, err := os.ReadFile(strings.TrimSuffix(path, ".yaml") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(golden), "\n\n") // the first finding
			g := goldenFirstRE.FindStringSubmatch(first)
			if g == nil {
				t.Fatalf("the golden does not start with a finding at a line: %q", first)
			}
			if got, _ := strconv.Atoi(g[1]); got != want {
				t.Errorf("caught at line %d, the mistake is on line %d", got, want)
			}
			if strings.Contains(first, "\n    hint: did you mean") {
				withFix++
			}
		})
	}
	share := float64(withFix) / float64(len(files))
	t.Logf("trader corpus: %d files, %d (%.0f%%) with a hint that shows the fix", len(files), withFix, 100*share)
	if share < minHintShare {
		t.Errorf("only %.0f%% of the trader files have a hint that shows the fix; the target is %.0f%%", 100*share, 100*minHintShare)
	}
}
