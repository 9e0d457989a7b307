package ruletest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
)

// comparison holds one expectation and what its rule did.
type comparison struct {
	t      *Test
	e      *Expect
	fired  []actual
	probes map[time.Time]*probe
	tick   time.Duration
}

// clock formats a time of the test as a trader reads it: New York time,
// with the date only when it is not the start's date.
func (c *comparison) clock(t time.Time) string {
	et := t.In(eastern)
	if y, m, d := c.t.Start.T.In(eastern).Date(); y == et.Year() && m == et.Month() && d == et.Day() {
		return et.Format("15:04:05")
	}
	return et.Format("2006-01-02 15:04:05")
}

func (c *comparison) times(as []actual) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = c.clock(a.at)
	}
	return strings.Join(out, ", ")
}

// diff returns one sentence per difference; none when the rule did what was
// expected.
func (c *comparison) diff() []string {
	var out []string
	rule := c.e.Rule
	if w := c.e.DoesNotFire; w != nil {
		from, to := c.t.Start.T, c.t.End.T
		if !w.From.T.IsZero() {
			from = w.From.T
		}
		if !w.To.T.IsZero() {
			to = w.To.T
		}
		var in []actual
		for _, a := range c.fired {
			if !a.at.Before(from) && !a.at.After(to) {
				in = append(in, a)
			}
		}
		if len(in) > 0 {
			out = append(out, fmt.Sprintf("expected %s not to fire between %s and %s; it fired at %s", rule, c.clock(from), c.clock(to), c.times(in)))
		}
	}
	if !c.e.firesGiven {
		return out
	}
	if len(c.e.Fires) == 0 {
		if len(c.fired) > 0 {
			out = append(out, fmt.Sprintf("expected %s never to fire; it fired at %s%s", rule, c.times(c.fired), c.firstAction(c.fired[0])))
		}
		return out
	}
	exp := slices.Clone(c.e.Fires)
	slices.SortStableFunc(exp, func(a, b *Firing) int { return a.At.T.Compare(b.At.T) })
	act := slices.Clone(c.fired)
	// Firings at the expected time are the same firing; their actions are
	// compared. What is left is paired in time order, then reported alone.
	var lateExp []*Firing
	for _, e := range exp {
		i := slices.IndexFunc(act, func(a actual) bool { return a.at.Equal(e.At.T) })
		if i < 0 {
			lateExp = append(lateExp, e)
			continue
		}
		out = append(out, c.compareActions(e, act[i])...)
		out = append(out, c.compareLogs(e, act[i])...)
		act = slices.Delete(act, i, i+1)
	}
	for i, e := range lateExp {
		why := ""
		if p := c.probes[e.At.T]; p != nil {
			why = fmt.Sprintf(" (at %s: %s)", c.clock(e.At.T), p.reason)
		}
		if i < len(act) {
			out = append(out, fmt.Sprintf("expected %s to fire at %s; it fired at %s%s", rule, c.clock(e.At.T), c.clock(act[i].at), why))
			continue
		}
		if p := c.probes[e.At.T]; p != nil {
			why = ": " + p.reason
		} else {
			why = fmt.Sprintf(": %s is not a tick of the test (every %s from %s)", e.At.Text, c.tick, c.clock(c.t.Start.T))
		}
		out = append(out, fmt.Sprintf("expected %s to fire at %s; it did not fire%s", rule, c.clock(e.At.T), why))
	}
	for _, a := range act[min(len(lateExp), len(act)):] {
		out = append(out, fmt.Sprintf("%s fired at %s, which was not expected%s", rule, c.clock(a.at), c.firstAction(a)))
	}
	return out
}

// firstAction summarises what an unexpected firing sent.
func (c *comparison) firstAction(a actual) string {
	if len(a.legs) == 0 {
		return ""
	}
	kinds := make([]string, len(a.legs))
	for i, l := range a.legs {
		kinds[i] = l.Kind
	}
	return " (it sent " + strings.Join(kinds, ", ") + ")"
}

// compareActions compares the expected actions of one firing with its legs.
func (c *comparison) compareActions(e *Firing, a actual) []string {
	if e.Actions == nil {
		return nil
	}
	at := fmt.Sprintf("%s at %s", c.e.Rule, c.clock(a.at))
	if len(e.Actions) != len(a.legs) {
		kinds := make([]string, len(a.legs))
		for i, l := range a.legs {
			kinds[i] = l.Kind
		}
		return []string{fmt.Sprintf("%s: expected %d actions; it sent %d (%s)", at, len(e.Actions), len(a.legs), strings.Join(kinds, ", "))}
	}
	var out []string
	for i, want := range e.Actions {
		leg := a.legs[i]
		name := fmt.Sprintf("%s, action %d", at, i+1)
		if want.Kind != leg.Kind {
			out = append(out, fmt.Sprintf("%s: expected %s; it was %s", name, want.Kind, leg.Kind))
			continue
		}
		name += " " + leg.Kind
		out = append(out, compareLeg(name, want.Params, leg)...)
	}
	return out
}

