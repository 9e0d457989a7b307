package rules

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
)

// Reads is what a program reads from the State, found by walking its syntax
// tree at load time, so that the pollers fetch exactly that.
type Reads struct {
	// Parts are the State parts read.
	Parts marketdata.PartSet
	// Stocks are the stock pairs named by constant arguments, as pair
	// symbols when the catalog knows them (stock("TSLA") reads TSLAUSDT).
	Stocks []string
	// Futures are the futures symbols named by constant arguments.
	Futures []string
	// Markets are the futures symbols whose own market (ticker, book) is
	// read, a subset of Futures: the pollers fetch a ticker or a book for
	// these only. SymbolMarket is set when the for_each symbol is passed
	// to such a lookup.
	Markets      []string
	SymbolMarket bool
	// Coins are the coins named by balance, discount_tiers and discount_rate.
	Coins []string
	// ProductTypes are the product types of the named futures symbols and
	// the arguments of position_mode.
	ProductTypes []exchange.ProductType
	// AllStocks and AllFutures are set when an argument is neither a
	// constant nor the symbol variable (or the positions list is read): the
	// pollers must then cover every pair or every contract.
	AllStocks, AllFutures bool
	// UsesSymbol is set when the program reads the for_each symbol;
	// SymbolStock and SymbolFutures when it passes it as a stock pair or as
	// a futures symbol. WithSymbol resolves them for one instance.
	UsesSymbol, SymbolStock, SymbolFutures bool
	// Time is set when the value can change with the tick's time alone,
	// with no new data: the program reads the market session, now or
	// weekday, a clock helper (minutes_until), or a field that moves with
	// time (an age, the trade window). A program without it gives the same
	// value until a part it reads changes, which lets the engine skip it.
	Time bool
	// Clock is set when the value can change from one tick to the next
	// with no new data and no change of session: Time without Clock means
	// the program follows the session's fields only (market.session,
	// market.is_open), and keeps its value while the data and the session
	// stay the same (marketdata.State.SameSession).
	Clock bool
	// ClockLimits, with Clock, are the comparisons of a clock value with a
	// constant the program makes (market.minutes_to_close <= 5,
	// minutes_until("15:55") < 1) and weekday when it reads it: each can
	// change its result only at an instant computed from the State
	// (marketdata.State.ClockCrossing). ClockOther is set when the program
	// also reads the clock otherwise (now, an age, a minute field in
	// arithmetic): only without it may the engine skip the program until
	// the earliest of those instants.
	ClockLimits []marketdata.ClockLimit
	ClockOther  bool
	// DataTime is set when the program reads a field of fetched data that
	// moves with time (an age, the trade window, tradable_now): the State
	// must then be built afresh every tick instead of sharing its data.
	DataTime bool
	// DataTimeFields, with DataTime, are the fields that move with time
	// that the program can see, found from the types the checker gave the
	// syntax tree: those it reads, by any path, and every one of the
	// objects it takes whole. Only they need bringing to the time of every
	// tick (marketdata.Answers.SetTimedFields): the strategy orders of a
	// rule that reads the age of pending orders are not copied every tick
	// to set an age no one reads. A program without DataTime has none,
	// even when it takes objects whole (len(orders("TSLAUSDT")) > 0): its
	// value does not depend on their ages, and the trace that shows them
	// brings them to its tick itself (Program.Explain), so the States of
	// such a rule keep sharing their data between fetches.
	DataTimeFields marketdata.TimeFieldSet
	// Rules are the rules named by constant arguments of firings_today and
	// minutes_since_fired, which the loader checks against every loaded
	// rule. Firings is set when the program reads any rule's firings: its
	// value then changes when a rule fires, not with the data, so it also
	// sets Time, Clock and ClockOther (run on every tick).
	Rules   []string
	Firings bool
}

