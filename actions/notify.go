package actions

import (
	"context"

	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// Notify is the key of notify in a rule file.
const Notify rules.ActionKind = "notify"

// notifyMessageKind sends a message to the trader's notification targets. The
// text is only recorded on the leg: engine run hands it to the notifier off
// the tick loop; it never goes to the exchange.
func notifyMessageKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: Notify, Op: "",
			Doc: "Send a message to the trader's notification targets (Telegram, Discord, Slack or a webhook, set up with engine run --notify FILE). Sends nothing to the exchange. The message is always logged and kept with the firing; without --notify, and in backtests, nothing is sent; with --notify a dry run sends it too, marked (dry run).",
			Params: []rulefmt.ParamDef{pMessage,
				{Name: "to", Type: rulefmt.ParamNames,
					Doc: "The names of the notify file's targets that get the message, and only they (whatever their events:). Without to, every target whose events include notify gets it. engine run refuses to start when a name is not a target of its notify file.", Example: "[ops]"}},
			Example: `notify:
  message: "TSLA stop fired, spread {{ stock(\"TSLA\").spread_bps }} bps"`,
		},
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			kind := string(a.Kind)
			return []Plan{{Kind: kind, Done: &Leg{Kind: kind, Outcome: OK, Note: f.message(a), To: a.Params.Names("to")}}}
		},
	}
}
