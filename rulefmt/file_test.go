package rulefmt

import (
	"strings"
	"testing"
	"time"
)

// TestParse checks the shape Parse reads and the finding of each mistake of
// shape, by the message's start and the line it is on.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name       string
		file       string
		allowEmpty bool
		read       bool
		rules      int
		want       string // the first finding's message starts so; "" for none
		line       int
	}{
		{name: "one rule", file: "rules:\n  - name: a\n    when: true\n    for: 30s\n    actions: [log: {message: x}]\n", read: true, rules: 1},
		{name: "empty", file: "", read: true, want: "the file is empty", line: 1},
		{name: "only comments", file: "# nothing yet\n", read: true, want: "the file holds only comments", line: 1},
		{name: "a list", file: "- name: a\n", read: true, want: "the file is a list", line: 1},
		{name: "no rules key", file: "defaults: {}\n", read: true, want: "the file has no rules: key", line: 1},
		{name: "rules misspelt", file: "rulez:\n  - name: a\n", read: true, want: "unknown key rulez in the file", line: 1},
		{name: "scenario", file: "clock: {}\nprices: {}\n", read: true, want: "this is a scenario file", line: 1},
		{name: "rule test", file: "tests: []\n", read: true, want: "this is a rule test", line: 1},
		{name: "two documents", file: "rules: []\n---\nrules: []\n", read: true, rules: 0, want: "a second YAML document", line: 2},
		{name: "syntax", file: "rules:\n  - name: \"a\n", read: false, want: "", line: 0},
		{name: "tab", file: "rules:\n\t- name: a\n", read: false, want: "", line: 2},
		{name: "duplicate key", file: "rules:\n  - name: a\n    name: b\n", read: true, rules: 1, want: "name is given twice in a rule", line: 3},
		{name: "synonym", file: "rules:\n  - name: a\n    if: true\n", read: true, rules: 1, want: "unknown key if in a rule", line: 3},
		{name: "duration without unit", file: "rules:\n  - name: a\n    cooldown: 30\n", read: true, rules: 1, want: "cooldown needs a unit", line: 3},
		{name: "once", file: "rules:\n  - name: a\n    once: daily\n", read: true, rules: 1, want: "once must be one of per_session, per_day", line: 3},
		{name: "enabled yes", file: "rules:\n  - name: a\n    enabled: yes\n", read: true, rules: 1, want: "enabled must be true or false", line: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, errs := Parse("r.yaml", []byte(tc.file), ParseOptions{AllowEmpty: tc.allowEmpty})
			if f.Read != tc.read || len(f.Rules) != tc.rules {
				t.Fatalf("read %v with %d rules, want %v with %d; findings: %v", f.Read, len(f.Rules), tc.read, tc.rules, errs)
			}
			switch {
			case tc.want == "" && tc.line == 0 && tc.read:
				if len(errs) > 0 {
					t.Fatalf("findings %v, want none", errs)
				}
			case len(errs) == 0:
				t.Fatalf("no finding, want %q", tc.want)
			default:
				if !strings.HasPrefix(errs[0].Message, tc.want) || (tc.line > 0 && errs[0].Line != tc.line) {
					t.Errorf("first finding %q at line %d, want %q at line %d", errs[0].Message, errs[0].Line, tc.want, tc.line)
				}
			}
		})
	}
}

// TestParseRuleKeys checks the values Parse decodes and the nodes it hands
// over.
func TestParseRuleKeys(t *testing.T) {
	src := "rules:\n  - name: \" dip \"\n    description: buy it\n    when: price > 1\n    for: 1m\n    cooldown: 10m\n" +
		"    once: per_day\n    enabled: false\n    priority: 5\n    for_each: [A, B]\n    actions: [log: {message: x}]\n"
	f, errs := Parse("r.yaml", []byte(src), ParseOptions{})
	if len(errs) > 0 || len(f.Rules) != 1 {
		t.Fatalf("findings %v, %d rules", errs, len(f.Rules))
	}
	r := f.Rules[0]
	if r.Name != "dip" || r.Description != "buy it" || r.For != time.Minute || r.Cooldown != 10*time.Minute ||
		r.Once != OncePerDay || r.Enabled || r.Priority != 5 {
		t.Errorf("decoded %+v", r)
	}
	if r.When == nil || r.When.Value != "price > 1" || r.When.Line != 4 || r.ForEach == nil || len(r.ForEach.Content) != 2 || r.Actions == nil {
		t.Errorf("nodes: when %v, for_each %v, actions %v", r.When, r.ForEach, r.Actions)
	}
}

// TestParseAllowEmpty: an empty file is a warning when allowed.
func TestParseAllowEmpty(t *testing.T) {
	_, errs := Parse("r.yaml", nil, ParseOptions{AllowEmpty: true})
	if len(errs) != 1 || errs[0].Severity != SeverityWarning {
		t.Fatalf("findings %v, want one warning", errs)
	}
}
