package market

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/internal/decimals"
)

// MaxLevels is the depth of every synthetic book, per side.
const MaxLevels = 40

const (
	// halfSpreadBps is half the synthetic spread: the best bid and ask sit
	// this far from the path price, rounded up to whole ticks, at least one.
	halfSpreadBps = 1
	// levelNotional is the typical quote value of the best level; deeper
	// levels grow, and a hash varies every size between 0.5x and 1.5x.
	levelNotional = 2000
)

// quote is the synthetic top of book of one instrument at one time, in
// whole ticks: the book is built with integers and formatted once per level.
type quote struct {
	mid, half  int64 // ticks
	midFloat   float64
	sizePlaces int32
	// levelValue is the typical value of the best level in the quote coin.
	levelValue float64
}

func (q quote) bid() int64 { return q.mid - q.half }
func (q quote) ask() int64 { return q.mid + q.half }

// quote is the top of book at price p: a half-spread of halfSpreadBps and
// a best level of about levelNotional, or on a candle path what the candle
// of the moment makes of them (CandleSpec.BookModel).
func (in *instrument) quote(p *pricedStep) quote {
	mid := p.ticks
	midFloat := in.tickF * float64(mid)
	halfBps, value := float64(halfSpreadBps), float64(levelNotional)
	if in.candles != nil {
		if h, v, ok := in.candles.BookModel(time.Unix(0, p.at)); ok {
			halfBps = h
			if v > 0 {
				value = v
			}
		}
	}
	half := max(int64(math.Ceil(float64(mid)*halfBps/10000)), 1)
	return quote{mid: mid, half: half, midFloat: midFloat, sizePlaces: sizePlaces(midFloat), levelValue: value}
}

// quoteAt is the top of book at t.
func (in *instrument) quoteAt(t time.Time) quote {
	return in.quote(in.priced(t, in.path.stepAt(t)))
}

// sizePlaces picks the size precision from the price so that one size step
// is worth about a tenth of a quote unit or more: 4 places at 60000, 2 at 250,
// 0 below 10.
func sizePlaces(price float64) int32 {
	if price < 10 {
		return 0
	}
	return min(int32(math.Log10(price)), 8)
}

// size returns a deterministic size of about notional worth at the quote's
// price, multiplied by scale and by a factor between 0.5 and 1.5 from h.
func size(notional float64, q quote, scale float64, h uint64) exchange.Num {
	return exchange.Num(decimals.New(sizeUnitsOf(q.sizeUnits(notional), scale, h), -q.sizePlaces).Append(nil))
}

// sizeUnits is notional at the quote's price in units of the size step: the
// part of a size that is the same on every level of a book.
func (q quote) sizeUnits(notional float64) float64 {
	return notional / q.midFloat * math.Pow10(int(q.sizePlaces))
}

// sizeUnitsOf is the size, in size steps, of a level scale times the
// typical one (base, from sizeUnits), varied by the hash's factor.
func sizeUnitsOf(base, scale float64, h uint64) int64 {
	return max(int64(base*scale*(0.5+unit(h))), 1)
}

// num formats a price of n ticks.
func (in *instrument) num(n int64) exchange.Num {
	return exchange.Num(in.appendPrice(nil, n))
}

