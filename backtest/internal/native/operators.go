package native

import (
	"math"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
)

// The operators follow expr's runtime (vm/runtime): an int meeting a float
// becomes a float; + - * of two ints give an int (wrapping as Go does); /
// always gives a float; % takes ints and fails on 0; ** is math.Pow.

func (w *walk) unary(n *ast.UnaryNode) (any, error) {
	x, err := w.compile(n.Node)
	if err != nil {
		return nil, err
	}
	switch n.Operator {
	case "!", "not":
		if b, ok := x.(fn[bool]); ok {
			return fn[bool](func(e *Env) (bool, error) {
				v, err := b(e)
				return !v, err
			}), nil
		}
	case "-":
		switch v := x.(type) {
		case fn[int]:
			return negate(v), nil
		case fn[float64]:
			return negate(v), nil
		}
	case "+":
		switch x.(type) {
		case fn[int], fn[float64]:
			return x, nil
		}
	}
	return nil, unsupported(n)
}

func negate[T int | float64](x fn[T]) fn[T] {
	return func(e *Env) (T, error) {
		v, err := x(e)
		return -v, err
	}
}

func (w *walk) binary(n *ast.BinaryNode) (any, error) {
	l, err := w.compile(n.Left)
	if err != nil {
		return nil, err
	}
	if n.Operator == "in" {
		return w.in(n, l)
	}
	r, err := w.compile(n.Right)
	if err != nil {
		return nil, err
	}
	switch n.Operator {
	case "&&", "and", "||", "or":
		a, ok1 := l.(fn[bool])
		b, ok2 := r.(fn[bool])
		if ok1 && ok2 {
			return logic(n.Operator == "||" || n.Operator == "or", a, b), nil
		}
	case "??":
		// A number, a text or true/false is never nil: the right side
		// is not looked at.
		switch l.(type) {
		case fn[int], fn[float64], fn[string], fn[bool]:
			if n.Left.Type() == n.Type() {
				return l, nil
			}
		}
	case "==", "!=":
		if eq, ok := equal(l, r, isLiteral(n.Right), n.Operator == "!="); ok {
			return eq, nil
		}
	case "<", ">", "<=", ">=":
		literal := isLiteral(n.Right)
		if a, b, ok := sameType[string](l, r); ok {
			return compare(n.Operator, a, b, literal), nil
		}
		if a, b, ok := sameType[int](l, r); ok {
			return compare(n.Operator, a, b, literal), nil
		}
		if a, b, ok := floats(l, r); ok {
			return compare(n.Operator, a, b, literal), nil
		}
	case "+", "-", "*":
		if a, b, ok := sameType[int](l, r); ok {
			return arithmetic(n.Operator, a, b), nil
		}
		if a, b, ok := floats(l, r); ok {
			return arithmetic(n.Operator, a, b), nil
		}
		if a, b, ok := sameType[string](l, r); ok && n.Operator == "+" {
			return combine(a, b, func(x, y string) string { return x + y }), nil
		}
	case "/":
		if a, b, ok := floats(l, r); ok {
			return combine(a, b, func(x, y float64) float64 { return x / y }), nil
		}
	case "**", "^":
		if a, b, ok := floats(l, r); ok {
			return combine(a, b, math.Pow), nil
		}
	case "%":
		if a, b, ok := sameType[int](l, r); ok {
			return modulo(a, b, n.Location()), nil
		}
	case "contains", "startsWith", "endsWith":
		if a, b, ok := sameType[string](l, r); ok {
			test := strings.Contains
			switch n.Operator {
			case "startsWith":
				test = strings.HasPrefix
			case "endsWith":
				test = strings.HasSuffix
			}
			return combine(a, b, test), nil
		}
	}
	return nil, unsupported(n)
}

// logic is && (or is false) and || (or is true), stopping at the left
// side when it decides, as expr's jumps do.
func logic(or bool, a, b fn[bool]) fn[bool] {
	return func(e *Env) (bool, error) {
		v, err := a(e)
		if err != nil || v == or {
			return v, err
		}
		return b(e)
	}
}

// in compiles x in list: a list written in the rule (which expr's optimizer
// turned into a set) or a list of texts of the State.
func (w *walk) in(n *ast.BinaryNode, l any) (any, error) {
	if set, ok := n.Right.(*ast.ConstantNode); ok {
		switch s := set.Value.(type) {
		case map[string]struct{}:
			if x, ok := l.(fn[string]); ok {
				return member(x, s), nil
			}
		case map[int]struct{}:
			if x, ok := l.(fn[int]); ok {
				return member(x, s), nil
			}
		}
		return nil, unsupported(n)
	}
	r, err := w.compile(n.Right)
	if err != nil {
		return nil, err
	}
	x, ok1 := l.(fn[string])
	list, ok2 := r.(fn[[]string])
	if !ok1 || !ok2 {
		return nil, unsupported(n)
	}
	return fn[bool](func(e *Env) (bool, error) {
		v, err := x(e)
		if err != nil {
			return false, err
		}
		items, err := list(e)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if it == v {
				return true, nil
			}
		}
		return false, nil
	}), nil
}

