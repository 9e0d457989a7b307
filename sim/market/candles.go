package market

import (
	"fmt"
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
	if length < 3*time.Second || length%time.Second != 0 {
		return nil, fmt.Errorf("candle path: length %s: want whole seconds, at least 3", length)
	}
	third := (length / 3).Truncate(time.Second)
	out := make([]Point, 0, 4*len(bars))
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
			if gapEnd := b.Start.Add(-time.Second); b.Start.Sub(prev.Start) > length && gapEnd.After(out[len(out)-1].At) {
				out = append(out, Point{At: gapEnd, Price: prev.Close}) // hold the close across the gap
			}
		}
		first, second := b.High, b.Low
		if b.Open.Sub(b.Low).LessThan(b.High.Sub(b.Open)) {
			first, second = b.Low, b.High
		}
		out = append(out,
			Point{At: b.Start, Price: b.Open},
			Point{At: b.Start.Add(third), Price: first},
			Point{At: b.Start.Add(2 * third), Price: second},
			Point{At: b.Start.Add(length - time.Second), Price: b.Close})
	}
	return out, nil
}
