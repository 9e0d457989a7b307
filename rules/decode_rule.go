package rules

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/rulefmt"
)

// maxForEach bounds the instances of one for_each rule.
const maxForEach = 500

// decodeRule compiles one rule whose keys rulefmt.Parse decoded: its name
// (unique across the load), its condition, its for_each symbols and its
// actions; a for_each rule becomes one instance per symbol.
func (f *fileLoader) decodeRule(pr *rulefmt.Rule) {
	r := &Rule{BaseName: pr.Name, Description: pr.Description, For: pr.For, Cooldown: pr.Cooldown,
		Once: Once(pr.Once), Enabled: pr.Enabled, Priority: pr.Priority, Pos: f.position(pr.Node)}
	f.forEachRule = pr.ForEach != nil
	if pr.NameNode != nil || !pr.Suggested["name"] {
		f.checkName(r, pr.Node, pr.NameNode)
	}
	switch {
	case pr.When != nil:
		r.When, r.Condition = f.condition(pr.When)
		r.WhenPos = f.position(pr.When)
	case !pr.Suggested["when"]:
		f.Errorf(pr.Node, "add when: with the condition, e.g. when: market.session == \"regular\"", "rule %s has no when: condition", ruleLabel(r))
	}
	symbols := f.forEach(pr.ForEach)
	switch {
	case pr.Actions != nil:
		r.Actions = f.decodeActions(pr.Actions, pr.ForEach != nil)
	case !pr.Suggested["actions"]:
		f.Errorf(pr.Node, "add actions: with at least one action", "rule %s has no actions", ruleLabel(r))
	}
	if r.BaseName == "" {
		return
	}
	if f.opts.WarnRepeats {
		f.repeatWarnings(r)
	}
	if pr.ForEach == nil {
		r.Name = r.BaseName
		f.file.Rules = append(f.file.Rules, r)
		return
	}
	for _, sym := range symbols {
		f.file.Rules = append(f.file.Rules, r.instance(sym, f.opts.Catalog))
	}
}

func ruleLabel(r *Rule) string {
	if r.BaseName == "" {
		return "(without a name)"
	}
	return strconv.Quote(r.BaseName)
}

// checkName requires a name, unique across every file of the load.
func (f *fileLoader) checkName(r *Rule, ruleNode, nameNode *yaml.Node) {
	if nameNode == nil {
		f.Errorf(ruleNode, "add name: with a short unique name, e.g. name: buy-the-dip", "a rule has no name")
		return
	}
	switch {
	case r.BaseName == "":
		f.Errorf(nameNode, "", "the rule's name is empty")
		return
	case strings.ContainsAny(r.BaseName, "[]"):
		f.Errorf(nameNode, "brackets are added by for_each: name[SYMBOL]", "a rule name cannot contain [ or ]")
		r.BaseName = ""
		return
	}
	here := f.position(nameNode)
	if first, dup := f.names[r.BaseName]; dup {
		f.Errorf(nameNode, "give each rule its own name", "rule name %q is already used at %s", r.BaseName, first)
		r.BaseName = ""
		return
	}
	f.names[r.BaseName] = here
}

// instance returns the for_each instance of r for symbol: named
// "name[SYMBOL]", its programs bound to the symbol, and the symbol filled
// into actions that left it out.
func (r *Rule) instance(symbol string, cat *Catalog) *Rule {
	c := *r
	c.Name = fmt.Sprintf("%s[%s]", r.BaseName, symbol)
	c.Symbol = symbol
	c.Condition = bind(r.Condition, symbol, cat)
	c.Actions = make([]*Action, len(r.Actions))
	for i, a := range r.Actions {
		ac := *a
		ac.Params = a.Params.bind(symbol, cat)
		if _, ok := ac.Params["symbol"]; !ok {
			if _, takes := a.Def.Param("symbol"); takes {
				ac.Params["symbol"] = &Value{Literal: symbol, Inherited: true, Pos: a.Pos}
			}
		}
		if a.Orders != nil {
			ac.Orders = make([]Params, len(a.Orders))
			for j, o := range a.Orders {
				ac.Orders[j] = o.bind(symbol, cat)
			}
			ac.Params["orders"] = &Value{Literal: ac.Orders, Pos: a.Params["orders"].Pos}
		}
		if a.Message != nil {
			m := &Message{Parts: make([]MessagePart, len(a.Message.Parts))}
			for j, p := range a.Message.Parts {
				p.Formula = bind(p.Formula, symbol, cat)
				m.Parts[j] = p
			}
			ac.Message = m
			ac.Params["message"] = &Value{Literal: m, Source: a.Params["message"].Source, Pos: a.Params["message"].Pos}
		}
		c.Actions[i] = &ac
	}
	return &c
}

// bind binds a program that reads symbol to a for_each instance.
func bind(p *Program, symbol string, cat *Catalog) *Program {
	if p == nil || !p.Reads.UsesSymbol {
		return p
	}
	return p.WithSymbol(symbol, cat)
}