// Merge returns the union of r and o (a rule's condition and formulas).
func (r Reads) Merge(o Reads) Reads {
	return Reads{
		Parts:          r.Parts.Union(o.Parts),
		Stocks:         union(r.Stocks, o.Stocks),
		Futures:        union(r.Futures, o.Futures),
		Markets:        union(r.Markets, o.Markets),
		SymbolMarket:   r.SymbolMarket || o.SymbolMarket,
		Coins:          union(r.Coins, o.Coins),
		ProductTypes:   union(r.ProductTypes, o.ProductTypes),
		AllStocks:      r.AllStocks || o.AllStocks,
		AllFutures:     r.AllFutures || o.AllFutures,
		UsesSymbol:     r.UsesSymbol || o.UsesSymbol,
		SymbolStock:    r.SymbolStock || o.SymbolStock,
		SymbolFutures:  r.SymbolFutures || o.SymbolFutures,
		Time:           r.Time || o.Time,
		Clock:          r.Clock || o.Clock,
		ClockLimits:    clockLimits(slices.Concat(r.ClockLimits, o.ClockLimits)),
		ClockOther:     r.ClockOther || o.ClockOther,
		DataTime:       r.DataTime || o.DataTime,
		DataTimeFields: r.DataTimeFields | o.DataTimeFields,
		Rules:          union(r.Rules, o.Rules),
		Firings:        r.Firings || o.Firings,
	}
}

// WithSymbol returns the reads of one for_each instance whose symbol is
// sym: sym joins Stocks and/or Futures where the program passes symbol, as
// the catalog resolves it.
func (r Reads) WithSymbol(sym string, cat *Catalog) Reads {
	out := r.Merge(Reads{})
	if r.SymbolStock {
		name := sym
		if p, ok := cat.StockPair(sym); ok {
			name = p.Symbol
		}
		out.Stocks = union(out.Stocks, []string{name})
	}
	if r.SymbolMarket {
		out.Markets = union(out.Markets, []string{sym})
	}
	if r.SymbolFutures {
		out.Futures = union(out.Futures, []string{sym})
		if k, ok := cat.Contract(sym); ok {
			out.ProductTypes = union(out.ProductTypes, []exchange.ProductType{k.ProductType})
		}
	}
	out.SymbolStock, out.SymbolFutures, out.SymbolMarket = false, false, false
	return out
}

// String is a compact form for traces and tests.
func (r Reads) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "parts=%s", r.Parts)
	list := func(name string, v []string) {
		if len(v) > 0 {
			fmt.Fprintf(&b, " %s=%s", name, strings.Join(v, ","))
		}
	}
	list("stocks", r.Stocks)
	list("futures", r.Futures)
	list("markets", r.Markets)
	list("coins", r.Coins)
	list("rules", r.Rules)
	pts := make([]string, len(r.ProductTypes))
	for i, p := range r.ProductTypes {
		pts[i] = string(p)
	}
	list("products", pts)
	flag := func(name string, v bool) {
		if v {
			b.WriteString(" " + name)
		}
	}
	flag("all_stocks", r.AllStocks)
	flag("all_futures", r.AllFutures)
	flag("symbol", r.UsesSymbol)
	flag("symbol_stock", r.SymbolStock)
	flag("symbol_futures", r.SymbolFutures)
	flag("time", r.Time)
	flag("clock", r.Clock)
	flag("data_time", r.DataTime)
	flag("firings", r.Firings)
	if r.DataTimeFields != 0 {
		fmt.Fprintf(&b, " aged=%s", r.DataTimeFields)
	}
	return b.String()
}

// union returns the sorted, de-duplicated union of a and b as a new slice.
func union[T ~string](a, b []T) []T {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// clockLimits returns ls sorted and without repeats; nil when empty.
func clockLimits(ls []marketdata.ClockLimit) []marketdata.ClockLimit {
	if len(ls) == 0 {
		return nil
	}
	slices.SortFunc(ls, func(a, b marketdata.ClockLimit) int {
		return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(a.At, b.At), cmp.Compare(a.Limit, b.Limit))
	})
	return slices.Compact(ls)
}

