package poll

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
)

// This file holds when each task is fetched and how the poller tells the
// engine that a fetch brought new data: the engine evaluates the rules as
// soon as it has (engine.Engine.Run), so a poll's place in its interval is
// what a rule's reaction waits for.

// spread returns the phase of every task of tasks (a plan's, grouped by
// part): where in its interval the task is fetched after its first fetch.
// The keys of one part are spread evenly over the part's interval, so
// that an operation's requests never come in a burst, and the parts are
// staggered between them, so that fresh data of one part or another
// arrives all along the interval rather than all at once.
func spread(tasks []Task) []time.Duration {
	var keys [marketdata.NumParts]int
	var rank [marketdata.NumParts]int
	nParts := 0
	for _, t := range tasks {
		if keys[t.Part] == 0 {
			rank[t.Part] = nParts
			nParts++
		}
		keys[t.Part]++
	}
	out := make([]time.Duration, len(tasks))
	var seen [marketdata.NumParts]int
	for i, t := range tasks {
		j := seen[t.Part]
		seen[t.Part]++
		slot := int64(j*nParts + rank[t.Part]) // of keys*nParts slots in the interval
		out[i] = time.Duration(int64(t.Interval) * slot / int64(keys[t.Part]*nParts))
	}
	return out
}

// nextDue is when t is due again after a fetch that began at now. Every
// task is fetched at start (no rule may fire before all are in), then at
// its phase, and from then on keeps to its grid: a fetch that began late
// does not shift the ones after it. Only the first interval may see a
// task twice (at start and at its phase); at the default headroom that
// stays within the operation's whole rate limit.
func (t *task) nextDue(now time.Time) time.Time {
	if t.due.IsZero() {
		if t.phase > 0 {
			return now.Add(t.phase)
		}
		return now.Add(t.Interval)
	}
	k := now.Sub(t.due)/t.Interval + 1 // the grid points up to now are past
	return t.due.Add(k * t.Interval)
}

// Arrived receives after a fetch stored an answer that changed, or brought
// a part in or back (its first success, or one after failures). The poller
// never blocks on it: at most one signal waits, for however many fetches.
func (p *Poller) Arrived() <-chan struct{} { return p.arrived }

// arrive signals Arrived without blocking.
func (p *Poller) arrive() {
	select {
	case p.arrived <- struct{}{}:
	default:
	}
}
