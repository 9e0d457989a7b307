package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

// writeRules writes body as the rule file of dir, a new temporary directory
// when dir is empty, and returns dir.
func writeRules(tb testing.TB, dir, body string) string {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(body), 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// loadRules writes ruleYAML and loads it against the catalog r gives.
func loadRules(tb testing.TB, r rules.CatalogReader, ruleYAML string) (*rules.Catalog, *rules.RuleSet) {
	tb.Helper()
	ctx := context.Background()
	cat, err := rules.FetchCatalog(ctx, r)
	if err != nil {
		tb.Fatal(err)
	}
	rs, errs := rules.Load(ctx, []string{writeRules(tb, "", ruleYAML)}, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
	if rs == nil {
		tb.Fatalf("rules: %v", errs)
	}
	return cat, rs
}
