package actions

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Protections are the safety file's stops on the account's own results,
// beyond any rule. Each reads the venue's records (the position history
// and the positions), so a restart mid-day sees the same figures; what
// they stop is what the kill switch stops: orders that open or grow a
// position. Closes, cancels and protective orders always go.
type Protections struct {
	// MaxDailyLoss, per margin coin: when today's P&L (realised, fees and
	// funding since 00:00 New York time, plus unrealised now: pnl_today)
	// falls below minus this, new entries stop until the next 00:00 New
	// York time. Resumed by hand (engine resume, SIGUSR2), it does not
	// trip again that day.
	MaxDailyLoss map[string]decimal.Decimal `yaml:"max_daily_loss"`
	// StopAfterLosses stops new entries after Count positions closed at a
	// loss within Within, until resumed by hand; after that only later
	// losses count.
	StopAfterLosses *LossStreak `yaml:"stop_after_losses"`
	// CooldownAfterLoss: after a position of a symbol closed at a loss, no
	// new entry on that symbol for this long (counted from the close).
	CooldownAfterLoss time.Duration `yaml:"cooldown_after_loss"`
	// MaxDrawdown, per margin coin: when the coin's equity (balance plus
	// unrealised P&L, as the engine polls it) is more than Percent below
	// its highest value within Within, new entries stop until resumed by
	// hand; after that the peak counts from the resume.
	MaxDrawdown map[string]Drawdown `yaml:"max_drawdown"`
}

// LossStreak is stop_after_losses: Count losing closes within Within.
type LossStreak struct {
	Count  int           `yaml:"count"`
	Within time.Duration `yaml:"within"`
}

// Any reports whether a protection is set: each reads some part.
func (p Protections) Any() bool { return p.Parts() != 0 }

// Parts are the parts of the State the protections read, whether or not
// a rule reads them: the position history and the positions for the
// limits on losses, the accounts for max_drawdown.
func (p Protections) Parts() marketdata.PartSet {
	var parts marketdata.PartSet
	if len(p.MaxDailyLoss) > 0 || p.StopAfterLosses != nil || p.CooldownAfterLoss > 0 {
		parts = parts.Add(marketdata.PartClosedTrades).Add(marketdata.PartPositions)
	}
	if len(p.MaxDrawdown) > 0 {
		parts = parts.Add(marketdata.PartBalances)
	}
	return parts
}

// check reports a value no protection can mean.
func (p Protections) check() error {
	for coin, l := range p.MaxDailyLoss {
		if !l.IsPositive() {
			return fmt.Errorf("protections.max_daily_loss.%s must be above 0 (a loss, written as a positive amount)", coin)
		}
	}
	if s := p.StopAfterLosses; s != nil && (s.Count < 1 || s.Within <= 0) {
		return fmt.Errorf("protections.stop_after_losses needs count of 1 or more and a within duration above 0 (count: 3, within: 24h)")
	}
	if p.CooldownAfterLoss < 0 {
		return fmt.Errorf("protections.cooldown_after_loss must not be negative")
	}
	for _, coin := range slices.Sorted(maps.Keys(p.MaxDrawdown)) {
		if err := p.MaxDrawdown[coin].check(coin); err != nil {
			return err
		}
	}
	return nil
}

// ProductTypes are the product types whose records the protections read:
// those of the coins of max_daily_loss and max_drawdown, and every one
// when a protection counts the closes of any symbol.
func (p Protections) ProductTypes() []exchange.ProductType {
	if p.StopAfterLosses != nil || p.CooldownAfterLoss > 0 {
		return exchange.ProductTypes()
	}
	var out []exchange.ProductType
	for coin := range p.MaxDailyLoss {
		out = append(out, exchange.ProductTypeOfCoin(coin))
	}
	for coin := range p.MaxDrawdown {
		out = append(out, exchange.ProductTypeOfCoin(coin))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Observe applies the protections to the State of a tick: it trips a halt
// (max_daily_loss, stop_after_losses, max_drawdown) when none holds,
// records the equity max_drawdown measures from, and sets the
// symbols in their cooldown_after_loss. Data the State lacks trips
// nothing: a protection acts on records, never on a guess.
func (g *Guard) Observe(st *marketdata.State) {
	p := g.opts.Safety.Protections
	if st == nil || !p.Any() {
		return
	}
	closed, closedErr := st.ClosedTrades()
	now := st.Now
	g.mu.Lock()
	if p.CooldownAfterLoss > 0 && closedErr == nil {
		g.cooling = map[string]time.Time{}
		for _, t := range closed {
			if end := t.ClosedAt.Add(p.CooldownAfterLoss); t.PnL.IsNegative() && now.Before(end) && end.After(g.cooling[t.Symbol]) {
				g.cooling[t.Symbol] = end
			}
		}
	}
	var trip *Halt
	active := g.halt.Active(now)
	if !active {
		trip = g.trip(st, p, closed, closedErr)
	}
	var peaks EquityPeaks
	if len(p.MaxDrawdown) > 0 {
		changed, fall := g.observeDrawdowns(st, p.MaxDrawdown, active || trip != nil)
		if trip == nil {
			trip = fall
		}
		if changed || g.unsaved {
			peaks = g.peaks.clone()
		}
	}
	if trip != nil {
		g.halt = *trip
	}
	g.mu.Unlock()
	g.savePeaks(peaks)
	if trip == nil {
		return
	}
	if g.opts.SaveHalt != nil {
		if err := g.opts.SaveHalt(*trip); err != nil {
			trip.Reason += "; not kept in the state directory: " + err.Error()
		}
	}
	if g.opts.OnTrip != nil {
		g.opts.OnTrip(*trip)
	}
}

// trip returns the halt a protection trips on st, or nil. g.mu is held.
func (g *Guard) trip(st *marketdata.State, p Protections, closed []marketdata.ClosedTrade, closedErr error) *Halt {
	now, lifted := st.Now, g.halt.Lifted
	dayStart := st.DayStart()
	for _, coin := range slices.Sorted(maps.Keys(p.MaxDailyLoss)) {
		if !lifted.Before(dayStart) {
			break // resumed by hand today: the daily limit is the trader's call
		}
		pnl, err := st.PnLToday(coin)
		if limit := p.MaxDailyLoss[coin]; err == nil && pnl.LessThan(limit.Neg()) {
			return &Halt{Protection: "max_daily_loss", At: now, Until: nextMidnight(st),
				// Unrounded, so that a figure just past the limit does not
				// read as the limit itself.
				Reason: fmt.Sprintf("%s P&L today is %s, below the limit of -%s", coin, pnl, limit)}
		}
	}
	if s := p.StopAfterLosses; s != nil && closedErr == nil {
		from := now.Add(-s.Within)
		if lifted.After(from) {
			from = lifted
		}
		n := 0
		for _, t := range closed {
			if t.PnL.IsNegative() && t.ClosedAt.After(from) {
				n++
			}
		}
		if n >= s.Count {
			return &Halt{Protection: "stop_after_losses", At: now,
				Reason: fmt.Sprintf("%d positions closed at a loss within %s (the limit is %d)", n, s.Within, s.Count)}
		}
	}
	return nil
}

// nextMidnight is the next 00:00 New York time after st's tick.
func nextMidnight(st *marketdata.State) time.Time {
	d := st.DayStart()
	return time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, d.Location())
}
