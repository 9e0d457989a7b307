package rulefmt

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ParseOptions configure Parse.
type ParseOptions struct {
	// Getenv resolves ${NAME} references; an empty result counts as unset.
	Getenv func(string) string
	// EnvAlso names where else than the environment a ${NAME} can be given,
	// for the hint of an unset one.
	EnvAlso string
	// AllowEmpty accepts a file that is empty or holds only comments (with
	// a warning). Without it such a file is an error: an editor that did not
	// save must not look like a passing check.
	AllowEmpty bool
}

// File is a rule file as written, its shape checked: its keys, the types of
// the values the format decides (texts, durations, flags), and the YAML
// nodes of what the rule language reads (a condition, the defaults, the
// actions), kept with their positions, as Prometheus' rulefmt keeps a
// rule's expression node.
type File struct {
	Path string
	// Source is the file after ${ENV} substitution, with the map back to the
	// author's columns; nil when the file's bytes could not be read as text.
	Source *Source
	// Read is false when the file could not be read as YAML, or an ${ENV}
	// reference of a file with content was unset (the findings say why):
	// nothing more comes from it. A file without content is read, and has
	// no rules.
	Read bool
	// Defaults is the defaults: mapping, nil when the file has none.
	Defaults *yaml.Node
	Rules    []*Rule
}

// Rule is one rule as written, its keys checked.
type Rule struct {
	// Node is the rule's list item.
	Node *yaml.Node
	// Name is the name as written, trimmed; NameNode is nil when the rule
	// has no name: key.
	Name     string
	NameNode *yaml.Node
	// Description, For, Cooldown, Once, Enabled and Priority are decoded;
	// a bad value is reported and left at its default.
	Description string
	For         time.Duration
	Cooldown    time.Duration
	Once        string
	Enabled     bool
	Priority    int
	// When, ForEach and Actions are the nodes of the condition, the list of
	// symbols and the list of actions; nil when absent.
	When, ForEach, Actions *yaml.Node
	// Suggested are the keys that an unknown key's hint suggested: the
	// rule is not reported as missing them as well.
	Suggested map[string]bool
}

// Parse reads one rule file's bytes (path names it in findings): its text
// (UTF-8, no tabs), its ${ENV} references, its YAML (one document) and the
// keys of the file and of each rule. The findings are in the order met.
func Parse(path string, data []byte, opts ParseOptions) (*File, Errors) {
	f := &File{Path: path}
	if errs := EncodingErrors(path, data); len(errs) > 0 {
		return f, errs
	}
	data = TrimBOM(data)
	src, envErrs := ExpandEnv(path, data, opts.Getenv, opts.EnvAlso)
	f.Source = src
	d := NewDecoder(src)
	d.Errs = append(d.Errs, envErrs...)
	if tabs := TabErrors(src); len(tabs) > 0 {
		return f, append(d.Errs, tabs...)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader([]byte(strings.Join(src.Expanded, "\n"))))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.Errs = append(d.Errs, emptyFile(src, opts.AllowEmpty))
			f.Read = true
			return f, d.Errs
		}
		return f, append(d.Errs, SyntaxError(src, err))
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		d.Errs = append(d.Errs, src.ErrorAt(NodePos(&next), SeverityError,
			"a second YAML document (after ---) in one file", "put each set of rules in its own file"))
	} else if !errors.Is(err, io.EOF) {
		return f, append(d.Errs, SyntaxError(src, err))
	}
	if len(envErrs) > 0 {
		// Substituted values are missing, so the positions and values below
		// would only repeat the same mistake in other words.
		return f, d.Errs
	}
	f.Read = true
	d.file(f, &doc)
	return f, d.Errs
}

// emptyFile is the finding of a file without any YAML content: an error,
// unless allowed, because an editor that did not save leaves such a file.
func emptyFile(src *Source, allow bool) *Error {
	e := &Error{File: src.Path, Line: 1, Column: 1, Severity: SeverityError,
		Message: "the file is empty: it has no rules",
		Hint:    "write the rules under a line \"rules:\" (was the file saved?), or check with --allow-empty to accept empty files"}
	if OnlyComments(src.Orig) && strings.TrimSpace(strings.Join(src.Orig, "")) != "" {
		e.Message = "the file holds only comments: it has no rules"
		e.Source = src.OrigLine(1)
	}
	if allow {
		e.Severity, e.Hint = SeverityWarning, ""
	}
	return e
}