// walker checks the names and constant arguments of one expression before
// expr type-checks it, in plain words and with suggestions, and collects
// what the expression reads. One pass does both because both look at the
// same nodes: a constant stock pair is validated and recorded together.
type walker struct {
	c     *Compiler
	src   string
	errs  []*ExprError
	reads Reads

	lets     map[string]bool              // names declared with let
	limited  map[ast.Node]bool            // clock values compared with a constant (ClockLimits)
	callees  map[ast.Node]bool            // identifiers that are called
	members  map[ast.Node]*ast.MemberNode // node -> the member access on it
	reported map[file.Location]bool       // one error per position
}

func (c *Compiler) walk(src string, root ast.Node) *walker {
	w := &walker{
		c: c, src: src,
		lets: map[string]bool{}, callees: map[ast.Node]bool{},
		members: map[ast.Node]*ast.MemberNode{}, reported: map[file.Location]bool{},
		limited: map[ast.Node]bool{},
	}
	ast.Find(root, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryNode); ok && isComparison(b.Operator) {
			w.clockLimit(b.Left, b.Right)
			w.clockLimit(b.Right, b.Left)
		}
		return false
	})
	ast.Find(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.VariableDeclaratorNode:
			w.lets[n.Name] = true
			if c.plainVars[n.Name] || c.byVariable[n.Name] != nil || c.byName[n.Name] != nil || n.Name == "symbol" {
				w.errorf(n, "", "%s is already a name in rules; choose another name after let", n.Name)
			}
		case *ast.CallNode:
			w.callees[n.Callee] = true
		case *ast.MemberNode:
			w.members[n.Node] = n
			w.member(n)
		}
		return false
	})
	ast.Find(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			if !w.callees[n] {
				w.identifier(n)
			}
		case *ast.CallNode:
			w.call(n)
		}
		return false
	})
	slices.SortStableFunc(w.errs, func(a, b *ExprError) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	if w.reads.Parts.Has(marketdata.PartMarket) {
		w.reads.Time = true // every market field follows the session
	}
	w.reads.Stocks = union(w.reads.Stocks, nil)
	w.reads.Futures = union(w.reads.Futures, nil)
	w.reads.Markets = union(w.reads.Markets, nil)
	w.reads.Coins = union(w.reads.Coins, nil)
	w.reads.Rules = union(w.reads.Rules, nil)
	w.reads.ProductTypes = union(w.reads.ProductTypes, nil)
	w.reads.ClockLimits = clockLimits(w.reads.ClockLimits)
	return w
}

// isComparison reports whether op compares two numbers (a ClockLimit's
// operator).
func isComparison(op string) bool {
	switch op {
	case "<", "<=", ">", ">=", "==", "!=":
		return true
	}
	return false
}

// clockLimit records a ClockLimit when value is a clock value (a minute
// field of market, minutes_until or minutes_since of a constant time) and
// limit a constant number.
func (w *walker) clockLimit(value, limit ast.Node) {
	n, ok := literalNumber(limit)
	if !ok {
		return
	}
	var cv marketdata.ClockValue
	at := ""
	switch v := value.(type) {
	case *ast.MemberNode:
		id, okID := v.Node.(*ast.IdentifierNode)
		prop, okProp := v.Property.(*ast.StringNode)
		if !okID || id.Value != "market" || !okProp {
			return
		}
		fd, _ := w.c.objects["market"].Field(prop.Value)
		cv = fd.Clock
	case *ast.CallNode:
		id, okID := v.Callee.(*ast.IdentifierNode)
		if !okID || len(v.Arguments) != 1 {
			return
		}
		arg, okArg := v.Arguments[0].(*ast.StringNode)
		if !okArg {
			return
		}
		if _, err := marketdata.ParseClock(arg.Value); err != nil {
			return
		}
		cv, at = clockFunction(id.Value), arg.Value
	}
	if cv == 0 {
		return
	}
	w.limited[value] = true
	w.reads.ClockLimits = append(w.reads.ClockLimits, marketdata.ClockLimit{Value: cv, At: at, Limit: n})
}

