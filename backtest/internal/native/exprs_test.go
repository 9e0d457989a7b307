package native_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// exprGen writes random expressions of the rule language over the test
// catalog: helpers, fields, lists and their tests, every operator, and some
// builtins the native compiler leaves to the VM. Many do not type-check; the
// compiler drops those, as it would a trader's.
type exprGen struct {
	r      *rand.Rand
	fields map[string]map[string][]string // object -> field type -> names
}

func newExprGen(seed uint64) *exprGen {
	g := &exprGen{r: rand.New(rand.NewPCG(seed, seed*31+7)), fields: map[string]map[string][]string{}}
	for _, o := range marketdata.Objects() {
		g.fields[o.Name] = map[string][]string{}
		for _, f := range o.Fields {
			g.fields[o.Name][f.Type] = append(g.fields[o.Name][f.Type], f.Name)
		}
	}
	return g
}

func (g *exprGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// lists are the list expressions and the object of their items.
var genLists = [][2]string{
	{`orders("TSLAUSDT")`, "order"}, {`orders(symbol)`, "order"}, {`all_orders`, "order"},
	{`positions`, "position"}, {`strategy_orders("TSLAUSDT")`, "strategy_order"},
	{`all_strategy_orders`, "strategy_order"}, {`spot_records`, "spot_record"},
	{`discount_tiers("BTC")`, "discount_tier"},
}

// object gives an expression of an object and its name; inside a list
// test (item != "") it may be the item itself.
func (g *exprGen) object(item string) (string, string) {
	if item != "" && g.r.IntN(3) == 0 {
		return g.pick("", "#"), item
	}
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf(`stock(%s)`, g.pick(`"TSLA"`, `"NVDA"`, `"TSLAUSDT"`, `"BTCUSDT"`, "symbol")), "stock"
	case 1:
		return fmt.Sprintf(`position(%s, %s)`, g.pick(`"TSLAUSDT"`, `"NVDAUSDT"`, `"BTCUSDT"`, "symbol"), g.pick(`"long"`, `"short"`, `"net"`)), "position"
	case 2:
		return "market", "market"
	case 3:
		return fmt.Sprintf(`balance(%s)`, g.pick(`"USDT"`, `"BTC"`)), "balance"
	case 4:
		l := genLists[g.r.IntN(len(genLists))]
		return fmt.Sprintf("%s[%d]", l[0], g.r.IntN(5)-2), l[1]
	}
	l := genLists[g.r.IntN(4)]
	return fmt.Sprintf("%s(%s)", g.pick("first", "last"), l[0]), l[1]
}

// field gives obj.name for a field of type typ, or "" when the object has
// none.
func (g *exprGen) field(item, typ string) string {
	obj, name := g.object(item)
	fs := g.fields[name][typ]
	if len(fs) == 0 {
		return ""
	}
	return obj + "." + fs[g.r.IntN(len(fs))] // obj "" is the item: .age_seconds
}

func (g *exprGen) number(d int, item string) string {
	if d <= 0 || g.r.IntN(4) == 0 {
		switch g.r.IntN(4) {
		case 0:
			return g.pick("0", "1", "2", "3", "15", "60", "500")
		case 1:
			return g.pick("0.5", "0.02", "250.1", "1e-9", "0.0")
		case 2:
			if f := g.field(item, "number"); f != "" {
				return f
			}
		}
		return g.pick(`orders_count("TSLAUSDT")`, `orders_count(symbol)`, `depth_bid("TSLA", 10)`, `depth_ask("NVDA", 5.5)`,
			`minutes_until("15:55")`, `minutes_since("09:30")`, `discount_rate("BTC", 5000)`, "now_ms", "len(weekday)")
	}
	d--
	switch g.r.IntN(12) {
	case 0, 1, 2:
		return fmt.Sprintf("(%s %s %s)", g.number(d, item), g.pick("+", "-", "*", "/", "%", "**"), g.number(d, item))
	case 3:
		return "-" + g.number(d, item)
	case 4:
		return fmt.Sprintf("(%s ? %s : %s)", g.boolean(d, item), g.number(d, item), g.number(d, item))
	case 5:
		l := genLists[g.r.IntN(len(genLists))]
		return fmt.Sprintf("count(%s, %s)", l[0], g.boolean(d, l[1]))
	case 6:
		l := genLists[g.r.IntN(len(genLists))]
		return fmt.Sprintf("len(%s)", l[0])
	case 7:
		return fmt.Sprintf("abs(%s)", g.number(d, item))
	case 8:
		return fmt.Sprintf("(%s ?? %s)", g.number(d, item), g.number(d, item))
	case 9:
		// Left to the VM: max, round, sum.
		return g.pick(fmt.Sprintf("max(%s, %s)", g.number(d, item), g.number(d, item)),
			fmt.Sprintf("round(%s)", g.number(d, item)), "sum(positions, .size)")
	}
	if f := g.field(item, "number"); f != "" {
		return f
	}
	return g.number(d, item)
}

