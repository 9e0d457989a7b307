package rules

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/marketdata"
)

// equivalenceSymbols are the for_each symbols programs that read symbol are
// bound to.
var equivalenceSymbols = []string{"TSLAUSDT", "NVDAUSDT", "BTCUSDT"}

// corpusPrograms returns every condition and formula of examples/rules and
// of the good rule files under testdata, bound as the loader binds them.
func corpusPrograms(tb testing.TB) []*Program {
	tb.Helper()
	dirs, _ := filepath.Glob("testdata/good")
	dirs = append(dirs, "../examples/rules")
	var out []*Program
	for _, dir := range dirs {
		rs, errs := Load(context.Background(), []string{dir}, LoadOptions{Catalog: loadCatalog(), Getenv: testEnv})
		if errs.HasErrors() {
			tb.Fatalf("%s: %v", dir, errs)
		}
		for _, r := range rs.Rules {
			out = append(out, r.Programs()...)
		}
	}
	if len(out) < 40 {
		tb.Fatalf("only %d programs in the corpus", len(out))
	}
	return out
}

// checkSame runs p natively and on the VM over s and reports any difference
// in value or error. A program that runs on the VM only has nothing to
// compare.
func checkSame(t *testing.T, p *Program, s *marketdata.State) {
	t.Helper()
	if !p.Native() {
		return
	}
	env, m := NewEnv(s), NewVM()
	want, wantErr := p.eval(m, env, false)
	got, gotErr := p.eval(m, env, true)
	if diff := outcomeDiff(got, gotErr, want, wantErr); diff != "" {
		t.Errorf("%s (symbol %q) at %s: %s", p.Source, p.symbol, s.Now.Format("2006-01-02 15:04"), diff)
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
	var g, w *EvalError
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
// values, the same errors. Every one of them compiles natively, except
// those calling a helper that has no native binding (the futures' market:
// ticker, book), which the VM runs.
func TestNativeCorpus(t *testing.T) {
	progs := corpusPrograms(t)
	states := equivalenceStates(t, 60)
	var vmOnly []string
	for _, f := range functions() {
		if f.native == nil && f.variable == "" {
			vmOnly = append(vmOnly, f.doc.Name+"(")
		}
	}
	for _, p := range progs {
		if slices.ContainsFunc(vmOnly, func(call string) bool { return strings.Contains(p.Source, call) }) {
			continue
		}
		if !p.Native() {
			t.Errorf("%s: runs on the VM; every example program should compile natively", p.Source)
			continue
		}
		for _, s := range states {
			checkSame(t, p, s)
		}
	}
	t.Logf("%d programs, %d States", len(progs), len(states))
}

// checkPrograms runs each program natively and on the VM over every State,
// a program that reads symbol bound to one of equivalenceSymbols, and
// returns how many run natively.
func checkPrograms(t *testing.T, progs []*Program, states []*marketdata.State) int {
	cat := testCatalog()
	native := 0
	for i, p := range progs {
		if p.Native() {
			native++
		}
		if p.Reads.UsesSymbol {
			p = p.WithSymbol(equivalenceSymbols[i%len(equivalenceSymbols)], cat)
		}
		for _, s := range states {
			checkSame(t, p, s)
		}
	}
	return native
}

// docExamples are the examples of the reference: of every variable,
// helper, builtin and field.
func docExamples() []string {
	var out []string
	for _, v := range Variables() {
		out = append(out, v.Example)
	}
	for _, fs := range [][]FuncDoc{Functions(), Builtins()} {
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

// compileAny compiles src as a condition, else as a number or a text
// formula; nil when it is none of them.
func compileAny(c *Compiler, src string) *Program {
	p, errs := c.Condition(src)
	for _, k := range []Kind{Number, String} {
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

// TestNativeDocExamples runs the reference's examples natively and on the
// VM over many States; those with a builtin the native compiler leaves to
// the VM have nothing to compare.
func TestNativeDocExamples(t *testing.T) {
	cat := testCatalog()
	c := NewCompiler(CompilerOptions{Catalog: cat, ForEach: true})
	states := equivalenceStates(t, 30)
	var progs []*Program
	for _, src := range docExamples() {
		if p := compileAny(c, src); p != nil {
			progs = append(progs, p)
		}
	}
	native := checkPrograms(t, progs, states)
	t.Logf("%d examples compile, %d of them natively", len(progs), native)
	if native < len(progs)/2 {
		t.Errorf("only %d of %d examples compile natively", native, len(progs))
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
	cat := testCatalog()
	c := NewCompiler(CompilerOptions{Catalog: cat, ForEach: true})
	states := equivalenceStates(t, 8)
	g := newExprGen(1)
	var progs []*Program
	for i := range n {
		src, kind := g.condition(), Bool
		if i%3 == 2 {
			src, kind = g.formula()
		}
		var p *Program
		var errs []*ExprError
		if kind == Bool {
			p, errs = c.Condition(src)
		} else {
			p, errs = c.Formula(src, kind)
		}
		if len(errs) == 0 {
			progs = append(progs, p)
		}
	}
	checked, native := len(progs), checkPrograms(t, progs, states)
	t.Logf("%d generated, %d type-check, %d of those compile natively", n, checked, native)
	if checked < n/5 || native < checked/2 {
		t.Errorf("%d of %d generated expressions type-check and %d compile natively: the generator no longer covers the compiler", checked, n, native)
	}
}

// FuzzNativeMatchesVM compiles src as a condition (else as a number or text
// formula) and runs it natively and on the VM over the random State of
// seed: the same value or the same error. The corpus is every program of
// the example and test rule files, the reference's examples and a few
// generated ones.
func FuzzNativeMatchesVM(f *testing.F) {
	for i, p := range corpusPrograms(f) {
		f.Add(p.Source, uint64(i))
	}
	for i, src := range docExamples() {
		f.Add(src, uint64(500+i))
	}
	g := newExprGen(2)
	for i := range 20 {
		f.Add(g.condition(), uint64(1000+i))
	}
	cat := testCatalog()
	c := NewCompiler(CompilerOptions{Catalog: cat, ForEach: true})
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		p := compileAny(c, src)
		if p == nil {
			return
		}
		if p.Reads.UsesSymbol {
			p = p.WithSymbol(equivalenceSymbols[seed%uint64(len(equivalenceSymbols))], cat)
		}
		s := randomState(seed)
		if s == nil {
			s = testState(t)
		}
		checkSame(t, p, s)
	})
}