// bind returns a copy of p with its formulas bound to symbol.
func (p Params) bind(symbol string, cat *Catalog) Params {
	out := make(Params, len(p)+1)
	for k, v := range p {
		if v.Formula != nil && v.Formula.Reads.UsesSymbol {
			w := *v
			w.Formula = bind(v.Formula, symbol, cat)
			v = &w
		}
		out[k] = v
	}
	return out
}

// forEach decodes the for_each list of symbols.
func (f *fileLoader) forEach(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	n = rulefmt.Deref(n)
	if n.Kind != yaml.SequenceNode {
		f.Errorf(n, "write a list: for_each: [TSLAUSDT, NVDAUSDT]", "for_each must be a list of symbols, got %s", rulefmt.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		f.Errorf(n, "", "for_each is empty: the rule would never run")
		return nil
	}
	if len(n.Content) > maxForEach {
		f.Errorf(n, "", "for_each lists %d symbols; at most %d", len(n.Content), maxForEach)
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, item := range n.Content {
		item = rulefmt.Deref(item)
		s, ok := f.Text(item, "a for_each symbol")
		if !ok {
			continue
		}
		if seen[s] {
			f.Errorf(item, "", "%s is listed twice in for_each", s)
			continue
		}
		seen[s] = true
		if f.checkContract(item, s) {
			out = append(out, s)
		}
	}
	return out
}

// condition compiles the when: of a rule.
func (f *fileLoader) condition(n *yaml.Node) (string, *Program) {
	n = rulefmt.Deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		f.Errorf(n, "write a condition, e.g. when: market.session == \"regular\"", "when must be a condition, got %s", rulefmt.Describe(n))
		return "", nil
	}
	src := n.Value
	if rest, ok := strings.CutPrefix(strings.TrimSpace(src), "="); ok {
		hint := "remove the = ; when is always a condition (only action values need =)"
		if _, errs := f.compile(rest, Bool, true); len(errs) == 0 {
			hint = "did you mean: " + strings.TrimSpace(rest) + "? when is always a condition; only action values start with ="
		} else if errs[0].Fix != "" && !strings.Contains(errs[0].Fix, "\n") {
			hint = "did you mean: " + strings.TrimSpace(errs[0].Fix) + "? when is always a condition; only action values start with ="
		}
		f.Errorf(n, hint, "when starts with =")
		return src, nil
	}
	if strings.TrimSpace(src) == "" {
		f.Errorf(n, "", "when is empty")
		return src, nil
	}
	prog, errs := f.compile(src, Bool, true)
	f.exprErrors(n, 0, errs)
	if prog != nil {
		f.ratioWarnings(n, 0, src)
		f.rangeWarnings(n, 0, src)
	}
	return src, prog
}

// exprErrors maps errors of an expression that starts at rune offset skip
// of scalar n's value into the file.
func (f *fileLoader) exprErrors(n *yaml.Node, skip int, errs []*ExprError) {
	if len(errs) == 0 {
		return
	}
	positions := f.Src.ScalarPositions(n)
	exprText := string([]rune(n.Value)[skip:])
	for _, e := range errs {
		p := rulefmt.NodePos(n)
		if positions != nil {
			off := skip + rulefmt.OffsetInText(exprText, e.Line, e.Column)
			if off >= 0 && off < len(positions) {
				p = positions[off]
			}
		}
		hint := e.Hint
		switch {
		case e.Fix != "":
			hint = "did you mean: " + fixLine(string([]rune(n.Value)[:skip]), e.Fix, e.Line)
		case e.Suggestion != "":
			hint = "did you mean " + e.Suggestion + "?"
		}
		f.ErrorAt(p, hint, "%s", e.Msg)
	}
}

// fixLine returns the line of the corrected expression fix that the
// author reads at the error's line, led by what precedes the expression in
// the value (the "=" of a formula) when that line is the first.
func fixLine(lead, fix string, line int) string {
	switch t := strings.TrimSpace(lead); {
	case strings.HasSuffix(t, "{{"):
		// A placeholder of a log message: show it whole.
		return "{{ " + strings.TrimSpace(fix) + " }}"
	case t != "=":
		lead = ""
	}
	lines := strings.Split(fix, "\n")
	if len(lines) == 1 {
		return strings.TrimLeft(lead, " ") + strings.TrimSpace(fix)
	}
	if line < 1 || line > len(lines) {
		line = 1
	}
	text := strings.TrimSpace(lines[line-1])
	if line == 1 {
		text = strings.TrimLeft(lead, " ") + text
	}
	return text
}

// runeOffsetPos maps a rune offset of scalar n's value into the file.
func (f *fileLoader) runeOffsetPos(n *yaml.Node, off int) rulefmt.Pos {
	positions := f.Src.ScalarPositions(n)
	if off >= 0 && off < len(positions) {
		return positions[off]
	}
	return rulefmt.NodePos(n)
}
