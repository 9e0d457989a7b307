package actions

import (
	"context"

	"github.com/tickrules/tickrules/rules"
)

// notifyMessageKind sends a message to the trader's notification targets. The
// text is only recorded on the leg: engine run hands it to the notifier off
// the tick loop; it never goes to the exchange.
func notifyMessageKind() Kind {
	return Kind{
		Name: rules.Notify,
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			kind := string(a.Kind)
			return []Plan{{Kind: kind, Done: &Leg{Kind: kind, Outcome: OK, Note: f.message(a), To: a.Params.Names("to")}}}
		},
	}
}
