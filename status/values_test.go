package status

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/engine"
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
		`"age_seconds":90,"modifications":0}`,
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

// TestNumbersForAPerson: floats a condition read or the venue gave show at
// most shownDigits significant digits, with no exponent and no float
// artefacts (issue 25: the status page showed 17-digit numbers).
func TestNumbersForAPerson(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.010923201266666667, "0.010923201"},
		{0.30000000000000004, "0.3"},
		{2.440691203749, "2.4406912"},
		{89925.95, "89925.95"},
		{123456.78, "123456.78"},
		{99999.7636264, "99999.764"},
		{0.0012345, "0.0012345"},
		{0.00001234567891, "0.000012345679"},
		{1773063000000, "1773063000000"},
		{-0.2363736, "-0.2363736"},
		{-0.000000000001, "-0.000000000001"},
		{0, "0"},
		{62.15, "62.15"},
	} {
		t.Run(strconv.FormatFloat(tc.in, 'g', -1, 64), func(t *testing.T) {
			if got := number(tc.in); got != tc.want {
				t.Errorf("number(%v) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestPageAndTableReadAsAPersonWould renders one snapshot both ways: a rule
// in its cooldown reads "cooling down" (the engine keeps it in its firing
// phase), values are rounded, a guarded term with nothing to read shows
// "none", and a strategy order's absent prices read "none", not 0.
func TestPageAndTableReadAsAPersonWould(t *testing.T) {
	s := Snapshot{
		Rules: []Rule{{RuleStatus: engine.RuleStatus{Name: "cooling", Phase: engine.PhaseFiring, Reason: engine.ReasonCooldown,
			Values: map[string]any{
				"market.minutes_since_open":                0.010923201266666667,
				`position("TSLAUSDT", "long").entry_price`: "none: the position is flat (or, for net, open on both sides)",
			}}, Why: "cooldown until 11:30:00 EDT"}},
		Positions:      []Position{{Symbol: "BTCUSDT", Side: "long", Size: 0.01, EntryPrice: 89895.6, MarkPrice: 89925.9, UnrealizedPnL: 0.30300000000000004, Leverage: 10, MarginCoin: "USDT"}},
		StrategyOrders: []StrategyOrder{{Symbol: "TSLAUSDT", Type: "pos_loss", Side: "sell", Size: 1, StopLoss: 240.5, Status: "live"}},
	}
	var table, page strings.Builder
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if err := WritePage(&page, s); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		out       string
		want, bad []string
	}{
		"table": {table.String(),
			[]string{"cooling  cooling down", "TSLAUSDT  pos_loss  sell  1     none     none         240.5", "0.303 USDT"},
			[]string{"cooling  firing", "0.30300000000000004"}},
		"page": {page.String(),
			[]string{`<span class="badge cooldown">cooling down</span>`, "market.minutes_since_open = 0.010923201",
				`entry_price = none: the position is flat`, `<td class="num">none</td><td class="num">none</td><td class="num">240.5</td>`,
				`<td class="num">0.303 USDT</td>`},
			[]string{">firing<", "0.010923201266666667", "0.30300000000000004"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.out, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, tc.out)
			}
		}
		for _, b := range tc.bad {
			if strings.Contains(tc.out, b) {
				t.Errorf("%s shows %q:\n%s", name, b, tc.out)
			}
		}
	}
}
