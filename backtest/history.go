package backtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
)

// HistoryOptions say which stored history (package data) a backtest
// replays.
type HistoryOptions struct {
	// Dir is the store's folder (engine data download --dir).
	Dir string
	// Product is the symbols' product type (default USDT-FUTURES).
	Product exchange.ProductType
	// Interval is the candles' interval (default 1m).
	Interval exchange.Granularity
	// Symbols are the symbols to replay (default: every symbol of the
	// store with trade candles of Interval that the demo scenario has a
	// contract for).
	Symbols []string
	// From and To bound the replay (both required).
	From, To time.Time
}

// History is stored history made ready to replay: each symbol's price path
// inside its candles (market.CandleSpec), its mark and index paths when
// they are stored, its funding settlements, and the notes the report shows
// (gaps, what is modelled). It is read-only once loaded, so that the
// variants of a sweep can share it.
type History struct {
	opts    HistoryOptions
	symbols []string
	prices  map[string]market.PathSpec
	funding map[string][]sim.FundingSettlement
	notes   []string
}

// LoadHistory reads the stored candles and funding of opts from the store.
// A symbol or a span the store lacks is an error naming the download that
// would fetch it.
func LoadHistory(opts HistoryOptions) (*History, error) {
	if opts.Product == "" {
		opts.Product = exchange.USDTFutures
	}
	if opts.Interval == "" {
		opts.Interval = "1m"
	}
	length, ok := opts.Interval.Duration()
	if !ok {
		return nil, fmt.Errorf("history: interval %q is not a candle interval", opts.Interval)
	}
	if opts.From.IsZero() || opts.To.IsZero() || !opts.To.After(opts.From) {
		return nil, errors.New("history: a backtest on stored history needs a start and a later end (--from and --to)")
	}
	demo := sim.Demo()
	if len(opts.Symbols) == 0 {
		var err error
		if opts.Symbols, err = storedSymbols(opts, demo); err != nil {
			return nil, err
		}
	}
	h := &History{opts: opts, prices: map[string]market.PathSpec{}, funding: map[string][]sim.FundingSettlement{}}
	for _, sym := range opts.Symbols {
		if !hasContract(demo, opts.Product, sym) {
			return nil, fmt.Errorf("history: %s %s: the demo scenario has no such contract (it has %s); backtest it with a scenario of your own", opts.Product, sym, strings.Join(contractSymbols(demo, opts.Product), ", "))
		}
		if err := h.loadSymbol(sym, length); err != nil {
			return nil, err
		}
	}
	h.symbols = slices.Clone(opts.Symbols)
	h.notes = append(h.notes,
		"prices replay the stored "+string(opts.Interval)+" candles: inside a candle the price goes open, nearer extreme, other extreme, close, one tick at a time (modelled)",
		"the order books of futures and stock pairs are modelled, not recorded: the spread from each candle's range (a twentieth of it each side, 1 to 25 bps), the depth from its traded value (the best level about two seconds of it)")
	return h, nil
}

