package engine

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
)

// firingCounts is what firings_today and minutes_since_fired read on one
// tick (rules.Firings): each rule's firings on the tick's New York date and
// its last firing, taken from the rule states when the tick starts, so
// every rule of a tick reads the same counts whatever order they run in.
// A for_each rule's name sums its instances.
type firingCounts map[string]firingCount

type firingCount struct {
	today int
	last  time.Time
}

// Fired implements rules.Firings.
func (c firingCounts) Fired(name string) (int, time.Time, bool) {
	n, ok := c[name]
	return n.today, n.last, ok
}

// firingCounts returns the counts of the tick of st, or nil when no rule
// reads them (the common case costs nothing).
func (e *Engine) firingCounts(st *marketdata.State) firingCounts {
	if st == nil {
		return nil
	}
	reads := false
	for _, r := range e.rules {
		reads = reads || r.rule.Reads().Firings
	}
	if !reads {
		return nil
	}
	day := easternDay(st)
	c := make(firingCounts, len(e.rules))
	for _, r := range e.rules {
		add := func(name string) {
			n := c[name]
			n.today += r.state.firingsOn(day)
			if r.state.LastFired.After(n.last) {
				n.last = r.state.LastFired
			}
			c[name] = n
		}
		add(r.rule.Name)
		if r.rule.BaseName != "" && r.rule.BaseName != r.rule.Name {
			add(r.rule.BaseName)
		}
	}
	return c
}

// easternDay is the New York date of st's tick, the day firings_today
// counts.
func easternDay(st *marketdata.State) string { return st.EasternNow().Format(time.DateOnly) }
