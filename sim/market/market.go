package market

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// ErrUnknownSymbol is returned for a symbol that has no price path or stock
// pair in the scenario. The simulator answers it with 40034 or 40072.
var ErrUnknownSymbol = errors.New("unknown symbol")

// defaultTick is the price step of a path whose spec and contract name none.
var defaultTick = decimal.New(1, -2)

// Options configure a Market.
type Options struct {
	// Paths are the price paths by symbol (a futures symbol or a path name
	// that stock pairs refer to).
	Paths map[string]PathSpec
	// BaseDir is the directory relative CSV paths are read from (the
	// scenario file's directory).
	BaseDir string
	// StockPairs are the US stock pairs, in the order stock-info lists them.
	StockPairs []StockPairSpec
	// Calendar is the closure calendar.
	Calendar CalendarSpec
	// Start and End bound the scenario. Random walks start at Start and hold
	// their price after End; a zero End lets them run on (up to
	// maxWalkSteps steps).
	Start, End time.Time
	// Ticks are the price steps by symbol, from the contracts; a path's own
	// Tick wins.
	Ticks map[string]decimal.Decimal
}

// Market is the simulated market: prices, books and platform fills derived
// from the scenario's price paths, and the US calendar. Every answer is a
// pure function of the options and the time asked about, so the same
// scenario gives the same answers whatever was asked before. It is safe for
// concurrent use.
//
// Answers are memoised: asked again while nothing changed (the same step of
// the price path for books, the same newest fill for stock fills), a method
// returns the very same slices as before. Returned slices are shared and
// read-only; callers must not modify them.
type Market struct {
	instruments map[string]*instrument
	paths       []series     // every price path once, for Epoch
	pairs       []*stockPair // scenario order
	pairBySym   map[string]*stockPair
	cal         calendar
	// states are the two answers of States (standard time, daylight
	// saving), written once: pollers ask every minute. States copies them.
	states [2][]exchange.MarketState
}

// instrument is a symbol whose price, book and fills the market can tell.
type instrument struct {
	path     series
	tick     decimal.Decimal
	tickCoef int64 // tick = tickCoef * 10^tickExp
	tickExp  int32
	tickF    float64 // tick as a float, for sizes and ticksOf
	seed     uint64  // varies book sizes and fills between symbols
	origin   time.Time
	stamps   *stampCache // shared by the market's instruments; nil writes each stamp

	// candles is the path's candles when it is a candle path: its book is
	// modelled from them (quote).
	candles *CandleSpec

	// lastPrice is the price at the last step asked about, lastBook the
	// book of the last step drawn: pollers ask about one step again and
	// again. Entries are immutable; concurrent callers may both compute a
	// step, with the same result.
	lastPrice atomic.Pointer[pricedStep]
	lastBook  atomic.Pointer[drawnBook]

	// fills memoises fill by slot: a fill is a pure function of its slot,
	// and a poll every few seconds asks for the same 100 fills again, each
	// of which costs two walk evaluations. Bounded by maxFillMemo.
	fillMu sync.Mutex
	fills  map[int64]exchange.StockFill
}

// maxFillMemo bounds the fill memo of one instrument; past it the memo
// starts over (the newest fills are then computed again once).
const maxFillMemo = 4096

// pricedStep is the price of an instrument at a step (at one instant of it,
// at, when the step is moving). Its decimal and its book are made on first
// use: the books of most steps need only the ticks, and most instruments
// are asked either for a price or for a book. The book lives in the same
// allocation as the price: a new step of a polled book costs one.
type pricedStep struct {
	id      stepID
	at      int64 // UnixNano
	ticks   int64
	decOnce sync.Once
	dec     decimal.Decimal

	bookOnce sync.Once
	book     drawnBook // set by bookOnce (see instrument.drawn)
}

// price is p's price as a decimal.
func (p *pricedStep) price(in *instrument) decimal.Decimal {
	p.decOnce.Do(func() { p.dec = in.decimalOf(p.ticks) })
	return p.dec
}