// loadSymbol reads one symbol's trade, mark and index candles and its
// funding.
func (h *History) loadSymbol(sym string, length time.Duration) error {
	o := h.opts
	trade, path, err := h.loadSeries(sym, data.KindTrade, length)
	if err != nil {
		return err
	}
	if path.Len() == 0 {
		return fmt.Errorf("history: the store has no %s trade candles of %s from %s to %s%s", o.Interval, sym, stamp(o.From), stamp(o.To), h.downloadHint(sym))
	}
	h.prices[sym] = market.PathSpec{CandlePath: path}
	if first := trade.first; first.After(o.From) {
		h.notes = append(h.notes, fmt.Sprintf("no %s candles before %s (not listed yet, or not stored): the price holds the first open", sym, stamp(first)))
	}
	for _, g := range trade.Gaps {
		from, to := maxTime(g.From, o.From), minTime(g.To, o.To)
		if to.After(from) && to.After(trade.first) {
			h.notes = append(h.notes, fmt.Sprintf("gap in %s: no candles from %s to %s (%s): the price held at the last close", sym, stamp(from), stamp(to), to.Sub(from)))
		}
	}
	for _, k := range []struct {
		kind string
		name string
	}{{data.KindMark, sim.MarkPathName(sym)}, {data.KindIndex, sim.IndexPathName(sym)}} {
		_, p, err := h.loadSeries(sym, k.kind, length)
		var bad *candleError
		if errors.As(err, &bad) {
			return err
		}
		if err != nil || p.Len() == 0 {
			h.notes = append(h.notes, fmt.Sprintf("%s: no stored %s candles over the span: the %s price is the last price", sym, k.kind, k.kind))
			continue
		}
		h.prices[k.name] = market.PathSpec{CandlePath: p}
	}
	rates, err := data.LoadFunding(o.Dir, o.Product, sym)
	switch {
	case errors.Is(err, data.ErrNotDownloaded):
		h.notes = append(h.notes, fmt.Sprintf("%s: no stored funding (%v): no funding charged", sym, err))
		return nil
	case err != nil:
		// A funding file that does not read is not "no funding": say so.
		return fmt.Errorf("history: %w", err)
	}
	// The settlements of the span, and the last one before it: the rate
	// the ticker shows from the first second (the simulator charges only
	// those after the start).
	var list []sim.FundingSettlement
	charged := 0
	for _, r := range rates {
		if r.Time.After(o.To) {
			continue
		}
		rate, err := decimal.NewFromString(string(r.Rate))
		if err != nil {
			return fmt.Errorf("history: funding of %s at %s: rate %q: %w", sym, stamp(r.Time), r.Rate, err)
		}
		s := sim.FundingSettlement{At: r.Time, Rate: rate}
		switch {
		case r.Time.After(o.From):
			list = append(list, s)
			charged++
		case len(list) == 0:
			list = append(list, s)
		default:
			list[0] = s // a later one before the start
		}
	}
	h.funding[sym] = list
	h.notes = append(h.notes, fmt.Sprintf("%s: funding charged at the stored settlements in the span, at their times and rates, on the mark price: %d", sym, charged))
	return nil
}

// series is what loadSeries tells of a series beside its path: its gaps
// and its first candle.
type series struct {
	data.Loaded
	first time.Time
}

// candleError is a stored candle that makes no path: the store is wrong,
// and the replay stops rather than leave the series out.
type candleError struct{ err error }

func (e *candleError) Error() string { return e.err.Error() }
func (e *candleError) Unwrap() error { return e.err }

// loadSeries loads one series over the replay's span as a candle path
// (market.CandleSpec), a month at a time (data.Each), and checks that the
// store covers the span.
func (h *History) loadSeries(sym, kind string, length time.Duration) (series, *market.CandleSpec, error) {
	o := h.opts
	s := data.Series{Product: o.Product, Symbol: sym, Kind: kind, Interval: o.Interval}
	path, err := market.NewCandleSpec(length)
	if err != nil {
		return series{}, nil, fmt.Errorf("history: %w", err)
	}
	var first time.Time
	// A price is parsed once and shared by the candles at it: a symbol's
	// minutes repeat a few thousand prices.
	parsed := map[exchange.Num]decimal.Decimal{}
	l, err := data.Each(o.Dir, s, o.From, o.To, func(rows []data.Candle) error {
		if len(rows) > 0 && first.IsZero() {
			first = rows[0].Time
		}
		for _, c := range rows {
			bar, err := market.StoredBar(c, parsed)
			if err == nil {
				err = path.Append(bar)
			}
			if err != nil {
				return &candleError{fmt.Errorf("history: %s %s: %w", sym, kind, err)}
			}
		}
		return nil
	})
	var bad *candleError
	if errors.As(err, &bad) {
		return series{}, nil, err
	}
	if err != nil {
		return series{}, nil, fmt.Errorf("history: %w%s", err, h.downloadHint(sym))
	}
	if l.Covered.From.After(o.From) || l.Covered.To.Before(o.To) {
		return series{}, nil, fmt.Errorf("history: the store has %s from %s to %s only; the backtest needs %s to %s%s",
			s, stamp(l.Covered.From), stamp(l.Covered.To), stamp(o.From), stamp(o.To), h.downloadHint(sym))
	}
	return series{Loaded: l, first: first}, path, nil
}

