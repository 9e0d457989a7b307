package rules_test

import (
	"strings"
	"testing"

	"github.com/tickrules/tickrules/rules"
)

// TestEnvErrorsInLoad checks the loader reports an unset variable at its
// reference in the author's line, and nothing else about that file.
func TestEnvErrorsInLoad(t *testing.T) {
	src := "rules:\n  - name: x\n    when: market.is_open\n    actions:\n      - place_order: { symbol: TSLAUSDT, open: long, type: market, size: ${NOPE} }\n"
	_, errs := rules.LoadBytes(t.Context(), "e.yaml", []byte(src), testOptions())
	if len(errs) != 1 {
		t.Fatalf("want 1 finding, got %v", errs)
	}
	e := errs[0]
	if e.Line != 5 || e.Column != 74 || !strings.Contains(e.Message, "NOPE is not set") || !strings.Contains(e.Source, "${NOPE}") {
		t.Errorf("got %+v", e)
	}
}