// newInstrument builds the instrument of symbol; origin is the scenario
// start, which book times are clamped to.
func newInstrument(symbol string, path series, tick decimal.Decimal, origin time.Time) (*instrument, error) {
	if !tick.IsPositive() {
		return nil, fmt.Errorf("tick %s is not positive", tick)
	}
	coef := tick.Coefficient()
	if !coef.IsInt64() {
		return nil, fmt.Errorf("tick %s has too many digits", tick)
	}
	in := &instrument{
		path: path, tick: tick, tickCoef: coef.Int64(), tickExp: tick.Exponent(), tickF: tick.InexactFloat64(),
		seed: symbolSeed(symbol), origin: origin,
	}
	if p, ok := path.(*points); ok {
		if c, ok := p.list.(candleList); ok {
			in.candles = c.CandleSpec
		}
	}
	return in, nil
}

// stampCache is the text of the last book time written. Walks with the
// same step start their steps at the same times, so the books of one price
// step share one stamp: written once, not once per book.
type stampCache struct {
	mu sync.Mutex
	at int64 // UnixMilli of ms
	ms exchange.Millis
}

// stamp is t as Millis, from c when it is the last time written.
func (c *stampCache) stamp(t time.Time) exchange.Millis {
	if c == nil {
		return exchange.MillisOf(t)
	}
	at := t.UnixMilli()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ms == "" || c.at != at {
		c.at, c.ms = at, exchange.MillisOf(t)
	}
	return c.ms
}

type stockPair struct {
	spec    StockPairSpec
	periods []exchange.TradingPeriod
	inst    *instrument

	// fillsByLimit is the last stock-fills answer per limit (see StockFills).
	fillsMu      sync.Mutex
	fillsByLimit map[int]*fillAnswer

	// spans are the last two stretches of time between two calendar
	// boundaries that pairTradable answered for (see tradableSpan): a scan
	// back through the fills may cross into the one before.
	spans recent[tradableSpan]
}

// New checks opts and builds the market. CSV files are read here.
func New(opts Options) (*Market, error) {
	m := &Market{
		instruments: make(map[string]*instrument, len(opts.Paths)+len(opts.StockPairs)),
		pairBySym:   make(map[string]*stockPair, len(opts.StockPairs)),
	}
	calSpec := opts.Calendar
	if calSpec.USHolidays {
		holidays, err := usHolidayClosures(opts.Start, opts.End)
		if err != nil {
			return nil, specError(err, "calendar", "us_holidays")
		}
		calSpec.Closures = append(slices.Clone(calSpec.Closures), holidays...)
	}
	if len(calSpec.EarlyCloses) > 0 {
		early, err := earlyCloseClosures(calSpec.EarlyCloses)
		if err != nil {
			return nil, err
		}
		calSpec.Closures = append(slices.Clone(calSpec.Closures), early...)
	}
	cal, err := newCalendar(calSpec)
	if err != nil {
		return nil, err
	}
	m.cal = cal
	m.states = [2][]exchange.MarketState{marketStates(exchange.Standard), marketStates(exchange.DST)}
	if !opts.End.IsZero() && opts.End.Before(opts.Start) {
		return nil, fmt.Errorf("market: end %s before start %s", opts.End, opts.Start)
	}
	// Sorted so that errors are reported in the same order on every run.
	symbols := make([]string, 0, len(opts.Paths))
	for sym := range opts.Paths {
		symbols = append(symbols, sym)
	}
	slices.Sort(symbols)
	for _, sym := range symbols {
		spec := opts.Paths[sym]
		path, err := newSeries(spec, opts)
		if err != nil {
			return nil, specError(fmt.Errorf("price path %s: %w", sym, err), "prices", sym)
		}
		tick := spec.Tick
		if tick.IsZero() {
			tick = opts.Ticks[sym]
		}
		if tick.IsZero() {
			tick = defaultTick
		}
		inst, err := newInstrument(sym, path, tick, opts.Start)
		if err != nil {
			return nil, specError(fmt.Errorf("price path %s: %w", sym, err), "prices", sym)
		}
		m.instruments[sym] = inst
		m.paths = append(m.paths, path)
	}
	for i, ps := range opts.StockPairs {
		pair, err := m.newStockPair(ps, opts.Ticks)
		if err != nil {
			return nil, specError(fmt.Errorf("stock pair %d (%s): %w", i, ps.Symbol, err), "stock_pairs", i)
		}
		m.pairs = append(m.pairs, pair)
		m.pairBySym[ps.Symbol] = pair
	}
	stamps := &stampCache{}
	for _, inst := range m.instruments {
		inst.stamps = stamps
	}
	return m, nil
}

