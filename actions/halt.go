package actions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// HaltAction is the key of halt in a rule file.
const HaltAction rules.ActionKind = "halt"

// haltKind stops new entries for every rule through the guard: the orders
// that open or grow a position are refused (ErrKillSwitch) until the halt
// ends; what only reduces still goes. It sends nothing to the exchange.
func haltKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: HaltAction, Op: "",
			Doc: "Stop new entries for every rule: no order that opens or grows a position is sent until the halt ends; closes, cancels and protective orders still go. Sends nothing to the exchange. The halt is logged at error level, shows on the status page, in engine status and in /readyz, and is kept across restarts.",
			Params: []rulefmt.ParamDef{
				{Name: "until", Type: rulefmt.ParamText, Required: true,
					Doc: "When the halt ends: end_of_day (the next 00:00 New York time), a duration such as 30m or 2h from the firing, or manual (until lifted by hand: engine resume, the status page's button, or kill -USR2 PID). Written as it is, not as a formula.", Example: "end_of_day"},
				{Name: "reason", Type: rulefmt.ParamText, Required: true,
					Doc: "Why, as the log, the status page and engine status show it.", Example: `"lost 500 USDT today"`},
			},
			Example: `halt:
  until: end_of_day
  reason: "lost 500 USDT today"`,
			Check: checkHalt,
		},
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			kind := string(a.Kind)
			g := f.x.opts.Dispatcher.opts.Guard
			if g == nil {
				return f.failed(a, errors.New("no guard to halt: this run sends orders without one"))
			}
			until, _ := a.Params.Text("until")
			reason, _ := a.Params.Text("reason")
			word, d, err := HaltUntil(until)
			if err != nil {
				return f.failed(a, err) // the loader checked it; a guard for other callers
			}
			now := f.st.Now
			h := Halt{Rule: f.rule.Name, Reason: reason, At: now}
			switch {
			case word == HaltEndOfDay:
				h.Until = nextMidnight(f.st)
			case d > 0:
				h.Until = now.Add(d)
			}
			// The note says the halt as written: its end as an instant is in
			// the log, on the status page and in the halt file.
			note := fmt.Sprintf("no new entries (until: %s): %s", until, reason)
			err = g.Halt(h)
			if err != nil {
				note += "; " + err.Error()
			}
			if errors.Is(err, ErrHaltHoldsLonger) {
				// Entries stay stopped, by the longer halt: not a new alarm.
				f.x.opts.Logger.Warn("halt: an earlier halt holds longer", zap.String("rule", f.rule.Name), zap.String("reason", reason),
					zap.Error(err))
			} else {
				f.x.opts.Logger.Error("halt: no new entries", zap.String("rule", f.rule.Name), zap.String("reason", reason),
					zap.Time("until", h.Until))
			}
			return []Plan{{Kind: kind, Done: &Leg{Kind: kind, Outcome: OK, Note: note}}}
		},
	}
}

// The ends of a halt (HaltUntil).
const (
	HaltEndOfDay = "end_of_day"
	HaltManual   = "manual"
)

// HaltUntil reads a halt's until: end_of_day, manual, or a positive
// duration (30m, 2h). d is the duration, zero for the two words.
func HaltUntil(s string) (word string, d time.Duration, err error) {
	switch s {
	case HaltEndOfDay, HaltManual:
		return s, 0, nil
	}
	d, err = time.ParseDuration(s)
	if err != nil || d <= 0 {
		return "", 0, fmt.Errorf("until must be end_of_day, manual or a duration such as 30m, not %q", s)
	}
	return "", d, nil
}

// checkHalt checks a halt's until: written as it is, and one of the ends
// HaltUntil reads.
func checkHalt(c *rules.ActionCheck) {
	v := c.Params()["until"]
	if v == nil {
		return
	}
	if v.IsFormula() {
		c.Errorf(c.Where("until"), "write end_of_day, manual or a duration such as 30m", "until is written as it is, not as a formula")
		return
	}
	s, _ := c.Params().Text("until")
	if _, _, err := HaltUntil(s); err != nil {
		c.Errorf(c.Where("until"), "write end_of_day, manual or a duration such as 30m", "%s", err.Error())
	}
}
