package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// maxBatchItems bounds a batch_place or batch_cancel list written in a file;
// the engine sends them to the exchange 50 at a time.
const maxBatchItems = 1000

func (f *fileLoader) decodeActions(n *yaml.Node, forEach bool) []*Action {
	n = rulefmt.Deref(n)
	if n.Kind != yaml.SequenceNode {
		f.Errorf(n, "write each action as a list item: \"- place_order: ...\"", "actions must be a list, got %s", rulefmt.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		f.Errorf(n, "", "actions is empty: the rule would do nothing")
		return nil
	}
	var out []*Action
	for _, item := range n.Content {
		if a := f.decodeAction(rulefmt.Deref(item), forEach); a != nil {
			out = append(out, a)
		}
	}
	return out
}

// decodeAction decodes one list item "kind: {params}".
func (f *fileLoader) decodeAction(n *yaml.Node, forEach bool) *Action {
	if n.Kind == yaml.ScalarNode {
		if d, ok := LookupAction(f.opts.Actions, n.Value); ok {
			f.Errorf(n, fmt.Sprintf("write %s: followed by its parameters, or %s: {} when it needs none", d.Kind, d.Kind), "%s needs a colon and its parameters", d.Kind)
			return nil
		}
		f.Errorf(n, f.actionHint(n.Value), "unknown action %s", n.Value)
		return nil
	}
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		f.Errorf(n, "", "an action must be \"kind: parameters\", got %s", rulefmt.Describe(n))
		return nil
	}
	kindKey := n.Content[0]
	def, ok := LookupAction(f.opts.Actions, kindKey.Value)
	if !ok {
		f.Errorf(kindKey, f.actionHint(kindKey.Value), "unknown action %s", kindKey.Value)
		return nil
	}
	paramsNode := rulefmt.Deref(n.Content[1])
	if len(n.Content) > 2 {
		extra := n.Content[2]
		if _, isParam := def.Param(extra.Value); isParam && paramsNode.Kind == yaml.ScalarNode && paramsNode.Tag == "!!null" {
			f.Errorf(extra, fmt.Sprintf("indent the parameters of %s by two more spaces than %q", def.Kind, def.Kind),
				"%s is not indented under %s", extra.Value, def.Kind)
		} else {
			f.Errorf(extra, "start each action with its own \"- \"", "one list item holds two actions (%s and %s)", def.Kind, extra.Value)
		}
		return nil
	}
	a := &Action{Kind: def.Kind, Def: def, Pos: f.position(kindKey)}
	c := &ActionCheck{f: f, def: def, at: rulefmt.NodePos(kindKey), mode: f.file.Defaults.PositionMode}
	if paramsNode.Kind == yaml.ScalarNode && paramsNode.Tag == "!!null" {
		a.Params = Params{}
		c.keys = map[string]rulefmt.Pos{}
	} else {
		a.Params, c.keys = f.params(def.Params, paramsNode, string(def.Kind))
		if a.Params == nil {
			return nil
		}
	}
	c.params = a.Params
	for _, p := range def.Params {
		_, given := c.keys[p.Name]
		if given || !p.Required {
			continue
		}
		if p.Name == "symbol" && forEach {
			continue // filled per instance
		}
		f.ErrorAt(c.at, "", "%s needs %s", def.Kind, p.Name)
	}
	if v := a.Params["orders"]; v != nil {
		a.Orders, _ = v.Literal.([]Params)
	}
	if v := a.Params["message"]; v != nil {
		a.Message, _ = v.Literal.(*Message)
	}
	if def.Check != nil {
		def.Check(c)
	}
	f.inherit(a)
	f.checkProduct(a)
	f.checkSizes(a)
	return a
}

// checkProduct reports a literal symbol whose contract belongs to another
// product type than the action trades.
func (f *fileLoader) checkProduct(a *Action) {
	sym, ok := a.Params.Text("symbol")
	pt, ok2 := a.Params.Text("product_type")
	if !ok || !ok2 {
		return
	}
	c, found := catalogContract(f.opts.Catalog, sym)
	if !found || c.ProductType == "" || string(c.ProductType) == pt {
		return
	}
	at := a.Pos
	if v := a.Params["symbol"]; v != nil {
		at = v.Pos
	}
	f.errs = append(f.errs, f.errorAtPosition(at, rulefmt.SeverityError,
		fmt.Sprintf("%s is a %s contract, but this action trades %s", sym, c.ProductType, pt),
		fmt.Sprintf("set product_type: %s on the action or in defaults", c.ProductType)))
}

