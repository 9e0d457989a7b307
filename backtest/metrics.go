package backtest

import (
	"math"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// The formulas of this file are written out for traders in
// docs/backtest-report.md ("Reading the report"); a change here changes
// that page.

// Metrics are the performance figures of one margin account beside its
// equity curve and trades. Ratios and percentages are strings of numbers,
// "" when they have no meaning for the run (too few samples, no loss, no
// drawdown). The equity figures are measured on every sample the run
// took, not only those the report keeps for its charts.
type Metrics struct {
	// CAGRPct is the compound annual growth rate in percent: the return
	// the run's return would be if it went on at the same rate for a year
	// (365 days). Over a run of hours or days it extrapolates wildly.
	CAGRPct string `json:"cagrPct"`
	// Sharpe and Sortino are annualised, with a risk-free rate of zero,
	// from the returns between samples.
	Sharpe  string `json:"sharpe"`
	Sortino string `json:"sortino"`
	// Calmar is CAGR over the largest drawdown, both as fractions.
	Calmar string `json:"calmar"`
	// MaxDrawdownSeconds is the longest time the equity spent below a
	// previous high: from the high's sample to the first sample back at or
	// above it, or to the end of the run.
	MaxDrawdownSeconds int64 `json:"maxDrawdownSeconds"`
	// Expectancy is the mean net P&L (after fees) of a closed trade, in the
	// margin coin.
	Expectancy string `json:"expectancy"`
	// ExposurePct is the share of samples in which the account held an open
	// position, in percent.
	ExposurePct string `json:"exposurePct"`
	// FundingPaid is the funding the account paid (negative: received),
	// derived from the equity: the change of equity that realised P&L, fees
	// and the change of unrealised P&L do not explain.
	FundingPaid string `json:"fundingPaid"`
	// BuyAndHoldPct is the return in percent of holding the account's
	// symbols the rules name over the same span, equally weighted: the
	// mean of last price / first price - 1 of each.
	BuyAndHoldPct string `json:"buyAndHoldPct"`
}

// year is the span the annualised figures are scaled to: futures trade
// every day.
const year = 365 * 24 * time.Hour

// ratioPlaces is the number of decimal places of ratios (Sharpe,
// Sortino, Calmar).
const ratioPlaces = 2

// equityMetrics takes an account's equity at every sample and measures
// what needs the whole series: the returns between samples (for Sharpe
// and Sortino), the largest drawdown and the longest time under water. It
// keeps sums, not the series, so a year of samples costs nothing.
type equityMetrics struct {
	samples         int
	first, last     time.Time
	start, end      float64
	prev            float64
	returns         int
	sum, sumSq      float64 // of the returns
	downSq          float64 // of the negative returns
	peak            float64
	peakAt          time.Time
	maxDD           float64 // largest fall from a high, as a fraction of the high
	longestUnder    time.Duration
	underWater      bool
	unrealisedStart decimal.Decimal
	unrealisedEnd   decimal.Decimal
}

// add takes the equity e at sample time t (times in order).
func (m *equityMetrics) add(t time.Time, e float64) {
	m.samples++
	if m.samples == 1 {
		m.first, m.start, m.peak, m.peakAt = t, e, e, t
	} else if m.prev != 0 {
		r := e/m.prev - 1
		m.returns++
		m.sum += r
		m.sumSq += r * r
		if r < 0 {
			m.downSq += r * r
		}
	}
	m.last, m.end, m.prev = t, e, e
	if e >= m.peak {
		if m.underWater {
			m.longestUnder = max(m.longestUnder, t.Sub(m.peakAt))
		}
		m.peak, m.peakAt, m.underWater = e, t, false
		return
	}
	m.underWater = true
	if m.peak > 0 {
		m.maxDD = max(m.maxDD, (m.peak-e)/m.peak)
	}
}

// drawdownDuration is the longest time under a previous high, counting a
// drawdown still open at the last sample up to it.
func (m *equityMetrics) drawdownDuration() time.Duration {
	d := m.longestUnder
	if m.underWater {
		d = max(d, m.last.Sub(m.peakAt))
	}
	return d
}

// ratios computes CAGR (a fraction), Sharpe, Sortino and Calmar; ok
// flags say which have a meaning.
func (m *equityMetrics) ratios() (cagr, sharpe, sortino, calmar float64, okCAGR, okSharpe, okSortino, okCalmar bool) {
	span := m.last.Sub(m.first)
	if span > 0 && m.start > 0 && m.end > 0 {
		cagr = math.Pow(m.end/m.start, float64(year)/float64(span)) - 1
		okCAGR = finite(cagr)
	}
	if m.returns >= 2 && span > 0 {
		// Samples are evenly spaced but for the last (at the run's end):
		// the mean interval scales the per-sample figures to a year.
		perYear := float64(year) / (float64(span) / float64(m.returns))
		n := float64(m.returns)
		mean := m.sum / n
		variance := (m.sumSq - n*mean*mean) / (n - 1) // sample variance
		if variance > 0 {
			sharpe = mean / math.Sqrt(variance) * math.Sqrt(perYear)
			okSharpe = finite(sharpe)
		}
		if m.downSq > 0 {
			sortino = mean / math.Sqrt(m.downSq/n) * math.Sqrt(perYear)
			okSortino = finite(sortino)
		}
	}
	if okCAGR && m.maxDD > 0 {
		calmar = cagr / m.maxDD
		okCalmar = finite(calmar)
	}
	return
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// floatText writes f rounded to places, or "" when ok is false.
func floatText(f float64, places int, ok bool) string {
	if !ok {
		return ""
	}
	return decimal.NewFromFloat(f).Round(int32(places)).String()
}

// metrics fills the figures of m; trades are the account's (closed and
// open), realised its realised P&L, fees its fees paid, settled the change
// of its equity less the change of its unrealised P&L from start to end,
// exposed the samples with an open position and buyHold the returns
// (fractions) of its symbols.
func (m *equityMetrics) metrics(trades []Trade, realised, fees, settled decimal.Decimal, exposed int, buyHold []float64) Metrics {
	cagr, sharpe, sortino, calmar, okC, okS, okSo, okCa := m.ratios()
	out := Metrics{CAGRPct: floatText(cagr*100, percentPlaces, okC), Sharpe: floatText(sharpe, ratioPlaces, okS),
		Sortino: floatText(sortino, ratioPlaces, okSo), Calmar: floatText(calmar, ratioPlaces, okCa),
		MaxDrawdownSeconds: int64(m.drawdownDuration() / time.Second)}
	closed, net := 0, decimal.Zero
	for _, t := range trades {
		if !t.Open {
			closed++
			net = net.Add(parseOrZero(t.NetPnL))
		}
	}
	if closed > 0 {
		out.Expectancy = net.DivRound(decimal.NewFromInt(int64(closed)), tradePrecision).String()
	}
	if m.samples > 0 {
		out.ExposurePct = percent(decimal.NewFromInt(int64(exposed)), decimal.NewFromInt(int64(m.samples)))
		// What fills explain (realised - fees) less what the balance moved
		// (settled) is what left it otherwise: funding.
		out.FundingPaid = realised.Sub(fees).Sub(settled).Round(tradePrecision).String()
	}
	if len(buyHold) > 0 {
		sum := 0.0
		for _, r := range buyHold {
			sum += r
		}
		out.BuyAndHoldPct = floatText(sum/float64(len(buyHold))*100, percentPlaces, true)
	}
	return out
}

// ruleFigures adds to each rule of the summary its orders (the order ids
// its firings got) and the P&L attributed to it: the net P&L (after fees)
// of the closed trades it opened, and how many. A trade opened by no rule
// (held at the start, placed by a stop-loss) is attributed to none.
func ruleFigures(rep *Report) {
	index := make(map[string]int, len(rep.Summary.Rules))
	for i, r := range rep.Summary.Rules {
		index[r.Rule] = i
	}
	pnl := make([]decimal.Decimal, len(rep.Summary.Rules))
	for _, f := range rep.Firings {
		if i, ok := index[f.Rule]; ok {
			for _, a := range f.Actions {
				rep.Summary.Rules[i].Orders += len(a.OrderIDs)
			}
		}
	}
	for _, t := range rep.Trades {
		if i, ok := index[t.EntryRule]; ok && !t.Open {
			rep.Summary.Rules[i].Trades++
			pnl[i] = pnl[i].Add(parseOrZero(t.NetPnL))
		}
	}
	for i := range rep.Summary.Rules {
		rep.Summary.Rules[i].NetPnL = pnl[i].String()
	}
}

// symbolReturns are the buy-and-hold returns (fractions) of the sampled
// symbols from their first to their last price; a symbol without two
// prices is left out. first and last hold the prices in symbol order.
func symbolReturns(symbols []string, first, last []string) map[string]float64 {
	out := map[string]float64{}
	for i, s := range symbols {
		if i >= len(first) || i >= len(last) {
			break
		}
		a, errA := strconv.ParseFloat(first[i], 64)
		b, errB := strconv.ParseFloat(last[i], 64)
		if errA != nil || errB != nil || a <= 0 {
			continue
		}
		out[s] = b/a - 1
	}
	return out
}

// durationText writes seconds as days, hours and minutes for a trader
// ("3 d 4 h", "2 h 5 min", "40 s").
func durationText(seconds int64) string {
	d := time.Duration(seconds) * time.Second
	days, hours, mins := int64(d/(24*time.Hour)), int64(d%(24*time.Hour)/time.Hour), int64(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return strconv.FormatInt(days, 10) + " d " + strconv.FormatInt(hours, 10) + " h"
	case hours > 0:
		return strconv.FormatInt(hours, 10) + " h " + strconv.FormatInt(mins, 10) + " min"
	case mins > 0:
		return strconv.FormatInt(mins, 10) + " min"
	}
	return strconv.FormatInt(seconds, 10) + " s"
}
