package market

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
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
}

func (q quote) bid() int64 { return q.mid - q.half }
func (q quote) ask() int64 { return q.mid + q.half }

func (in *instrument) quote(t time.Time) quote {
	mid := in.ticks(t)
	midFloat := in.tick.InexactFloat64() * float64(mid)
	half := max(int64(math.Ceil(float64(mid)*halfSpreadBps/10000)), 1)
	return quote{mid: mid, half: half, midFloat: midFloat, sizePlaces: sizePlaces(midFloat)}
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
	units := notional / q.midFloat * math.Pow10(int(q.sizePlaces)) * scale * (0.5 + unit(h))
	return exchange.Num(formatScaled(max(int64(units), 1), -q.sizePlaces))
}

// num formats a price of n ticks.
func (in *instrument) num(n int64) exchange.Num {
	hi, lo := bits.Mul64(uint64(n), uint64(in.tickCoef))
	if n < 0 || hi != 0 || lo > math.MaxInt64 {
		return exchange.NumOf(decimal.NewFromInt(n).Mul(in.tick))
	}
	return exchange.Num(formatScaled(int64(lo), in.tickExp))
}

// formatScaled writes v*10^exp (v >= 0) as decimal.Decimal.String does:
// no exponent, no trailing fractional zeros.
func formatScaled(v int64, exp int32) string {
	s := strconv.FormatInt(v, 10)
	if v == 0 {
		return s
	}
	if exp >= 0 {
		return s + strings.Repeat("0", int(exp))
	}
	places := int(-exp)
	if len(s) <= places {
		s = strings.Repeat("0", places-len(s)+1) + s
	}
	whole, frac := s[:len(s)-places], strings.TrimRight(s[len(s)-places:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// hash mixes the parts into one 64-bit value.
func hash(parts ...uint64) uint64 {
	h := uint64(0x6a09e667f3bcc908)
	for _, p := range parts {
		h = splitmix(h ^ p)
	}
	return h
}

// Book returns the synthetic book of symbol at t: levels (at most MaxLevels)
// on each side, bids descending and asks ascending, around the path price
// with a spread of about two basis points (at least two ticks). Levels are
// one or two ticks apart and their sizes vary by level and by second.
// Unknown symbols give empty books.
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

func (in *instrument) book(t time.Time, levels int) (bids, asks []exchange.PriceLevel) {
	levels = min(max(levels, 0), MaxLevels)
	q := in.quote(t)
	sec := uint64(t.Unix())
	bids = make([]exchange.PriceLevel, 0, levels)
	asks = make([]exchange.PriceLevel, 0, levels)
	bid, ask := q.bid(), q.ask()
	for k := range levels {
		if k > 0 {
			bid -= gap(in.seed, sideBid, k, sec)
			ask += gap(in.seed, sideAsk, k, sec)
		}
		depth := 1 + float64(k)/8
		if bid > 0 {
			bids = append(bids, exchange.PriceLevel{in.num(bid), size(levelNotional, q, depth, hash(in.seed, sideBid, uint64(k), sec))})
		}
		asks = append(asks, exchange.PriceLevel{in.num(ask), size(levelNotional, q, depth, hash(in.seed, sideAsk, uint64(k), sec))})
	}
	return bids, asks
}

// gap is the distance in ticks from a level to the next: one level in four
// leaves a one-tick hole, as raw depth does.
func gap(seed uint64, side, k int, sec uint64) int64 {
	if hash(seed, uint64(side), uint64(k), sec, 0x6761)%4 == 0 {
		return 2
	}
	return 1
}

// StockOrderBook returns the stock-orderbook snapshot of the stock pair
// symbol at t: MaxLevels levels per side, asks ascending, bids descending,
// unmerged (every level one price). The book is served whether or not the
// pair trades at t.
func (m *Market) StockOrderBook(symbol string, t time.Time) (exchange.StockOrderBook, error) {
	p, ok := m.pairBySym[symbol]
	if !ok {
		return exchange.StockOrderBook{}, fmt.Errorf("stock order book %s: %w", symbol, ErrUnknownSymbol)
	}
	bids, asks := p.inst.book(t, MaxLevels)
	return exchange.StockOrderBook{Symbol: symbol, Asks: asks, Bids: bids, TS: exchange.MillisOf(t)}, nil
}