func (f *fileLoader) actionHint(word string) string {
	kinds := actionKindNames(f.opts.Actions)
	if s := rulefmt.Suggest(strings.ToLower(word), kinds); s != "" {
		return "did you mean " + s + "?"
	}
	if s, ok := rulefmt.KeySynonym(word); ok {
		return "did you mean " + s + "?"
	}
	return "actions are " + strings.Join(kinds, ", ")
}

// inherit fills product_type, margin_mode and margin_coin from the file's
// defaults where the action has such a parameter and did not set it.
func (f *fileLoader) inherit(a *Action) {
	d := f.file.Defaults
	def := a.Def
	set := func(name, value string) {
		if _, has := def.Param(name); !has || value == "" {
			return
		}
		if _, given := a.Params[name]; given {
			return
		}
		a.Params[name] = &Value{Literal: value, Inherited: true, Pos: a.Pos}
	}
	set("product_type", string(d.ProductType))
	set("margin_mode", string(d.MarginMode))
	coin := d.MarginCoin
	if coin == "" && needsMarginCoin(def.Op) {
		pt, _ := a.Params.Text("product_type")
		coin = defaultMarginCoin(exchange.ProductType(pt), f.opts.Catalog, a.Params)
	}
	set("margin_coin", coin)
}

// needsMarginCoin reports an operation whose request carries the margin
// coin even when the file's defaults name none: an order's, a batch's and a
// reversal's. The loader fills it in from the product type.
func needsMarginCoin(op exchange.Op) bool {
	switch op {
	case exchange.OpPlaceOrder, exchange.OpBatchPlaceOrder, exchange.OpClickBackhand:
		return true
	}
	return false
}

// defaultMarginCoin is the margin coin a product type implies: USDT, USDC,
// or for coin-margined contracts the contract's base coin (known only for a
// literal symbol in the catalog; otherwise the engine decides when firing).
func defaultMarginCoin(pt exchange.ProductType, cat *Catalog, p Params) string {
	switch pt {
	case exchange.USDTFutures:
		return "USDT"
	case exchange.USDCFutures:
		return "USDC"
	}
	if sym, ok := p.Text("symbol"); ok {
		if c, ok := catalogContract(cat, sym); ok {
			return c.BaseCoin
		}
	}
	return ""
}

// params decodes the parameters of an action or order item against defs.
// It returns nil when the node is not a mapping.
func (f *fileLoader) params(defs []rulefmt.ParamDef, n *yaml.Node, what string) (Params, map[string]rulefmt.Pos) {
	entries, ok := f.Mapping(n, "the parameters of "+what, f.allowedKeys("params of "+what, func() []string { return paramNames(defs) }))
	if !ok {
		return nil, nil
	}
	out := Params{}
	keys := map[string]rulefmt.Pos{}
	for _, kv := range entries {
		var def rulefmt.ParamDef
		for _, d := range defs {
			if d.Name == kv.Key.Value {
				def = d
			}
		}
		keys[def.Name] = rulefmt.NodePos(kv.Key)
		if v := f.value(def, kv.Value, what); v != nil {
			out[def.Name] = v
		}
	}
	return out, keys
}

