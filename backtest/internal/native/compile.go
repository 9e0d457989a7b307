package native

import (
	"fmt"
	"reflect"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/tickrules/tickrules/rules"
)

// Compiler compiles checked trees: it is the rules.ClosureCompiler the
// backtest loads its rules with (rules.LoadOptions.Closures). Build one and
// reuse it: it holds the helper and field tables. It is safe for
// concurrent use.
type Compiler struct {
	helpers map[string]Helper
	objects map[reflect.Type]object // by pointer type: *marketdata.Stock
}

// NewCompiler returns a Compiler calling the rules' helper functions
// (bindings.go) by the name the tree calls them (after the rules package's
// patcher: stock, _market, ...).
func NewCompiler() *Compiler {
	return &Compiler{helpers: bindings(), objects: objects()}
}

// Compile compiles tree, which must have been checked (and may have been
// optimized) with the configuration of the VM program it stands for; expect
// is that configuration's Expect, the kind expr converts the result to. It
// returns a *Program, or an error wrapping ErrUnsupported when a node is not
// compiled (the program then runs on expr's VM).
func (c *Compiler) Compile(tree *parser.Tree, expect reflect.Kind) (rules.ClosureProgram, error) {
	w := &walk{Compiler: c}
	root, err := w.compile(tree.Node)
	if err != nil {
		return nil, err
	}
	switch root.(type) {
	case fn[bool], fn[int], fn[float64], fn[string]:
		return &Program{source: tree.Source, root: root, float: expect == reflect.Float64}, nil
	}
	return nil, fmt.Errorf("%w: a result of type %s", ErrUnsupported, tree.Node.Type())
}

// walk is one compilation: the objects of the list tests it is inside,
// innermost last, tell what # is.
type walk struct {
	*Compiler
	items []object
}

func unsupported(node ast.Node) error {
	return fmt.Errorf("%w: %T %s", ErrUnsupported, node, node)
}

// compile returns the closure of node: a fn[T] for the Go type T of its
// value.
func (w *walk) compile(node ast.Node) (any, error) {
	switch n := node.(type) {
	case *ast.IntegerNode:
		// expr's compiler pushes the integer as the type the checker gave
		// it: a float where it meets floats.
		switch n.Type().Kind() {
		case reflect.Int:
			return constant(n.Value), nil
		case reflect.Float64:
			return constant(float64(n.Value)), nil
		}
	case *ast.FloatNode:
		return constant(n.Value), nil
	case *ast.BoolNode:
		return constant(n.Value), nil
	case *ast.StringNode:
		return constant(n.Value), nil
	case *ast.ConstantNode:
		switch v := n.Value.(type) {
		case int:
			return constant(v), nil
		case float64:
			return constant(v), nil
		case bool:
			return constant(v), nil
		case string:
			return constant(v), nil
		}
	case *ast.IdentifierNode:
		return w.identifier(n)
	case *ast.UnaryNode:
		return w.unary(n)
	case *ast.BinaryNode:
		return w.binary(n)
	case *ast.ConditionalNode:
		return w.conditional(n)
	case *ast.MemberNode:
		return w.member(n)
	case *ast.CallNode:
		return w.call(n)
	case *ast.BuiltinNode:
		return w.builtin(n)
	case *ast.PointerNode:
		if n.Name == "" && len(w.items) > 0 {
			return w.items[len(w.items)-1].item(), nil
		}
	}
	return nil, unsupported(node)
}

func constant[T any](v T) fn[T] {
	return func(*Env) (T, error) { return v, nil }
}

// identifier compiles the variables of the rule language that are not
// State lookups (those the patcher turned into helper calls).
func (w *walk) identifier(n *ast.IdentifierNode) (any, error) {
	switch n.Value {
	case "now_ms":
		return fn[float64](func(e *Env) (float64, error) { return e.NowMs, nil }), nil
	case "weekday":
		return fn[string](func(e *Env) (string, error) { return e.Weekday, nil }), nil
	case "symbol":
		return fn[string](func(e *Env) (string, error) { return e.Symbol, nil }), nil
	}
	return nil, unsupported(n)
}

