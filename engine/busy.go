package engine

import (
	"slices"
	"sync"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

// anySymbol stands for every symbol: an action without a literal symbol
// (cancel_all, a formula) may touch any of them.
const anySymbol = "*"

// touches lists the symbols the actions of r may trade (anySymbol when one
// cannot be known before the rule fires). An action that sends nothing to
// the exchange (log, notify: its kind's declaration says so) touches none,
// so a rule that only tells the trader never waits for unsettled orders.
func touches(r *rules.Rule) []string {
	var out []string
	for _, a := range r.Actions {
		if !actions.Sends(string(a.Kind)) {
			continue
		}
		sym := r.Symbol
		if v := a.Params["symbol"]; v != nil {
			s, ok := v.Literal.(string)
			if v.IsFormula() || !ok {
				return []string{anySymbol}
			}
			sym = s
		}
		if sym == "" {
			return []string{anySymbol}
		}
		if !slices.Contains(out, sym) {
			out = append(out, sym)
		}
	}
	return out
}

// busySymbols counts the unsettled firings per symbol, and the firings
// being settled off the tick loop; the settling goroutines release them. It
// is safe for concurrent use.
type busySymbols struct {
	mu sync.Mutex
	n  map[string]int
	// settling counts the settling goroutines; changed is closed and
	// replaced whenever that count changes (Settling).
	settling int
	changed  chan struct{}
}

// settled adds d to the settling goroutines.
func (b *busySymbols) settled(d int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.settling += d
	if b.changed != nil {
		close(b.changed)
	}
	b.changed = make(chan struct{})
}

// add marks syms busy with one more unsettled firing.
func (b *busySymbols) add(syms []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == nil {
		b.n = map[string]int{}
	}
	for _, s := range syms {
		b.n[s]++
	}
}

// done releases one unsettled firing's syms.
func (b *busySymbols) done(syms []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range syms {
		if b.n[s]--; b.n[s] <= 0 {
			delete(b.n, s)
		}
	}
}

// snapshot returns the busy symbols (nil when none).
func (b *busySymbols) snapshot() map[string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.n) == 0 {
		return nil
	}
	out := make(map[string]bool, len(b.n))
	for s := range b.n {
		out[s] = true
	}
	return out
}

// waits reports whether a rule touching syms must wait for busy.
func waits(busy map[string]bool, syms []string) bool {
	if len(busy) == 0 || len(syms) == 0 {
		return false
	}
	if busy[anySymbol] {
		return true
	}
	for _, s := range syms {
		if s == anySymbol || busy[s] {
			return true
		}
	}
	return false
}

// Settling returns how many firings are being settled off the tick loop
// and a channel that is closed when that number changes. Tests wait on it.
func (e *Engine) Settling() (int, <-chan struct{}) {
	e.busy.mu.Lock()
	defer e.busy.mu.Unlock()
	if e.busy.changed == nil {
		e.busy.changed = make(chan struct{})
	}
	return e.busy.settling, e.busy.changed
}

// symbols lists the symbols in's legs trade.
func (in *Intent) symbols() []string {
	var out []string
	for _, l := range in.Legs {
		if l.Plan.Done != nil {
			continue
		}
		s := l.Plan.Symbol
		if s == "" {
			s = anySymbol
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