// value decodes one parameter value according to its definition.
func (f *fileLoader) value(def rulefmt.ParamDef, n *yaml.Node, what string) *Value {
	n = rulefmt.Deref(n)
	at := f.position(n)
	switch def.Type {
	case rulefmt.ParamNumber:
		return f.number(def, n, at)
	case rulefmt.ParamText, rulefmt.ParamSymbol:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			f.Errorf(n, "", "%s must be a text, got %s", def.Name, rulefmt.Describe(n))
			return nil
		}
		if strings.HasPrefix(n.Value, "=") {
			return f.formula(def, n, String, at)
		}
		if def.Type == rulefmt.ParamSymbol && !f.checkContract(n, n.Value) {
			return nil
		}
		return &Value{Literal: n.Value, Pos: at}
	case rulefmt.ParamChoice:
		if def.Formula && n.Kind == yaml.ScalarNode && strings.HasPrefix(strings.TrimSpace(n.Value), "=") {
			return f.formula(def, n, String, at)
		}
		if def.Many && n.Kind == yaml.SequenceNode {
			return f.choiceList(def, n, at)
		}
		if s, ok := f.Choice(n, def.Name, def.Values); ok {
			return &Value{Literal: s, Pos: at}
		}
	case rulefmt.ParamFlag:
		if b, ok := f.Flag(n, def.Name); ok {
			return &Value{Literal: b, Pos: at}
		}
	case rulefmt.ParamIDList:
		if n.Kind == yaml.ScalarNode && strings.HasPrefix(strings.TrimSpace(n.Value), "=") {
			return f.formula(def, n, TextList, at)
		}
		return f.idList(def, n, at)
	case rulefmt.ParamNames:
		return f.nameList(def, n, at)
	case rulefmt.ParamMessage:
		if s, ok := f.Text(n, def.Name); ok {
			if m := f.message(n, s); m != nil {
				return &Value{Literal: m, Source: s, Pos: at}
			}
		}
	case rulefmt.ParamOrders:
		return f.orderList(def, n, at)
	}
	return nil
}

// number decodes a literal number or a number formula.
func (f *fileLoader) number(def rulefmt.ParamDef, n *yaml.Node, at Position) *Value {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		hint := ""
		if n.Kind == yaml.MappingNode {
			hint = "a value with \": \" in it needs quotes; a formula starts with ="
		}
		f.Errorf(n, hint, "%s must be a number, got %s", def.Name, rulefmt.Describe(n))
		return nil
	}
	s := strings.TrimSpace(n.Value)
	if strings.HasPrefix(s, "=") {
		return f.formula(def, n, Number, at)
	}
	if n.Tag == "!!bool" {
		f.Errorf(n, "", "%s must be a number, got %s", def.Name, n.Value)
		return nil
	}
	d, err := decimal.NewFromString(strings.ReplaceAll(s, "_", ""))
	if err != nil {
		f.Errorf(n, f.numberHint(s), "%s must be a number, got the text '%s'", def.Name, n.Value)
		return nil
	}
	if def.Positive && !d.IsPositive() {
		f.Errorf(n, positiveHint(def, d), "%s must be greater than 0, got %s", def.Name, n.Value)
		return nil
	}
	return &Value{Literal: d, Pos: at}
}

func positiveHint(def rulefmt.ParamDef, d decimal.Decimal) string {
	switch {
	case d.IsZero() && def.Name == "size":
		return "an order of size 0 does nothing; to close a position use close: long/short or close_positions"
	case d.IsNegative() && strings.Contains(def.Name, "price"):
		return "prices are positive; to sell, use open: short or close: long"
	case d.IsNegative():
		return "the direction comes from open/close/side, not from the sign"
	}
	return ""
}

// numberHint explains text where a number belongs: a formula without its
// "=", a percent, or a number with a unit.
func (f *fileLoader) numberHint(s string) string {
	if strings.HasSuffix(s, "%") {
		return "write the number without %; sizes are in base coin, prices in quote currency"
	}
	if spots := f.comp().findHabits(s); len(spots) > 0 {
		// 0,5 or 1,250.50 or $250 written as a spreadsheet shows them.
		if fixed, _ := applyHabitEdits(s, spots); isDecimal(fixed) {
			return "did you mean " + fixed + "? " + spots[0].msg
		}
	}
	if _, errs := f.compile(s, Number, false); len(errs) == 0 {
		return "did you mean =" + s + "? A formula starts with ="
	}
	if strings.ContainsAny(s, "()*+/.") && strings.ContainsAny(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz") {
		return "a formula starts with =, e.g. =" + s
	}
	return "write digits, e.g. 2 or 0.5"
}

