package rules

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"gopkg.in/yaml.v3"
)

// LoadOptions configure Load. The zero value loads without a catalog (no
// symbol or stock-pair checks) and with every ${ENV} reference unset.
type LoadOptions struct {
	// Actions declares the action kinds a rule may take: package actions'
	// Defs (each kind is declared there, beside how it plans its requests).
	// Required: a loader without them refuses every file.
	Actions []*ActionDef
	// Catalog lists the contracts and stock pairs that exist; symbols and
	// stock pairs named in rules are checked against it.
	Catalog *Catalog
	// Getenv resolves ${NAME} references; an empty result counts as unset.
	Getenv func(string) string
	// EnvAlso names where else than the environment a ${NAME} can be
	// given, for the hint of an unset one: engine test says "list it under
	// env: in the test file".
	EnvAlso string
	// PositionModes is the account's position mode per product type when it
	// is known (engine check --venue); a file's defaults.position_mode is
	// checked against it.
	PositionModes map[exchange.ProductType]exchange.PosMode
	// AllowEmpty accepts a file that is empty or holds only comments
	// (with a warning). Without it such a file is an error: an editor that
	// did not save must not look like a passing check.
	AllowEmpty bool
	// Account, when known, lets the loader warn about orders worth far
	// more than the account can carry.
	Account *AccountFacts
	// Closures, when set, compiles every condition and formula also to
	// faster Go code (CompilerOptions.Closures): the backtest's speed-up.
	// Nil, as everywhere but the backtest, runs them on expr's VM.
	Closures ClosureCompiler
	// WarnRepeats warns about a rule that trades at market with nothing to
	// stop it firing again (repeatWarnings). engine check sets it; the
	// commands that run rules do not repeat it at every start.
	WarnRepeats bool
}

// maxFileSize bounds one rule file; a rule file is text a person wrote.
const maxFileSize = 4 << 20

// Load reads every rule file under paths (directories are walked
// recursively for *.yaml and *.yml, skipping *_test.yaml rule tests and
// hidden directories; a path may also name one file), checks and compiles
// them. It collects every finding rather than stopping at the first. The
// RuleSet is nil when there is any error; warnings alone do not stop it.
func Load(ctx context.Context, paths []string, opts LoadOptions) (*RuleSet, rulefmt.Errors) {
	l := load(ctx, paths, opts)
	return l.finish()
}

// Check loads like Load and returns every file that could be read, also
// when other files (or the same file) have errors, for reports such as
// engine check's per-file summary. The files must not be run.
func Check(ctx context.Context, paths []string, opts LoadOptions) ([]*File, rulefmt.Errors) {
	l := load(ctx, paths, opts)
	l.checkRuleNames()
	rulefmt.SortErrors(l.errs)
	return l.files, l.errs
}

func load(ctx context.Context, paths []string, opts LoadOptions) *loader {
	l := newLoader(opts)
	for _, p := range paths {
		files, err := RuleFiles(p)
		if err != nil {
			l.errs = append(l.errs, &rulefmt.Error{File: p, Severity: rulefmt.SeverityError, Message: err.Error()})
			continue
		}
		if len(files) == 0 {
			// A mistyped directory must not pass a CI check by having nothing in it.
			l.errs = append(l.errs, &rulefmt.Error{File: p, Severity: rulefmt.SeverityError, Message: "no rule files (*.yaml, *.yml) here"})
			continue
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				l.errs = append(l.errs, &rulefmt.Error{File: f, Severity: rulefmt.SeverityError, Message: "loading stopped: " + err.Error()})
				return l
			}
			data, err := ReadFile(f)
			if err != nil {
				l.errs = append(l.errs, &rulefmt.Error{File: f, Severity: rulefmt.SeverityError, Message: err.Error()})
				continue
			}
			l.file(f, data)
		}
	}
	return l
}

