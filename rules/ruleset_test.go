package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

func mustLoad(t *testing.T, src string) *rules.RuleSet {
	t.Helper()
	rs, errs := rules.LoadBytes(context.Background(), "t.yaml", []byte(src), testOptions())
	if len(errs) > 0 {
		t.Fatalf("findings: %v", errs)
	}
	return rs
}

func TestForEachInstances(t *testing.T) {
	rs := mustLoad(t, `rules:
  - name: each
    for_each: [TSLAUSDT, NVDAUSDT]
    when: position(symbol, "long").size > 0
    actions:
      - place_order: { close: long, type: limit, size: 1, price: '=position(symbol, "long").mark_price' }
      - log: { message: "{{ symbol }}" }
`)
	if len(rs.Rules) != 2 {
		t.Fatalf("%d rules", len(rs.Rules))
	}
	for i, sym := range []string{"TSLAUSDT", "NVDAUSDT"} {
		r := rs.Rules[i]
		if r.Name != "each["+sym+"]" || r.BaseName != "each" || r.Symbol != sym {
			t.Errorf("rule %d: name %q base %q symbol %q", i, r.Name, r.BaseName, r.Symbol)
		}
		if got, _ := r.Actions[0].Params.Text("symbol"); got != sym {
			t.Errorf("%s: action symbol %q", r.Name, got)
		}
		for _, p := range r.Programs() {
			if p.Symbol() != sym {
				t.Errorf("%s: program %q bound to %q", r.Name, p.Source, p.Symbol())
			}
		}
		if !slices.Equal(r.Reads().Futures, []string{sym}) {
			t.Errorf("%s reads futures %v", r.Name, r.Reads().Futures)
		}
	}
	if got := rs.Reads().Futures; !slices.Equal(got, []string{"NVDAUSDT", "TSLAUSDT"}) {
		t.Errorf("rule set reads %v", got)
	}
}

func TestDefaultsInherited(t *testing.T) {
	tests := []struct {
		name                   string
		defaults, action       string
		wantPT, wantMM, wantMC string
	}{
		{"built-in defaults", "", "{ symbol: TSLAUSDT, open: long, type: market, size: 1 }", "USDT-FUTURES", "crossed", "USDT"},
		{"file defaults", "defaults: { margin_mode: isolated }\n", "{ symbol: TSLAUSDT, open: long, type: market, size: 1 }", "USDT-FUTURES", "isolated", "USDT"},
		{"coin-margined takes the base coin", "defaults: { product_type: COIN-FUTURES }\n", "{ symbol: BTCUSD, open: long, type: market, size: 1 }", "COIN-FUTURES", "crossed", "BTC"},
		{"usdc", "defaults: { product_type: USDC-FUTURES }\n", "{ symbol: BTCPERP, open: long, type: market, size: 1 }", "USDC-FUTURES", "crossed", "USDC"},
		{"action overrides", "", "{ symbol: BTCUSD, product_type: COIN-FUTURES, margin_coin: BTC, margin_mode: isolated, open: long, type: market, size: 1 }", "COIN-FUTURES", "isolated", "BTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := mustLoad(t, tt.defaults+"rules:\n  - name: x\n    when: market.is_open\n    actions:\n      - place_order: "+tt.action+"\n")
			p := rs.Rules[0].Actions[0].Params
			for name, want := range map[string]string{"product_type": tt.wantPT, "margin_mode": tt.wantMM, "margin_coin": tt.wantMC} {
				if got, _ := p.Text(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if d, ok := p.Decimal("size"); !ok || !d.Equal(decimal.NewFromInt(1)) {
				t.Errorf("size = %v %v", d, ok)
			}
		})
	}
}

func TestPriorityOrder(t *testing.T) {
	rs := mustLoad(t, `rules:
  - { name: low, priority: -1, when: market.is_open, actions: [cancel_all: {}] }
  - { name: first-zero, when: market.is_open, actions: [cancel_all: {}] }
  - { name: high, priority: 5, when: market.is_open, actions: [cancel_all: {}] }
  - { name: second-zero, when: market.is_open, actions: [cancel_all: {}] }
`)
	var names []string
	for _, r := range rs.Rules {
		names = append(names, r.Name)
	}
	if want := []string{"high", "first-zero", "second-zero", "low"}; !slices.Equal(names, want) {
		t.Errorf("order %v, want %v", names, want)
	}
}

func TestRuleFilesWalk(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.yaml", "b.yml", "c_test.yaml", "notes.txt", "sub/d.yaml", ".hidden/e.yaml", "sub/f_test.yml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("rules: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := rules.RuleFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
	}
	if want := []string{"a.yaml", "b.yml", "sub/d.yaml"}; !slices.Equal(got, want) {
		t.Errorf("RuleFiles = %v, want %v", got, want)
	}
	if _, err := rules.RuleFiles(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path must be an error")
	}
	_, errs := rules.Load(context.Background(), []string{filepath.Join(dir, "missing")}, rules.LoadOptions{Actions: actions.Defs()})
	if !errs.HasErrors() {
		t.Error("Load of a missing path must report it")
	}
}

func TestLoadStopsOnCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs, errs := rules.Load(ctx, []string{"testdata/good"}, testOptions())
	if rs != nil || !errs.HasErrors() {
		t.Errorf("a cancelled load must fail, got %v %v", rs, errs)
	}
}

func TestEmptyDirectoryIsAnError(t *testing.T) {
	_, errs := rules.Load(context.Background(), []string{t.TempDir()}, rules.LoadOptions{Actions: actions.Defs()})
	if len(errs) != 1 || !errs.HasErrors() {
		t.Fatalf("want one error, got %v", errs)
	}
}

// TestIdenticalFormulasShareAProgram: a formula written twice is compiled
// once, and a mistake written twice is reported twice.
func TestIdenticalFormulasShareAProgram(t *testing.T) {
	rs := mustLoad(t, `rules:
  - name: a
    when: market.is_open
    actions: [place_order: { symbol: TSLAUSDT, open: long, type: limit, size: 1, price: '=stock("TSLA").bid * 0.999' }]
  - name: b
    when: market.is_open
    actions: [place_order: { symbol: TSLAUSDT, open: long, type: limit, size: 1, price: '=stock("TSLA").bid * 0.999' }]
`)
	pa, pb := rs.Rules[0].Actions[0].Params["price"].Formula, rs.Rules[1].Actions[0].Params["price"].Formula
	if pa == nil || pa != pb {
		t.Errorf("identical formulas compiled twice: %p %p", pa, pb)
	}
	if rs.Rules[0].Condition != rs.Rules[1].Condition {
		t.Error("identical conditions compiled twice")
	}
	_, errs := rules.LoadBytes(context.Background(), "t.yaml", []byte(`rules:
  - { name: a, when: markt.is_open, actions: [cancel_all: {}] }
  - { name: b, when: markt.is_open, actions: [cancel_all: {}] }
`), testOptions())
	if len(errs) != 2 || errs[0].Line != 2 || errs[1].Line != 3 {
		t.Errorf("want the mistake reported on lines 2 and 3, got %v", errs)
	}
}
