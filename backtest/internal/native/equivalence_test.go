package native_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/backtest/internal/native"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// These differential tests hold the backtest's compiled conditions to
// expr's VM, which engine run uses: every program is compiled twice, by a
// rules.Compiler without closures (the VM, as live) and by one with this
// package's Compiler (as the backtest), and both are run over many States.

// equivalenceSymbols are the for_each symbols programs that read symbol are
// bound to.
var equivalenceSymbols = []string{"TSLAUSDT", "NVDAUSDT", "BTCUSDT"}

// twin is one condition or formula compiled both ways.
type twin struct {
	vm, compiled *rules.Program
}

// corpusDirs are the rule files of the corpus: the good test files of the
// rules package and examples/rules.
func corpusDirs() []string {
	dirs, _ := filepath.Glob("../../../rules/testdata/good")
	return append(dirs, "../../../examples/rules")
}

// corpusPrograms returns every condition and formula of examples/rules and
// of the good rule files of the rules package, bound as the loader binds
// them, loaded both ways.
func corpusPrograms(tb testing.TB) []twin {
	tb.Helper()
	var out []twin
	for _, dir := range corpusDirs() {
		load := func(c rules.ClosureCompiler) []*rules.Program {
			rs, errs := rules.Load(context.Background(), []string{dir}, rules.LoadOptions{Actions: actions.Defs(), Catalog: loadCatalog(), Getenv: testEnv, Closures: c})
			if errs.HasErrors() {
				tb.Fatalf("%s: %v", dir, errs)
			}
			var progs []*rules.Program
			for _, r := range rs.Rules {
				progs = append(progs, r.Programs()...)
			}
			return progs
		}
		vm, compiled := load(nil), load(native.NewCompiler())
		if len(vm) != len(compiled) {
			tb.Fatalf("%s: %d programs on the VM, %d compiled", dir, len(vm), len(compiled))
		}
		for i := range vm {
			out = append(out, twin{vm: vm[i], compiled: compiled[i]})
		}
	}
	if len(out) < 40 {
		tb.Fatalf("only %d programs in the corpus", len(out))
	}
	return out
}

// compilers are a rules.Compiler on expr's VM and one with this package's
// closures, over the test catalog, for for_each rules.
type compilers struct {
	vm, compiled *rules.Compiler
}

func newCompilers() compilers {
	cat := testCatalog()
	return compilers{
		vm:       rules.NewCompiler(rules.CompilerOptions{Catalog: cat, ForEach: true}),
		compiled: rules.NewCompiler(rules.CompilerOptions{Catalog: cat, ForEach: true, Closures: native.NewCompiler()}),
	}
}

// compileAny compiles src both ways as a condition, else as a number or a
// text formula; ok is false when it is none of them.
func (c compilers) compileAny(src string) (twin, bool) {
	vm := compileAny(c.vm, src)
	if vm == nil {
		return twin{}, false
	}
	compiled := compileAny(c.compiled, src)
	if compiled == nil {
		panic("compiles on the VM only: " + src)
	}
	return twin{vm: vm, compiled: compiled}, true
}

func compileAny(c *rules.Compiler, src string) *rules.Program {
	p, errs := c.Condition(src)
	for _, k := range []rules.Kind{rules.Number, rules.String} {
		if len(errs) == 0 {
			break
		}
		p, errs = c.Formula(src, k)
	}
	if len(errs) > 0 {
		return nil
	}
	return p
}

// bind binds both programs to sym when they read symbol.
func (w twin) bind(sym string) twin {
	if !w.vm.Reads.UsesSymbol {
		return w
	}
	cat := testCatalog()
	return twin{vm: w.vm.WithSymbol(sym, cat), compiled: w.compiled.WithSymbol(sym, cat)}
}

// checkSame runs the compiled program and the VM's over s and reports any
// difference in value or error. A program the closures leave to the VM has
// nothing to compare.
func checkSame(t *testing.T, w twin, s *marketdata.State) {
	t.Helper()
	if !w.compiled.Compiled() {
		return
	}
	if w.vm.Compiled() {
		t.Fatalf("%s: the VM's compiler made closures", w.vm.Source)
	}
	env, m := rules.NewEnv(s), rules.NewVM()
	want, wantErr := w.vm.Eval(m, env)
	got, gotErr := w.compiled.Eval(m, env)
	if diff := outcomeDiff(got, gotErr, want, wantErr); diff != "" {
		t.Errorf("%s (symbol %q) at %s: %s", w.vm.Source, w.vm.Symbol(), s.Now.Format("2006-01-02 15:04"), diff)
	}
}

