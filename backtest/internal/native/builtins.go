package native

import (
	"reflect"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
)

// builtin compiles the expr builtins that read without building lists:
// len, abs, and the list tests all, any, none, one and count. The others
// (filter, map, sort, string functions...) are left to the VM.
func (w *walk) builtin(n *ast.BuiltinNode) (any, error) {
	switch n.Name {
	case "len", "abs":
		if len(n.Arguments) != 1 {
			break
		}
		x, err := w.compile(n.Arguments[0])
		if err != nil {
			return nil, err
		}
		if f, ok := w.lengthOrAbs(n.Name, x, n.Arguments[0]); ok {
			return f, nil
		}
	case "all", "any", "none", "one", "count":
		if len(n.Arguments) != 2 || n.Map != nil {
			break
		}
		test, ok := n.Arguments[1].(*ast.PredicateNode)
		o := w.listObject(n.Arguments[0])
		if !ok || o == nil {
			break
		}
		list, err := w.compile(n.Arguments[0])
		if err != nil {
			return nil, err
		}
		w.items = append(w.items, o)
		body, err := w.compile(test.Node)
		w.items = w.items[:len(w.items)-1]
		if err != nil {
			return nil, err
		}
		b, ok := body.(fn[bool])
		if !ok {
			break
		}
		if f, ok := o.loop(n.Name, list, b, n.Threshold); ok {
			return f, nil
		}
	}
	return nil, unsupported(n)
}

// lengthOrAbs is len(x) of a text or a list, or abs(x) of a number.
func (w *walk) lengthOrAbs(name string, x any, arg ast.Node) (any, bool) {
	if name == "abs" {
		switch v := x.(type) {
		case fn[int]:
			return abs(v), true
		case fn[float64]:
			return abs(v), true
		}
		return nil, false
	}
	switch v := x.(type) {
	case fn[string]:
		return fn[int](func(e *Env) (int, error) {
			s, err := v(e)
			return len(s), err // bytes, as expr's runtime.Len
		}), true
	case fn[[]string]:
		return length(v), true
	}
	if o := w.listObject(arg); o != nil {
		return o.length(x)
	}
	return nil, false
}

// listObject returns the object type of the items of a list node, or nil.
func (w *walk) listObject(list ast.Node) object {
	t := list.Type()
	if t == nil || t.Kind() != reflect.Slice {
		return nil
	}
	return w.objects[t.Elem()]
}

func abs[T int | float64](x fn[T]) fn[T] {
	return func(e *Env) (T, error) {
		v, err := x(e)
		if v < 0 {
			v = -v
		}
		return v, err
	}
}

func length[E any](list fn[[]E]) fn[int] {
	return func(e *Env) (int, error) {
		items, err := list(e)
		return len(items), err
	}
}

// index is list[i]; a negative i counts from the end, as in expr.
func index[E any](list fn[[]E], i fn[int], at file.Location) fn[E] {
	return func(e *Env) (E, error) {
		var zero E
		items, err := list(e)
		if err != nil {
			return zero, err
		}
		k, err := i(e)
		if err != nil {
			return zero, err
		}
		if k < 0 {
			k += len(items)
		}
		if k < 0 || k >= len(items) {
			return zero, indexError(at, k, len(items))
		}
		return items[k], nil
	}
}

// listTest runs test over the items of list as expr's compiled loops do:
// all stops at the first false, any and none at the first true, count at
// threshold when the optimizer set one, and one looks at every item.
func listTest[T any](name string, list fn[[]*T], test fn[bool], threshold *int) (any, bool) {
	// count runs test on the items until it has counted limit of them
	// (0: no limit), restoring the item of an enclosing test after.
	count := func(e *Env, limit int, want bool) (int, error) {
		items, err := list(e)
		if err != nil {
			return 0, err
		}
		outer := e.Item
		defer func() { e.Item = outer }()
		n := 0
		for _, it := range items {
			e.Item = it
			ok, err := test(e)
			if err != nil {
				return 0, err
			}
			if ok == want {
				if n++; limit > 0 && n >= limit {
					break
				}
			}
		}
		return n, nil
	}
	if name == "count" {
		limit := 0
		if threshold != nil {
			limit = *threshold
		}
		return fn[int](func(e *Env) (int, error) { return count(e, limit, true) }), true
	}
	// The other tests count the items that pass (fail, for all) up to
	// limit, and hold when they counted target.
	var limit, target int
	want := true
	switch name {
	case "all":
		limit, target, want = 1, 0, false
	case "any":
		limit, target = 1, 1
	case "none":
		limit, target = 1, 0
	case "one":
		limit, target = 0, 1
	default:
		return nil, false
	}
	return fn[bool](func(e *Env) (bool, error) {
		n, err := count(e, limit, want)
		return n == target, err
	}), true
}
