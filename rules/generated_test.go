package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/expr-lang/expr/builtin"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// TestGeneratedDocsAreCurrent fails when docs/rules.schema.json or
// docs/reference.md differ from what engine schema and engine docs print.
// Regenerate with: go run ./cmd/engine schema > docs/rules.schema.json &&
// go run ./cmd/engine docs --out docs/reference.md (or go test ./rules -run Generated -update).
func TestGeneratedDocsAreCurrent(t *testing.T) {
	for _, tc := range []struct {
		path string
		gen  func() []byte
	}{
		{"../docs/rules.schema.json", func() []byte { return rules.Schema(actions.Defs()) }},
		{"../docs/reference.md", func() []byte { return rules.Reference(actions.Defs()) }},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got := tc.gen()
			if *update {
				if err := os.WriteFile(tc.path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale: regenerate it (go test ./rules -run Generated -update)", tc.path)
			}
		})
	}
}

// TestSchemaNamesEveryKeyAndAction checks the schema against the loader's
// tables: every key, action and parameter, and every choice's values.
func TestSchemaNamesEveryKeyAndAction(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(rules.Schema(actions.Defs()), &s); err != nil {
		t.Fatal(err)
	}
	defs := s["definitions"].(map[string]any)
	rule := defs["rule"].(map[string]any)["properties"].(map[string]any)
	for _, k := range rulefmt.RuleKeys() {
		if _, ok := rule[k.Name]; !ok {
			t.Errorf("rule key %s missing from the schema", k.Name)
		}
	}
	for _, d := range actions.Defs() {
		a, ok := defs["action_"+string(d.Kind)].(map[string]any)
		if !ok {
			t.Errorf("action %s missing from the schema", d.Kind)
			continue
		}
		props := a["properties"].(map[string]any)
		if len(props) != len(d.Params) {
			t.Errorf("action %s: schema has %d parameters, the loader %d", d.Kind, len(props), len(d.Params))
		}
		for _, p := range d.Params {
			ps, ok := props[p.Name].(map[string]any)
			if !ok {
				t.Errorf("%s.%s missing from the schema", d.Kind, p.Name)
				continue
			}
			if p.Type == rulefmt.ParamChoice {
				enum, _ := ps["enum"].([]any)
				if alts, ok := ps["anyOf"].([]any); ok && (p.Formula || p.Many) {
					enum, _ = alts[0].(map[string]any)["enum"].([]any)
				}
				if len(enum) != len(p.Values) {
					t.Errorf("%s.%s: schema enum %v, loader %v", d.Kind, p.Name, enum, p.Values)
				}
			}
		}
	}
}

// TestReferenceNamesEverything checks that the reference lists every
// action, parameter, rule key, variable and function.
func TestReferenceNamesEverything(t *testing.T) {
	ref := string(rules.Reference(actions.Defs()))
	var want []string
	for _, d := range actions.Defs() {
		want = append(want, "### "+string(d.Kind))
		for _, p := range d.Params {
			want = append(want, "| `"+p.Name+"` |")
		}
	}
	for _, k := range rulefmt.RuleKeys() {
		want = append(want, "| `"+k.Name+"` |")
	}
	for _, v := range rules.Variables() {
		want = append(want, "| `"+v.Name+"` |")
	}
	for _, f := range append(rules.Functions(), rules.Builtins()...) {
		want = append(want, "| `"+f.Name+"(")
	}
	for _, w := range want {
		if !strings.Contains(ref, w) {
			t.Errorf("reference does not contain %q", w)
		}
	}
}