// LoadBytes loads one rule file given as bytes; name is the path shown in
// findings. It is Load for tests, editors and the fuzz target.
func LoadBytes(ctx context.Context, name string, data []byte, opts LoadOptions) (*RuleSet, rulefmt.Errors) {
	l := newLoader(opts)
	if err := ctx.Err(); err != nil {
		return nil, rulefmt.Errors{{File: name, Severity: rulefmt.SeverityError, Message: "loading stopped: " + err.Error()}}
	}
	if len(data) > maxFileSize {
		return nil, rulefmt.Errors{{File: name, Severity: rulefmt.SeverityError, Message: fmt.Sprintf("file is larger than %d bytes", maxFileSize)}}
	}
	l.file(name, data)
	return l.finish()
}

// ReadFile reads one rule or rule-test file. Only a regular file is read: a
// named pipe, device or socket could block the read forever, so it is
// refused before it is opened (and checked again once open, in case it was
// swapped in between).
func ReadFile(path string) ([]byte, error) {
	if err := regularFile(os.Stat(path)); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := regularFile(f.Stat()); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("file is larger than %d bytes", maxFileSize)
	}
	return data, nil
}

// regularFile passes the answer of a stat when it is a regular file, and
// otherwise says in plain words what the file is.
func regularFile(info fs.FileInfo, err error) error {
	if err != nil {
		return err
	}
	m := info.Mode()
	kind := ""
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	default:
		kind = "a special file"
	}
	return fmt.Errorf("not a regular file but %s: only regular files are read", kind)
}

// isRuleFile reports whether name is a rule file (not a rule test).
func isRuleFile(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	return !strings.HasSuffix(strings.TrimSuffix(name, ext), "_test")
}

// RuleFiles lists the rule files Load reads for path, in the order it
// reads them: path itself when it is a file, else every *.yaml and *.yml
// under it except rule tests (*_test.yaml) and hidden directories.
func RuleFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no such file or directory")
		}
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if isRuleFile(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", path, err)
	}
	return out, nil
}

// loader holds what one Load sees across files.
type loader struct {
	opts LoadOptions
	// plain compiles rules without for_each, each the rules with it (where
	// the variable symbol exists).
	plain, each *Compiler
	errs        rulefmt.Errors
	names       map[string]Position // rule name -> where it was first defined
	files       []*File
	sources     map[string]*rulefmt.Source // by path, for findings across files
	ratios      map[string]bool            // State fields whose unit is a ratio, built on first use
	compiled    map[compileKey]*Program
	// keys caches the allowed keys of each table (FileKeys, RuleKeys, an
	// action's parameters), built once per load rather than per rule.
	keys map[string][]string
}

// allowedKeys returns the names of table name, building them once.
func (l *loader) allowedKeys(name string, build func() []string) []string {
	if k, ok := l.keys[name]; ok {
		return k
	}
	k := build()
	l.keys[name] = k
	return k
}

func newLoader(opts LoadOptions) *loader {
	l := &loader{
		opts:     opts,
		plain:    NewCompiler(CompilerOptions{Catalog: opts.Catalog, Closures: opts.Closures}),
		each:     NewCompiler(CompilerOptions{Catalog: opts.Catalog, ForEach: true, Closures: opts.Closures}),
		names:    map[string]Position{},
		compiled: map[compileKey]*Program{},
		keys:     map[string][]string{},
		sources:  map[string]*rulefmt.Source{},
	}
	if len(opts.Actions) == 0 {
		// A program error, said plainly: without it every action would be
		// "unknown", which blames the trader's file.
		l.errs = append(l.errs, &rulefmt.Error{Severity: rulefmt.SeverityError, Message: ErrNoActionKinds.Error()})
	}
	return l
}

// ErrNoActionKinds is the loader's finding when LoadOptions.Actions is
// empty.
var ErrNoActionKinds = errors.New("the rule loader was given no action kinds (LoadOptions.Actions): a program error, not the file's")

func (l *loader) finish() (*RuleSet, rulefmt.Errors) {
	l.checkRuleNames()
	rulefmt.SortErrors(l.errs)
	if l.errs.HasErrors() {
		return nil, l.errs
	}
	return newRuleSet(l.files), l.errs
}