// conditional compiles a ? b : c (and if/else) whose branches have the
// same type.
func (w *walk) conditional(n *ast.ConditionalNode) (any, error) {
	cond, err := w.compile(n.Cond)
	if err != nil {
		return nil, err
	}
	yes, err := w.compile(n.Exp1)
	if err != nil {
		return nil, err
	}
	no, err := w.compile(n.Exp2)
	if err != nil {
		return nil, err
	}
	c, ok := cond.(fn[bool])
	if !ok {
		return nil, unsupported(n)
	}
	switch a := yes.(type) {
	case fn[bool]:
		if b, ok := no.(fn[bool]); ok {
			return choose(c, a, b), nil
		}
	case fn[int]:
		if b, ok := no.(fn[int]); ok {
			return choose(c, a, b), nil
		}
	case fn[float64]:
		if b, ok := no.(fn[float64]); ok {
			return choose(c, a, b), nil
		}
	case fn[string]:
		if b, ok := no.(fn[string]); ok {
			return choose(c, a, b), nil
		}
	}
	return nil, unsupported(n)
}

func choose[T any](cond fn[bool], yes, no fn[T]) fn[T] {
	return func(e *Env) (T, error) {
		c, err := cond(e)
		if err != nil {
			var zero T
			return zero, err
		}
		if c {
			return yes(e)
		}
		return no(e)
	}
}

// member compiles a field of an object (stock("TSLA").bid, .age_seconds)
// and an item of a list (orders(symbol)[0]).
func (w *walk) member(n *ast.MemberNode) (any, error) {
	if n.Optional || n.Method {
		return nil, unsupported(n)
	}
	base, err := w.compile(n.Node)
	if err != nil {
		return nil, err
	}
	if name, ok := n.Property.(*ast.StringNode); ok {
		if o := w.objects[n.Node.Type()]; o != nil {
			if f, ok := o.field(name.Value, base, n.Location()); ok {
				return f, nil
			}
		}
		return nil, unsupported(n)
	}
	prop, err := w.compile(n.Property)
	if err != nil {
		return nil, err
	}
	i, ok := prop.(fn[int])
	if !ok {
		return nil, unsupported(n)
	}
	if list, ok := base.(fn[[]string]); ok {
		return index(list, i, n.Location()), nil
	}
	if t := n.Node.Type(); t.Kind() == reflect.Slice {
		if o := w.objects[t.Elem()]; o != nil {
			if f, ok := o.index(base, i, n.Location()); ok {
				return f, nil
			}
		}
	}
	return nil, unsupported(n)
}

// call compiles a helper call. The patcher gave every helper the
// environment as its first argument; the State in Env stands for it.
func (w *walk) call(n *ast.CallNode) (any, error) {
	id, ok := n.Callee.(*ast.IdentifierNode)
	if !ok {
		return nil, unsupported(n)
	}
	h := w.helpers[id.Value]
	if h == nil || len(n.Arguments) == 0 {
		return nil, unsupported(n)
	}
	if env, ok := n.Arguments[0].(*ast.IdentifierNode); !ok || env.Value != "$env" {
		return nil, unsupported(n)
	}
	args := make([]arg, 0, len(n.Arguments)-1)
	for _, a := range n.Arguments[1:] {
		f, err := w.compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, arg{run: f, literal: isLiteral(a)})
	}
	f, ok := h.compile(args, n.Location())
	if !ok {
		return nil, unsupported(n)
	}
	return f, nil
}

// isLiteral reports whether node's value is fixed when the rule is loaded.
func isLiteral(node ast.Node) bool {
	switch node.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.StringNode, *ast.ConstantNode:
		return true
	}
	return false
}
