package rules

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
)

// Limits of one expression, so that a rule file cannot make loading or a
// tick arbitrarily expensive.
const (
	DefaultMaxSourceLen = 2000    // bytes of one condition or formula
	DefaultMaxNodes     = 500     // syntax-tree nodes after the helpers are expanded
	DefaultMemoryBudget = 100_000 // expr VM memory units per run (list elements created)
)

// Kind is the type a formula must give.
type Kind uint8

// Kinds of formulas. A condition is always Bool.
const (
	Bool Kind = iota + 1
	Number
	String
	// TextList is a list of texts: the ids of batch_cancel.
	TextList
)

// String names the kind in the words of error messages.
func (k Kind) String() string {
	switch k {
	case Bool:
		return "true or false"
	case Number:
		return "a number"
	case String:
		return "text"
	case TextList:
		return "a list of texts"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ExprError is a mistake in one condition or formula. Line and Column are
// 1-based within the expression source and count characters (runes), so the
// loader can map them into the YAML file. Suggestion, when not empty, is the
// word that was probably meant ("market" for "markt"). Fix, when not empty,
// is the whole formula corrected (a habit such as <> or -3% rewritten), and
// it compiles; Hint is advice in words when there is no Fix.
type ExprError struct {
	Line, Column int
	Msg          string
	Suggestion   string
	Fix          string
	Hint         string
}

// Error reads "1:1: unknown variable markt; did you mean market?".
func (e *ExprError) Error() string {
	s := fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
	switch {
	case e.Fix != "":
		s += "; did you mean: " + e.Fix
	case e.Suggestion != "":
		s += "; did you mean " + e.Suggestion + "?"
	case e.Hint != "":
		s += "; " + e.Hint
	}
	return s
}

// newExprError places msg at rune offset from of src.
func newExprError(src string, from int, msg, suggestion string) *ExprError {
	line, col := position(src, from)
	return &ExprError{Line: line, Column: col, Msg: msg, Suggestion: suggestion}
}

// position converts a rune offset into a 1-based line and column.
func position(src string, from int) (line, col int) {
	line, col = 1, 1
	i := 0
	for _, r := range src {
		if i == from {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i++
	}
	return line, col
}

// CompilerOptions configures a Compiler. Zero values mean the defaults.
type CompilerOptions struct {
	// Catalog checks constant stock pairs and futures symbols; nil checks
	// none.
	Catalog *Catalog
	// ForEach declares the text variable symbol, the symbol of a for_each
	// rule instance; programs that read it must be bound with WithSymbol.
	ForEach bool
	// MaxSourceLen and MaxNodes bound an expression; see the Default
	// constants. The memory of a run is bounded by the VM (NewVM).
	MaxSourceLen int
	MaxNodes     uint
	// Closures, when set, also compiles every program to Go code that
	// runs it faster than expr's VM (the backtest's compiled conditions);
	// nil runs every program on the VM.
	Closures ClosureCompiler
}

// Compiler compiles conditions and formulas against the State. It is safe
// for concurrent use (compilations are serialised); build one per catalog
// and reuse it for every rule.
type Compiler struct {
	opts CompilerOptions

	funcs      []*function
	byName     map[string]*function           // visible helper functions
	byVariable map[string]*function           // market, positions, spot_records
	plainVars  map[string]bool                // now, now_ms, weekday
	timeFields map[string]marketdata.TimeKind // field names that move with time
	objects    map[string]*marketdata.ObjectDoc
	objectOf   map[reflect.Type]string               // Go struct type -> object name
	needs      map[string]map[string]marketdata.Need // object -> field -> need
	builtins   map[string]bool                       // expr builtins left enabled (builtinFuncs)
	enums      map[string][]string                   // enumerated text values (enumFields)

	// mu serialises compilations: they share one expr configuration,
	// whose type cache makes compiling 1,000 rules several times cheaper
	// than a fresh configuration each (that cache is not safe for
	// concurrent use).
	mu  sync.Mutex
	cfg *conf.Config
}

// NewCompiler returns a Compiler.
func NewCompiler(opts CompilerOptions) *Compiler {
	if opts.MaxSourceLen <= 0 {
		opts.MaxSourceLen = DefaultMaxSourceLen
	}
	if opts.MaxNodes == 0 {
		opts.MaxNodes = DefaultMaxNodes
	}
	c := &Compiler{
		opts:       opts,
		funcs:      functions(),
		byName:     map[string]*function{},
		byVariable: map[string]*function{},
		plainVars:  map[string]bool{"now": true, "now_ms": true, "weekday": true},
		timeFields: marketdata.TimeFields(),
		objects:    map[string]*marketdata.ObjectDoc{},
		objectOf:   map[reflect.Type]string{},
		needs:      map[string]map[string]marketdata.Need{},
		builtins:   map[string]bool{},
		enums:      enumFields(),
	}
	for _, o := range marketdata.Objects() {
		c.objects[o.Name] = &o
		c.objectOf[o.GoType()] = o.Name
		c.needs[o.Name] = map[string]marketdata.Need{}
		for _, f := range o.Fields {
			c.needs[o.Name][f.Name] = f.Needs
		}
	}
	options := []expr.Option{expr.Env(&vars{}), expr.MaxNodes(opts.MaxNodes), expr.Patch(&patcher{c: c})}
	for _, f := range c.funcs {
		if f.variable != "" {
			c.byVariable[f.variable] = f
		} else {
			c.byName[f.doc.Name] = f
		}
		options = append(options, expr.Function(f.hiddenName(), f.impl, f.types...))
	}
	for _, b := range builtinFuncs() {
		c.builtins[b.Name] = true
	}
	for _, b := range builtin.Builtins {
		if !c.builtins[b.Name] {
			options = append(options, expr.DisableBuiltin(b.Name))
		}
	}
	// What expr.Compile does with its options, done once.
	c.cfg = conf.CreateNew()
	for _, op := range options {
		op(c.cfg)
	}
	for name := range c.cfg.Disabled {
		delete(c.cfg.Builtins, name)
	}
	c.cfg.Check()
	return c
}

// Program is a compiled condition or formula and what it reads. It is
// immutable and may be run from many goroutines, each with its own VM and
// Env.
type Program struct {
	// Source is the expression as written.
	Source string
	// Kind is what it gives.
	Kind Kind
	// Reads is what it reads from the State.
	Reads Reads

	prog    *vm.Program
	closure ClosureProgram // prog compiled by CompilerOptions.Closures; nil: it runs on the VM
	symbol  string         // the for_each instance symbol, when bound
	explain *explainer     // the terms for traces, shared by bound copies
}

// Condition compiles a rule's when: an expression that gives true or false.
func (c *Compiler) Condition(src string) (*Program, []*ExprError) {
	return c.compile(src, Bool, true)
}

// Formula compiles an action parameter formula (the text after "=") that
// must give want.
func (c *Compiler) Formula(src string, want Kind) (*Program, []*ExprError) {
	if want < Bool || want > TextList {
		return nil, []*ExprError{{Line: 1, Column: 1, Msg: fmt.Sprintf("internal: formula kind %d is not Bool, Number, String or TextList", want)}}
	}
	return c.compile(src, want, false)
}

func (c *Compiler) compile(src string, want Kind, condition bool) (*Program, []*ExprError) {
	what := "formula"
	if condition {
		what = "condition"
	}
	if len(src) > c.opts.MaxSourceLen {
		return nil, []*ExprError{{Line: 1, Column: 1, Msg: fmt.Sprintf("this %s is %d characters long; at most %d are allowed", what, len(src), c.opts.MaxSourceLen)}}
	}
	if strings.TrimSpace(src) == "" {
		return nil, []*ExprError{{Line: 1, Column: 1, Msg: "the " + what + " is empty"}}
	}
	if !utf8.ValidString(src) {
		return nil, []*ExprError{{Line: 1, Column: 1, Msg: "the " + what + " is not valid UTF-8 text"}}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, errs := c.compileLocked(src, want, what)
	if len(errs) > 0 && want != 0 {
		errs = c.habitErrors(src, want, what, errs)
	}
	return p, errs
}

// habitErrors explains the errors of src by the traders' habits found in
// it, when there are any: each habit is reported where it is written, and
// the first carries the corrected formula when that compiles. Errors that
// remain once the habits are corrected are kept, at their place in src.
// c.mu must be held.
func (c *Compiler) habitErrors(src string, want Kind, what string, errs []*ExprError) []*ExprError {
	spots := c.findHabits(src)
	if len(spots) == 0 {
		return errs
	}
	fixed, edits := applyHabitEdits(src, spots)
	_, rest := c.compileLocked(fixed, want, what)
	if len(rest) == 1 && rest[0].Fix != "" {
		// The corrected formula has one more mistake with its own
		// correction (market.session == Regular: quoted, then the case).
		if _, again := c.compileLocked(rest[0].Fix, want, what); len(again) == 0 {
			fixed, rest = rest[0].Fix, nil
		}
	}
	out := make([]*ExprError, 0, len(spots)+len(rest))
	at := map[int]bool{}
	for i, sp := range spots {
		e := newExprError(src, sp.from, sp.msg, "")
		switch {
		case i == 0 && len(rest) == 0:
			e.Fix = fixed
		default:
			e.Hint = sp.local
		}
		at[sp.from] = true
		out = append(out, e)
	}
	for _, r := range rest {
		off := originalOffset(edits, rulefmt.OffsetInText(fixed, r.Line, r.Column))
		if at[off] {
			continue
		}
		line, col := position(src, off)
		r.Line, r.Column = line, col
		out = append(out, r)
	}
	return out
}

// compileLocked parses, checks and compiles src; c.mu must be held.
func (c *Compiler) compileLocked(src string, want Kind, what string) (*Program, []*ExprError) {
	cfg := c.config(want)
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return nil, []*ExprError{c.plain(src, err, want, what)}
	}
	w := c.walk(src, tree.Node)
	if len(w.errs) > 0 {
		return nil, w.errs
	}
	if _, err := new(checker.Checker).PatchAndCheck(tree, cfg); err != nil {
		return nil, []*ExprError{c.plain(src, err, want, what)}
	}
	if errs := c.enumErrors(src, tree.Node); len(errs) > 0 {
		return nil, errs
	}
	if w.reads.DataTime {
		// Before the optimizer, which may fold the nodes whose types tell.
		if w.reads.DataTimeFields = c.dataTimeFields(tree.Node); w.reads.DataTimeFields == 0 {
			w.reads.DataTimeFields = marketdata.AllTimeFields
		}
	}
	if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
		return nil, []*ExprError{c.plain(src, err, want, what)}
	}
	prog, err := compiler.Compile(tree, cfg)
	if err != nil {
		return nil, []*ExprError{c.plain(src, err, want, what)}
	}
	p := &Program{Source: src, Kind: want, Reads: w.reads, prog: prog, explain: &explainer{c: c}}
	if c.opts.Closures != nil {
		// A tree the closure compiler refuses runs on the VM: the same
		// results, only slower.
		if closure, err := c.opts.Closures.Compile(tree, cfg.Expect); err == nil {
			p.closure = closure
		}
	}
	return p, nil
}

// config sets the expected result on the shared configuration; c.mu must
// be held. ExpectAny stays as expr's As options set it: a result whose type
// is only known when it runs (max, min) passes, and Eval checks it.
func (c *Compiler) config(want Kind) *conf.Config {
	c.cfg.ExpectAny, c.cfg.Expect = true, reflect.Invalid
	switch want {
	case Bool:
		c.cfg.Expect = reflect.Bool
	case Number:
		c.cfg.Expect = reflect.Float64
	case String:
		c.cfg.Expect = reflect.String
	case TextList:
		c.cfg.Expect = reflect.Slice
	}
	return c.cfg
}

func (c *Compiler) suggestName(name string, lets map[string]bool) string {
	cands := []string{"now", "now_ms", "weekday", "market", "positions", "all_orders", "all_strategy_orders", "spot_records", "closed_trades"}
	if c.opts.ForEach {
		cands = append(cands, "symbol")
	}
	for _, f := range c.funcs {
		if f.variable == "" {
			cands = append(cands, f.doc.Name)
		}
	}
	for l := range lets {
		cands = append(cands, l)
	}
	return rulefmt.Suggest(name, cands)
}

func (c *Compiler) suggestFunc(name string) string {
	var cands []string
	for _, f := range c.funcs {
		if f.variable == "" {
			cands = append(cands, f.doc.Name)
		}
	}
	for b := range c.builtins {
		cands = append(cands, b)
	}
	// Map iteration order must not decide between equally close builtins.
	slices.Sort(cands[len(c.byName):])
	return rulefmt.Suggest(name, cands)
}

var (
	reExpected   = regexp.MustCompile(`^expected (\w+), but got (.+)$`)
	reMismatch2  = regexp.MustCompile(`^invalid operation: (\S+) \(mismatched types (.+) and (.+)\)$`)
	reMismatch1  = regexp.MustCompile(`^invalid operation: (\S+) \(mismatched type (.+)\)$`)
	reNoField    = regexp.MustCompile(`^type (.+) has no (?:field|method) (\S+)$`)
	reArgument   = regexp.MustCompile(`^cannot use (.+) as argument \(type (.+)\) to call (\S+)\s*$`)
	rePredicate  = regexp.MustCompile(`^predicate should return boolean \(got (.+)\)$`)
	reNonBool    = regexp.MustCompile(`^non-bool expression \(type (.+)\) used as condition$`)
	reUnknown    = regexp.MustCompile(`^unknown name (\S+)$`)
	reUnexpected = regexp.MustCompile(`^unexpected token (\w+)\("?(.*?)"?\)$`)
	reUnrecChar  = regexp.MustCompile(`^unrecognized character: U\+[0-9A-F]+ '(.+)'$`)
)

// plain turns an expr error into an ExprError in plain words at its
// position. Messages it does not know keep expr's wording.
func (c *Compiler) plain(src string, err error, want Kind, what string) *ExprError {
	msg, from := err.Error(), firstNonSpace(src)
	var fe *file.Error
	if errors.As(err, &fe) {
		msg, from = fe.Message, fe.From
	}
	msg = strings.TrimSpace(msg)
	suggestion := ""
	switch m := (submatches{}); {
	case m.match(reExpected, msg):
		got := typeWords(m[2])
		if what == "condition" {
			msg = fmt.Sprintf("this condition gives %s, but when needs true or false", got)
		} else {
			msg = fmt.Sprintf("this formula gives %s, but %s is needed here", got, want)
		}
	case m.match(reMismatch2, msg):
		msg = operatorWords(m[1], typeWords(m[2]), typeWords(m[3]))
	case m.match(reMismatch1, msg):
		msg = fmt.Sprintf("%s cannot be used on %s", m[1], typeWords(m[2]))
	case m.match(reNoField, msg):
		obj := objectOfType(m[1])
		if o := c.objects[obj]; o != nil {
			suggestion = rulefmt.Suggest(m[2], o.FieldNames())
			msg = fmt.Sprintf("%s has no field %s", obj, m[2])
		} else {
			msg = fmt.Sprintf("%s has no field %s", typeWords(m[1]), m[2])
		}
	case m.match(reArgument, msg):
		msg = fmt.Sprintf("%s needs %s here, not %s", m[3], typeWords(m[2]), typeWords(m[1]))
	case m.match(rePredicate, msg):
		msg = fmt.Sprintf("the test inside the list function must give true or false, not %s", typeWords(m[1]))
	case m.match(reNonBool, msg):
		msg = fmt.Sprintf("the test of if or ?: must give true or false, not %s", typeWords(m[1]))
	case m.match(reUnknown, msg):
		suggestion = c.suggestName(m[1], nil)
		msg = "unknown variable " + m[1]
	case msg == "unexpected token EOF" || msg == "unexpected end of expression":
		msg = "the " + what + " ends too early: something is missing at the end"
		from = utf8.RuneCountInString(strings.TrimRightFunc(src, unicode.IsSpace))
	case m.match(reUnexpected, msg):
		msg, suggestion = unexpectedWords(m[1], m[2])
	case msg == "literal not terminated":
		msg = "a text value is missing its closing quote"
		// expr reports the end of the input; the opening quote is where
		// the reader must look.
		if i := strings.LastIndexAny(src, "\"'`"); i >= 0 {
			from = utf8.RuneCountInString(src[:i])
		}
	case m.match(reUnrecChar, msg):
		switch m[1] {
		case "&":
			msg = "& alone is not an operator; write && (and)"
		case "|":
			msg = "| alone is not an operator; write || (or)"
		default:
			msg = fmt.Sprintf("the character %s is not allowed here", m[1])
		}
	case strings.Contains(msg, "exceeds maximum allowed nodes"):
		msg = fmt.Sprintf("this %s is too complex: at most %d parts are allowed", what, c.opts.MaxNodes)
		from = firstNonSpace(src)
	}
	return newExprError(src, from, msg, suggestion)
}

type submatches []string

func (m *submatches) match(re *regexp.Regexp, s string) bool {
	*m = re.FindStringSubmatch(s)
	return *m != nil
}

func firstNonSpace(src string) int {
	i := 0
	for _, r := range src {
		if !unicode.IsSpace(r) {
			return i
		}
		i++
	}
	return 0
}

func unexpectedWords(kind, value string) (msg, suggestion string) {
	switch {
	case kind == "Operator" && value == "=":
		return "use == to compare; a single = is not allowed here", ""
	case kind == "Operator" && value == "&":
		return "& alone is not an operator; write && (and)", ""
	case kind == "Operator" && value == "|":
		return "| alone is not an operator; write || (or)", ""
	case kind == "Identifier":
		return fmt.Sprintf("%s is not expected here: is an operator such as && or == missing before it?", value), ""
	case kind == "Number" || kind == "String":
		return fmt.Sprintf("the value %s is not expected here: is an operator missing before it?", value), ""
	}
	return fmt.Sprintf("%s is not expected here", value), ""
}

func operatorWords(op, a, b string) string {
	switch op {
	case "<", ">", "<=", ">=", "==", "!=":
		return fmt.Sprintf("cannot compare %s with %s using %s", a, b, op)
	case "&&", "||", "and", "or":
		return fmt.Sprintf("%s needs true or false on both sides, not %s and %s", op, a, b)
	}
	return fmt.Sprintf("%s cannot combine %s and %s", op, a, b)
}

// typeWords names a Go type in the words of the reference.
func typeWords(t string) string {
	t = strings.TrimSpace(t)
	switch t {
	case "bool":
		return "true or false"
	case "int", "int64", "int32", "float64", "float32", "uint", "uint64":
		return "a number"
	case "string":
		return "text"
	case "time.Time":
		return "a time"
	case "time.Duration":
		return "a duration"
	case "nil", "<nil>":
		return "nothing"
	case "interface {}", "any", "unknown":
		return "a value of unknown type"
	}
	if strings.HasPrefix(t, "[]") {
		if o := objectOfType(t[2:]); o != "" {
			return "a list of " + o
		}
		return "a list"
	}
	if o := objectOfType(t); o != "" {
		return "a " + o
	}
	return t
}

// objectOfType maps "*marketdata.Stock" to "stock" via the object table.
func objectOfType(t string) string {
	t = strings.TrimPrefix(strings.TrimSpace(t), "*")
	for _, o := range marketdata.Objects() {
		if gt := o.GoType(); gt != nil && gt.String() == t {
			return o.Name
		}
	}
	return ""
}

// patcher rewrites the syntax tree after the names were checked: each
// helper call gets the environment as a hidden first argument, the object
// lookups a hidden last argument with the Need of the field that follows,
// and the variables backed by a State lookup (market, positions,
// spot_records) become calls, so that reading an unfetched part is an
// error rather than an empty value.
type patcher struct{ c *Compiler }

func envNode() ast.Node { return &ast.IdentifierNode{Value: "$env"} }

// needAll is the Need used when no field follows an object lookup; the
// checker rejects that case, so it only guards against a patched tree that
// was not checked.
const needAll = int(^uint16(0))

// Visit is called in post-order: a call is patched before the member access
// that contains it.
func (p *patcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		f := p.c.byVariable[n.Value]
		if f == nil {
			return
		}
		args := []ast.Node{envNode()}
		if f.object != "" {
			args = append(args, &ast.IntegerNode{Value: needAll})
		}
		ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: f.hiddenName()}, Arguments: args})
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			return
		}
		f := p.c.byName[id.Value]
		if f == nil || len(n.Arguments) != f.arity() {
			return
		}
		args := append([]ast.Node{envNode()}, n.Arguments...)
		if f.object != "" {
			args = append(args, &ast.IntegerNode{Value: needAll})
		}
		n.Arguments = args
	case *ast.MemberNode:
		call, ok := n.Node.(*ast.CallNode)
		if !ok {
			return
		}
		id, ok := call.Callee.(*ast.IdentifierNode)
		if !ok {
			return
		}
		f := p.c.byName[id.Value]
		if f == nil {
			f = p.c.byVariable[strings.TrimPrefix(id.Value, "_")]
		}
		prop, ok := n.Property.(*ast.StringNode)
		if f == nil || f.object == "" || !ok || len(call.Arguments) == 0 {
			return
		}
		if mask, ok := call.Arguments[len(call.Arguments)-1].(*ast.IntegerNode); ok {
			if need, ok := p.c.needs[f.object][prop.Value]; ok {
				mask.Value = int(need)
			}
		}
	}
}

