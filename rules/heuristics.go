package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"
)

// ratioWarnings warns where an expression compares a value whose unit is a
// ratio (0.05 means 5%) with a number whose size says the author meant
// percent: position(...).unrealized_pnl_pct < -5 is -500%, which a position
// never reaches, so the rule would never fire. skip is the rune offset of
// the expression in scalar n's value.
func (f *fileLoader) ratioWarnings(n *yaml.Node, skip int, src string) {
	if f.ratios == nil {
		f.ratios = ratioFields()
	}
	mentions := false
	for name := range f.ratios {
		if strings.Contains(src, name) {
			mentions = true
			break
		}
	}
	if !mentions {
		return // the common case: no ratio field, no need to parse again
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return
	}
	v := &ratioVisitor{ratios: f.ratios}
	ast.Walk(&tree.Node, v)
	for _, hit := range v.hits {
		p := f.runeOffsetPos(n, skip+hit.from)
		f.WarnAt(p, fmt.Sprintf("did you mean %s? %s is a ratio: 0.05 means 5%%", formatRatio(hit.value/100), hit.field),
			fmt.Sprintf("%s is compared with %s, which as a ratio is %s%%", hit.field, strconv.FormatFloat(hit.value, 'f', -1, 64), strconv.FormatFloat(hit.value*100, 'f', -1, 64)))
	}
}

func formatRatio(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

type ratioHit struct {
	field string
	value float64
	from  int
}

type ratioVisitor struct {
	ratios map[string]bool
	hits   []ratioHit
}

func (v *ratioVisitor) Visit(node *ast.Node) {
	b, ok := (*node).(*ast.BinaryNode)
	if !ok {
		return
	}
	switch b.Operator {
	case "<", "<=", ">", ">=", "==", "!=":
	default:
		return
	}
	for _, pair := range [][2]ast.Node{{b.Left, b.Right}, {b.Right, b.Left}} {
		field := v.ratioField(pair[0])
		if field == "" {
			continue
		}
		if num, ok := literalNumber(pair[1]); ok && math.Abs(num) > 1 {
			v.hits = append(v.hits, ratioHit{field: field, value: num, from: pair[1].Location().From})
		}
	}
}

// ratioField returns the name of a member or variable whose unit is ratio.
func (v *ratioVisitor) ratioField(n ast.Node) string {
	switch m := n.(type) {
	case *ast.MemberNode:
		if s, ok := m.Property.(*ast.StringNode); ok && v.ratios[s.Value] {
			return s.Value
		}
	case *ast.IdentifierNode:
		if v.ratios[m.Value] {
			return m.Value
		}
	}
	return ""
}

func literalNumber(n ast.Node) (float64, bool) {
	switch x := n.(type) {
	case *ast.IntegerNode:
		return float64(x.Value), true
	case *ast.FloatNode:
		return x.Value, true
	case *ast.UnaryNode:
		if x.Operator == "-" {
			if v, ok := literalNumber(x.Node); ok {
				return -v, true
			}
		}
	}
	return 0, false
}