// appendPrice appends the price of n ticks.
func (in *instrument) appendPrice(dst []byte, n int64) []byte {
	v, ok := in.scaledTicks(n)
	if !ok {
		return append(dst, decimal.NewFromInt(n).Mul(in.tick).String()...)
	}
	return decimals.New(v, in.tickExp).Append(dst)
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// hash mixes the parts into one 64-bit value: mix folded over the parts,
// so that a shared prefix can be hashed once (see draw).
func hash(parts ...uint64) uint64 {
	h := uint64(hashSeed)
	for _, p := range parts {
		h = mix(h, p)
	}
	return h
}

const hashSeed = 0x6a09e667f3bcc908

// mix adds one part to a hash.
func mix(h, p uint64) uint64 { return splitmix(h ^ p) }

// Book returns the synthetic book of symbol at t: levels (at most MaxLevels)
// on each side, bids descending and asks ascending, around the path price
// with a spread of about two basis points (at least two ticks). Levels are
// one or two ticks apart and their sizes vary by level and by step of the
// price path: the book is redrawn when the path can move (see step), and is
// the same throughout one step. Unknown symbols give empty books.
//
// The slices are shared with every caller asking about the same step and
// are read-only; appending to them allocates.
func (m *Market) Book(symbol string, t time.Time, levels int) (bids, asks []exchange.PriceLevel) {
	inst, ok := m.instruments[symbol]
	if !ok {
		return nil, nil
	}
	return inst.book(t, levels)
}

const (
	sideBid = 1
	sideAsk = 2
)

// Level is one level of a synthetic book in numbers: Price and Size are
// the float64 values that parsing the level's decimal text gives.
type Level = exchange.LevelNumbers

// drawnBook is the synthetic book of one step of an instrument at one
// price (a moving step's price may change within it). Only the best level
// of each side is drawn at once, into the book itself (one allocation with
// its numbers): the rest is drawn on first use (depth), and its decimal
// text after that (levelsText), since a backtest's rules mostly read the
// top of the book and never need the text.
type drawnBook struct {
	id        stepID
	mid, half int64 // the quote's, in ticks: mid is the price the book was drawn at
	ts        exchange.Millis
	key       uint64
	base      float64
	sizeExp   int32

	// topLen is how many of the best levels each side has (0 or 1):
	// side s's is topRaw[s] and topNums[s], so that a side's levels are
	// the slice [s : s+topLen[s]] of each array.
	topLen  [2]uint8
	topRaw  [2]rawLevel
	topNums [2]Level
	numbers BookNumbers // handed out as is: its Depth is made once

	depthOnce sync.Once
	deep      *deepBook // set by depthOnce
}

// deepBook is every level of a drawnBook, drawn on first use.
type deepBook struct {
	raw      [2][]rawLevel // bids, asks
	nums     [2][]Level    // len == cap: appending copies
	textOnce sync.Once
	text     [2][]exchange.PriceLevel // len == cap
}

// top is the best level of side (0 bids, 1 asks) in integers; empty when
// the side is.
func (b *drawnBook) top(side int) []rawLevel {
	end := side + int(b.topLen[side])
	return b.topRaw[side:end:end]
}

// rawLevel is a level in integers: the price in ticks and the size in size
// steps.
type rawLevel struct{ px, units int64 }

func (in *instrument) book(t time.Time, levels int) (bids, asks []exchange.PriceLevel) {
	levels = min(max(levels, 0), MaxLevels)
	b := in.drawn(t)
	if levels <= shortBook {
		// The top of the book (a ticker): write only what is asked for.
		return b.text1(in, 0, levels), b.text1(in, 1, levels)
	}
	text := b.levelsText(in)
	nb, na := min(levels, len(text[0])), min(levels, len(text[1]))
	return text[0][:nb:nb], text[1][:na:na]
}

// shortBook is the depth up to which book writes the text it is asked for
// afresh instead of the whole book's (once per step).
const shortBook = 2

// text1 writes the first n levels of one side as text.
func (b *drawnBook) text1(in *instrument, side, n int) []exchange.PriceLevel {
	raw := b.top(side)
	if n > len(raw) {
		raw = b.depth(in).raw[side]
	}
	raw = raw[:min(n, len(raw))]
	out := make([]exchange.PriceLevel, len(raw))
	for k, l := range raw {
		out[k] = exchange.PriceLevel{exchange.Num(in.appendPrice(nil, l.px)), exchange.Num(decimals.New(l.units, b.sizeExp).Append(nil))}
	}
	return out
}

// drawn returns the book at t, from the memo when t falls in the step (and
// at the price) of the last book drawn. A book is drawn into its priced
// step; lastBook keeps the last one, so that a moving step asked at a new
// instant at the same price hands out the same book.
func (in *instrument) drawn(t time.Time) *drawnBook {
	st := in.path.stepAt(t)
	p := in.priced(t, st)
	if b := in.lastBook.Load(); b != nil && b.id == st.id() && b.mid == p.ticks {
		return b
	}
	p.bookOnce.Do(func() { in.draw(&p.book, st, in.quote(p)) })
	in.lastBook.Store(&p.book)
	return &p.book
}

// draw starts the book of step st at quote q into b: a pure function of
// the instrument, the step and the price. Only the best levels are drawn
// here.
func (in *instrument) draw(b *drawnBook, st step, q quote) {
	*b = drawnBook{id: st.id(), mid: q.mid, half: q.half, ts: in.stamps.stamp(in.bookTime(st)),
		key: st.key(), base: q.sizeUnits(q.levelValue), sizeExp: -q.sizePlaces}
	var nums [2][]Level
	for side := range b.topRaw {
		// Drawn into the book's own arrays: at most one level fits.
		top := in.drawSide(b.topRaw[side:side:side+1], b, side, 1)
		b.topLen[side] = uint8(len(top))
		nums[side] = in.numbers(b.topNums[side:side:side+len(top)], b, top)
	}
	b.numbers = BookNumbers{Bids: nums[0], Asks: nums[1], TS: b.ts, Depth: func() (bids, asks []Level) {
		d := b.depth(in)
		return d.nums[0], d.nums[1]
	}}
}

// drawSide appends the first n levels of one side (0 bids, 1 asks) to
// raw. Level k is hashed from (seed, side, k, key): its size from that
// hash, its distance from the level before from the hash mixed once more.
// Fewer levels are the first of more: the top is the book's own first
// level.
func (in *instrument) drawSide(raw []rawLevel, b *drawnBook, side, n int) []rawLevel {
	sd := uint64(sideBid)
	q := quote{mid: b.mid, half: b.half} // the part of the quote that the levels' prices need
	px, dir := q.bid(), int64(-1)
	if side == 1 {
		sd, px, dir = sideAsk, q.ask(), 1
	}
	hs := hash(in.seed, sd)
	for k := range n {
		h := mix(mix(hs, uint64(k)), b.key) // hash(in.seed, sd, k, key)
		if k > 0 {
			px += dir * gapTicks(mix(h, 0x6761))
		}
		if px <= 0 { // bids near zero: deeper levels only go lower
			break
		}
		raw = append(raw, rawLevel{px, sizeUnitsOf(b.base, 1+float64(k)/8, h)})
	}
	return raw
}

// numbers appends the levels raw in numbers to nums.
func (in *instrument) numbers(nums []Level, b *drawnBook, raw []rawLevel) []Level {
	for _, l := range raw {
		nums = append(nums, Level{Price: in.priceFloat(l.px), Size: decimals.New(l.units, b.sizeExp).Float64()})
	}
	return nums
}

// depth draws every level, once.
func (b *drawnBook) depth(in *instrument) *deepBook {
	b.depthOnce.Do(func() {
		d := &deepBook{}
		for side := range d.raw {
			d.raw[side] = in.drawSide(make([]rawLevel, 0, MaxLevels), b, side, MaxLevels)
			n := len(d.raw[side])
			d.nums[side] = in.numbers(make([]Level, 0, n), b, d.raw[side]) // len == cap
		}
		b.deep = d
	})
	return b.deep
}

// levelsText returns the book's levels as decimal text, written once: every
// price and size into one buffer that becomes one string the levels slice.
func (b *drawnBook) levelsText(in *instrument) [2][]exchange.PriceLevel {
	d := b.depth(in)
	raw := d.raw
	d.textOnce.Do(func() {
		buf := make([]byte, 0, 2*MaxLevels*20)
		var ends [2][MaxLevels][2]int // per side and level: the end of the price and of the size
		for side, raw := range raw {
			for k, l := range raw {
				buf = in.appendPrice(buf, l.px)
				ends[side][k][0] = len(buf)
				buf = decimals.New(l.units, b.sizeExp).Append(buf)
				ends[side][k][1] = len(buf)
			}
		}
		text := string(buf)
		from := 0
		for side, raw := range raw {
			levels := make([]exchange.PriceLevel, len(raw))
			for k := range raw {
				e := ends[side][k]
				levels[k] = exchange.PriceLevel{exchange.Num(text[from:e[0]]), exchange.Num(text[e[0]:e[1]])}
				from = e[1]
			}
			d.text[side] = levels
		}
	})
	return d.text
}

// priceFloat is the price of n ticks as parsing its text gives.
func (in *instrument) priceFloat(n int64) float64 {
	v, ok := in.scaledTicks(n)
	if !ok {
		f, _ := strconv.ParseFloat(string(in.appendPrice(nil, n)), 64)
		return f
	}
	return decimals.New(v, in.tickExp).Float64()
}

// gapTicks is the distance in ticks from a level to the next, from the
// level's gap hash: one level in four leaves a one-tick hole, as raw depth
// does.
func gapTicks(h uint64) int64 {
	if h%4 == 0 {
		return 2
	}
	return 1
}

// StockOrderBook returns the stock-orderbook snapshot of the stock pair
// symbol at t: MaxLevels levels per side, asks ascending, bids descending,
// unmerged (every level one price). The book is served whether or not the
// pair trades at t. Its TS is when the book was drawn: the start of the
// price path's step at t, clamped to the scenario start, so that now - TS is
// the age of the snapshot. Asked again within the same step, it returns the
// same (shared, read-only) slices.
func (m *Market) StockOrderBook(symbol string, t time.Time) (exchange.StockOrderBook, error) {
	p, ok := m.pairBySym[symbol]
	if !ok {
		return exchange.StockOrderBook{}, fmt.Errorf("stock order book %s: %w", symbol, ErrUnknownSymbol)
	}
	b := p.inst.drawn(t)
	text := b.levelsText(p.inst)
	return exchange.StockOrderBook{Symbol: symbol, Bids: text[0], Asks: text[1], TS: b.ts}, nil
}

// BookNumbers is a synthetic book in numbers (see Level): the best level
// of each side at once (Bids and Asks, empty when the side is), and every
// level when Depth is called, drawn then, once per price step. The slices
// are shared and read-only.
type BookNumbers = exchange.BookNumbers

// StockBookNumbers is StockOrderBook in numbers: the same levels, with no
// decimal text written. Asked again within the same step, it returns the
// same BookNumbers (the same slices and Depth).
func (m *Market) StockBookNumbers(symbol string, t time.Time) (BookNumbers, error) {
	p, ok := m.pairBySym[symbol]
	if !ok {
		return BookNumbers{}, fmt.Errorf("stock order book %s: %w", symbol, ErrUnknownSymbol)
	}
	return p.inst.drawn(t).numbers, nil
}