func (g *exprGen) text(d int, item string) string {
	if d <= 0 || g.r.IntN(3) == 0 {
		if g.r.IntN(2) == 0 {
			if f := g.field(item, "text"); f != "" {
				return f
			}
		}
		return g.pick(`"regular"`, `"closed"`, `"buy"`, `"long"`, `"TSLA"`, `""`, "weekday", "symbol",
			`position_mode("USDT-FUTURES")`, `position_mode("COIN-FUTURES")`)
	}
	d--
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("(%s + %s)", g.text(d, item), g.text(d, item))
	case 1:
		return fmt.Sprintf("format(%s, %d)", g.number(d, item), g.r.IntN(4))
	case 2:
		return fmt.Sprintf("(%s ? %s : %s)", g.boolean(d, item), g.text(d, item), g.text(d, item))
	case 3:
		return fmt.Sprintf("upper(%s)", g.text(d, item)) // left to the VM
	}
	return g.text(0, item)
}

func (g *exprGen) boolean(d int, item string) string {
	if d <= 0 || g.r.IntN(5) == 0 {
		if g.r.IntN(2) == 0 {
			if f := g.field(item, "true/false"); f != "" {
				return f
			}
		}
		return g.pick("true", "false", `has_stop_loss("TSLAUSDT", "long")`, `has_take_profit(symbol, "any")`)
	}
	d--
	switch g.r.IntN(14) {
	case 0, 1, 2:
		return fmt.Sprintf("(%s %s %s)", g.number(d, item), g.pick("<", ">", "<=", ">=", "==", "!="), g.number(d, item))
	case 3:
		return fmt.Sprintf("(%s %s %s)", g.text(d, item), g.pick("==", "!=", "<", ">=", "contains", "startsWith", "endsWith"), g.text(d, item))
	case 4, 5:
		return fmt.Sprintf("(%s %s %s)", g.boolean(d, item), g.pick("&&", "||", "and", "or"), g.boolean(d, item))
	case 6:
		return g.pick("!", "not ") + g.boolean(d, item)
	case 7:
		l := genLists[g.r.IntN(len(genLists))]
		return fmt.Sprintf("%s(%s, %s)", g.pick("any", "all", "none", "one"), l[0], g.boolean(d, l[1]))
	case 8:
		return fmt.Sprintf("(%s in [%s])", g.text(d, item), g.pick(`"regular", "closed"`, `"buy"`, `"Friday", "Monday", ""`))
	case 9:
		return fmt.Sprintf("(%s in %s)", g.text(d, item), g.pick(`stock("NVDA").trading_periods`, `stock(symbol).trading_periods`, `[1, 2]`))
	case 10:
		return fmt.Sprintf("(%s in [1, 2, 15])", g.number(d, item))
	case 11:
		return fmt.Sprintf("(%s == %s)", g.boolean(d, item), g.boolean(d, item))
	case 12:
		// Left to the VM: filter, matches, a list written in the rule.
		return g.pick(fmt.Sprintf("len(filter(positions, %s)) > 0", g.boolean(d, "position")),
			fmt.Sprintf("(%s matches \"^r\")", g.text(d, item)), fmt.Sprintf("(%s in [%s, 1])", g.number(d, item), g.number(d, item)))
	}
	return g.boolean(0, item)
}

// condition returns a random condition; formula a random number or text
// formula, with its kind.
func (g *exprGen) condition() string { return strings.TrimSpace(g.boolean(1+g.r.IntN(4), "")) }

func (g *exprGen) formula() (string, rules.Kind) {
	if g.r.IntN(3) == 0 {
		return g.text(1+g.r.IntN(3), ""), rules.String
	}
	return g.number(1+g.r.IntN(3), ""), rules.Number
}
