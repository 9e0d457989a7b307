package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"
)

// This file warns about conditions that can never be true or are always
// true, found by comparing the constant bounds put on one value within a
// chain of && (or of ||): stock("TSLA").bid > 300 && stock("TSLA").bid < 200
// never holds, market.session != "regular" || market.session != "closed"
// always does. Only comparisons of the same value written the same way with
// a constant are weighed; anything else in the chain is left aside, which
// keeps every finding certain (other terms can only narrow an && chain or
// widen an || chain).

// rangeFinding is one chain that never or always holds.
type rangeFinding struct {
	at   int // rune offset of the operator where the chain fails
	msg  string
	fix  string // the corrected source, or ""
	hint string
}

// rangeWarnings warns about the condition src of scalar n (at rune offset
// skip of its value) when it can never be true or is always true.
func (f *fileLoader) rangeWarnings(n *yaml.Node, skip int, src string) {
	if !strings.Contains(src, "&&") && !strings.Contains(src, "||") && !strings.Contains(src, " and ") && !strings.Contains(src, " or ") {
		return
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return
	}
	for _, r := range rangeFindings(src, tree.Node) {
		hint := r.hint
		if r.fix != "" {
			hint = "did you mean: " + fixLine("", r.fix, 1) + "? " + r.hint
		}
		f.WarnAt(f.runeOffsetPos(n, skip+r.at), hint, r.msg)
	}
}

func isAnd(op string) bool { return op == "&&" || op == "and" }
func isOr(op string) bool  { return op == "||" || op == "or" }

// rangeFindings analyses every maximal && chain and || chain of root.
func rangeFindings(src string, root ast.Node) []rangeFinding {
	inner := map[ast.Node]bool{} // operands of a chain of the same operator
	var chains []*ast.BinaryNode
	ast.Find(root, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok || !isAnd(b.Operator) && !isOr(b.Operator) {
			return false
		}
		chains = append(chains, b)
		for _, c := range []ast.Node{b.Left, b.Right} {
			if cb, ok := c.(*ast.BinaryNode); ok && isAnd(cb.Operator) == isAnd(b.Operator) && isOr(cb.Operator) == isOr(b.Operator) {
				inner[cb] = true
			}
		}
		return false
	})
	var out []rangeFinding
	for _, b := range chains {
		if inner[b] {
			continue
		}
		var terms []ast.Node
		flattenChain(b, isAnd(b.Operator), &terms)
		if r, ok := analyseChain(src, b, terms, isAnd(b.Operator)); ok {
			out = append(out, r)
		}
	}
	return out
}

func flattenChain(n ast.Node, and bool, out *[]ast.Node) {
	if b, ok := n.(*ast.BinaryNode); ok && (and && isAnd(b.Operator) || !and && isOr(b.Operator)) {
		flattenChain(b.Left, and, out)
		flattenChain(b.Right, and, out)
		return
	}
	*out = append(*out, n)
}

// bound is one comparison of a subject with a constant, subject first.
type bound struct {
	op    string
	num   float64
	str   string
	isStr bool
	term  ast.Node
	lit   ast.Node // the constant
}

// comparison reads term as subject op constant.
func comparison(term ast.Node) (subject string, b bound, ok bool) {
	cmp, isBin := term.(*ast.BinaryNode)
	if !isBin {
		return "", bound{}, false
	}
	flip := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
	op, known := flip[cmp.Operator]
	if !known {
		return "", bound{}, false
	}
	subj, lit := cmp.Left, cmp.Right
	if isConstant(subj) {
		subj, lit = lit, subj
	} else {
		op = cmp.Operator
	}
	if isConstant(subj) || !isConstant(lit) {
		return "", bound{}, false
	}
	b = bound{op: op, term: term, lit: lit}
	if s, isS := lit.(*ast.StringNode); isS {
		if op != "==" && op != "!=" {
			return "", bound{}, false
		}
		b.str, b.isStr = s.Value, true
	} else {
		b.num, _ = literalNumber(lit)
	}
	return subj.String(), b, true
}

func isConstant(n ast.Node) bool {
	if _, ok := n.(*ast.StringNode); ok {
		return true
	}
	_, ok := literalNumber(n)
	return ok
}

// negate turns a bound into its opposite (for || chains: a || b is always
// true exactly when !a && !b never is).
func negate(b bound) bound {
	b.op = map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[b.op]
	return b
}

