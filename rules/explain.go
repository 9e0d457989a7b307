package rules

import (
	"sync"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// maxTerms bounds how many terms of one condition a trace shows.
const maxTerms = 16

// explainer holds the terms of a program, compiled on the first Explain:
// traces need them only when a rule changes state, so rule loading does not
// pay for them.
type explainer struct {
	c     *Compiler
	once  sync.Once
	srcs  []string
	terms []*Program
}

// Explain evaluates what p reads - each variable, member chain such as
// stock("TSLA").spread_bps and helper call, as written - over env, and
// returns the values by their text. A term that cannot be evaluated (missing
// data) gives its error text, which is exactly what a trace should show.
// Objects a term gives whole (orders("TSLAUSDT"), positions) are shown
// with their ages at the State's time (marketdata.State.Aged): the States
// between two fetches share objects aged at the fetch unless the condition
// reads an age, and having every tick age them instead, for a trace, would
// cost every rule that takes a list whole on every tick.
// It allocates; the engine calls it on transitions only.
func (p *Program) Explain(m *vm.VM, env *Env) map[string]any {
	if p == nil || p.explain == nil {
		return nil
	}
	x := p.explain
	x.once.Do(func() {
		for _, src := range termSources(p.Source) {
			t, errs := x.c.compile(src, 0, false)
			if len(errs) == 0 {
				x.srcs, x.terms = append(x.srcs, src), append(x.terms, t)
			}
		}
	})
	out := make(map[string]any, len(x.terms))
	for i, t := range x.terms {
		bound := *t
		bound.symbol = p.symbol
		v, err := bound.Eval(m, env)
		if err != nil {
			out[x.srcs[i]] = "error: " + err.Error()
			continue
		}
		out[x.srcs[i]] = env.State().Aged(v)
	}
	return out
}

// termSources lists the terms of src: the outermost member chains, helper
// calls and variables, in order of appearance, without repeats.
func termSources(src string) []string {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(n ast.Node) {
		s := n.String()
		if !seen[s] && len(out) < maxTerms {
			seen[s] = true
			out = append(out, s)
		}
	}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch x := n.(type) {
		case *ast.MemberNode, *ast.ChainNode, *ast.IdentifierNode:
			add(x)
		case *ast.CallNode:
			add(x)
			for _, a := range x.Arguments {
				walk(a)
			}
		case *ast.BinaryNode:
			walk(x.Left)
			walk(x.Right)
		case *ast.UnaryNode:
			walk(x.Node)
		case *ast.ConditionalNode:
			walk(x.Cond)
			walk(x.Exp1)
			walk(x.Exp2)
		case *ast.BuiltinNode:
			for _, a := range x.Arguments {
				if _, closure := a.(*ast.PredicateNode); !closure {
					walk(a)
				}
			}
		}
	}
	walk(tree.Node)
	return out
}