// checkRuleNames checks the rule names that firings_today and
// minutes_since_fired name against every loaded rule: only when all files
// are in, since a rule may read the firings of a rule in another file.
func (l *loader) checkRuleNames() {
	known := map[string]bool{}
	var names []string
	for _, f := range l.files {
		for _, r := range f.Rules {
			for _, n := range []string{r.Name, r.BaseName} {
				if n != "" && !known[n] {
					known[n] = true
					names = append(names, n)
				}
			}
		}
	}
	reported := map[string]bool{} // the instances of a for_each rule read the same names
	for _, f := range l.files {
		for _, r := range f.Rules {
			var read []string
			for _, p := range r.Programs() {
				read = union(read, p.Reads.Rules)
			}
			for _, n := range read {
				key := r.WhenPos.String() + "\x00" + n
				if known[n] || reported[key] {
					continue
				}
				reported[key] = true
				hint := "the name of a rule in the loaded files, as written after name:"
				if s := rulefmt.Suggest(n, names); s != "" {
					hint = "did you mean " + strconv.Quote(s) + "?"
				}
				at := r.WhenPos
				e := &rulefmt.Error{File: at.File, Line: at.Line, Column: at.Column, Severity: rulefmt.SeverityError,
					Message: fmt.Sprintf("rule %s reads the firings of %q, but no rule has that name", ruleLabel(r), n), Hint: hint}
				if src := l.sources[at.File]; src != nil {
					e.Source = src.OrigLine(at.Line)
				}
				l.errs = append(l.errs, e)
			}
		}
	}
}

// fileLoader decodes one file.
type fileLoader struct {
	*loader
	src  *rulefmt.Source
	file *File
	// forEachRule is set while decoding a rule that has for_each.
	forEachRule bool
}

// comp returns the compiler for the rule being decoded.
func (f *fileLoader) comp() *Compiler {
	if f.forEachRule {
		return f.each
	}
	return f.plain
}

// compileKey identifies a compiled program: the same text compiled for the
// same result by the same compiler gives the same immutable Program.
type compileKey struct {
	src       string
	kind      Kind
	condition bool
	forEach   bool
}

// compile compiles a condition or formula, sharing the Program of an
// identical earlier one (rule files repeat formulas such as
// =stock("TSLA").bid * 0.999). Failures are not kept: each place that has
// the mistake reports it.
func (f *fileLoader) compile(src string, kind Kind, condition bool) (*Program, []*ExprError) {
	key := compileKey{src, kind, condition, f.forEachRule}
	if p, ok := f.compiled[key]; ok {
		return p, nil
	}
	var (
		p    *Program
		errs []*ExprError
	)
	if condition {
		p, errs = f.comp().Condition(src)
	} else {
		p, errs = f.comp().Formula(src, kind)
	}
	if p != nil && len(errs) == 0 {
		f.compiled[key] = p
	}
	return p, errs
}

func (l *loader) file(path string, data []byte) {
	if errs := rulefmt.EncodingErrors(path, data); len(errs) > 0 {
		l.errs = append(l.errs, errs...)
		return
	}
	data = rulefmt.TrimBOM(data)
	src, envErrs := rulefmt.ExpandEnv(path, data, l.opts.Getenv, l.opts.EnvAlso)
	l.errs = append(l.errs, envErrs...)
	f := &fileLoader{loader: l, src: src, file: &File{Path: path}}
	l.sources[path] = src
	if tabs := rulefmt.TabErrors(src); len(tabs) > 0 {
		l.errs = append(l.errs, tabs...)
		return
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader([]byte(strings.Join(src.Expanded, "\n"))))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.emptyFile(f)
			return
		}
		l.errs = append(l.errs, rulefmt.SyntaxError(src, err))
		return
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		l.errs = append(l.errs, src.ErrorAt(rulefmt.NodePos(&next), rulefmt.SeverityError,
			"a second YAML document (after ---) in one file", "put each set of rules in its own file"))
	} else if !errors.Is(err, io.EOF) {
		l.errs = append(l.errs, rulefmt.SyntaxError(src, err))
		return
	}
	if len(envErrs) > 0 {
		// Substituted values are missing, so the positions and values below
		// would only repeat the same mistake in other words.
		return
	}
	f.decodeFile(&doc)
	l.files = append(l.files, f.file)
}

