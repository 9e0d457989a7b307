package marketdata

import (
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/internal/prepend"
)

// trade is one platform fill in numbers.
type trade struct {
	price, size float64
	ts          time.Time
}

// tradeList is one fetched list of platform fills in numbers, with what a
// Stock derives from it at any time: the newest fill, and the sums over the
// fills of the trade window. A rule that reads the window makes a State be
// built every tick, mostly from the same list: the window's members are
// found by binary search over the fills' times, and its sums are kept
// while the same fills are in it. A tradeList is never changed once made,
// but for that memo.
type tradeList struct {
	trades []trade
	newest int         // index of the newest fill, -1 when none
	times  []time.Time // the fills' times, ascending; nil when trades are newest first
	// back is the array trades is in, from backAt, when the lists of
	// successive polls share one (parseTrades); nil: trades' own.
	back   *prepend.Array[trade]
	backAt int

	win atomic.Pointer[tradeSums] // of the last window asked for
}

// tradeSums are the sums over the fills of one trade window. lo and hi
// say which fills they are: times[lo:hi] of the list.
type tradeSums struct {
	lo, hi           int
	volume, notional float64
	count            int
}

// parseTrades reads the numbers of fills. prev, when set, is the list
// parsed from old, the list fetched before: a new list is mostly the old
// one shifted by the fills that came since, and where old holds the same
// fill its numbers are taken from prev instead of parsed again. When the
// new list is the old one with new fills in front (the common poll), the
// lists share one array (prepend.Array): only the new fills are parsed
// and written, in the free slots before prev's.
func parseTrades(fills, old []exchange.StockFill, prev *tradeList) (*tradeList, error) {
	var oldTrades []trade
	if prev != nil && len(prev.trades) == len(old) {
		oldTrades = prev.trades
	}
	var p numParser
	off := shiftOf(fills, old)
	if k, n := -off, len(fills)+off; oldTrades != nil && k > 0 && n >= 0 && n <= len(old) &&
		(sameView(fills[k:], old[:n]) || slices.Equal(fills[k:], old[:n])) {
		fresh := make([]trade, k)
		for i := range fresh {
			f := &fills[i]
			fresh[i] = trade{price: p.num("price", f.Price), size: p.num("size", f.Size), ts: f.TS.Time()}
		}
		if p.err != nil {
			return nil, p.err
		}
		trades, back, at := prev.back.Prepend(prev.trades, prev.backAt, fresh, n)
		l := newTradeList(trades)
		l.back, l.backAt = back, at
		return l, nil
	}
	out := make([]trade, len(fills))
	for i := range fills {
		f := &fills[i]
		if j := i + off; j >= 0 && j < len(old) && oldTrades != nil && old[j] == *f {
			out[i] = oldTrades[j]
			continue
		}
		out[i] = trade{price: p.num("price", f.Price), size: p.num("size", f.Size), ts: f.TS.Time()}
		if p.err != nil {
			return nil, p.err
		}
	}
	return newTradeList(out), nil
}

// shiftOf returns off such that fills[i] may be old[i+off]: where the first
// fill of either list is in the other. Each pair is compared again before
// it is used, so a wrong guess costs a parse, never a wrong number.
func shiftOf(fills, old []exchange.StockFill) int {
	if len(fills) == 0 || len(old) == 0 {
		return 0
	}
	for k := range fills {
		if fills[k] == old[0] {
			return -k
		}
	}
	for k := range old {
		if old[k] == fills[0] {
			return k
		}
	}
	return 0
}

func newTradeList(trades []trade) *tradeList {
	l := &tradeList{trades: trades, newest: -1}
	var newest time.Time
	newestFirst := true
	for i, t := range trades {
		// The first of the latest fills; a fill without a time counts
		// until one with a time comes (as the window's reading always did).
		if newest.IsZero() || t.ts.After(newest) {
			newest, l.newest = t.ts, i
		}
		newestFirst = newestFirst && (i == 0 || !t.ts.After(trades[i-1].ts))
	}
	if newestFirst {
		return l // as the exchange sends them: searched as they are
	}
	l.times = make([]time.Time, len(trades))
	for i, t := range trades {
		l.times[i] = t.ts
	}
	slices.SortFunc(l.times, time.Time.Compare)
	return l
}

// atOrBefore returns how many fills are at or before t.
func (l *tradeList) atOrBefore(t time.Time) int {
	n := len(l.trades)
	if l.times == nil { // newest first: the last ones are the oldest
		return n - sort.Search(n, func(i int) bool { return !l.trades[i].ts.After(t) })
	}
	return sort.Search(n, func(i int) bool { return l.times[i].After(t) })
}

// oldest returns the time of the j-th oldest fill (0: the oldest).
func (l *tradeList) oldest(j int) time.Time {
	if l.times == nil {
		return l.trades[len(l.trades)-1-j].ts
	}
	return l.times[j]
}

// window returns the sums over the fills in (from, to]. They are added in
// the order of the list, whatever the window: the same fills give the same
// sums to the last bit, memo or not.
func (l *tradeList) window(from, to time.Time) tradeSums {
	// The fills at or before a time are the oldest ones: two windows with
	// the same counts hold the same fills. The last window's
	// counts hold while no fill's time passes either edge (the common
	// tick: a second on), which takes a comparison a side.
	if w := l.win.Load(); w != nil && l.countIs(w.lo, from) && l.countIs(w.hi, to) {
		return *w
	}
	lo, hi := l.atOrBefore(from), l.atOrBefore(to)
	if w := l.win.Load(); w != nil && w.lo == lo && w.hi == hi {
		return *w
	}
	s := tradeSums{lo: lo, hi: hi}
	if lo < hi {
		for _, t := range l.trades {
			if t.ts.After(from) && !t.ts.After(to) {
				s.volume += t.size
				s.count++
				s.notional += t.price * t.size
			}
		}
	}
	l.win.Store(&s)
	return s
}

// countIs reports whether n fills are at or before t.
func (l *tradeList) countIs(n int, t time.Time) bool {
	return (n == 0 || !l.oldest(n-1).After(t)) && (n == len(l.trades) || l.oldest(n).After(t))
}

// setTrades computes last price from the newest fill, and volume, count and
// VWAP over the fills in (now-window, now].
func (s *Stock) setTrades(l *tradeList, at, now time.Time, window time.Duration) {
	s.TradesAt = at
	s.have |= NeedTrades
	s.setLastTrade(l, now)
	s.setWindow(l, now, window)
}

// setLastTrade sets the fields of the newest fill.
func (s *Stock) setLastTrade(l *tradeList, now time.Time) {
	if l.newest >= 0 {
		t := l.trades[l.newest]
		s.LastPrice = t.price
		s.LastTradeAgeSeconds = now.Sub(t.ts).Seconds()
		s.have |= NeedLastTrade
	}
}

// setWindow sets the fields of the trade window that ends at now.
func (s *Stock) setWindow(l *tradeList, now time.Time, window time.Duration) {
	w := l.window(now.Add(-window), now)
	s.Volume, s.TradesCount, s.VWAP = w.volume, w.count, 0
	s.have &^= NeedWindowTrades
	if s.Volume > 0 {
		s.VWAP = w.notional / s.Volume
		s.have |= NeedWindowTrades
	}
}
