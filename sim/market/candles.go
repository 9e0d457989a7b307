package market

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// CandleBar is one candle of a candle price path: its start and its open,
// high, low and close.
type CandleBar struct {
	Start                  time.Time
	Open, High, Low, Close decimal.Decimal
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
// describes, computed when asked rather than held as points, so that a
// year of minutes costs the candles and a few bytes each. The bars are
// read, never modified, and may be shared by many markets.
type CandleSpec struct {
	Bars   []CandleBar
	Length time.Duration
}

// Check reports whether the candles make a path (CandlePoints' checks):
// each a candle, in order, whole candles apart.
func (c *CandleSpec) Check() error {
	_, err := newCandleList(c.Bars, c.Length)
	return err
}

// candleList is the points of CandlePoints, computed from the candles on
// demand (pointList).
type candleList struct {
	bars          []CandleBar
	length, third time.Duration
	// first[i] is the index of candle i's open among the points: 4 a
	// candle, and one more before a candle that follows a gap (the held
	// close).
	first []int32
	// lowFirst[i]: candle i goes to its low first (the low is nearer
	// the open).
	lowFirst []bool
	n        int
}

// newCandleList checks the candles and indexes their points.
func newCandleList(bars []CandleBar, length time.Duration) (*candleList, error) {
	if length < 3*time.Second || length%time.Second != 0 {
		return nil, fmt.Errorf("candle path: length %s: want whole seconds, at least 3", length)
	}
	if len(bars) > math.MaxInt32/5 {
		return nil, fmt.Errorf("candle path: %d candles: too many for one path", len(bars))
	}
	c := &candleList{bars: bars, length: length, third: (length / 3).Truncate(time.Second),
		first: make([]int32, len(bars)), lowFirst: make([]bool, len(bars))}
	n := 0
	for i, b := range bars {
		if !b.Low.IsPositive() || b.High.LessThan(b.Low) || b.Open.LessThan(b.Low) || b.Open.GreaterThan(b.High) ||
			b.Close.LessThan(b.Low) || b.Close.GreaterThan(b.High) {
			return nil, fmt.Errorf("candle path: candle %d at %s: open %s, high %s, low %s, close %s are not a candle",
				i, b.Start.Format(time.RFC3339), b.Open, b.High, b.Low, b.Close)
		}
		if i > 0 {
			prev := bars[i-1]
			if !b.Start.After(prev.Start) || b.Start.Sub(prev.Start)%length != 0 {
				return nil, fmt.Errorf("candle path: candle %d at %s does not follow the one at %s by whole candles", i, b.Start.Format(time.RFC3339), prev.Start.Format(time.RFC3339))
			}
			// After a gap, the close is held until a second before the
			// candle (the previous point, the close, is a second before
			// the end of its candle, so always earlier).
			if b.Start.Sub(prev.Start) > length {
				n++
			}
		}
		c.first[i] = int32(n)
		c.lowFirst[i] = b.Open.Sub(b.Low).LessThan(b.High.Sub(b.Open))
		n += 4
	}
	c.n = n
	return c, nil
}

func (c *candleList) len() int { return c.n }

// locate returns the candle and the point of it that index j is: 0 the
// open, 1 and 2 the extremes, 3 the close, 4 the held close before the
// next candle (a gap).
func (c *candleList) locate(j int) (i, k int) {
	i = sort.Search(len(c.first), func(i int) bool { return int(c.first[i]) > j }) - 1
	return i, j - int(c.first[i])
}

func (c *candleList) at(j int) time.Time {
	i, k := c.locate(j)
	b := c.bars[i]
	switch k {
	case 0:
		return b.Start
	case 1:
		return b.Start.Add(c.third)
	case 2:
		return b.Start.Add(2 * c.third)
	case 3:
		return b.Start.Add(c.length - time.Second)
	}
	return c.bars[i+1].Start.Add(-time.Second)
}

func (c *candleList) price(j int) decimal.Decimal {
	i, k := c.locate(j)
	b := c.bars[i]
	switch k {
	case 0:
		return b.Open
	case 1:
		if c.lowFirst[i] {
			return b.Low
		}
		return b.High
	case 2:
		if c.lowFirst[i] {
			return b.High
		}
		return b.Low
	}
	return b.Close // the close, or the close held across a gap
}