// emptyFile reports a file without any YAML content: an error, unless
// AllowEmpty, because an editor that did not save leaves such a file.
func (l *loader) emptyFile(f *fileLoader) {
	e := &rulefmt.Error{File: f.src.Path, Line: 1, Column: 1, Severity: rulefmt.SeverityError,
		Message: "the file is empty: it has no rules",
		Hint:    "write the rules under a line \"rules:\" (was the file saved?), or check with --allow-empty to accept empty files"}
	if rulefmt.OnlyComments(f.src.Orig) && strings.TrimSpace(strings.Join(f.src.Orig, "")) != "" {
		e.Message = "the file holds only comments: it has no rules"
		e.Source = f.src.OrigLine(1)
	}
	if l.opts.AllowEmpty {
		e.Severity, e.Hint = rulefmt.SeverityWarning, ""
	}
	l.errs = append(l.errs, e)
	l.files = append(l.files, f.file)
}

// errorf records an error at n.
func (f *fileLoader) errorf(n *yaml.Node, hint string, format string, args ...any) {
	f.errs = append(f.errs, f.src.ErrorAt(rulefmt.NodePos(n), rulefmt.SeverityError, fmt.Sprintf(format, args...), hint))
}

// errorAt records an error at p.
func (f *fileLoader) errorAt(p rulefmt.Pos, hint string, format string, args ...any) {
	f.errs = append(f.errs, f.src.ErrorAt(p, rulefmt.SeverityError, fmt.Sprintf(format, args...), hint))
}

// warnf records a warning at n.
func (f *fileLoader) warnf(n *yaml.Node, hint string, format string, args ...any) {
	f.errs = append(f.errs, f.src.ErrorAt(rulefmt.NodePos(n), rulefmt.SeverityWarning, fmt.Sprintf(format, args...), hint))
}

// warn records a warning at p.
func (f *fileLoader) warn(p rulefmt.Pos, hint, msg string) {
	f.errs = append(f.errs, f.src.ErrorAt(p, rulefmt.SeverityWarning, msg, hint))
}

// position returns the author's position of n.
func (f *fileLoader) position(n *yaml.Node) Position {
	return f.positionAt(rulefmt.NodePos(n))
}

func (f *fileLoader) positionAt(p rulefmt.Pos) Position {
	return Position{File: f.src.Path, Line: p.Line, Column: f.src.OrigCol(p.Line, p.Col)}
}

// keyValue is one entry of a mapping.
type keyValue struct {
	key, value *yaml.Node
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// describe names the kind of a node for messages: "a list", "the text 'two'".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping (key: value lines)"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "nothing"
		case "!!bool":
			return n.Value
		case "!!int", "!!float":
			return "the number " + n.Value
		}
		return fmt.Sprintf("the text '%s'", n.Value)
	}
	return "something else"
}

// mapping returns the entries of a mapping node in order, reporting a node
// that is not a mapping (as what), duplicate keys and keys not in allowed.
// synonyms maps words authors use for a key to the key they meant.
// A key that an unknown key's hint suggested is reported in suggested, so
// that callers do not report it missing as well.
func (f *fileLoader) mapping(n *yaml.Node, what string, allowed []string, synonyms map[string]string) ([]keyValue, bool) {
	entries, _, ok := f.mappingSuggest(n, what, allowed, synonyms)
	return entries, ok
}

