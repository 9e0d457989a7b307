package actions

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/rules"
)

// haltKind stops new entries for every rule through the guard: the orders
// that open or grow a position are refused (ErrKillSwitch) until the halt
// ends; what only reduces still goes. It sends nothing to the exchange.
func haltKind() Kind {
	return Kind{
		Name: rules.Halt,
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			kind := string(a.Kind)
			g := f.x.opts.Dispatcher.opts.Guard
			if g == nil {
				return f.failed(a, errors.New("no guard to halt: this run sends orders without one"))
			}
			until, _ := a.Params.Text("until")
			reason, _ := a.Params.Text("reason")
			word, d, err := rules.HaltUntil(until)
			if err != nil {
				return f.failed(a, err) // the loader checked it; a guard for other callers
			}
			now := f.st.Now
			h := Halt{Rule: f.rule.Name, Reason: reason, At: now}
			switch {
			case word == rules.HaltEndOfDay:
				h.Until = nextMidnight(f.st)
			case d > 0:
				h.Until = now.Add(d)
			}
			// The note says the halt as written: its end as an instant is in
			// the log, on the status page and in the halt file.
			note := fmt.Sprintf("no new entries (until: %s): %s", until, reason)
			if err := g.Halt(h); err != nil {
				note += "; " + err.Error()
			}
			f.x.opts.Logger.Error("halt: no new entries", zap.String("rule", f.rule.Name), zap.String("reason", reason),
				zap.Time("until", h.Until))
			return []Plan{{Kind: kind, Done: &Leg{Kind: kind, Outcome: OK, Note: note}}}
		},
	}
}