// clockFunction is the clock value of the function of the time of day
// called name; 0 when it is none. The fields of market that are clock
// values say so in their rows (marketdata.FieldDoc.Clock).
func clockFunction(name string) marketdata.ClockValue {
	switch name {
	case "minutes_until":
		return marketdata.ClockMinutesUntil
	case "minutes_since":
		return marketdata.ClockMinutesSince
	}
	return 0
}

func (w *walker) errorf(n ast.Node, suggestion, format string, args ...any) {
	loc := n.Location()
	if w.reported[loc] {
		return
	}
	w.reported[loc] = true
	w.errs = append(w.errs, newExprError(w.src, loc.From, fmt.Sprintf(format, args...), suggestion))
}

// errorHint is errorf with advice for when there is no suggestion.
func (w *walker) errorHint(n ast.Node, suggestion, hint, format string, args ...any) {
	before := len(w.errs)
	w.errorf(n, suggestion, format, args...)
	if len(w.errs) > before && suggestion == "" {
		w.errs[len(w.errs)-1].Hint = hint
	}
}

func (w *walker) identifier(n *ast.IdentifierNode) {
	name := n.Value
	switch {
	case w.lets[name]:
		return
	case name == "$env":
		w.errorf(n, "", "$env is not available in rules; name the variable directly")
		return
	case name == "symbol":
		if !w.c.opts.ForEach {
			w.errorf(n, "", "symbol is only known in a rule with for_each")
			return
		}
		w.reads.UsesSymbol = true
		return
	}
	if _, ok := w.c.plainVars[name]; ok {
		w.reads.Time, w.reads.Clock = true, true // now, now_ms, weekday
		if name == "weekday" {
			w.reads.ClockLimits = append(w.reads.ClockLimits, marketdata.ClockLimit{Value: marketdata.ClockWeekday})
		} else {
			w.reads.ClockOther = true
		}
		return
	}
	if f := w.c.byVariable[name]; f != nil {
		if f.clock {
			w.reads.Time, w.reads.Clock, w.reads.ClockOther = true, true, true
		}
		w.reads.Parts = w.reads.Parts.Union(f.parts)
		if f.allFutures {
			w.reads.AllFutures = true
		}
		if f.object != "" {
			w.object(n, f, name)
		}
		return
	}
	if f := w.c.byName[name]; f != nil {
		w.errorf(n, "", "%s is a function: write %s(...)", name, name)
		return
	}
	if hint := recordHints[name]; hint != "" && w.c.suggestName(name, w.lets) == "" {
		w.errorHint(n, "", hint, "unknown variable %s", name)
		return
	}
	w.errorf(n, w.c.suggestName(name, w.lets), "unknown variable %s", name)
}

// recordHints point the names traders reach for when they ask about their
// P&L or their last trade to what rules have: today's P&L, the closed
// trades and the open positions' P&L. Only a name with no close spelling
// of a known one gets its hint (a typo of pnl_today is told its spelling).
var recordHints = func() map[string]string {
	pnl := `today's P&L is pnl_today("USDT-FUTURES") (closed positions after fees and funding, plus open ones now); ` +
		`the last closed position's is last_close("TSLAUSDT").pnl; an open position's is position("TSLAUSDT", "long").unrealized_pnl`
	trade := `the newest closed position of a contract is last_close("TSLAUSDT") (.pnl, .side, .size, .minutes_ago); ` +
		`closes_today("TSLAUSDT") and losses_today("TSLAUSDT") count today's; closed_trades lists them all`
	day := `the day's starting equity is equity_day_start("USDT"); today's P&L is pnl_today("USDT-FUTURES")`
	return map[string]string{
		"pnl": pnl, "daily_pnl": pnl, "day_pnl": pnl, "today_pnl": pnl, "realized_pnl": pnl, "realised_pnl": pnl,
		"realized_pnl_today": pnl, "profit": pnl, "profit_today": pnl, "daily_loss": pnl,
		"last_trade": trade, "last_closed": trade, "last_position": trade, "trades_today": trade, "trade_history": trade,
		"start_equity": day, "starting_equity": day, "equity_start": day, "day_start_equity": day,
	}
}()

