package engine

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// restore carries the rule states of the journal's open intents into saved
// (a crash between the intent and the rule-state file) and keeps those
// intents to be finished once the State is ready. It reports whether
// saved changed.
func (e *Engine) restore(saved map[string]RuleState) bool {
	j := e.opts.Journal
	if j == nil {
		return false
	}
	changed := false
	for _, in := range j.Open() {
		if s, ok := saved[in.Rule]; !ok || s.Firings < in.State.Firings {
			saved[in.Rule] = in.State
			changed = true
		}
		e.recovering = append(e.recovering, in)
		e.busy.add(in.symbols())
		e.opts.Logger.Warn("an earlier run left a firing unfinished; it is settled by clientOid once the data is in",
			zap.String("rule", in.Rule), zap.String("firing", in.ID))
	}
	return changed
}

// recover finishes the intents an earlier run left open, or abandons those
// whose window has passed, with the reason in the log.
func (e *Engine) recover(ctx context.Context, px planner, st *marketdata.State, now time.Time) {
	if len(e.recovering) == 0 || st == nil || !e.opts.Source.FullyPolled() {
		return
	}
	ins := e.recovering
	e.recovering = nil
	for _, in := range ins {
		var rule *rules.Rule
		if r := e.ruleNamed(in.Rule); r != nil {
			rule = r.rule
		}
		if why := e.passed(in, rule, st, now); why != "" {
			var oids []string
			for _, l := range in.Legs {
				if !l.settled() {
					oids = append(oids, l.Plan.ClientOIDs...)
				}
			}
			e.opts.Logger.Error("unfinished firing abandoned: its orders not yet at the venue are not sent",
				zap.String("rule", in.Rule), zap.String("firing", in.ID), zap.String("reason", why), zap.Strings("clientOid", oids))
			e.close(in)
			continue
		}
		var f *Firing
		if rule != nil {
			f = &Firing{Rule: rule, At: in.At, Seq: in.Seq}
		}
		e.settle(ctx, px, f, in, true)
	}
}

// passed says why the window of an unfinished firing has passed ("" when
// it has not): its rule is gone, its once period is over, or it is older
// than RecoverWithin.
func (e *Engine) passed(in *Intent, rule *rules.Rule, st *marketdata.State, now time.Time) string {
	switch {
	case rule == nil:
		return "the rule " + in.Rule + " is no longer in the rule files"
	case in.Once != "":
		p, err := e.periodKey(in.Once, st)
		if err != nil {
			return "" // cannot tell yet: the period decides, not the age
		}
		if p != in.Period {
			return fmt.Sprintf("once %s: it fired in %s, and that is over (now %s)", in.Once, in.Period, p)
		}
	case now.Sub(in.At) > e.opts.RecoverWithin:
		return fmt.Sprintf("it fired %s ago, more than %s (RecoverWithin)", now.Sub(in.At).Round(time.Second), e.opts.RecoverWithin)
	}
	return ""
}

// ruleNamed returns the runtime of the rule named name (nil: none, as after
// a reload that removed it); e.mu is held.
func (e *Engine) ruleNamed(name string) *ruleRun {
	for _, r := range e.rules {
		if r.rule.Name == name {
			return r
		}
	}
	return nil
}
