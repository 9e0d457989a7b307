package actions

import (
	"context"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/rules"
)

// logMessageKind writes a line to the engine's log (and the trace); it sends
// nothing to the exchange.
func logMessageKind() Kind {
	return Kind{
		Name: rules.Log,
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			text := f.message(a)
			lvl := zapcore.InfoLevel
			if s, ok := a.Params.Text("level"); ok {
				_ = lvl.UnmarshalText([]byte(s)) // the loader allows only known levels
			}
			f.x.opts.Logger.Log(lvl, text, zap.String("rule", f.rule.Name))
			return []Plan{{Kind: string(a.Kind), Done: &Leg{Kind: string(a.Kind), Outcome: OK, Note: text}}}
		},
	}
}
