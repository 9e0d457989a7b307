package engine

import (
	"github.com/expr-lang/expr/vm"

	"github.com/tickrules/tickrules/rules"
)

// explain returns the values of what the rule's condition reads, by the
// text of each term, for the trace of a transition.
func explain(r *rules.Rule, m *vm.VM, env *rules.Env) map[string]any {
	return r.Condition.Explain(m, env)
}