// NewVM returns an expr VM with the default memory budget. Keep one per
// goroutine and pass it to every Eval.
func NewVM() *vm.VM { return &vm.VM{MemoryBudget: DefaultMemoryBudget} }

// EvalError is a failure while a program runs: missing data (errors.Is
// ErrMissingData from package marketdata), or a runtime error such as an
// index out of range. Line and Column locate it in the source.
type EvalError struct {
	Line, Column int
	Err          error
}

// Error returns the underlying message, which is in plain words.
func (e *EvalError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *EvalError) Unwrap() error { return e.Err }

// ErrUnboundSymbol is returned by Eval for a program that reads the
// for_each symbol but was not bound to one with WithSymbol.
var ErrUnboundSymbol = errors.New("the program reads symbol but is not bound to a for_each symbol")

// ErrNoState is returned by Eval for an Env without a State.
var ErrNoState = errors.New("the environment has no State")

// WithSymbol returns a copy of p bound to the for_each instance symbol sym,
// with its Reads resolved for sym. The compiled code is shared.
func (p *Program) WithSymbol(sym string, cat *Catalog) *Program {
	q := *p
	q.symbol = sym
	q.Reads = p.Reads.WithSymbol(sym, cat)
	return &q
}

// Symbol returns the bound for_each symbol, or "".
func (p *Program) Symbol() string { return p.symbol }

