package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/ast"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
)

// enumFields returns the text values of the State that take a fixed set of
// values, by "object.field" (or the variable or function name), with the
// values they take. The fields' values are in their rows
// (marketdata.FieldDoc.Values), taken from the exchange's enum tables (what
// the State copies from the venue's answers), so they have one source.
// Fields the venue may fill with values outside its documented enum
// (trade_side, strategy status) have none: comparing them is not checked
// rather than wrongly rejected.
func enumFields() map[string][]string {
	weekdays := make([]string, 7)
	for d := time.Sunday; d <= time.Saturday; d++ {
		weekdays[(int(d)+6)%7] = d.String() // Monday first
	}
	out := map[string][]string{
		"weekday":       weekdays,
		"position_mode": exchange.EnumValues()["posMode"],
	}
	for _, o := range marketdata.Objects() {
		for _, f := range o.Fields {
			if len(f.Values) > 0 {
				out[o.Name+"."+f.Name] = f.Values
			}
		}
	}
	return out
}

// enumSubject returns the enumField key of n and how to name it in a
// message, or "" when n is not an enumerated value.
func (c *Compiler) enumSubject(n ast.Node) (key, shown string) {
	switch x := n.(type) {
	case *ast.MemberNode:
		prop, ok := x.Property.(*ast.StringNode)
		if !ok {
			return "", ""
		}
		obj := c.object(x.Node.Type())
		key = obj + "." + prop.Value
		if obj == "" || c.enums[key] == nil {
			return "", ""
		}
		if obj == "market" {
			return key, key
		}
		article := "a"
		if strings.ContainsRune("aeiou", rune(obj[0])) {
			article = "an"
		}
		return key, fmt.Sprintf("the %s of %s %s", prop.Value, article, strings.ReplaceAll(obj, "_", " "))
	case *ast.IdentifierNode:
		if x.Value == "weekday" {
			return "weekday", "weekday"
		}
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok && id.Value == "position_mode" {
			return "position_mode", "position_mode(...)"
		}
	}
	return "", ""
}

// enumErrors reports comparisons of an enumerated value with a text it
// never takes (market.session == "open"): such a condition is never true
// (or, with !=, always). root must be type-checked.
func (c *Compiler) enumErrors(src string, root ast.Node) []*ExprError {
	var out []*ExprError
	check := func(subject ast.Node, lit *ast.StringNode, cmp *ast.BinaryNode) {
		key, shown := c.enumSubject(subject)
		values := c.enums[key]
		if values == nil || lit.Value == "" || slices.Contains(values, lit.Value) {
			return // "" is the value of a field that has none
		}
		msg := fmt.Sprintf("%s is never %q; it is one of %s", shown, lit.Value, strings.Join(values, ", "))
		if key == "stock.trading_periods" { // a list: it holds values
			msg = fmt.Sprintf("%s never holds %q; it holds some of %s", shown, lit.Value, strings.Join(values, ", "))
		}
		e := newExprError(src, lit.Location().From, msg, "")
		if fix := c.enumFix(src, key, lit, cmp, values); fix != "" {
			e.Fix = fix
		}
		out = append(out, e)
	}
	ast.Find(root, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return false
		}
		switch b.Operator {
		case "==", "!=":
			if s, ok := b.Right.(*ast.StringNode); ok {
				check(b.Left, s, b)
			} else if s, ok := b.Left.(*ast.StringNode); ok {
				check(b.Right, s, b)
			}
		case "in", "not in":
			if s, ok := b.Left.(*ast.StringNode); ok {
				check(b.Right, s, nil) // "overnight" in stock("TSLA").trading_periods
			}
			if arr, ok := b.Right.(*ast.ArrayNode); ok {
				for _, item := range arr.Nodes {
					if s, ok := item.(*ast.StringNode); ok {
						check(b.Left, s, nil)
					}
				}
			}
		}
		return false
	})
	return out
}

// enumValueSynonyms are words traders write for a value of an enumeration.
var enumValueSynonyms = map[string]string{
	"premarket": "pre_market", "pre": "pre_market", "afterhours": "after_hours", "after": "after_hours",
	"post_market": "after_hours", "postmarket": "after_hours", "rth": "regular", "normal": "regular",
	"night": "overnight", "close": "closed", "long_side": "long", "oneway": "one_way_mode", "one_way": "one_way_mode",
	"hedge": "hedge_mode", "cross": "crossed", "isolate": "isolated", "postonly": "post_only",
	"long": "buy", "short": "sell", "buy": "long", "sell": "short", "pending": "live", "open": "live",
	"usdt": "USDT-FUTURES", "usdt_futures": "USDT-FUTURES", "coin_futures": "COIN-FUTURES", "usdc_futures": "USDC-FUTURES",
}

// enumFix returns src with lit replaced by the value it probably meant, or
// "" when none is close. market.session == "open" becomes market.is_open.
func (c *Compiler) enumFix(src, key string, lit *ast.StringNode, cmp *ast.BinaryNode, values []string) string {
	word := strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(lit.Value)))
	rs := []rune(src)
	loc := lit.Location()
	if loc.From < 0 || loc.To > len(rs) || loc.From >= loc.To {
		return ""
	}
	if key == "market.session" && word == "open" && cmp != nil {
		from, to := nodeSpan(cmp)
		if from < 0 || to > len(rs) || from >= to {
			return ""
		}
		with := "market.is_open"
		if cmp.Operator == "!=" {
			with = "!market.is_open"
		}
		return string(rs[:from]) + with + string(rs[to:])
	}
	meant := ""
	for _, v := range values {
		if strings.EqualFold(v, word) || strings.EqualFold(strings.ReplaceAll(v, "-", "_"), word) {
			meant = v
		}
	}
	if meant == "" {
		if s, ok := enumValueSynonyms[word]; ok && slices.Contains(values, s) {
			meant = s
		}
	}
	if meant == "" {
		meant = rulefmt.Suggest(word, values)
	}
	if meant == "" {
		return ""
	}
	return string(rs[:loc.From]) + strconv.Quote(meant) + string(rs[loc.To:])
}

// nodeSpan returns the rune offsets the source text of n covers, from its
// first to its last token (a call's closing parenthesis is not a node and
// is not included).
func nodeSpan(n ast.Node) (from, to int) {
	from, to = -1, -1
	ast.Find(n, func(x ast.Node) bool {
		l := x.Location()
		if l.To == 0 {
			return false // a node the patcher added: it has no text
		}
		if from < 0 || l.From < from {
			from = l.From
		}
		if l.To > to {
			to = l.To
		}
		return false
	})
	return from, to
}