func (m *Market) newStockPair(ps StockPairSpec, ticks map[string]decimal.Decimal) (*stockPair, error) {
	if ps.Symbol == "" || ps.Code == "" {
		return nil, errors.New("symbol and code are required")
	}
	if _, dup := m.pairBySym[ps.Symbol]; dup {
		return nil, errors.New("symbol listed twice")
	}
	for _, p := range ps.TradingPeriod {
		if !p.Valid() {
			return nil, fmt.Errorf("trading period %q is not one of pre_market, regular, after_hours, overnight", p)
		}
	}
	pathName := ps.PricePath
	if pathName == "" {
		pathName = ps.Symbol
	}
	src, ok := m.instruments[pathName]
	if !ok {
		return nil, fmt.Errorf("no price path %q", pathName)
	}
	inst := src
	if pathName != ps.Symbol {
		// The pair follows another symbol's path with its own tick and its
		// own book sizes.
		tick := ticks[ps.Symbol]
		if tick.IsZero() {
			tick = src.tick
		}
		var err error
		if inst, err = newInstrument(ps.Symbol, src.path, tick, src.origin); err != nil {
			return nil, err
		}
		m.instruments[ps.Symbol] = inst
	}
	return &stockPair{spec: ps, periods: slices.Clone(ps.TradingPeriod), inst: inst}, nil
}

// symbolSeed is a fixed hash of a symbol name.
func symbolSeed(symbol string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(symbol))
	return h.Sum64()
}

// PriceAt returns the price of symbol (a path or a stock pair) at t, rounded
// to its tick; false for an unknown symbol.
func (m *Market) PriceAt(symbol string, t time.Time) (decimal.Decimal, bool) {
	inst, ok := m.instruments[symbol]
	if !ok {
		return decimal.Zero, false
	}
	return inst.price(t), true
}

// Tick returns the price step of symbol; false for an unknown symbol.
func (m *Market) Tick(symbol string) (decimal.Decimal, bool) {
	inst, ok := m.instruments[symbol]
	if !ok {
		return decimal.Zero, false
	}
	return inst.tick, true
}

// price is the path's price rounded to the tick, never below one tick.
func (in *instrument) price(t time.Time) decimal.Decimal {
	return in.priced(t, in.path.stepAt(t)).price(in)
}

// decimalOf is the price of n ticks, decimal.NewFromInt(n).Mul(in.tick)
// to the coefficient and exponent: from the product of the coefficients
// when it fits in 64 bits, which saves the multiplication's allocations.
func (in *instrument) decimalOf(n int64) decimal.Decimal {
	if v, ok := in.scaledTicks(n); ok {
		return decimal.New(v, in.tickExp)
	}
	return decimal.NewFromInt(n).Mul(in.tick)
}

// scaledTicks is the coefficient of the price of n ticks at exponent
// in.tickExp (n * in.tickCoef); false when it is negative or does not fit
// in an int64.
func (in *instrument) scaledTicks(n int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(n), uint64(in.tickCoef))
	if n < 0 || hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// ticks is the path's price in whole ticks, at least one.
func (in *instrument) ticks(t time.Time) int64 {
	return in.priced(t, in.path.stepAt(t)).ticks
}