// outcomeDiff compares a native result with the VM's: the same value of the
// same Go type (NaN equal to NaN), or the same error: text, place and
// whether it is missing data.
func outcomeDiff(got any, gotErr error, want any, wantErr error) string {
	switch {
	case gotErr == nil && wantErr == nil:
		if reflect.TypeOf(got) != reflect.TypeOf(want) {
			return fmt.Sprintf("native gives %T %v, the VM %T %v", got, got, want, want)
		}
		if g, ok := got.(float64); ok && math.IsNaN(g) && math.IsNaN(want.(float64)) {
			return ""
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("native gives %v, the VM %v", got, want)
		}
		return ""
	case gotErr == nil || wantErr == nil:
		return fmt.Sprintf("native gives %v, error %v; the VM %v, error %v", got, gotErr, want, wantErr)
	}
	if gotErr.Error() != wantErr.Error() {
		return fmt.Sprintf("native error %q, the VM's %q", gotErr, wantErr)
	}
	var g, w *rules.EvalError
	if errors.As(gotErr, &g) != errors.As(wantErr, &w) {
		return fmt.Sprintf("native error %#v, the VM's %#v", gotErr, wantErr)
	}
	if g != nil && (g.Line != w.Line || g.Column != w.Column) {
		return fmt.Sprintf("native error %q at %d:%d, the VM's at %d:%d", gotErr, g.Line, g.Column, w.Line, w.Column)
	}
	if errors.Is(gotErr, marketdata.ErrMissingData) != errors.Is(wantErr, marketdata.ErrMissingData) {
		return fmt.Sprintf("native error %q is missing data: %v; the VM's: %v", gotErr,
			errors.Is(gotErr, marketdata.ErrMissingData), errors.Is(wantErr, marketdata.ErrMissingData))
	}
	return ""
}

// equivalenceStates are the States the tests compare on: the fixture and
// random ones.
func equivalenceStates(tb testing.TB, n int) []*marketdata.State {
	out := []*marketdata.State{testState(tb)}
	for seed := uint64(1); len(out) < n; seed++ {
		if s := randomState(seed); s != nil {
			out = append(out, s)
		}
		if seed > uint64(10*n) {
			tb.Fatalf("only %d of %d random States could be built", len(out), seed)
		}
	}
	return out
}

// TestNativeCorpus runs every condition and formula of the example and
// test rule files natively and on the VM over many States: the same
// values, the same errors. Every one of them compiles natively, but for
// those that read the rules' firings (onVM).
func TestNativeCorpus(t *testing.T) {
	progs := corpusPrograms(t)
	states := equivalenceStates(t, 60)
	for _, w := range progs {
		if w.vm.Reads.Firings {
			if w.compiled.Compiled() {
				t.Errorf("%s: reads the rules' firings, which native programs cannot, yet compiled natively", w.vm.Source)
			}
			continue
		}
		if !w.compiled.Compiled() {
			t.Errorf("%s: runs on the VM; every example program should compile natively", w.vm.Source)
			continue
		}
		for _, s := range states {
			checkSame(t, w, s)
		}
	}
	t.Logf("%d programs, %d States", len(progs), len(states))
}

// checkPrograms runs each program natively and on the VM over every State,
// a program that reads symbol bound to one of equivalenceSymbols, and
// returns how many run natively.
func checkPrograms(t *testing.T, progs []twin, states []*marketdata.State) int {
	compiled := 0
	for i, w := range progs {
		if w.compiled.Compiled() {
			compiled++
		}
		w = w.bind(equivalenceSymbols[i%len(equivalenceSymbols)])
		for _, s := range states {
			checkSame(t, w, s)
		}
	}
	return compiled
}

// docExamples are the examples of the reference: of every variable,
// helper, builtin and field.
func docExamples() []string {
	var out []string
	for _, v := range rules.Variables() {
		out = append(out, v.Example)
	}
	for _, fs := range [][]rules.FuncDoc{rules.Functions(), rules.Builtins()} {
		for _, f := range fs {
			out = append(out, f.Example)
		}
	}
	for _, o := range marketdata.Objects() {
		for _, f := range o.Fields {
			out = append(out, f.Example)
		}
	}
	return out
}