// object checks the field read on an object lookup (market.session,
// stock("TSLA").bid) and adds the parts that field needs.
func (w *walker) object(n ast.Node, f *function, shown string) {
	m := w.members[n]
	if m == nil {
		w.errorf(n, "", "%s needs a field after it, like %s", shown, exampleField(f))
		return
	}
	prop, ok := m.Property.(*ast.StringNode)
	if !ok {
		w.errorf(m.Property, "", "write the field name of %s after a dot, like %s", shown, exampleField(f))
		return
	}
	obj := w.c.objects[f.object]
	fd, ok := obj.Field(prop.Value)
	if !ok {
		w.errorf(m.Property, rulefmt.Suggest(prop.Value, obj.FieldNames()), "%s has no field %s", f.object, prop.Value)
		return
	}
	w.reads.Parts = w.reads.Parts.Union(f.parts).Union(fd.Parts())
}

// member marks the program as reading time when it reaches, by any path, a
// field that moves with time. Fields reached through a list (.age_seconds
// inside any(orders("X"), ...)) have no known object here, so the name alone
// decides; a computed field name could be any field.
func (w *walker) member(m *ast.MemberNode) {
	prop, ok := m.Property.(*ast.StringNode)
	if !ok {
		if _, isInt := m.Property.(*ast.IntegerNode); !isInt { // a list index
			w.reads.Time, w.reads.Clock, w.reads.DataTime, w.reads.ClockOther = true, true, true, true
		}
		return
	}
	if kind, ok := w.c.timeFields[prop.Value]; ok {
		w.reads.Time = true
		w.reads.Clock = w.reads.Clock || kind >= marketdata.MovesWithClock
		w.reads.DataTime = w.reads.DataTime || kind == marketdata.MovesWithData
		w.reads.ClockOther = w.reads.ClockOther || (kind >= marketdata.MovesWithClock && !w.limited[m])
	}
}

// dataTimeFields returns Reads.DataTimeFields of a checked tree. A node of
// an object's type (or a list of them) that is not followed by a field is
// the object taken whole; an item of a list is judged as a node of its
// own. A field of a value whose type the checker does not know is judged
// by its name, in every object.
func (c *Compiler) dataTimeFields(root ast.Node) marketdata.TimeFieldSet {
	operand := map[ast.Node]bool{}
	ast.Find(root, func(n ast.Node) bool {
		if m, ok := n.(*ast.MemberNode); ok {
			operand[m.Node] = true
		}
		return false
	})
	var s marketdata.TimeFieldSet
	ast.Find(root, func(n ast.Node) bool {
		if m, ok := n.(*ast.MemberNode); ok {
			switch prop := m.Property.(type) {
			case *ast.StringNode:
				if obj := c.object(m.Node.Type()); obj != "" {
					s |= marketdata.TimeFieldsOf(obj, prop.Value)
				} else {
					s |= marketdata.TimeFieldsNamed(prop.Value)
				}
			case *ast.IntegerNode:
			default: // a field name computed as it runs: any field
				s |= marketdata.TimeFieldsNamed("")
			}
		}
		if obj := c.object(n.Type()); obj != "" && !operand[n] {
			s |= marketdata.TimeFieldsOf(obj, "")
		}
		return false
	})
	return s
}

