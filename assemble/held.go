package assemble

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
)

// maxNamed is how many rule names a log line lists before "and N more".
const maxNamed = 5

// RuleNames lists the names of rs, at most maxNamed of them, then "and N
// more": for log lines that say which rules something holds back.
func RuleNames(rs []*rules.Rule) string {
	names := make([]string, 0, min(len(rs), maxNamed))
	for i, r := range rs {
		if i == maxNamed {
			break
		}
		names = append(names, r.Name)
	}
	s := strings.Join(names, ", ")
	if len(rs) > maxNamed {
		s += fmt.Sprintf(" and %d more", len(rs)-maxNamed)
	}
	return s
}

// heldPolls is the engine's source of States while rules are held because
// the venue did not give the stock pairs at start: the live poller of the
// rules that run, replaced by one that polls for every rule once the pairs
// are read (release). Status and metrics read it as they read a poller.
type heldPolls struct {
	mu      sync.RWMutex
	cur     *poll.Poller
	swapped chan struct{} // closed when cur is replaced
	// arrived passes on the current poller's arrivals (Run), so that the
	// engine ticks on new data across the swap, as it does on a poller.
	arrived chan struct{}
}

// Arrived implements the engine's arrivalSource.
func (h *heldPolls) Arrived() <-chan struct{} { return h.arrived }

func (h *heldPolls) current() (*poll.Poller, <-chan struct{}) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.cur, h.swapped
}

func (h *heldPolls) poller() *poll.Poller { p, _ := h.current(); return p }

// swap makes p the poller the engine reads; Run stops the previous one.
func (h *heldPolls) swap(p *poll.Poller) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur = p
	close(h.swapped)
	h.swapped = make(chan struct{})
}

// State implements StateSource.
func (h *heldPolls) State(now time.Time) (*marketdata.State, error) { return h.poller().State(now) }

// FullyPolled implements StateSource: a poller that just replaced another
// is not, so no rule fires on half a State after the swap either.
func (h *heldPolls) FullyPolled() bool { return h.poller().FullyPolled() }

// Stale implements StateSource.
func (h *heldPolls) Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	return h.poller().Stale(st, parts)
}

// Covers implements PolledSource.
func (h *heldPolls) Covers(d poll.Demand) error { return h.poller().Covers(d) }

// Parts returns the parts the current poller fetches.
func (h *heldPolls) Parts() marketdata.PartSet { return h.poller().Parts() }

// Interval returns the current poller's interval of part.
func (h *heldPolls) Interval(part marketdata.Part) time.Duration { return h.poller().Interval(part) }

// Run runs the current poller until ctx ends, moving to its replacement
// when there is one.
func (h *heldPolls) Run(ctx context.Context) error {
	for {
		p, swapped := h.current()
		pctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { _ = p.Run(pctx); close(done) }()
	forward:
		for {
			select {
			case <-ctx.Done():
				cancel()
				<-done
				return ctx.Err()
			case <-swapped:
				cancel()
				<-done
				break forward
			case <-p.Arrived():
				select { // at most one signal pending, as the poller keeps it
				case h.arrived <- struct{}{}:
				default:
				}
			}
		}
	}
}

// holdStockRules leaves the rules that read stock data out of rs when cat
// has no stock pairs; it returns the rules left out.
func holdStockRules(rs *rules.RuleSet, cat *rules.Catalog) (run *rules.RuleSet, held []*rules.Rule) {
	if cat.StockPairsErr == nil {
		return rs, nil
	}
	for _, r := range rs.Rules {
		if rules.NeedsStockPairs(r) {
			held = append(held, r)
		}
	}
	if len(held) == 0 {
		return rs, nil
	}
	return rs.Without(rules.NeedsStockPairs), held
}

// releaseHeld asks the venue for the stock pairs every poll.RefusedRetry
// until it gives them (releaseOnce) or ctx ends.
func (a *Assembly) releaseHeld(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.opts.Clock.After(poll.RefusedRetry):
		}
		if a.releaseOnce(ctx) {
			return
		}
	}
}

// releaseOnce asks the venue for the stock pairs once; when it gives them
// it loads the rules with them, plans a poller for all of them, makes the
// engine read it and runs the held rules, each keeping its state by name
// (Engine.Reload). It reports whether there is nothing more to try.
func (a *Assembly) releaseOnce(ctx context.Context) (done bool) {
	log := a.opts.Logger.Named("catalog")
	pairs, err := rules.FetchStockPairs(ctx, a.opts.Catalog)
	if err != nil {
		if ctx.Err() == nil {
			log.Debug("the stock pairs are still not given", zap.Error(err))
		}
		return false
	}
	full := a.catalog().WithStockPairs(pairs)
	rs, err := a.loadWith(ctx, full)
	if err != nil {
		log.Error("the stock pairs were read, but the rules do not load with them: the held rules stay held; fix them and restart", zap.Error(err))
		return true
	}
	po := a.pollOpts
	po.Demand, po.Contracts = a.demand(rs, full), full.Contracts
	p, err := poll.New(po)
	if err != nil {
		log.Error("the stock pairs were read, but their polling cannot be planned: the held rules stay held", zap.Error(err))
		return true
	}
	a.mu.Lock()
	a.cat = full
	held := a.Held
	a.Held = nil
	a.mu.Unlock()
	a.held.swap(p)
	a.running.Store(rs)
	a.Engine.Reload(rs)
	log.Info("the stock pairs were read: the rules held for them run now", zap.Int("rules", len(held)),
		zap.String("held_rules", RuleNames(held)), zap.Strings("polls", p.Tasks()))
	return true
}

// heldBy names the rules of the rule set loaded last that read part for
// key (poll.Options.HeldRules): whom a failing fetch holds back.
func (a *Assembly) heldBy(part marketdata.Part, key string) string {
	rs := a.running.Load()
	if rs == nil {
		return ""
	}
	return RuleNames(rulesReading(rs, part, key))
}

// rulesReading returns the enabled rules of rs that read part for key, by
// the same reads Demand polls for.
func rulesReading(rs *rules.RuleSet, part marketdata.Part, key string) []*rules.Rule {
	var out []*rules.Rule
	for _, r := range rs.Rules {
		if !r.Enabled {
			continue
		}
		rd := r.Reads()
		if !rd.Parts.Has(part) && (part != marketdata.PartMarket || r.Once != rules.OncePerSession) {
			continue
		}
		var reads bool
		switch poll.KeyKind(part) {
		case "pair":
			reads = rd.AllStocks || slices.Contains(rd.Stocks, key)
		case "product type":
			reads = rd.AllFutures || len(rd.ProductTypes) == 0 || slices.Contains(rd.ProductTypes, exchange.ProductType(key))
		case "category":
			reads = rd.AllFutures || len(rd.ProductTypes) == 0 ||
				slices.ContainsFunc(rd.ProductTypes, func(pt exchange.ProductType) bool { return string(pt.Category()) == key })
		default:
			reads = true
		}
		if reads {
			out = append(out, r)
		}
	}
	return out
}