// priced returns the price at t, which falls in st, from the memo when it
// is the last step asked about.
func (in *instrument) priced(t time.Time, st step) *pricedStep {
	at := t.UnixNano()
	if p := in.lastPrice.Load(); p != nil && p.id == st.id() && (!st.moving || p.at == at) {
		return p
	}
	n := max(in.path.ticks(t, st, in.tick, in.tickF), 1)
	p := &pricedStep{id: st.id(), at: at, ticks: n}
	in.lastPrice.Store(p)
	return p
}

// StockInfo returns the info of one stock pair, or of all in scenario order
// when symbol is empty.
func (m *Market) StockInfo(symbol string) ([]exchange.StockInfo, error) {
	if symbol == "" {
		out := make([]exchange.StockInfo, len(m.pairs))
		for i, p := range m.pairs {
			out[i] = p.info()
		}
		return out, nil
	}
	p, ok := m.pairBySym[symbol]
	if !ok {
		return nil, fmt.Errorf("stock info %s: %w", symbol, ErrUnknownSymbol)
	}
	return []exchange.StockInfo{p.info()}, nil
}

func (p *stockPair) info() exchange.StockInfo {
	weekend := exchange.LowerNo
	if p.spec.WeekendTradable {
		weekend = exchange.LowerYes
	}
	return exchange.StockInfo{
		Symbol:          p.spec.Symbol,
		Code:            p.spec.Code,
		Name:            p.spec.Name,
		TradingPeriod:   slices.Clone(p.periods),
		WeekendTradable: weekend,
	}
}

// StockTradable reports whether the stock pair symbol trades at t: the open
// session is in its tradingPeriod, or, for a weekendTradable pair, its
// trading day is a regular closure day (it then trades around the clock)
// and no specific closure covers t.
func (m *Market) StockTradable(symbol string, t time.Time) (bool, error) {
	p, ok := m.pairBySym[symbol]
	if !ok {
		return false, fmt.Errorf("stock pair %s: %w", symbol, ErrUnknownSymbol)
	}
	return m.pairTradable(p, t), nil
}

func (m *Market) pairTradable(p *stockPair, t time.Time) bool {
	return m.tradableSpanOf(p, t).tradable
}

// tradableSpan is a stretch of time between two calendar boundaries
// [from, until), in which whether a pair trades cannot change.
type tradableSpan struct {
	from, until time.Time
	tradable    bool
}

// tradableSpanOf returns the span around t and whether p trades in it. The
// stock-fills answers ask about every fill they look at, and a pair that
// does not trade (a night, a weekend) is asked on every poll: each answer
// from the calendar converts several Eastern wall times.
func (m *Market) tradableSpanOf(p *stockPair, t time.Time) tradableSpan {
	if s := p.spans.find(func(s *tradableSpan) bool { return !t.Before(s.from) && t.Before(s.until) }); s != nil {
		return *s
	}
	s := &tradableSpan{from: m.cal.prevBoundary(t), until: m.cal.nextBoundary(t), tradable: m.tradableAt(p, t)}
	p.spans.put(s)
	return *s
}

// tradableAt is whether p trades at t, from the calendar.
func (m *Market) tradableAt(p *stockPair, t time.Time) bool {
	if _, ok := m.cal.closureAt(t); ok {
		return false
	}
	if m.cal.tradingDayClosed(t) {
		return p.spec.WeekendTradable
	}
	return slices.Contains(p.periods, sessionAt(t))
}

// PriceScaled is PriceAt with no decimal made: the price of symbol at t is
// coef x 10^exp, the coefficient and exponent of PriceAt's decimal. ok is
// false for an unknown symbol and when the coefficient does not fit in 64
// bits (PriceAt answers then).
func (m *Market) PriceScaled(symbol string, t time.Time) (coef int64, exp int32, ok bool) {
	inst, ok := m.instruments[symbol]
	if !ok {
		return 0, 0, false
	}
	v, ok := inst.scaledTicks(inst.ticks(t))
	return v, inst.tickExp, ok
}
