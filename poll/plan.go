package poll

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Task is one planned fetch: a part for one key (a stock pair, product type
// or category; empty for a part fetched whole), every Interval.
type Task struct {
	Part     marketdata.Part
	Key      string
	Interval time.Duration
}

// PlanOptions say what to poll and how much of the rate limits to use.
type PlanOptions struct {
	Demand Demand
	// Headroom is the fraction of each operation's published rate limit the
	// polls may use; the rest stays free for orders (default 0.5).
	Headroom float64
	// Intervals override the interval of a part; below the rate-limit
	// minimum they are raised to it.
	Intervals map[marketdata.Part]time.Duration
	// MinInterval is the shortest interval of any part (default 1s, the tick).
	MinInterval time.Duration
}

// Plan is the fetches of a demand, each at an interval that fits the rate
// limits. It is made once: rules that read more need a new Plan.
type Plan struct {
	// Tasks are the fetches, part by part in declaration order.
	Tasks     []Task
	intervals [marketdata.NumParts]time.Duration // of the polled parts; 0 for the others
}

// NewPlan plans the tasks of opts.Demand.
func NewPlan(opts PlanOptions) (*Plan, error) {
	if opts.Headroom <= 0 || opts.Headroom > 1 {
		opts.Headroom = 0.5
	}
	if opts.MinInterval <= 0 {
		opts.MinInterval = time.Second
	}
	p := &Plan{}
	d := opts.Demand
	for _, part := range d.Parts.Parts() {
		keys := d.keys(part)
		if len(keys) == 0 {
			return nil, fmt.Errorf("poller: part %s is read but names no %s", part, parts[part].keyedBy)
		}
		iv, err := interval(opts, part, len(keys))
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			p.Tasks = append(p.Tasks, Task{Part: part, Key: k, Interval: iv})
		}
		p.intervals[part] = iv
	}
	return p, nil
}

// interval is the poll interval of part when it has n keys: the wanted
// interval, raised until n fetches per interval fit in Headroom of the
// operation's rate limit.
func interval(opts PlanOptions, part marketdata.Part, n int) (time.Duration, error) {
	iv := parts[part].every
	if o, ok := opts.Intervals[part]; ok && o > 0 {
		iv = o
	}
	for _, op := range parts[part].ops {
		info, ok := exchange.LookupOp(op)
		if !ok {
			return 0, fmt.Errorf("poller: no rate limit known for %s", op)
		}
		perSecond := float64(info.Rate) / info.Per.Seconds() * opts.Headroom
		calls := n * RequestsPerFetch(part, op)
		minIv := time.Duration(math.Ceil(float64(calls) / perSecond * float64(time.Second)))
		iv = max(iv, minIv)
	}
	return max(iv, opts.MinInterval), nil
}

// Interval returns the poll interval of part (0 when it is not polled).
func (p *Plan) Interval(part marketdata.Part) time.Duration {
	if int(part) >= marketdata.NumParts {
		return 0
	}
	return p.intervals[part]
}

// ErrNotPolled is returned by Covers when the plan does not fetch some of a
// demand.
var ErrNotPolled = errors.New("not polled")

// Covers reports whether the plan fetches everything d demands; the error
// (ErrNotPolled) names what it does not.
func (p *Plan) Covers(d Demand) error {
	polled := map[marketdata.Part]map[string]bool{}
	for _, t := range p.Tasks {
		if polled[t.Part] == nil {
			polled[t.Part] = map[string]bool{}
		}
		polled[t.Part][t.Key] = true
	}
	var missing []string
	for _, part := range d.Parts.Parts() {
		keys := polled[part]
		if keys == nil {
			missing = append(missing, part.String())
			continue
		}
		for _, k := range d.keys(part) {
			if !keys[k] {
				missing = append(missing, part.String()+" "+k)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNotPolled, strings.Join(missing, ", "))
}

// Parts returns the set of parts the plan fetches.
func (p *Plan) Parts() marketdata.PartSet {
	var s marketdata.PartSet
	for _, t := range p.Tasks {
		s = s.Add(t.Part)
	}
	return s
}

// Budget lists, per operation, the requests per second the plan makes.
func (p *Plan) Budget() map[exchange.Op]float64 {
	out := map[exchange.Op]float64{}
	for _, t := range p.Tasks {
		for _, op := range parts[t.Part].ops {
			out[op] += 1 / t.Interval.Seconds()
		}
	}
	return out
}

// Lines lists the planned fetches as "part key every interval", sorted,
// for logs and `engine check`.
func (p *Plan) Lines() []string {
	out := make([]string, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		s := t.Part.String()
		if t.Key != "" {
			s += " " + t.Key
		}
		out = append(out, fmt.Sprintf("%s every %s", s, t.Interval))
	}
	slices.Sort(out)
	return out
}

// StaleAfter is how many poll intervals old a part may be before the rules
// that read it stop firing.
const StaleAfter = 3

// Stale returns the first part of parts that is missing or older than
// StaleAfter intervals in st, and whether there is one.
func (p *Plan) Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	for part := marketdata.Part(0); int(part) < marketdata.NumParts; part++ { // not parts.Parts(): no allocation per tick
		if !parts.Has(part) {
			continue
		}
		iv := p.Interval(part)
		if iv == 0 {
			return part, true // read but never polled: a bug in the demand
		}
		if !st.Fetched(part) || st.Age(part) > StaleAfter*iv {
			return part, true
		}
	}
	return 0, false
}