func (f *fileLoader) mappingSuggest(n *yaml.Node, what string, allowed []string, synonyms map[string]string) (_ []keyValue, suggested map[string]bool, _ bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		f.errorf(n, "", "%s must be a mapping of key: value lines, got %s", what, describe(n))
		return nil, nil, false
	}
	suggested = map[string]bool{}
	seen := map[string]*yaml.Node{}
	var out []keyValue
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			f.errorf(k, "put the key in quotes or check the line above", "a key of %s must be a word, got %s", what, describe(k))
			continue
		}
		if k.Value == "<<" {
			f.errorf(k, "write the keys out; rule files do not use <<", "YAML merge keys (<<) are not supported")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			f.errorf(k, fmt.Sprintf("the first %s is on line %d; remove one of them", k.Value, first.Line),
				"%s is given twice in %s", k.Value, what)
			continue
		}
		seen[k.Value] = k
		if allowed != nil && !contains(allowed, k.Value) {
			if k.Value == "client_oid" {
				f.errorf(k, "leave it out: the engine derives each order's client_oid from the rule and the firing, so a retry or a restart never places an order twice",
					"client_oid cannot be set in %s", what)
				continue
			}
			hint, meant := unknownKeyHint(k.Value, allowed, synonyms)
			if meant != "" {
				suggested[meant] = true
			}
			f.errorf(k, hint, "unknown key %s in %s", k.Value, what)
			continue
		}
		out = append(out, keyValue{k, v})
	}
	return out, suggested, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func unknownKeyHint(key string, allowed []string, synonyms map[string]string) (hint, meant string) {
	if s, ok := synonyms[strings.ToLower(key)]; ok && contains(allowed, s) {
		return "did you mean " + s + "?", s
	}
	if s := rulefmt.Suggest(strings.ToLower(key), allowed); s != "" {
		return "did you mean " + s + "?", s
	}
	return "allowed keys: " + strings.Join(allowed, ", "), ""
}

// keySynonyms are words authors reach for instead of the key they meant.
var keySynonyms = map[string]string{
	"condition": "when", "if": "when", "trigger": "when", "then": "actions", "do": "actions",
	"action": "actions", "title": "name", "id": "name", "wait": "for", "hold": "for",
	"duration": "for", "delay": "for", "cool_down": "cooldown", "cooldown_period": "cooldown",
	"rule": "rules", "default": "defaults", "product": "product_type", "producttype": "product_type",
	"qty": "size", "quantity": "size", "amount": "size", "ordertype": "type", "order_type": "type",
	"tp": "take_profit", "sl": "stop_loss", "takeprofit": "take_profit", "stoploss": "stop_loss",
	"tradeside": "trade_side", "reduceonly": "reduce_only", "marginmode": "margin_mode",
	"margincoin": "margin_coin", "clientoid": "client_oid", "orderid": "order_id", "msg": "message",
	"text": "message", "each": "for_each", "foreach": "for_each", "symbols": "for_each",
	"holdside": "side", "position_side": "side", "positionmode": "position_mode", "mode": "position_mode",
}

// valueSynonyms are values authors write for the choice they meant.
var valueSynonyms = map[string]string{
	"buy": "long", "sell": "short", "one_way": "one_way_mode", "oneway": "one_way_mode",
	"hedge": "hedge_mode", "cross": "crossed", "isolate": "isolated", "session": "per_session",
	"day": "per_day", "daily": "per_day", "warning": "warn", "usdt": "USDT-FUTURES",
}