// TestNativeDocExamples runs the reference's examples natively and on the
// VM over many States; those with a builtin the native compiler leaves to
// the VM have nothing to compare.
func TestNativeDocExamples(t *testing.T) {
	c := newCompilers()
	states := equivalenceStates(t, 30)
	var progs []twin
	for _, src := range docExamples() {
		if w, ok := c.compileAny(src); ok {
			progs = append(progs, w)
		}
	}
	compiled := checkPrograms(t, progs, states)
	t.Logf("%d examples compile, %d of them natively", len(progs), compiled)
	if compiled < len(progs)/2 {
		t.Errorf("only %d of %d examples compile natively", compiled, len(progs))
	}
}

// onVM are the helpers a native program does not bind, with why: they read
// the engine's record of firings (rules.Env), which a native program, built
// over the State alone, does not see. Conditions calling them run on the
// VM in backtests too; they are cheap, and few.
var onVM = map[string]string{
	"firings_today":       "reads the rules' firings, not the State",
	"minutes_since_fired": "reads the rules' firings, not the State",
}

// TestEveryHelperIsBound: every helper function of the rules, and every
// variable backed by a State lookup, compiles natively (bindings.go); one
// added to rules/functions.go without a binding here would silently run on
// the VM in backtests.
func TestEveryHelperIsBound(t *testing.T) {
	c := newCompilers()
	for _, f := range rules.Functions() {
		if why, ok := onVM[f.Name]; ok {
			t.Logf("%s stays on the VM: %s", f.Name, why)
			continue
		}
		w, ok := c.compileAny(f.Example)
		if !ok {
			t.Errorf("%s: its example %q does not compile", f.Name, f.Example)
			continue
		}
		if !w.compiled.Compiled() {
			t.Errorf("%s: its example %q runs on the VM: bind %s in bindings.go", f.Name, f.Example, f.Name)
		}
	}
	for _, v := range rules.Variables() {
		if v.Type == "time" {
			continue // now.Hour(): method calls are left to the VM
		}
		if w, ok := c.compileAny(v.Example); !ok || !w.compiled.Compiled() {
			t.Errorf("variable %s: its example %q does not compile natively", v.Name, v.Example)
		}
	}
}

// TestNativeGenerated runs generated conditions and formulas natively and
// on the VM over random States. Those that do not type-check are dropped;
// of the rest, most must compile natively, so that the comparison is not
// empty.
func TestNativeGenerated(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	c := newCompilers()
	states := equivalenceStates(t, 8)
	g := newExprGen(1)
	var progs []twin
	for i := range n {
		src, kind := g.condition(), rules.Bool
		if i%3 == 2 {
			src, kind = g.formula()
		}
		compile := func(rc *rules.Compiler) *rules.Program {
			var p *rules.Program
			var errs []*rules.ExprError
			if kind == rules.Bool {
				p, errs = rc.Condition(src)
			} else {
				p, errs = rc.Formula(src, kind)
			}
			if len(errs) > 0 {
				return nil
			}
			return p
		}
		if vm := compile(c.vm); vm != nil {
			progs = append(progs, twin{vm: vm, compiled: compile(c.compiled)})
		}
	}
	checked, compiled := len(progs), checkPrograms(t, progs, states)
	t.Logf("%d generated, %d type-check, %d of those compile natively", n, checked, compiled)
	if checked < n/5 || compiled < checked/2 {
		t.Errorf("%d of %d generated expressions type-check and %d compile natively: the generator no longer covers the compiler", checked, n, compiled)
	}
}

// FuzzNativeMatchesVM compiles src as a condition (else as a number or text
// formula) and runs it natively and on the VM over the random State of
// seed: the same value or the same error. The corpus is every program of
// the example and test rule files, the reference's examples and a few
// generated ones.
func FuzzNativeMatchesVM(f *testing.F) {
	for i, w := range corpusPrograms(f) {
		f.Add(w.vm.Source, uint64(i))
	}
	for i, src := range docExamples() {
		f.Add(src, uint64(500+i))
	}
	g := newExprGen(2)
	for i := range 20 {
		f.Add(g.condition(), uint64(1000+i))
	}
	c := newCompilers()
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		w, ok := c.compileAny(src)
		if !ok {
			return
		}
		w = w.bind(equivalenceSymbols[seed%uint64(len(equivalenceSymbols))])
		s := randomState(seed)
		if s == nil {
			s = testState(t)
		}
		checkSame(t, w, s)
	})
}