// feasible reports whether some value meets every bound.
func feasible(bs []bound) bool {
	lo, hi := math.Inf(-1), math.Inf(1)
	loIn, hiIn := true, true
	var eqNum *float64
	var eqStr *string
	neNum := map[float64]bool{}
	neStr := map[string]bool{}
	for i := range bs {
		b := bs[i]
		switch {
		case b.isStr && b.op == "==":
			if eqStr != nil && *eqStr != b.str {
				return false
			}
			eqStr = &bs[i].str
		case b.isStr:
			neStr[b.str] = true
		case b.op == "==":
			if eqNum != nil && *eqNum != b.num {
				return false
			}
			eqNum = &bs[i].num
		case b.op == "!=":
			neNum[b.num] = true
		case b.op == ">" || b.op == ">=":
			if b.num > lo || b.num == lo && b.op == ">" {
				lo, loIn = b.num, b.op == ">="
			}
		case b.op == "<" || b.op == "<=":
			if b.num < hi || b.num == hi && b.op == "<" {
				hi, hiIn = b.num, b.op == "<="
			}
		}
	}
	if eqStr != nil && neStr[*eqStr] {
		return false
	}
	if lo > hi || lo == hi && (!loIn || !hiIn) {
		return false
	}
	if eqNum != nil {
		v := *eqNum
		if v < lo || v > hi || v == lo && !loIn || v == hi && !hiIn || neNum[v] {
			return false
		}
	}
	if lo == hi && neNum[lo] {
		return false
	}
	return true
}

// analyseChain finds the first subject whose bounds in the chain rule out
// every value (&&) or admit every value (||).
func analyseChain(src string, root *ast.BinaryNode, terms []ast.Node, and bool) (rangeFinding, bool) {
	bySubject := map[string][]bound{}
	for _, t := range terms {
		subj, b, ok := comparison(t)
		if !ok {
			continue
		}
		if !and {
			b = negate(b)
		}
		// Numbers and texts are different values of a subject; mixing them
		// is a type error the compiler reports.
		if prev := bySubject[subj]; len(prev) > 0 && prev[0].isStr != b.isStr {
			continue
		}
		bySubject[subj] = append(bySubject[subj], b)
		if feasible(bySubject[subj]) {
			continue
		}
		written := make([]string, len(bySubject[subj]))
		for i, x := range bySubject[subj] {
			written[i] = x.term.String()
		}
		r := rangeFinding{at: t.Location().From}
		if cmp, ok := t.(*ast.BinaryNode); ok {
			r.at = cmp.Location().From
		}
		if op, ok := operatorBefore(root, t); ok {
			r.at = op.Location().From
		}
		if and {
			r.msg = fmt.Sprintf("this condition can never be true: %s cannot all hold at once", joinAnd(written))
			if len(written) == 2 {
				r.msg = fmt.Sprintf("this condition can never be true: %s cannot both hold", joinAnd(written))
			}
			r.hint = "the rule would never fire"
		} else {
			r.msg = fmt.Sprintf("this condition is always true: every value of %s meets %s", subj, joinOr(written))
			r.hint = "the rule would fire on every tick"
		}
		r.fix = chainFix(src, root, terms, bySubject[subj], and)
		return r, true
	}
	return rangeFinding{}, false
}

func joinAnd(s []string) string { return strings.Join(s, " and ") }
func joinOr(s []string) string  { return strings.Join(s, " or ") }

// operatorBefore returns the && or || node whose right operand holds t.
func operatorBefore(root *ast.BinaryNode, t ast.Node) (*ast.BinaryNode, bool) {
	var found *ast.BinaryNode
	ast.Find(root, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryNode); ok && (isAnd(b.Operator) || isOr(b.Operator)) && b.Right == t {
			found = b
		}
		return false
	})
	return found, found != nil
}

// chainFix proposes the corrected source of a two-term chain: bounds
// written the wrong way round (x > 300 && x < 200) swap their numbers;
// "x != a || x != b" and "x == a && x == b" swap the operator joining them.
func chainFix(src string, root *ast.BinaryNode, terms []ast.Node, bs []bound, and bool) string {
	if len(terms) != 2 || len(bs) != 2 {
		return ""
	}
	rs := []rune(src)
	replace := func(edits ...habitEdit) string {
		spots := []habitSpot{{edits: edits}}
		out, _ := applyHabitEdits(string(rs), spots)
		if out == src {
			return "" // equal bounds swapped: no better wording to offer
		}
		return out
	}
	opLoc := root.Location()
	if opLoc.From < 0 || opLoc.To > len(rs) {
		return ""
	}
	other := map[string]string{"&&": "||", "||": "&&", "and": "or", "or": "and"}[root.Operator]
	a, b := bs[0], bs[1]
	if !a.isStr && and && a.op != "==" && a.op != "!=" && b.op != "==" && b.op != "!=" {
		la, lb := a.lit.Location(), b.lit.Location()
		_, aPlain := a.lit.(*ast.UnaryNode)
		_, bPlain := b.lit.(*ast.UnaryNode)
		if aPlain || bPlain || la.To > len(rs) || lb.To > len(rs) {
			return ""
		}
		return replace(habitEdit{la.From, la.To, string(rs[lb.From:lb.To])}, habitEdit{lb.From, lb.To, string(rs[la.From:la.To])})
	}
	return replace(habitEdit{opLoc.From, opLoc.To, other})
}