// file decodes the document's keys into f.
func (d *Decoder) file(f *File, doc *yaml.Node) {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = Deref(root.Content[0])
	}
	if root.Kind == yaml.SequenceNode {
		d.Errorf(root, "start the file with a line \"rules:\" and indent the list under it", "the file is a list; rules go under a \"rules:\" key")
		return
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		d.Warnf(root, "", "the file has no rules")
		return
	}
	if kind := otherFileKind(root); kind != "" {
		d.Errorf(root, otherFileHints[kind], "this is %s, not a rule file", kind)
		return
	}
	entries, suggested, ok := d.MappingSuggest(root, "the file", KeyNames(FileKeys()))
	if !ok {
		return
	}
	var rulesNode *yaml.Node
	for _, kv := range entries {
		switch kv.Key.Value {
		case "defaults":
			f.Defaults = kv.Value
		case "rules":
			rulesNode = kv.Value
		}
	}
	if rulesNode == nil {
		if !suggested["rules"] {
			d.Errorf(root, "add a \"rules:\" list", "the file has no rules: key")
		}
		return
	}
	f.Rules = d.rules(rulesNode)
}

// rules decodes the rules: list.
func (d *Decoder) rules(n *yaml.Node) []*Rule {
	n = Deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		d.Warnf(n, "", "rules: is empty")
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, "each rule starts with \"- name: ...\" under rules:", "rules must be a list, got %s", Describe(n))
		return nil
	}
	var out []*Rule
	for _, item := range n.Content {
		if r := d.rule(Deref(item)); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// rule decodes one rule's keys; nil when it is not a mapping.
func (d *Decoder) rule(n *yaml.Node) *Rule {
	entries, suggested, ok := d.MappingSuggest(n, "a rule", KeyNames(RuleKeys()))
	if !ok {
		return nil
	}
	r := &Rule{Node: n, Enabled: true, Suggested: suggested}
	for _, kv := range entries {
		v := kv.Value
		switch kv.Key.Value {
		case "name":
			r.NameNode = v
			if s, ok := d.Text(v, "name"); ok {
				r.Name = strings.TrimSpace(s)
			}
		case "description":
			if s, ok := d.Text(v, "description"); ok {
				r.Description = s
			}
		case "when":
			r.When = v
		case "for":
			r.For = d.Duration(v, "for")
		case "cooldown":
			r.Cooldown = d.Duration(v, "cooldown")
		case "once":
			if s, ok := d.Choice(v, "once", []string{OncePerSession, OncePerDay}); ok {
				r.Once = s
			}
		case "enabled":
			if b, ok := d.Flag(v, "enabled"); ok {
				r.Enabled = b
			}
		case "priority":
			r.Priority = d.Integer(v, "priority")
		case "for_each":
			r.ForEach = v
		case "actions":
			r.Actions = v
		}
	}
	return r
}

// ScenarioKeys are the top-level keys of a scenario file (sim.Scenario)
// that a rule file never has; a test keeps the list equal to the
// scenario's own.
func ScenarioKeys() []string {
	return []string{"clock", "settings", "accounts", "contracts", "prices", "stock_pairs", "calendar", "strategy_orders", "discount_tiers", "faults"}
}

// Kinds of YAML files that are met among rule files but are not rule files.
const (
	kindScenario = "a scenario file (for engine sim and engine backtest)"
	kindRuleTest = "a rule test"
)

var otherFileHints = map[string]string{
	kindScenario: "keep scenario files in a scenarios/ folder beside your rules/ folder: engine check reads every .yaml under the folders it is given",
	kindRuleTest: "name it with _test.yaml at the end (like dip_test.yaml), so that engine check leaves it to engine test",
}

// otherFileKind names the kind of file root is when it is a scenario or a
// rule test rather than a rule file (it has no rules: key and keys of the
// other kind); "" otherwise.
func otherFileKind(root *yaml.Node) string {
	if root.Kind != yaml.MappingNode {
		return ""
	}
	scenario, test := 0, false
	scenarioKeys := ScenarioKeys()
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i].Value; {
		case k == "rules" || k == "defaults":
			return ""
		case k == "tests":
			test = true
		case slices.Contains(scenarioKeys, k):
			scenario++
		}
	}
	switch {
	case test:
		return kindRuleTest
	case scenario >= 2:
		return kindScenario
	}
	return ""
}
