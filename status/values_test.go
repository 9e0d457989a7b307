package status

import (
	"strings"
	"testing"

	"github.com/tickrules/tickrules/marketdata"
)

// TestValuesTextShowsObjectsInRuleNames: the page and engine status show an
// object a term gives whole as JSON in the rule language's names, not as Go
// pointers or Go field names.
func TestValuesTextShowsObjectsInRuleNames(t *testing.T) {
	got := valuesText(map[string]any{
		`orders("TSLAUSDT")`:       []*marketdata.Order{{ID: "o1", Symbol: "TSLAUSDT", AgeSeconds: 90}},
		`orders("TSLAUSDT")[0]`:    &marketdata.Order{ID: "o1", AgeSeconds: 90},
		"market.session":           "regular",
		`stock("TSLA").spread_bps`: 2.5,
		// engine status reads the values back from /api/status
		"positions": []any{map[string]any{"age_seconds": 3.0, "symbol": "TSLAUSDT"}},
	})
	for _, want := range []string{
		`market.session = regular`,
		`orders("TSLAUSDT") = [{"id":"o1",`,
		`orders("TSLAUSDT")[0] = {"id":"o1",`,
		`"age_seconds":90}`,
		`positions = [{"age_seconds":3,"symbol":"TSLAUSDT"}]`,
		`stock("TSLA").spread_bps = 2.5`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("values text lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"AgeSeconds", "0xc", "&{", "map["} {
		if strings.Contains(got, bad) {
			t.Errorf("values text shows %q:\n%s", bad, got)
		}
	}
}