// formula compiles a value starting with "=" for the result kind.
func (f *fileLoader) formula(def rulefmt.ParamDef, n *yaml.Node, kind Kind, at Position) *Value {
	raw := []rune(n.Value)
	skip := 0
	for skip < len(raw) && raw[skip] != '=' {
		skip++ // leading blanks of a quoted value
	}
	skip++
	src := string(raw[skip:])
	if strings.TrimSpace(src) == "" {
		f.Errorf(n, "write the formula after =, e.g. =stock(\"TSLA\").bid", "%s is an empty formula", def.Name)
		return nil
	}
	prog, errs := f.compile(src, kind, false)
	f.exprErrors(n, skip, errs)
	if prog == nil || len(errs) > 0 {
		return nil
	}
	f.ratioWarnings(n, skip, src)
	return &Value{Formula: prog, Source: src, Pos: at}
}

// choiceList decodes a list of distinct values of a Many choice.
func (f *fileLoader) choiceList(def rulefmt.ParamDef, n *yaml.Node, at Position) *Value {
	if len(n.Content) == 0 {
		f.Errorf(n, "leave "+def.Name+" out to use the default", "%s is an empty list", def.Name)
		return nil
	}
	var out []string
	ok := true
	for _, item := range n.Content {
		s, good := f.Choice(item, def.Name, def.Values)
		switch {
		case !good:
			ok = false
		case slices.Contains(out, s):
			f.Errorf(item, "", "%s lists %s twice", def.Name, s)
			ok = false
		default:
			out = append(out, s)
		}
	}
	if !ok {
		return nil
	}
	return &Value{Literal: out, Pos: at}
}

// idList decodes a list of order ids.
func (f *fileLoader) idList(def rulefmt.ParamDef, n *yaml.Node, at Position) *Value {
	if n.Kind != yaml.SequenceNode {
		f.Errorf(n, "write a list: [\"123\", \"456\"]", "%s must be a list of ids, got %s", def.Name, rulefmt.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		f.Errorf(n, "leave "+def.Name+" out to cancel every pending order of the symbol", "%s is an empty list: it would cancel nothing", def.Name)
		return nil
	}
	if len(n.Content) > maxBatchItems {
		f.Errorf(n, "", "%s lists %d ids; at most %d", def.Name, len(n.Content), maxBatchItems)
		return nil
	}
	ids := make([]string, 0, len(n.Content))
	ok := true
	for _, item := range n.Content {
		item = rulefmt.Deref(item)
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || item.Value == "" {
			f.Errorf(item, "", "an id in %s must be a text, got %s", def.Name, rulefmt.Describe(item))
			ok = false
			continue
		}
		ids = append(ids, item.Value)
	}
	if !ok {
		return nil
	}
	return &Value{Literal: ids, Pos: at}
}

// nameList decodes a literal list of names, each a text, none repeated.
func (f *fileLoader) nameList(def rulefmt.ParamDef, n *yaml.Node, at Position) *Value {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		f.Errorf(n, "write a list: [ops, trader]", "%s must be a list of one or more names, got %s", def.Name, rulefmt.Describe(n))
		return nil
	}
	names := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		item = rulefmt.Deref(item)
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || item.Value == "" || strings.HasPrefix(item.Value, "=") {
			f.Errorf(item, "", "a name in %s must be a text as written, got %s", def.Name, rulefmt.Describe(item))
			return nil
		}
		if slices.Contains(names, item.Value) {
			f.Errorf(item, "remove the second "+item.Value, "%s names %s twice", def.Name, item.Value)
			return nil
		}
		names = append(names, item.Value)
	}
	return &Value{Literal: names, Pos: at}
}