// Compiled reports whether p runs as the code of CompilerOptions.Closures
// rather than on expr's VM.
func (p *Program) Compiled() bool { return p.closure != nil }

// VMProgram returns the compiled expr program, for running it directly (the
// engine's benchmarks, and the backtest's equivalence tests, compare
// against that).
func (p *Program) VMProgram() *vm.Program { return p.prog }

// Eval runs p over env with m, expr's VM; a program compiled by
// CompilerOptions.Closures (the backtest's) runs as that code instead. It
// writes p's bound symbol into env.
func (p *Program) Eval(m *vm.VM, env *Env) (any, error) {
	if env.v.state == nil {
		return nil, ErrNoState
	}
	if p.Reads.UsesSymbol {
		if p.symbol == "" {
			return nil, ErrUnboundSymbol
		}
		env.v.Symbol, env.c.Symbol = p.symbol, p.symbol
	}
	var out any
	var err error
	if p.closure != nil {
		out, err = p.closure.Run(&env.c)
	} else {
		out, err = m.Run(p.prog, &env.v)
	}
	if err != nil {
		return nil, p.evalError(err)
	}
	return out, nil
}

// EvalBool runs a condition or a Bool formula.
func (p *Program) EvalBool(m *vm.VM, env *Env) (bool, error) {
	out, err := p.Eval(m, env)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%s gave %T, not true or false", p.Source, out)
	}
	return b, nil
}

