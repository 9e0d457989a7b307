package actions

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/marketdata"
)

// Drawdown is one coin's max_drawdown: new entries stop when the coin's
// equity is more than Percent below its highest value within Within.
type Drawdown struct {
	Percent decimal.Decimal `yaml:"percent"`
	Within  time.Duration   `yaml:"within"`
}

// check reports a drawdown limit no one can mean.
func (d Drawdown) check(coin string) error {
	if !d.Percent.IsPositive() || d.Percent.GreaterThanOrEqual(decimal.NewFromInt(100)) {
		return fmt.Errorf("protections.max_drawdown.%s.percent must be above 0 and below 100 (percent: 10 for a fall of 10%% from the peak)", coin)
	}
	if d.Within < time.Hour {
		return fmt.Errorf("protections.max_drawdown.%s.within must be 1h or more (the peak is kept by the hour): within: 168h for a week", coin)
	}
	return nil
}

// EquityPeaks are the highest equity the engine saw of each margin coin,
// hour by hour: what max_drawdown measures a fall from. They are kept in
// the state directory, so that a restart keeps the peak.
type EquityPeaks map[string][]EquityHour

// EquityHour is the highest equity of a coin seen in the hour that starts
// at Hour.
type EquityHour struct {
	Hour time.Time       `json:"hour"`
	High decimal.Decimal `json:"high"`
}

// observe records coin's equity at now and forgets the hours that ended
// before from; it reports whether anything changed.
func (p EquityPeaks) observe(coin string, equity decimal.Decimal, now, from time.Time) bool {
	hours := p[coin]
	kept := slices.DeleteFunc(slices.Clone(hours), func(h EquityHour) bool { return !h.Hour.Add(time.Hour).After(from) })
	changed := len(kept) != len(hours)
	hour := now.Truncate(time.Hour)
	switch last := len(kept) - 1; {
	case last < 0 || kept[last].Hour.Before(hour):
		kept, changed = append(kept, EquityHour{Hour: hour, High: equity}), true
	case kept[last].Hour.Equal(hour) && equity.GreaterThan(kept[last].High):
		kept[last].High, changed = equity, true
	}
	p[coin] = kept
	return changed
}

// peak is the highest equity of coin in the hours kept.
func (p EquityPeaks) peak(coin string) (decimal.Decimal, bool) {
	hours := p[coin]
	if len(hours) == 0 {
		return decimal.Zero, false
	}
	high := hours[0].High
	for _, h := range hours[1:] {
		high = decimal.Max(high, h.High)
	}
	return high, true
}

// clone is a deep copy of p, to save outside the guard's lock.
func (p EquityPeaks) clone() EquityPeaks {
	out := make(EquityPeaks, len(p))
	for coin, hours := range p {
		out[coin] = slices.Clone(hours)
	}
	return out
}

// savePeaks keeps peaks (nil: nothing changed) in the state directory,
// outside g.mu; a failed save is tried again on the next tick.
func (g *Guard) savePeaks(peaks EquityPeaks) {
	if peaks == nil || g.opts.SaveEquityPeaks == nil {
		return
	}
	err := g.opts.SaveEquityPeaks(peaks)
	g.mu.Lock()
	g.unsaved = err != nil
	g.mu.Unlock()
}

// observeDrawdowns records the equity of each coin of max_drawdown in st
// and returns the halt its fall trips, or nil. A coin whose account was
// not fetched is skipped: a protection acts on records, never on a guess.
// g.mu is held.
func (g *Guard) observeDrawdowns(st *marketdata.State, limits map[string]Drawdown, active bool) (changed bool, trip *Halt) {
	now := st.Now
	for _, coin := range slices.Sorted(maps.Keys(limits)) { // the same first trip on every run
		d := limits[coin]
		equity, err := st.Equity(coin)
		if err != nil {
			continue
		}
		// After a resume by hand the peak counts from then (Resume
		// forgets the hours before), as stop_after_losses counts losses.
		if g.peaks.observe(coin, equity, now, now.Add(-d.Within)) {
			changed = true
		}
		peak, ok := g.peaks.peak(coin)
		if active || trip != nil || !ok || !peak.IsPositive() {
			continue
		}
		floor := peak.Mul(decimal.NewFromInt(100).Sub(d.Percent)).Div(decimal.NewFromInt(100))
		if equity.LessThan(floor) {
			fall := peak.Sub(equity).Div(peak).Mul(decimal.NewFromInt(100))
			trip = &Halt{Protection: "max_drawdown", At: now,
				Reason: fmt.Sprintf("%s equity %s is %s%% below its peak of %s within %s (the limit is %s%%)",
					coin, equity, fall.Round(6), peak, d.Within, d.Percent)}
		}
	}
	return changed, trip
}
