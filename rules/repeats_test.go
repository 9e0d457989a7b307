package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// TestRepeatWarnings: engine check warns about a rule that trades at market
// with nothing to stop it firing again on every flicker of its condition,
// and says how to fix it (issue 25).
func TestRepeatWarnings(t *testing.T) {
	const warned = "nothing stops it firing again"
	for _, tc := range []struct {
		name, rule string
		want       string // a part of the one warning, or "" for none
	}{
		{"a market order", `when: market.is_open
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}`, "sends a market order each time its condition turns true"},
		{"a market item of a batch", `when: market.is_open
    actions:
      - batch_place: {symbol: TSLAUSDT, orders: [{open: long, type: limit, price: 400, size: 1}, {open: long, type: market, size: 1}]}`, "sends a market order"},
		{"a reversal", `when: market.is_open
    actions:
      - reverse_position: {symbol: TSLAUSDT}`, "reverses a position at market"},
		{"closing everything", `when: market.is_open
    actions:
      - close_positions: {}`, "closes every position of the product type"},
		{"the hint names the fixes", `when: market.is_open
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}`, "add once: per_session (or per_day), a cooldown such as cooldown: 10m, or a test of the position"},
		{"once", `when: market.is_open
    once: per_session
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}`, ""},
		{"a cooldown", `when: market.is_open
    cooldown: 10m
    actions:
      - close_positions: {}`, ""},
		{"a position test", `when: market.is_open && position("TSLAUSDT", "long").size == 0
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}`, ""},
		{"a limit order", `when: market.is_open
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: limit, price: 400, size: 1}`, ""},
		{"closing one symbol", `when: market.is_open
    actions:
      - close_positions: {symbol: TSLAUSDT}`, ""},
		{"a disabled rule", `when: market.is_open
    enabled: false
    actions:
      - close_positions: {}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "rules:\n  - name: r\n    " + tc.rule + "\n"
			opts := testOptions()
			opts.WarnRepeats = true
			_, errs := rules.LoadBytes(context.Background(), "x.yaml", []byte(src), opts)
			var got []string
			for _, e := range errs {
				if e.Severity != rulefmt.SeverityWarning || !strings.Contains(e.Message, warned) {
					t.Fatalf("unexpected finding: %v", e)
				}
				got = append(got, e.Message+" | "+e.Hint)
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("warned: %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("got %q, want one warning containing %q", got, tc.want)
			}
			// Only engine check asks for it: loading to run stays quiet.
			opts.WarnRepeats = false
			if _, errs := rules.LoadBytes(context.Background(), "x.yaml", []byte(src), opts); len(errs) > 0 {
				t.Errorf("without WarnRepeats: %v", errs)
			}
		})
	}
}