// object names the object of the State that t is, points to or lists;
// empty when it is none (or t is not known).
func (c *Compiler) object(t reflect.Type) string {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
			continue
		case reflect.Struct:
			return c.objectOf[t]
		}
		return ""
	}
	return ""
}

func exampleField(f *function) string {
	switch f.object {
	case "market":
		return "market.session"
	case "stock":
		return `stock("TSLA").bid`
	case "position":
		return `position("TSLAUSDT", "long").size`
	case "balance":
		return `balance("USDT").available`
	}
	return f.doc.Example
}

func (w *walker) call(n *ast.CallNode) {
	id, ok := n.Callee.(*ast.IdentifierNode)
	if !ok {
		return // a method such as now.Hour(): expr checks it
	}
	name := id.Value
	f := w.c.byName[name]
	switch {
	case f != nil:
	case name == "now" || name == "date" || name == "timezone":
		w.errorf(n, "", "%s() would read the computer's clock or time zone; use the variable now (the time of the tick, in Eastern time) or minutes_until(\"HH:MM\")", name)
		return
	case w.c.plainVars[name] || w.c.byVariable[name] != nil || name == "symbol":
		w.errorf(n, "", "%s is a value, not a function: write it without ( )", name)
		return
	case w.c.builtins[name]:
		return
	case recordHints[name] != "" && w.c.suggestFunc(name) == "":
		w.errorHint(id, "", recordHints[name], "unknown function %s", name)
		return
	default:
		w.errorf(id, w.c.suggestFunc(name), "unknown function %s", name)
		return
	}
	if len(n.Arguments) != f.arity() {
		w.errorf(n, "", "%s needs %s in the parentheses, like %s", name, countArgs(f), f.doc.Example)
		return
	}
	for i, kind := range f.args {
		w.argument(f, n.Arguments[i], kind)
		if kind == argClock { // whatever the argument: a computed time reads the clock too
			w.reads.Time, w.reads.Clock = true, true
			w.reads.ClockOther = w.reads.ClockOther || !w.limited[n]
		}
		if kind == argRule { // firings change when a rule fires, not with the data
			w.reads.Firings = true
			w.reads.Time, w.reads.Clock, w.reads.ClockOther = true, true, true
		}
	}
	if f.clock {
		w.reads.Time, w.reads.Clock, w.reads.ClockOther = true, true, true
	}
	w.reads.Parts = w.reads.Parts.Union(f.parts)
	if f.object != "" {
		w.object(n, f, name+"(...)")
	}
}

func countArgs(f *function) string {
	names := make([]string, len(f.doc.Args))
	for i, a := range f.doc.Args {
		names[i] = a.Name
	}
	if len(names) == 1 {
		return "1 value (" + names[0] + ")"
	}
	return fmt.Sprintf("%d values (%s)", len(names), strings.Join(names, ", "))
}

