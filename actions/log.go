package actions

import (
	"context"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// Log is the key of log in a rule file.
const Log rules.ActionKind = "log"

// logMessageKind writes a line to the engine's log (and the trace); it sends
// nothing to the exchange.
func logMessageKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: Log, Op: "",
			Doc: "Write a line to the engine's log (and the trace). Sends nothing to the exchange.",
			Params: []rulefmt.ParamDef{
				pMessage,
				{Name: "level", Type: rulefmt.ParamChoice, Values: []string{"debug", "info", "warn", "error"},
					Doc: "Log level; default info.", Example: "warn"},
			},
			Example: `log:
  message: "flattening TSLA, spread {{ stock(\"TSLA\").spread_bps }} bps"
  level: warn`,
		},
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