func (f *fileLoader) decodeFile(doc *yaml.Node) {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = deref(root.Content[0])
	}
	if root.Kind == yaml.SequenceNode {
		f.errorf(root, "start the file with a line \"rules:\" and indent the list under it", "the file is a list; rules go under a \"rules:\" key")
		return
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		f.warnf(root, "", "the file has no rules")
		return
	}
	if kind := otherFileKind(root); kind != "" {
		f.errorf(root, otherFileHints[kind], "this is %s, not a rule file", kind)
		return
	}
	entries, suggested, ok := f.mappingSuggest(root, "the file", f.allowedKeys("file", func() []string { return keyNames(FileKeys()) }), keySynonyms)
	if !ok {
		return
	}
	f.file.Defaults = Defaults{ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed}
	var rulesNode *yaml.Node
	for _, kv := range entries {
		switch kv.key.Value {
		case "defaults":
			f.decodeDefaults(kv.value)
		case "rules":
			rulesNode = kv.value
		}
	}
	// The account's mode, when known, is what the exchange will enforce.
	if known := f.opts.PositionModes[f.file.Defaults.ProductType]; known != "" {
		f.file.Defaults.PositionMode = known
	}
	if rulesNode == nil {
		if !suggested["rules"] {
			f.errorf(root, "add a \"rules:\" list", "the file has no rules: key")
		}
		return
	}
	f.decodeRules(rulesNode)
}

func (f *fileLoader) decodeDefaults(n *yaml.Node) {
	entries, ok := f.mapping(n, "defaults", f.allowedKeys("defaults", func() []string { return keyNames(DefaultsKeys()) }), keySynonyms)
	if !ok {
		return
	}
	d := &f.file.Defaults
	for _, kv := range entries {
		switch kv.key.Value {
		case "product_type":
			if s, ok := f.choice(kv.value, "product_type", enumValues("productType")); ok {
				d.ProductType = exchange.ProductType(s)
			}
		case "margin_mode":
			if s, ok := f.choice(kv.value, "margin_mode", enumValues("marginMode")); ok {
				d.MarginMode = exchange.MarginMode(s)
			}
		case "margin_coin":
			if s, ok := f.text(kv.value, "margin_coin"); ok {
				if s != strings.ToUpper(s) {
					f.errorf(kv.value, "write "+strings.ToUpper(s), "margin_coin must be upper case")
					continue
				}
				d.MarginCoin = s
			}
		case "position_mode":
			if s, ok := f.choice(kv.value, "position_mode", enumValues("posMode")); ok {
				d.PositionMode = exchange.PosMode(s)
			}
		}
	}
	if known, ok := f.opts.PositionModes[d.ProductType]; ok && known != "" && d.PositionMode != "" && d.PositionMode != known {
		f.errorf(n, "change position_mode or the account's setting", "defaults say position_mode %s, but the account is in %s for %s", d.PositionMode, known, d.ProductType)
	}
}

// text decodes a scalar as a text (numbers and booleans keep their spelling).
func (f *fileLoader) text(n *yaml.Node, name string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		f.errorf(n, "", "%s must be a text, got %s", name, describe(n))
		return "", false
	}
	return n.Value, true
}

// choice decodes a scalar that must be one of values.
func (f *fileLoader) choice(n *yaml.Node, name string, values []string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		f.errorf(n, "", "%s must be one of %s, got %s", name, strings.Join(values, ", "), describe(n))
		return "", false
	}
	if contains(values, n.Value) {
		return n.Value, true
	}
	hint := ""
	if s, ok := valueSynonyms[strings.ToLower(n.Value)]; ok && contains(values, s) {
		hint = "did you mean " + s + "?"
	} else if s := rulefmt.Suggest(strings.ToLower(n.Value), values); s != "" {
		hint = "did you mean " + s + "?"
	}
	f.errorf(n, hint, "%s must be one of %s, got '%s'", name, strings.Join(values, ", "), n.Value)
	return "", false
}

// scenarioKeys are the top-level keys of a scenario file (sim.Scenario)
// that a rule file never has; a test keeps the list equal to the
// scenario's own.
var scenarioKeys = []string{"clock", "settings", "accounts", "contracts", "prices", "stock_pairs", "calendar", "strategy_orders", "discount_tiers", "faults"}

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
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i].Value; {
		case k == "rules" || k == "defaults":
			return ""
		case k == "tests":
			test = true
		case contains(scenarioKeys, k):
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

// enumValues returns the values the exchange accepts for one of its enums
// (productType, marginMode...).
func enumValues(name string) []string { return exchange.EnumValues()[name] }
