// Package native is the backtest's speed-up of conditions and formulas: it
// compiles the checked expr syntax tree of a condition or a formula into Go
// closures over the typed marketdata.State: fields are read directly, helper
// calls are bound when the rule is loaded, and a run allocates nothing.
// Only the backtest uses it (rules.LoadOptions.Closures); engine run
// evaluates every condition on expr's VM.
//
// It follows expr's stages, one file per concern: compile.go walks the node
// kinds, operators.go holds the arithmetic and comparisons, fields.go the
// field accessors of the State's objects, helpers.go the helper calls,
// bindings.go the rules' helper functions, builtins.go the builtins it knows
// and errors.go the errors of a run. A tree with any node it does not know
// is refused with ErrUnsupported, and the caller runs that expression on
// expr's VM instead (the fallback): results and error messages are those
// of expr's VM either way, which this package's differential tests and
// fuzz target check.
package native

import (
	"errors"
	"fmt"

	"github.com/expr-lang/expr/file"

	"github.com/tickrules/tickrules/rules"
)

// ErrUnsupported is returned by Compile for a tree with a node this package
// does not compile; the caller then runs the expression on expr's VM.
var ErrUnsupported = errors.New("not compiled natively")

// Env is what a compiled program reads while it runs (rules.Env keeps
// one). Keep one per goroutine: a run writes the current item of a list
// test (#) into its Item.
type Env = rules.ClosureEnv

// Program is a compiled expression. It is immutable and may be run from many
// goroutines, each with its own Env.
type Program struct {
	source file.Source
	root   any  // the fn[T] of the tree's root: bool, int, float64 or string
	float  bool // give an int root as a float64, as expr's OpCast does when a number is expected
}

// fn is the compiled form of a node whose value has the Go type T.
type fn[T any] func(*Env) (T, error)

// Run evaluates p over env. Its result and error are those expr's VM gives
// for the same program: an error is a *file.Error located where the VM
// locates it.
func (p *Program) Run(env *Env) (out any, err error) {
	defer func() {
		// The VM turns a panic into an error; so does Run, so that a bug in
		// a helper stops one rule, not the engine.
		if r := recover(); r != nil {
			out, err = nil, p.bind(&runError{msg: fmt.Sprint(r), err: asError(r)})
		}
	}()
	switch f := p.root.(type) {
	case fn[bool]:
		out, err = f(env)
	case fn[float64]:
		out, err = f(env)
	case fn[string]:
		out, err = f(env)
	case fn[int]:
		var i int
		if i, err = f(env); p.float {
			out = float64(i)
		} else {
			out = i
		}
	}
	if err != nil {
		return nil, p.bind(err)
	}
	return out, nil
}

func asError(r any) error {
	if err, ok := r.(error); ok {
		return err
	}
	return nil
}