// downloadHint is the command that fetches what a replay of sym needs.
func (h *History) downloadHint(sym string) string {
	o := h.opts
	return fmt.Sprintf("\n  to fetch it: engine data download --dir %s --product %s --symbols %s --interval %s --from %s --to %s",
		o.Dir, o.Product, sym, o.Interval, o.From.UTC().Format(time.RFC3339), o.To.UTC().Format(time.RFC3339))
}

// Apply sets a backtest's scenario to the demo scenario's accounts,
// contracts, stock pairs and strategy orders with the stored prices and
// funding, the US exchange holidays of the span, and the replay's span,
// source and notes. The demo's other symbols hold their starting price:
// they are not history, and a note says so. A fresh scenario every call,
// so that the variants of a sweep share none.
func (h *History) Apply(o *Options) error {
	sc := sim.Demo()
	sc.Name = fmt.Sprintf("stored history %s (%s %s)", h.opts.Dir, strings.Join(h.symbols, ","), h.opts.Interval)
	sc.Clock.Start, sc.Clock.End = h.opts.From, h.opts.To
	// The holidays of every year of the span, not only the demo's year.
	sc.Calendar.Closures, sc.Calendar.USHolidays = nil, true
	sc.Settings.FundingRate = decimal.Zero
	sc.FundingHistory = h.funding
	var held []string
	for sym, p := range sc.Prices {
		if _, ok := h.prices[sym]; ok {
			continue
		}
		if p.RandomWalk != nil {
			sc.Prices[sym] = market.PathSpec{Points: []market.Point{{At: h.opts.From, Price: p.RandomWalk.Start}}}
			held = append(held, sym)
		}
	}
	for name, p := range h.prices {
		sc.Prices[name] = p
	}
	notes := slices.Clone(h.notes)
	if len(held) > 0 {
		slices.Sort(held)
		notes = append(notes, "not replayed, their price held flat (not history): "+strings.Join(held, ", "))
	}
	o.Scenario, o.Source, o.Notes = sc, sc.Name, notes
	if o.From.IsZero() {
		o.From = h.opts.From
	}
	if o.To.IsZero() {
		o.To = h.opts.To
	}
	return nil
}

// storedSymbols are the symbols of the store with trade candles of the
// interval that the demo scenario has a contract for.
func storedSymbols(o HistoryOptions, demo *sim.Scenario) ([]string, error) {
	entries, err := data.List(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var out []string
	for _, e := range entries {
		s := e.Series
		if s.Product == o.Product && s.Kind == data.KindTrade && s.Interval == o.Interval && hasContract(demo, o.Product, s.Symbol) {
			out = append(out, s.Symbol)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history: the store %s has no %s trade candles of %s of a demo contract (%s)\n  to fetch them: engine data download --dir %s --symbols TSLAUSDT --interval %s --from %s --to %s",
			o.Dir, o.Interval, o.Product, strings.Join(contractSymbols(demo, o.Product), ", "), o.Dir, o.Interval, o.From.UTC().Format(time.RFC3339), o.To.UTC().Format(time.RFC3339))
	}
	return out, nil
}

func hasContract(sc *sim.Scenario, pt exchange.ProductType, sym string) bool {
	return slices.Contains(contractSymbols(sc, pt), sym)
}

// contractSymbols are the scenario's contracts of a product type.
func contractSymbols(sc *sim.Scenario, pt exchange.ProductType) []string {
	var out []string
	for _, c := range sc.Contracts {
		if c.ProductType == pt {
			out = append(out, c.Symbol)
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
