package rules

import (
	"errors"
	"regexp"
	"sync"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/tickrules/tickrules/marketdata"
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
// returns the values by their text. A term that cannot be evaluated gives
// errorTerm's text: "none: ..." where the data says there is no such value,
// "error: ..." where it is missing.
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
			out[x.srcs[i]] = errorTerm(err)
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

// indexOutOfRange is the message of expr's VM (and of the native closures,
// which copy it) for an index outside a list.
var indexOutOfRange = regexp.MustCompile(`^index out of range: -?\d+ \(array length is (\d+)\)`)

// errorTerm is what a trace shows for a term that could not be evaluated.
// Each term is evaluated on its own, so a condition written with a guard
// (position("X", "long").size > 0 && position("X", "long").entry_price <
// 250, len(positions) > 0 && positions[0].size > 1) is simply false while
// its guarded term has nothing to read. Such a term, whose data was fetched
// and says there is no value (a flat position, a closed market, an empty
// list), reads "none: why". Data that was not fetched, or any other
// failure, stays "error: ...": a rule cannot fire on it.
func errorTerm(err error) string {
	if me, ok := errors.AsType[*marketdata.MissingError](err); ok && me.Absent {
		return "none: " + me.Reason
	}
	if m := indexOutOfRange.FindStringSubmatch(err.Error()); m != nil {
		if m[1] == "0" {
			return "none: the list is empty"
		}
		if m[1] == "1" {
			return "none: the list has only 1 item"
		}
		return "none: the list has only " + m[1] + " items"
	}
	return "error: " + err.Error()
}