// compareLogs compares the expected log messages of one firing with the
// messages its log actions wrote.
func (c *comparison) compareLogs(e *Firing, a actual) []string {
	if e.Logs == nil {
		return nil
	}
	var got []string
	for _, l := range a.legs {
		if l.Kind == string(actions.Log) {
			got = append(got, l.Note)
		}
	}
	at := fmt.Sprintf("%s at %s", c.e.Rule, c.clock(a.at))
	if len(got) != len(e.Logs) {
		return []string{fmt.Sprintf("%s: expected %d log messages; it wrote %d%s", at, len(e.Logs), len(got), quoteList(got))}
	}
	var out []string
	for i, want := range e.Logs {
		if got[i] != want {
			out = append(out, fmt.Sprintf("%s: log message %d was %q, expected %q", at, i+1, got[i], want))
		}
	}
	return out
}

// quoteList writes messages after a colon, quoted, or nothing.
func quoteList(ms []string) string {
	if len(ms) == 0 {
		return ""
	}
	q := make([]string, len(ms))
	for i, m := range ms {
		q[i] = strconv.Quote(m)
	}
	return ": " + strings.Join(q, ", ")
}

// compareLeg compares expected parameters with one leg: its request body,
// and for log its message, and the outcome.
func compareLeg(name string, want []Param, leg actions.Leg) []string {
	// A rule test names request fields as they are sent (clientOid,
	// presetStopSurplusPrice), so the request is compared in its wire form.
	var req map[string]any
	if leg.Request != nil {
		if err := json.Unmarshal(actions.RequestJSON(leg.Request), &req); err != nil {
			return []string{fmt.Sprintf("%s: the request is not JSON: %v", name, err)}
		}
	}
	var out []string
	for _, p := range want {
		switch p.Key {
		case "outcome":
			if !strings.EqualFold(p.Value, string(leg.Outcome)) {
				msg := fmt.Sprintf("%s: outcome was %s, expected %s", name, leg.Outcome, p.Value)
				if leg.Error != "" {
					msg += " (" + leg.Error + ")"
				}
				out = append(out, msg)
			}
			continue
		case "error":
			if !strings.Contains(leg.Error, p.Value) {
				out = append(out, fmt.Sprintf("%s: error was %q, expected it to contain %q", name, leg.Error, p.Value))
			}
			continue
		case "message":
			if !actions.Sends(leg.Kind) { // a message: log, notify
				if leg.Note != p.Value {
					out = append(out, fmt.Sprintf("%s: message was %q, expected %q", name, leg.Note, p.Value))
				}
				continue
			}
		}
		out = append(out, compareParam(name, p, req)...)
	}
	if len(out) > 0 && leg.Outcome != actions.OK && leg.Error != "" {
		out = append(out, fmt.Sprintf("%s: the request failed: %s", name, leg.Error))
	}
	return out
}

// wireNames maps the names of rule files to the request's JSON names where
// they differ by more than snake_case and camelCase.
var wireNames = map[string][]string{
	"type":            {"orderType"},
	"take_profit":     {"presetStopSurplusPrice"},
	"stop_loss":       {"presetStopLossPrice"},
	"new_take_profit": {"newPresetStopSurplusPrice"},
	"new_stop_loss":   {"newPresetStopLossPrice"},
	"orders":          {"orderList", "orderIdList"},
	"client_oids":     {"orderIdList"},
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// lookup finds the request field an expected parameter names.
func lookup(req map[string]any, key string) (any, bool) {
	for _, k := range append(wireNames[key], key, camel(key)) {
		if v, ok := req[k]; ok {
			return v, true
		}
	}
	return nil, false
}

func compareParam(name string, p Param, req map[string]any) []string {
	got, ok := lookup(req, p.Key)
	if !ok {
		if !p.IsList && (p.Value == "false" || p.Value == "NO" || p.Value == "") {
			return nil // an absent flag is false
		}
		keys := make([]string, 0, len(req))
		for k := range req {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return []string{fmt.Sprintf("%s: the request has no %s (expected %s); it has %s", name, p.Key, p.Value, strings.Join(keys, ", "))}
	}
	if !p.IsList {
		if !sameValue(p.Value, got) {
			return []string{fmt.Sprintf("%s: %s was %s, expected %s", name, p.Key, show(got), p.Value)}
		}
		return nil
	}
	items, _ := got.([]any)
	if len(items) != len(p.Items) {
		return []string{fmt.Sprintf("%s: %s had %d items, expected %d", name, p.Key, len(items), len(p.Items))}
	}
	var out []string
	for i, want := range p.Items {
		iname := fmt.Sprintf("%s, %s item %d", name, p.Key, i+1)
		m, isMap := items[i].(map[string]any)
		for _, sub := range want {
			if sub.Key == "" { // a scalar item
				if !sameValue(sub.Value, items[i]) {
					out = append(out, fmt.Sprintf("%s was %s, expected %s", iname, show(items[i]), sub.Value))
				}
				continue
			}
			if !isMap {
				out = append(out, fmt.Sprintf("%s: is %s, not a set of parameters", iname, show(items[i])))
				break
			}
			out = append(out, compareParam(iname, sub, m)...)
		}
	}
	return out
}

// sameValue compares an expected text with a request value: numbers as
// decimals (2 equals "2.00"), true/false as the exchange's YES/NO, other
// text ignoring case.
func sameValue(want string, got any) bool {
	g := fmt.Sprint(got)
	if w, err := decimal.NewFromString(want); err == nil {
		if gd, err := decimal.NewFromString(g); err == nil {
			return w.Equal(gd)
		}
		return false
	}
	switch want {
	case "true":
		return strings.EqualFold(g, "YES") || g == "true"
	case "false":
		return strings.EqualFold(g, "NO") || g == "false" || g == ""
	}
	return strings.EqualFold(want, g)
}

func show(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "empty"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
