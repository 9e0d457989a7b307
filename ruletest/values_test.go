package ruletest

import (
	"strings"
	"testing"

	"github.com/tickrules/tickrules/marketdata"
)

// TestDescribeValuesShowsObjectsInRuleNames: why a rule test's rule did not
// fire shows an object a term gives whole in the rule language's names.
func TestDescribeValuesShowsObjectsInRuleNames(t *testing.T) {
	got := describeValues(map[string]any{
		`orders("TSLAUSDT")`: []*marketdata.Order{{ID: "o1", AgeSeconds: 90}},
		"market.session":     "closed",
	})
	for _, want := range []string{`orders("TSLAUSDT") was [{"id":"o1",`, `"age_seconds":90,"modifications":0}]`, `market.session was "closed"`} {
		if !strings.Contains(got, want) {
			t.Errorf("describeValues = %s, lacks %s", got, want)
		}
	}
	if strings.Contains(got, "0xc") || strings.Contains(got, "AgeSeconds") {
		t.Errorf("describeValues = %s, shows Go values", got)
	}
}
