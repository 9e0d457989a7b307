package rules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
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
	// keys caches the allowed keys of each table (DefaultsKeys, an action's
	// parameters), built once per load rather than per rule.
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
	// Decoder reads the file's nodes and collects its findings.
	*rulefmt.Decoder
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
	parsed, errs := rulefmt.Parse(path, data, rulefmt.ParseOptions{Getenv: l.opts.Getenv, EnvAlso: l.opts.EnvAlso, AllowEmpty: l.opts.AllowEmpty})
	l.errs = append(l.errs, errs...)
	if parsed.Source != nil {
		l.sources[path] = parsed.Source
	}
	if !parsed.Read {
		return
	}
	f := &fileLoader{loader: l, Decoder: rulefmt.NewDecoder(parsed.Source), file: &File{Path: path}}
	f.decodeFile(parsed)
	l.errs = append(l.errs, f.Errs...)
	l.files = append(l.files, f.file)
}

// position returns the author's position of n.
func (f *fileLoader) position(n *yaml.Node) Position {
	return f.positionAt(rulefmt.NodePos(n))
}

func (f *fileLoader) positionAt(p rulefmt.Pos) Position {
	return Position{File: f.Src.Path, Line: p.Line, Column: f.Src.OrigCol(p.Line, p.Col)}
}

// decodeFile reads the language's part of a file whose shape rulefmt.Parse
// checked: the defaults, against the account's position mode when known,
// and each rule.
func (f *fileLoader) decodeFile(parsed *rulefmt.File) {
	f.file.Defaults = Defaults{ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed}
	if parsed.Defaults != nil {
		f.decodeDefaults(parsed.Defaults)
	}
	// The account's mode, when known, is what the exchange will enforce.
	if known := f.opts.PositionModes[f.file.Defaults.ProductType]; known != "" {
		f.file.Defaults.PositionMode = known
	}
	for _, r := range parsed.Rules {
		f.decodeRule(r)
	}
}

func (f *fileLoader) decodeDefaults(n *yaml.Node) {
	entries, ok := f.Mapping(n, "defaults", f.allowedKeys("defaults", func() []string { return rulefmt.KeyNames(DefaultsKeys()) }))
	if !ok {
		return
	}
	d := &f.file.Defaults
	for _, kv := range entries {
		switch kv.Key.Value {
		case "product_type":
			if s, ok := f.Choice(kv.Value, "product_type", enumValues("productType")); ok {
				d.ProductType = exchange.ProductType(s)
			}
		case "margin_mode":
			if s, ok := f.Choice(kv.Value, "margin_mode", enumValues("marginMode")); ok {
				d.MarginMode = exchange.MarginMode(s)
			}
		case "margin_coin":
			if s, ok := f.Text(kv.Value, "margin_coin"); ok {
				if s != strings.ToUpper(s) {
					f.Errorf(kv.Value, "write "+strings.ToUpper(s), "margin_coin must be upper case")
					continue
				}
				d.MarginCoin = s
			}
		case "position_mode":
			if s, ok := f.Choice(kv.Value, "position_mode", enumValues("posMode")); ok {
				d.PositionMode = exchange.PosMode(s)
			}
		}
	}
	if known, ok := f.opts.PositionModes[d.ProductType]; ok && known != "" && d.PositionMode != "" && d.PositionMode != known {
		f.Errorf(n, "change position_mode or the account's setting", "defaults say position_mode %s, but the account is in %s for %s", d.PositionMode, known, d.ProductType)
	}
}

// enumValues returns the values the exchange accepts for one of its enums
// (productType, marginMode...).
func enumValues(name string) []string { return exchange.EnumValues()[name] }