// EvalNumber runs a Number formula.
func (p *Program) EvalNumber(m *vm.VM, env *Env) (float64, error) {
	out, err := p.Eval(m, env)
	if err != nil {
		return 0, err
	}
	switch v := out.(type) {
	case float64:
		return v, nil
	case int:
		return float64(v), nil
	}
	return 0, fmt.Errorf("%s gave %T, not a number", p.Source, out)
}

// EvalString runs a String formula.
func (p *Program) EvalString(m *vm.VM, env *Env) (string, error) {
	out, err := p.Eval(m, env)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		return "", fmt.Errorf("%s gave %T, not text", p.Source, out)
	}
	return s, nil
}

// EvalTextList runs a TextList formula: every item must be a text.
func (p *Program) EvalTextList(m *vm.VM, env *Env) ([]string, error) {
	out, err := p.Eval(m, env)
	if err != nil {
		return nil, err
	}
	switch v := out.(type) {
	case []string:
		return v, nil
	case []any:
		texts := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s gave %T as item %d, not text", p.Source, x, i+1)
			}
			texts[i] = s
		}
		return texts, nil
	}
	return nil, fmt.Errorf("%s gave %T, not a list of texts", p.Source, out)
}

func (p *Program) evalError(err error) error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return err
	}
	line, col := position(p.Source, fe.From)
	inner := fe.Unwrap()
	if inner == nil {
		inner = errors.New(fe.Message)
	}
	return &EvalError{Line: line, Column: col, Err: inner}
}
