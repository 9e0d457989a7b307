package market

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
)

// CandleBar is one candle of a candle price path: its start and its open,
// high, low and close.
type CandleBar struct {
	Start                  time.Time
	Open, High, Low, Close decimal.Decimal
	// QuoteVolume is the candle's traded value in the quote coin, 0 when
	// not known; the modelled book's depth follows it (BookModel).
	QuoteVolume float64
}

// CandlePoints returns the points of the price path inside bars (oldest
// first, each length long), the model a backtest on stored candles uses:
//
//   - inside a candle the price goes from the open to the nearer extreme,
//     then to the other extreme, then to the close: the open at the start,
//     the extremes a third and two thirds of the way, the close one second
//     before the end (for candles of three seconds or more). A tie between
//     the extremes goes to the high first. Between two points the price
//     moves linearly, rounded to the tick (the points path's rule), so it
//     walks the ticks in between;
//   - from one candle's close to the next candle's open the price moves
//     in the last second;
//   - where candles are missing (a gap), the price holds the last close
//     until one second before the next candle, then moves to its open:
//     nothing is made up inside the gap but the flat price.
//
// The path is a model: the real order of the extremes and the prices
// between them are not in the candle.
func CandlePoints(bars []CandleBar, length time.Duration) ([]Point, error) {
	list, err := newCandleList(bars, length)
	if err != nil {
		return nil, err
	}
	out := make([]Point, list.len())
	for j := range out {
		out[j] = Point{At: list.at(j), Price: list.price(j)}
	}
	return out, nil
}

// CandleSpec is a price path given as candles: the path CandlePoints
// describes, computed when asked rather than held as points. The candles
// are held as whole numbers (the start in Unix seconds, the prices as
// integers at one decimal exponent), about 56 bytes a candle with its
// volume, so that a year of minutes of several symbols fits in tens of MB. Build it with
// NewCandleSpec and Append; once handed to a market it is only read, and
// may be shared by many markets.
type CandleSpec struct {
	length, third time.Duration
	// exp is the decimal exponent of every price: a price is its integer
	// times 10^exp. It goes down (and the integers up) when a candle
	// brings a price with more decimals.
	exp  int32
	bars []compactBar
	// n is the number of points (4 a candle, one more after a gap).
	n int
}

// compactBar is one candle of a CandleSpec.
type compactBar struct {
	start                  int64 // Unix seconds
	open, high, low, close int64 // times 10^exp
	// first is the index of the candle's open among the path's points.
	first int32
	// lowFirst: the candle goes to its low first (the low is nearer the
	// open).
	lowFirst bool
	volume   float64 // quote volume, 0 when not known
}

// NewCandleSpec returns an empty candle path of candles length long
// (whole seconds, at least 3).
func NewCandleSpec(length time.Duration) (*CandleSpec, error) {
	if length < 3*time.Second || length%time.Second != 0 {
		return nil, fmt.Errorf("candle path: length %s: want whole seconds, at least 3", length)
	}
	return &CandleSpec{length: length, third: (length / 3).Truncate(time.Second)}, nil
}

// Length is the candles' length.
func (c *CandleSpec) Length() time.Duration { return c.length }

// Len is the number of candles.
func (c *CandleSpec) Len() int { return len(c.bars) }

// Append adds candles after those already there. Each must be a candle
// (low positive, open and close between low and high) that follows the
// previous one by whole candles; the first that is not is an error and is
// not added.
func (c *CandleSpec) Append(bars ...CandleBar) error {
	for _, b := range bars {
		if err := c.append(b); err != nil {
			return err
		}
	}
	return nil
}

func (c *CandleSpec) append(b CandleBar) error {
	i := len(c.bars)
	if !b.Low.IsPositive() || b.High.LessThan(b.Low) || b.Open.LessThan(b.Low) || b.Open.GreaterThan(b.High) ||
		b.Close.LessThan(b.Low) || b.Close.GreaterThan(b.High) {
		return fmt.Errorf("candle path: candle %d at %s: open %s, high %s, low %s, close %s are not a candle",
			i, b.Start.Format(time.RFC3339), b.Open, b.High, b.Low, b.Close)
	}
	if b.Start.Nanosecond() != 0 {
		return fmt.Errorf("candle path: candle %d at %s: not on a whole second", i, b.Start.Format(time.RFC3339Nano))
	}
	if i >= math.MaxInt32/5 {
		return fmt.Errorf("candle path: %d candles: too many for one path", i+1)
	}
	start := b.Start.Unix()
	if i > 0 {
		prev := c.bars[i-1]
		gap := time.Duration(start-prev.start) * time.Second
		if gap <= 0 || gap%c.length != 0 {
			return fmt.Errorf("candle path: candle %d at %s does not follow the one at %s by whole candles", i, b.Start.Format(time.RFC3339), time.Unix(prev.start, 0).UTC().Format(time.RFC3339))
		}
		// After a gap, the close is held until a second before the
		// candle (the previous point, the close, is a second before the
		// end of its candle, so always earlier).
		if gap > c.length {
			c.n++
		}
	}
	prices := [4]decimal.Decimal{b.Open, b.High, b.Low, b.Close}
	for _, p := range prices {
		if e := p.Exponent(); e < c.exp {
			if err := c.rescale(e); err != nil {
				return err
			}
		}
	}
	var ints [4]int64
	for k, p := range prices {
		v := p.Shift(-c.exp)
		if !v.IsInteger() || !v.BigInt().IsInt64() {
			return fmt.Errorf("candle path: candle %d at %s: price %s does not fit the path's numbers", i, b.Start.Format(time.RFC3339), p)
		}
		ints[k] = v.IntPart()
	}
	c.bars = append(c.bars, compactBar{start: start, open: ints[0], high: ints[1], low: ints[2], close: ints[3],
		first: int32(c.n), lowFirst: b.Open.Sub(b.Low).LessThan(b.High.Sub(b.Open)), volume: max(b.QuoteVolume, 0)})
	c.n += 4
	return nil
}

