package rules_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/rules"
)

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		places int
		want   string
		err    bool
	}{
		{0.1 + 0.2, 2, "0.30", false},
		{2.675, 2, "2.68", false},
		{-2.675, 2, "-2.68", false},
		{1.5, 0, "2", false},
		{-1.5, 0, "-2", false},
		{250.1, 4, "250.1000", false},
		{123456789.987654321, 2, "123456789.99", false},
		{1e21, 0, "1000000000000000000000", false},
		{1e-7, 8, "0.00000010", false},
		{-0.001, 2, "0.00", false},
		{math.Copysign(0, -1), 1, "0.0", false},
		{0.1234567890123456, 12, "0.123456789012", false},
		{math.NaN(), 2, "NaN", false},
		{math.Inf(1), 2, "Inf", false},
		{math.Inf(-1), 2, "-Inf", false},
		{1, -1, "", true},
		{1, 13, "", true},
	} {
		t.Run(tc.want, func(t *testing.T) {
			got, err := rules.InternalFormatNumber(tc.x, tc.places)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("formatNumber(%v, %d) = %q, %v; want %q, error %v", tc.x, tc.places, got, err, tc.want, tc.err)
			}
		})
	}
}

// TestFormatInMessages loads format in a log message and in a formula, and
// checks that decimal places computed out of range stop the value when it
// runs instead of printing something else.
func TestFormatInMessages(t *testing.T) {
	src := "rules:\n  - name: show\n    when: format(stock(\"TSLA\").ask, 0) != \"0\"\n    actions:\n" +
		"      - log: {message: 'TSLA bid {{ format(stock(\"TSLA\").bid, 2) }}'}\n"
	if _, errs := rules.LoadBytes(context.Background(), "show.yaml", []byte(src), testOptions()); len(errs) > 0 {
		t.Fatalf("does not load: %v", errs)
	}
	bad := strings.Replace(src, `bid, 2)`, `bid, -2)`, 1)
	if _, errs := rules.LoadBytes(context.Background(), "show.yaml", []byte(bad), testOptions()); len(errs) == 0 || !strings.Contains(errs.Error(), "format shows 0 to 12 decimal places, not -2") {
		t.Fatalf("negative places: errors %v", errs)
	}
	c := rules.NewCompiler(rules.CompilerOptions{Catalog: rules.FixtureCatalog()})
	p, errs := c.Formula(`format(1, orders_count("TSLAUSDT") - 5)`, rules.String)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if out, err := p.EvalString(rules.NewVM(), rules.NewEnv(rules.FixtureState(t))); err == nil {
		t.Fatalf("places -3 computed at run time gave %q, want an error", out)
	}
}
