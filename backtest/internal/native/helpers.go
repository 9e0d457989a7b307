package native

import (
	"github.com/expr-lang/expr/file"

	"github.com/tickrules/tickrules/marketdata"
)

// Helper is a helper function that compiled code calls directly. Make one
// with Func0 ... Func3 from a Go function over the State with the helper's
// typed arguments.
type Helper interface {
	compile(args []arg, at file.Location) (any, bool)
}

// arg is a compiled argument of a helper call; literal when it is written
// in the rule, so that its value is bound when the rule is loaded.
type arg struct {
	run     any // a fn[T]
	literal bool
}

// param is an argument of type T: a value bound at load, or a closure.
type param[T any] struct {
	run   fn[T]
	value T
	bound bool
}

func (p param[T]) get(e *Env) (T, error) {
	if p.bound {
		return p.value, nil
	}
	return p.run(e)
}

// paramOf converts a to a parameter of type T. A whole number passed where
// the helper takes a float64 is converted, as the rules' helpers do for
// expr's int overloads.
func paramOf[T any](a arg) (param[T], bool) {
	f, ok := a.run.(fn[T])
	if !ok {
		g, isNumber := asFloat(a.run)
		if f, ok = any(g).(fn[T]); !isNumber || !ok {
			return param[T]{}, false
		}
	}
	if a.literal {
		v, err := f(nil) // a literal's closure reads nothing
		return param[T]{value: v, bound: true}, err == nil
	}
	return param[T]{run: f}, true
}

// call finishes a helper call: its error is located at the call, as the
// VM locates it.
func call[R any](at file.Location, r R, err error) (R, error) {
	if err != nil {
		return r, failed(at, err)
	}
	return r, nil
}

// Func0 is a helper without arguments (positions).
type Func0[R any] func(*marketdata.State) (R, error)

// Func1 is a helper with one argument (orders("TSLAUSDT")).
type Func1[A, R any] func(*marketdata.State, A) (R, error)

// Func2 is a helper with two arguments.
type Func2[A, B, R any] func(*marketdata.State, A, B) (R, error)

// Func3 is a helper with three arguments.
type Func3[A, B, C, R any] func(*marketdata.State, A, B, C) (R, error)

func (f Func0[R]) compile(args []arg, at file.Location) (any, bool) {
	if len(args) != 0 {
		return nil, false
	}
	return fn[R](func(e *Env) (R, error) {
		r, err := f(e.State)
		return call(at, r, err)
	}), true
}

func (f Func1[A, R]) compile(args []arg, at file.Location) (any, bool) {
	if len(args) != 1 {
		return nil, false
	}
	a, ok := paramOf[A](args[0])
	if !ok {
		return nil, false
	}
	return fn[R](func(e *Env) (R, error) {
		x, err := a.get(e)
		if err != nil {
			var zero R
			return zero, err
		}
		r, err := f(e.State, x)
		return call(at, r, err)
	}), true
}

func (f Func2[A, B, R]) compile(args []arg, at file.Location) (any, bool) {
	if len(args) != 2 {
		return nil, false
	}
	a, ok1 := paramOf[A](args[0])
	b, ok2 := paramOf[B](args[1])
	if !ok1 || !ok2 {
		return nil, false
	}
	return fn[R](func(e *Env) (R, error) {
		var zero R
		x, err := a.get(e)
		if err != nil {
			return zero, err
		}
		y, err := b.get(e)
		if err != nil {
			return zero, err
		}
		r, err := f(e.State, x, y)
		return call(at, r, err)
	}), true
}

func (f Func3[A, B, C, R]) compile(args []arg, at file.Location) (any, bool) {
	if len(args) != 3 {
		return nil, false
	}
	a, ok1 := paramOf[A](args[0])
	b, ok2 := paramOf[B](args[1])
	c, ok3 := paramOf[C](args[2])
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	return fn[R](func(e *Env) (R, error) {
		var zero R
		x, err := a.get(e)
		if err != nil {
			return zero, err
		}
		y, err := b.get(e)
		if err != nil {
			return zero, err
		}
		z, err := c.get(e)
		if err != nil {
			return zero, err
		}
		r, err := f(e.State, x, y, z)
		return call(at, r, err)
	}), true
}