// rescale lowers the exponent of the prices to exp (exp < c.exp), so that
// a price with more decimals fits.
func (c *CandleSpec) rescale(exp int32) error {
	f := int64(1)
	for range c.exp - exp {
		if f > math.MaxInt64/10 {
			return fmt.Errorf("candle path: prices of %d decimals do not fit the path's numbers", -exp)
		}
		f *= 10
	}
	for i := range c.bars {
		b := &c.bars[i]
		for _, v := range []*int64{&b.open, &b.high, &b.low, &b.close} {
			if *v > math.MaxInt64/f {
				return fmt.Errorf("candle path: prices of %d decimals do not fit the path's numbers", -exp)
			}
			*v *= f
		}
	}
	c.exp = exp
	return nil
}

// Check reports whether the path has candles.
func (c *CandleSpec) Check() error {
	if c == nil || len(c.bars) == 0 {
		return errors.New("candle path: no candles")
	}
	return nil
}

// candleList is the points of CandlePoints, computed from the candles of
// a CandleSpec on demand (pointList).
type candleList struct{ *CandleSpec }

// newCandleList checks the candles and indexes their points.
func newCandleList(bars []CandleBar, length time.Duration) (candleList, error) {
	spec, err := NewCandleSpec(length)
	if err != nil {
		return candleList{}, err
	}
	if err := spec.Append(bars...); err != nil {
		return candleList{}, err
	}
	return candleList{spec}, nil
}

func (c candleList) len() int { return c.n }

// locate returns the candle and the point of it that index j is: 0 the
// open, 1 and 2 the extremes, 3 the close, 4 the held close before the
// next candle (a gap).
func (c candleList) locate(j int) (i, k int) {
	// Without gaps, candle j/4; with them, at or before it.
	i = min(j/4, len(c.bars)-1)
	if int(c.bars[i].first) > j {
		i = sort.Search(i, func(i int) bool { return int(c.bars[i].first) > j }) - 1
	}
	return i, j - int(c.bars[i].first)
}

func (c candleList) at(j int) time.Time {
	i, k := c.locate(j)
	start := time.Unix(c.bars[i].start, 0).UTC()
	switch k {
	case 0:
		return start
	case 1:
		return start.Add(c.third)
	case 2:
		return start.Add(2 * c.third)
	case 3:
		return start.Add(c.length - time.Second)
	}
	return time.Unix(c.bars[i+1].start-1, 0).UTC()
}

func (c candleList) price(j int) decimal.Decimal {
	i, k := c.locate(j)
	b := &c.bars[i]
	v := b.close // the close, or the close held across a gap
	switch k {
	case 0:
		v = b.open
	case 1:
		v = b.high
		if b.lowFirst {
			v = b.low
		}
	case 2:
		v = b.low
		if b.lowFirst {
			v = b.high
		}
	}
	return decimal.New(v, c.exp)
}

// path builds the candle path c describes: its rows, or the rows of its
// file (relative to baseDir), each a candle that starts on a multiple of
// the interval (for intervals up to a day) and follows the one before by
// whole candles.
func (c *CandlesSpec) path(baseDir string) (*CandleSpec, error) {
	length, ok := c.Interval.Duration()
	if !ok {
		return nil, fmt.Errorf("candles: interval %q: want one of %s", c.Interval, granularityNames())
	}
	spec, err := NewCandleSpec(length)
	if err != nil {
		return nil, fmt.Errorf("candles: %w", err)
	}
	bars, where, err := c.bars(baseDir)
	if err != nil {
		return nil, err
	}
	if len(bars) == 0 {
		return nil, fmt.Errorf("candles: no candles in %s", where)
	}
	for i, b := range bars {
		if length <= 24*time.Hour && b.Start.Unix()%int64(length/time.Second) != 0 {
			return nil, fmt.Errorf("candles: %s, candle %d at %s: not at the start of a %s candle (%s)", where, i+1,
				b.Start.UTC().Format(time.RFC3339), c.Interval, b.Start.UTC().Truncate(length).Format(time.RFC3339))
		}
		if err := spec.Append(b); err != nil {
			return nil, fmt.Errorf("candles: %s: %w", where, err)
		}
	}
	return spec, nil
}