// argument checks one argument of a helper and records what it names.
func (w *walker) argument(f *function, arg ast.Node, kind argKind) {
	if kind == argPlaces {
		w.places(arg)
		return
	}
	s, isConst := arg.(*ast.StringNode)
	if id, ok := arg.(*ast.IdentifierNode); ok && id.Value == "symbol" && w.c.opts.ForEach {
		switch kind {
		case argStockPair:
			w.reads.SymbolStock = true
		case argContract:
			w.reads.SymbolFutures = true
			w.reads.SymbolMarket = w.reads.SymbolMarket || readsMarket(f)
		}
		return
	}
	if !isConst {
		switch kind {
		case argStockPair:
			w.reads.AllStocks = true
		case argContract:
			w.reads.AllFutures = true
		}
		return // expr checks the type; the value is checked when it runs
	}
	v := s.Value
	cat := w.c.opts.Catalog
	switch kind {
	case argStockPair:
		if cat == nil || cat.StockPairsErr != nil {
			w.reads.Stocks = append(w.reads.Stocks, v)
			return
		}
		p, ok := cat.StockPair(v)
		if !ok {
			if _, future := cat.Contract(v); future {
				// A futures contract has a market of its own: its ticker
				// and its book, not a stock pair's.
				w.errorHint(arg, "", fmt.Sprintf("use ticker(%q) (last, bid, ask, mark...) or book(%q) (spread_bps, depth...)", v, v),
					"%s is a futures contract, not a stock pair", v)
				return
			}
			in, hint := cat.missing("stock_pairs:", v)
			w.errorHint(arg, cat.SuggestStockPair(v), hint, "stock pair %s is not known%s", v, in)
			return
		}
		w.reads.Stocks = append(w.reads.Stocks, p.Symbol)
		// The State may know the pair only by symbol (its info not
		// fetched), so the program looks it up by the catalog's symbol.
		s.Value = p.Symbol
	case argContract:
		w.reads.Futures = append(w.reads.Futures, v)
		if readsMarket(f) {
			w.reads.Markets = append(w.reads.Markets, v)
		}
		if cat == nil {
			return
		}
		k, ok := cat.Contract(v)
		if !ok {
			in, hint := cat.missing("contracts: (and prices:)", v)
			w.errorHint(arg, cat.SuggestContract(v), hint, "%s is not a futures contract%s", v, in)
			return
		}
		w.reads.ProductTypes = append(w.reads.ProductTypes, k.ProductType)
	case argSide:
		if v != marketdata.SideLong && v != marketdata.SideShort && v != marketdata.SideNet {
			w.errorf(arg, rulefmt.Suggest(v, []string{"long", "short", "net"}), "position side must be long, short or net, not %q", v)
		}
	case argSideAny:
		if v != marketdata.SideLong && v != marketdata.SideShort && v != "any" {
			w.errorf(arg, rulefmt.Suggest(v, []string{"long", "short", "any"}), "side must be long, short or any, not %q", v)
		}
	case argClock:
		w.reads.Time, w.reads.Clock = true, true
		if _, err := marketdata.ParseClock(v); err != nil {
			w.errorf(arg, "", "%s", err.Error())
		}
	case argCoin:
		w.reads.Coins = append(w.reads.Coins, v)
	case argRule:
		w.reads.Rules = append(w.reads.Rules, v)
	case argProduct:
		pt := exchange.ProductType(v)
		if !pt.Valid() {
			names := make([]string, 0, 3)
			for _, p := range exchange.ProductTypes() {
				names = append(names, string(p))
			}
			w.errorf(arg, rulefmt.Suggest(v, names), "product type must be one of %s, not %q", strings.Join(names, ", "), v)
			return
		}
		w.reads.ProductTypes = append(w.reads.ProductTypes, pt)
	}
}

// places checks a constant count of decimal places (format's second
// argument) when the file loads; one computed is checked when it runs.
func (w *walker) places(arg ast.Node) {
	n := 0
	switch a := arg.(type) {
	case *ast.IntegerNode:
		n = a.Value
	case *ast.FloatNode:
		w.errorf(arg, "", "format shows a whole number of decimal places, not %v: write format(x, 2) for two decimals", a.Value)
		return
	case *ast.UnaryNode:
		i, ok := a.Node.(*ast.IntegerNode)
		if !ok || a.Operator != "-" {
			return
		}
		n = -i.Value
	default:
		return
	}
	if n < 0 || n > maxFormatPlaces {
		w.errorf(arg, "", "format shows 0 to %d decimal places, not %d: write format(x, 2) for two decimals", maxFormatPlaces, n)
	}
}

// readsMarket reports whether f reads a futures contract's own market (its
// ticker or its book), fetched per contract.
func readsMarket(f *function) bool {
	return f.parts.Has(marketdata.PartTicker) || f.parts.Has(marketdata.PartFuturesBook)
}