// TestReferenceNamesEveryAcceptedFunction checks that every function the
// compiler accepts, its own helpers and the expression language's built-in
// functions, has a row in the reference, and that the expr built-ins left
// out of the table are rejected.
func TestReferenceNamesEveryAcceptedFunction(t *testing.T) {
	ref := string(rules.Reference(actions.Defs()))
	c := rules.NewCompiler(rules.CompilerOptions{Catalog: rules.FixtureCatalog()})
	accepted, builtins := rules.CompilerFunctions(c)
	for name := range builtins {
		accepted = append(accepted, name)
	}
	slices.Sort(accepted)
	for _, name := range accepted {
		if !strings.Contains(ref, "| `"+name+"(") {
			t.Errorf("the compiler accepts %s() but the reference does not list it", name)
		}
	}
	for _, b := range builtin.Builtins {
		if builtins[b.Name] {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			if _, errs := c.Formula(b.Name+"(1)", rules.Number); len(errs) == 0 {
				t.Errorf("%s() is not in the reference but compiles", b.Name)
			}
		})
	}
	for _, name := range []string{"abs", "round", "format"} {
		if !strings.Contains(ref, "| `"+name+"(") {
			t.Errorf("reference does not list %s", name)
		}
	}
}

// TestActionExamplesLoad loads the example of every action, as the
// reference shows it, inside a rule.
func TestActionExamplesLoad(t *testing.T) {
	for _, d := range actions.Defs() {
		t.Run(string(d.Kind), func(t *testing.T) {
			src := "rules:\n  - name: example\n    when: market.is_open\n    actions:\n      - " +
				strings.ReplaceAll(d.Example, "\n", "\n        ") + "\n"
			_, errs := rules.LoadBytes(context.Background(), "example.yaml", []byte(src), testOptions())
			if len(errs) > 0 {
				t.Fatalf("example of %s does not load:\n%s\n%v", d.Kind, src, errs)
			}
		})
	}
}

// TestGuideExamplesLoad loads every ```yaml block of docs/writing-rules.md
// and every file of examples/rules: a guide whose examples fail would teach
// mistakes. (Blocks fenced as text show mistakes and output on purpose.)
func TestGuideExamplesLoad(t *testing.T) {
	data, err := os.ReadFile("../docs/writing-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	rest := string(data)
	for {
		start := strings.Index(rest, "```yaml\n")
		if start < 0 {
			break
		}
		rest = rest[start+len("```yaml\n"):]
		end := strings.Index(rest, "```")
		if end < 0 {
			t.Fatal("unclosed ```yaml block")
		}
		block := rest[:end]
		rest = rest[end+3:]
		blocks++
		name := "writing-rules.md#" + strconv.Itoa(blocks)
		env := func(string) string { return "" }
		_, errs := rules.LoadBytes(context.Background(), name, []byte(block), rules.LoadOptions{Actions: actions.Defs(), Catalog: loadCatalog(), Getenv: env})
		if len(errs) > 0 {
			var buf bytes.Buffer
			_ = errs.Render(&buf)
			t.Errorf("example %d of the guide has findings:\n%s\n%s", blocks, block, buf.String())
		}
	}
	if blocks < 8 {
		t.Errorf("found only %d yaml examples in the guide", blocks)
	}
	rs, errs := rules.Load(context.Background(), []string{"../examples/rules"}, rules.LoadOptions{Actions: actions.Defs(), Catalog: loadCatalog()})
	if len(errs) > 0 || rs == nil || len(rs.Rules) == 0 {
		t.Errorf("examples/rules: %v", errs)
	}
}

// TestGuideOpensWithFiring: docs/writing-rules.md explains when a rule
// fires before anything else, in the words of FiringGuide (which engine docs
// writes into the reference too).
func TestGuideOpensWithFiring(t *testing.T) {
	data, err := os.ReadFile("../docs/writing-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(data)
	at := strings.Index(guide, rules.FiringGuide)
	if at < 0 {
		t.Fatal("docs/writing-rules.md does not hold rules.FiringGuide word for word")
	}
	if first := strings.Index(guide, "\n## "); first+1 != at {
		t.Errorf("the firing guide is not the first section of docs/writing-rules.md")
	}
	if !strings.Contains(string(rules.Reference(actions.Defs())), rules.FiringGuide) {
		t.Error("the reference does not hold the firing guide")
	}
}