func member[T comparable](x fn[T], set map[T]struct{}) fn[bool] {
	return func(e *Env) (bool, error) {
		v, err := x(e)
		if err != nil {
			return false, err
		}
		_, ok := set[v]
		return ok, nil
	}
}

// equal compiles == (!= when not) of two numbers, two texts or two
// true/false values.
func equal(l, r any, literal, not bool) (fn[bool], bool) {
	if a, b, ok := sameType[bool](l, r); ok {
		return equalTo(a, b, literal, not), true
	}
	if a, b, ok := sameType[string](l, r); ok {
		return equalTo(a, b, literal, not), true
	}
	if a, b, ok := sameType[int](l, r); ok {
		return equalTo(a, b, literal, not), true
	}
	if a, b, ok := floats(l, r); ok {
		return equalTo(a, b, literal, not), true
	}
	return nil, false
}

// equalTo is a == b, or a != b when not. A literal b (session == "regular")
// is read once, when the rule is loaded, which spares a call per run.
func equalTo[T comparable](a, b fn[T], literal, not bool) fn[bool] {
	if literal {
		y, _ := b(nil)
		return func(e *Env) (bool, error) {
			x, err := a(e)
			return err == nil && (x == y) != not, err
		}
	}
	return combine(a, b, func(x, y T) bool { return (x == y) != not })
}

func sameType[T any](l, r any) (fn[T], fn[T], bool) {
	a, ok1 := l.(fn[T])
	b, ok2 := r.(fn[T])
	return a, b, ok1 && ok2
}

// floats gives both sides as floats when both are numbers.
func floats(l, r any) (fn[float64], fn[float64], bool) {
	a, ok1 := asFloat(l)
	b, ok2 := asFloat(r)
	return a, b, ok1 && ok2
}

func asFloat(x any) (fn[float64], bool) {
	switch v := x.(type) {
	case fn[float64]:
		return v, true
	case fn[int]:
		return func(e *Env) (float64, error) {
			i, err := v(e)
			return float64(i), err
		}, true
	}
	return nil, false
}

// combine evaluates the left side, then the right, then op.
func combine[T, R any](a, b fn[T], op func(T, T) R) fn[R] {
	return func(e *Env) (R, error) {
		x, err := a(e)
		if err != nil {
			var zero R
			return zero, err
		}
		y, err := b(e)
		if err != nil {
			var zero R
			return zero, err
		}
		return op(x, y), nil
	}
}

// compare is a < b and the like. A literal b (spread_bps < 8) is read once,
// when the rule is loaded, which spares calls per run: most comparisons in
// rules are of this kind.
func compare[T int | float64 | string](op string, a, b fn[T], literal bool) fn[bool] {
	if literal {
		y, _ := b(nil)
		switch op {
		case "<":
			return func(e *Env) (bool, error) { x, err := a(e); return err == nil && x < y, err }
		case ">":
			return func(e *Env) (bool, error) { x, err := a(e); return err == nil && x > y, err }
		case "<=":
			return func(e *Env) (bool, error) { x, err := a(e); return err == nil && x <= y, err }
		}
		return func(e *Env) (bool, error) { x, err := a(e); return err == nil && x >= y, err }
	}
	switch op {
	case "<":
		return combine(a, b, func(x, y T) bool { return x < y })
	case ">":
		return combine(a, b, func(x, y T) bool { return x > y })
	case "<=":
		return combine(a, b, func(x, y T) bool { return x <= y })
	}
	return combine(a, b, func(x, y T) bool { return x >= y })
}

func arithmetic[T int | float64](op string, a, b fn[T]) fn[T] {
	switch op {
	case "+":
		return combine(a, b, func(x, y T) T { return x + y })
	case "-":
		return combine(a, b, func(x, y T) T { return x - y })
	}
	return combine(a, b, func(x, y T) T { return x * y })
}

// modulo fails on 0 with the text of the Go runtime error the VM
// recovers.
func modulo(a, b fn[int], at file.Location) fn[int] {
	return func(e *Env) (int, error) {
		x, err := a(e)
		if err != nil {
			return 0, err
		}
		y, err := b(e)
		if err != nil {
			return 0, err
		}
		if y == 0 {
			return 0, &runError{at: at, msg: errDivideByZero.Error(), err: errDivideByZero}
		}
		return x % y, nil
	}
}