// orderList decodes the orders of batch_place; the items are kept on the
// Value (as []Params) and checked one by one like place_order.
func (f *fileLoader) orderList(def rulefmt.ParamDef, n *yaml.Node, at Position) *Value {
	if n.Kind != yaml.SequenceNode {
		f.Errorf(n, "write each order as a list item starting with \"- \"", "%s must be a list of orders, got %s", def.Name, rulefmt.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		f.Errorf(n, "", "%s is empty: the batch would place nothing", def.Name)
		return nil
	}
	if len(n.Content) > maxBatchItems {
		f.Errorf(n, "", "%s lists %d orders; at most %d", def.Name, len(n.Content), maxBatchItems)
		return nil
	}
	items := make([]Params, 0, len(n.Content))
	ok := true
	for _, item := range n.Content {
		item = rulefmt.Deref(item)
		p, keys := f.params(def.Items, item, "an order of batch_place")
		if p == nil {
			ok = false
			continue
		}
		c := &ActionCheck{f: f, params: p, keys: keys, at: rulefmt.NodePos(item), mode: f.file.Defaults.PositionMode}
		for _, d := range def.Items {
			if _, given := keys[d.Name]; d.Required && !given {
				f.ErrorAt(c.at, "", "this order of batch_place needs %s", d.Name)
				ok = false
			}
		}
		c.checkOrderItem(p, keys, c.at)
		items = append(items, p)
	}
	if !ok {
		return nil
	}
	return &Value{Literal: items, Pos: at}
}

// checkContract reports a literal symbol that is not a contract of the
// catalog. Without a catalog every symbol passes.
func (f *fileLoader) checkContract(n *yaml.Node, sym string) bool {
	cat := f.opts.Catalog
	if !catalogKnowsContracts(cat) {
		return true
	}
	if _, ok := catalogContract(cat, sym); ok {
		return true
	}
	hint := ""
	_, upper := catalogContract(cat, strings.ToUpper(sym))
	switch {
	case upper:
		hint = "symbols are upper case: " + strings.ToUpper(sym)
	case cat.SuggestContract(strings.ToUpper(sym)) != "":
		hint = "did you mean " + cat.SuggestContract(strings.ToUpper(sym)) + "?"
	case catalogHasStock(cat, sym):
		hint = sym + " is a stock pair; its futures contract has another symbol"
	}
	in, addHint := cat.missing("contracts: (and prices:)", sym)
	if hint == "" {
		hint = addHint
	}
	f.Errorf(n, hint, "%s is not a futures contract%s", sym, in)
	return false
}

// message parses the {{ formula }} placeholders of a log message.
func (f *fileLoader) message(n *yaml.Node, s string) *Message {
	m := &Message{}
	rs := []rune(s)
	ok := true
	for i := 0; i < len(rs); {
		open := indexRunes(rs, i, "{{")
		if open < 0 {
			m.Parts = append(m.Parts, MessagePart{Text: string(rs[i:])})
			break
		}
		if open > i {
			m.Parts = append(m.Parts, MessagePart{Text: string(rs[i:open])})
		}
		end := indexRunes(rs, open+2, "}}")
		if end < 0 {
			f.ErrorAt(f.runeOffsetPos(n, open), "end the placeholder with }}", "{{ is not closed")
			return nil
		}
		inner := string(rs[open+2 : end])
		lead := open + 2
		for lead < end && rs[lead] == ' ' {
			lead++
		}
		src := strings.TrimSpace(inner)
		if strings.HasPrefix(src, "=") {
			f.ErrorAt(f.runeOffsetPos(n, lead), "write {{ stock(\"TSLA\").bid }}; the braces already mark a formula", "no = inside {{ }}")
			ok = false
		} else if src == "" {
			f.ErrorAt(f.runeOffsetPos(n, open), "", "{{ }} is empty")
			ok = false
		} else {
			prog, errs := f.compileAny(src)
			f.exprErrors(n, lead, errs)
			if prog == nil {
				ok = false
			}
			m.Parts = append(m.Parts, MessagePart{Formula: prog, Source: src})
		}
		i = end + 2
	}
	if !ok {
		return nil
	}
	return m
}

// compileAny compiles a message placeholder: a number or a text. When
// neither compiles, the errors that come with a corrected formula win.
func (f *fileLoader) compileAny(src string) (*Program, []*ExprError) {
	p, numErrs := f.compile(src, Number, false)
	if len(numErrs) == 0 {
		return p, nil
	}
	p, errs := f.compile(src, String, false)
	if len(errs) > 0 && errs[0].Fix == "" && numErrs[0].Fix != "" {
		return nil, numErrs
	}
	return p, errs
}

// isDecimal reports whether s is a plain decimal number.
func isDecimal(s string) bool {
	_, err := decimal.NewFromString(s)
	return err == nil
}

func indexRunes(rs []rune, from int, sub string) int {
	s := []rune(sub)
	for i := from; i+len(s) <= len(rs); i++ {
		match := true
		for j := range s {
			if rs[i+j] != s[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}