// StoredBar is a candle of the history store as a bar: its prices parsed
// as decimals, each distinct price once (parsed keeps them: a month of
// minutes repeats few prices), and its quote volume (0 when not a number).
func StoredBar(c data.Candle, parsed map[exchange.Num]decimal.Decimal) (CandleBar, error) {
	b := CandleBar{Start: c.Time}
	for _, f := range []struct {
		dst *decimal.Decimal
		n   exchange.Num
	}{{&b.Open, c.Open}, {&b.High, c.High}, {&b.Low, c.Low}, {&b.Close, c.Close}} {
		d, ok := parsed[f.n]
		if !ok {
			var err error
			if d, err = decimal.NewFromString(string(f.n)); err != nil {
				return CandleBar{}, fmt.Errorf("candle at %s: price %q: %w", c.Time.UTC().Format(time.RFC3339), f.n, err)
			}
			// The key is cloned: f.n may be a substring of a whole file's text.
			parsed[exchange.Num(strings.Clone(string(f.n)))] = d
		}
		*f.dst = d
	}
	if v := c.QuoteVolume.Float(); v > 0 && !math.IsInf(v, 0) {
		b.QuoteVolume = v
	}
	return b, nil
}

// bars are the candles of c as bars, and where they come from for errors.
func (c *CandlesSpec) bars(baseDir string) ([]CandleBar, string, error) {
	switch {
	case len(c.Rows) > 0 && c.File != "":
		return nil, "", errors.New("candles: give rows or file, not both")
	case c.File != "":
		name := c.File
		if !filepath.IsAbs(name) && baseDir != "" {
			name = filepath.Join(baseDir, name)
		}
		rows, err := data.ReadCandles(name)
		if err != nil {
			return nil, "", fmt.Errorf("candles: %w", err)
		}
		out := make([]CandleBar, len(rows))
		parsed := map[exchange.Num]decimal.Decimal{}
		for i, r := range rows {
			if out[i], err = StoredBar(r, parsed); err != nil {
				return nil, "", fmt.Errorf("candles: %s: %w", c.File, err)
			}
		}
		return out, c.File, nil
	}
	out := make([]CandleBar, len(c.Rows))
	for i, r := range c.Rows {
		out[i] = CandleBar{Start: r.At, Open: r.Open, High: r.High, Low: r.Low, Close: r.Close, QuoteVolume: r.QuoteVolume.InexactFloat64()}
	}
	return out, "rows", nil
}

// granularityNames lists the intervals a candle path takes.
func granularityNames() string {
	var names []string
	for _, g := range exchange.Granularities() {
		names = append(names, string(g))
	}
	return strings.Join(names, ", ")
}

// The book a candle path's market draws is modelled from the candle of the
// moment (BookModel), since no history of books exists: a wider spread in a
// minute of wide range, a deeper book in a minute of high volume. The
// bounds keep one odd candle from drawing an absurd book.
const (
	// spreadShareOfRange is the half-spread as a share of the candle's
	// range (high - low): 1/20.
	spreadShareOfRange = 0.05
	// minHalfSpreadBps and maxHalfSpreadBps bound the half-spread.
	minHalfSpreadBps = 1
	maxHalfSpreadBps = 25
	// depthSecondsOfVolume is how many seconds of the candle's average
	// traded value the best level holds: 2.
	depthSecondsOfVolume = 2
	// minLevelNotional and maxLevelNotional bound the best level's value.
	minLevelNotional = 100
	maxLevelNotional = 1_000_000
)

// BookModel is the modelled book of the candle path at t: the half-spread
// in basis points (spreadShareOfRange of the candle's range over its close,
// within [minHalfSpreadBps, maxHalfSpreadBps]) and the typical value of the
// best level in the quote coin (depthSecondsOfVolume seconds of the
// candle's average traded value, within [minLevelNotional,
// maxLevelNotional]; 0 when the candle has no volume, for the default).
// Between candles (a gap) the last candle before holds; before the first,
// ok is false.
func (c *CandleSpec) BookModel(t time.Time) (halfBps, levelValue float64, ok bool) {
	sec := t.Unix()
	i := sort.Search(len(c.bars), func(i int) bool { return c.bars[i].start > sec }) - 1
	if i < 0 {
		return 0, 0, false
	}
	b := c.bars[i]
	rangeBps := 0.0
	if b.close > 0 {
		rangeBps = float64(b.high-b.low) / float64(b.close) * 10000
	}
	halfBps = min(max(rangeBps*spreadShareOfRange, minHalfSpreadBps), maxHalfSpreadBps)
	if b.volume > 0 {
		perSecond := b.volume / c.length.Seconds()
		levelValue = min(max(perSecond*depthSecondsOfVolume, minLevelNotional), maxLevelNotional)
	}
	return halfBps, levelValue, true
}
