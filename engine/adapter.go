package engine

import (
	"context"

	"github.com/tickrules/tickrules/actions"
)

// ActionsExecutor runs firings through an actions.Executor.
type ActionsExecutor struct {
	X *actions.Executor
}

// Execute runs the actions of f.
func (a ActionsExecutor) Execute(ctx context.Context, f *Firing) []actions.Leg {
	return a.X.Run(ctx, f.Rule, f.At, f.Env, f.VM, f.State)
}
