package market

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/internal/prepend"
)

const (
	// MaxStockFills is the most platform fills one stock-fills answer holds.
	MaxStockFills = 100
	// fillSlot is the time grid of platform fills: at most one fill per slot,
	// at a hashed offset inside it; one slot in four has none.
	fillSlot = 10 * time.Second
	// fillNotional is the typical quote value of one platform fill.
	fillNotional = 500
	// fillScanLimit bounds the slots one StockFills call looks at.
	fillScanLimit = 1 << 20
)

// StockFills returns the platform fills of the stock pair symbol up to t,
// newest first: at most limit (MaxStockFills when limit is not in
// 1..MaxStockFills), only from the three months before t, and only at times
// the pair trades (see StockTradable). A fill buys at the synthetic ask when
// the path price rose over the slot before it, sells at the bid when it fell,
// and picks the side from a hash when it held. Fills are a pure function of
// the scenario and their slot: asking at a later t returns the same fills
// plus newer ones.
//
// While the newest fill is the same, asking again with the same limit
// returns the same slice as the last answer (shared and read-only), unless
// the three-month window changed it.
func (m *Market) StockFills(symbol string, t time.Time, limit int) ([]exchange.StockFill, error) {
	p, ok := m.pairBySym[symbol]
	if !ok {
		return nil, fmt.Errorf("stock fills %s: %w", symbol, ErrUnknownSymbol)
	}
	if limit <= 0 || limit > MaxStockFills {
		limit = MaxStockFills
	}
	oldest := t.AddDate(0, -3, 0)
	prev := p.lastFills(limit)
	if prev.reusable(oldest, limit) && m.sameNewest(p, prev, t, oldest) {
		if t.Sub(prev.at) > time.Minute {
			// The same answer, known to hold up to t: the next poll looks
			// only at what came after t, not back to the last fill (a
			// weekend ago, for a pair that does not trade then). Not
			// every poll: a scan of a minute costs less than the copy.
			held := *prev
			held.at, held.oldest = t, oldest
			p.storeFills(limit, &held)
		}
		return prev.fills, nil
	}
	if a := m.extendFills(p, prev, t, oldest, limit); a != nil {
		p.storeFills(limit, a)
		return a.fills, nil
	}
	out := make([]exchange.StockFill, 0, limit) // an empty answer is [], not null
	newest := int64(0)
	m.scanFills(p, t, oldest, func(slot int64, at time.Time) bool {
		if len(out) == 0 {
			newest = slot
		}
		out = append(out, p.inst.fill(slot, at))
		return len(out) < limit
	})
	out = out[:len(out):len(out)]
	if len(out) > 0 {
		p.storeFills(limit, &fillAnswer{at: t, oldest: oldest, newest: newest, last: out[len(out)-1].TS.Time(), fills: out})
	}
	return out, nil
}

// extendFills returns the answer at t from prev, asked earlier, and the
// fills since: nil when it cannot. A poll a few seconds after the last one
// finds a fill or two more; scanning the hundred before them again (each
// checked against the calendar) was most of a backtest's stock-fills time.
// The answer at t is the fills after prev.at, newest first, then the
// newest of [oldest, prev.at]: those are prev's, as long as the window's
// start did not move back (which would let older fills in) and prev held
// enough of them (it was full, or it held every fill of its window).
func (m *Market) extendFills(p *stockPair, prev *fillAnswer, t, oldest time.Time, limit int) *fillAnswer {
	if prev == nil || t.Before(prev.at) || oldest.Before(prev.oldest) {
		return nil
	}
	var fresh []exchange.StockFill
	newest := int64(0)
	m.scanFills(p, t, prev.at.Add(time.Nanosecond), func(slot int64, at time.Time) bool {
		if len(fresh) == 0 {
			newest = slot
		}
		fresh = append(fresh, p.inst.fill(slot, at))
		return len(fresh) < limit
	})
	if len(fresh) == 0 {
		return nil // prev is too old for the window, or empty: scanned afresh
	}
	kept := prev.fills[:min(len(prev.fills), limit-len(fresh))]
	for len(kept) > 0 && kept[len(kept)-1].TS.Time().Before(oldest) {
		kept = kept[:len(kept)-1]
	}
	out, back, at := prev.back.Prepend(prev.fills, prev.backAt, fresh, len(kept))
	return &fillAnswer{at: t, oldest: oldest, newest: newest, last: out[len(out)-1].TS.Time(), fills: out, back: back, backAt: at}
}

// fillAnswer is the last stock-fills answer of a pair for one limit.
type fillAnswer struct {
	at     time.Time // when it was asked
	oldest time.Time // the three-month bound when asked
	newest int64     // slot of the newest fill
	last   time.Time // time of the oldest fill in fills
	fills  []exchange.StockFill
	back   *prepend.Array[exchange.StockFill] // the array fills is in (nil: its own), at backAt
	backAt int
}

// reusable reports whether a (nil: none) is also the answer at a time whose
// three-month bound is oldest, provided the newest fill then is a's. The
// fills then are those of [oldest, newest]; a's were those of [a.oldest,
// newest], or the newest limit of them. So a holds when none of its fills
// is now too old and either it was full (the newest limit fills of both
// ranges are the same) or the bound did not move back (month arithmetic is
// not monotonic, and the time may go back), which would let older fills in.
func (a *fillAnswer) reusable(oldest time.Time, limit int) bool {
	return a != nil && !a.last.Before(oldest) && (len(a.fills) == limit || !oldest.Before(a.oldest))
}

func (p *stockPair) lastFills(limit int) *fillAnswer {
	p.fillsMu.Lock()
	defer p.fillsMu.Unlock()
	return p.fillsByLimit[limit]
}

func (p *stockPair) storeFills(limit int, a *fillAnswer) {
	p.fillsMu.Lock()
	defer p.fillsMu.Unlock()
	if p.fillsByLimit == nil {
		p.fillsByLimit = make(map[int]*fillAnswer)
	}
	p.fillsByLimit[limit] = a // at most MaxStockFills entries
}

// sameNewest reports whether the newest fill of p up to t is prev's. Asked
// later than prev, only the fills after prev's time can be newer, so only
// they are scanned: a pair that does not trade (a night, a weekend) is not
// walked back to its last session on every poll.
func (m *Market) sameNewest(p *stockPair, prev *fillAnswer, t, oldest time.Time) bool {
	if t.Before(prev.at) {
		return m.newestFillSlot(p, t, oldest) == prev.newest
	}
	return m.newestFillSlot(p, t, prev.at.Add(time.Nanosecond)) == math.MinInt64
}

// newestFillSlot is the slot of the newest fill of p up to t and not before
// oldest; math.MinInt64 when there is none.
func (m *Market) newestFillSlot(p *stockPair, t, oldest time.Time) int64 {
	newest := int64(math.MinInt64)
	m.scanFills(p, t, oldest, func(slot int64, _ time.Time) bool {
		newest = slot
		return false
	})
	return newest
}

// scanFills calls yield with the slot and time of every fill of p up to t
// and not before oldest, newest first, until yield returns false.
func (m *Market) scanFills(p *stockPair, t, oldest time.Time, yield func(slot int64, at time.Time) bool) {
	slot := slotOf(t)
	for scanned := 0; scanned < fillScanLimit; scanned++ {
		at, ok := p.inst.fillTime(slot)
		if at.Before(oldest) {
			return
		}
		switch {
		case !ok || at.After(t):
			slot--
		case !m.pairTradable(p, at):
			// Nothing changes between the last boundary and at: skip to
			// the slot before it.
			slot = min(slot-1, slotOf(m.tradableSpanOf(p, at).from.Add(-time.Millisecond)))
		default:
			if !yield(slot, at) {
				return
			}
			slot--
		}
	}
}

func slotOf(t time.Time) int64 {
	ms := t.UnixMilli()
	slot := ms / fillSlot.Milliseconds()
	if ms < 0 && ms%fillSlot.Milliseconds() != 0 {
		slot--
	}
	return slot
}

// fillTime returns when slot's fill happens, and false when it has none.
func (in *instrument) fillTime(slot int64) (time.Time, bool) {
	h := hash(in.seed, uint64(slot), 0x66696c6c)
	offset := int64(h>>8) % fillSlot.Milliseconds()
	return time.UnixMilli(slot*fillSlot.Milliseconds() + offset).UTC(), h%4 != 0
}

func (in *instrument) fill(slot int64, at time.Time) exchange.StockFill {
	in.fillMu.Lock()
	f, ok := in.fills[slot]
	in.fillMu.Unlock()
	if ok {
		return f
	}
	f = in.computeFill(slot, at)
	in.fillMu.Lock()
	if in.fills == nil || len(in.fills) >= maxFillMemo {
		in.fills = make(map[int64]exchange.StockFill, 256)
	}
	in.fills[slot] = f
	in.fillMu.Unlock()
	return f
}

// computeFill is the fill of slot, which happens at at.
func (in *instrument) computeFill(slot int64, at time.Time) exchange.StockFill {
	q := in.quoteAt(at)
	before := in.ticks(at.Add(-fillSlot))
	h := hash(in.seed, uint64(slot), 0x73697a65)
	side := exchange.Buy
	switch {
	case q.mid < before, q.mid == before && h&1 == 1:
		side = exchange.Sell
	}
	price := q.ask()
	if side == exchange.Sell {
		price = max(q.bid(), 1)
	}
	return exchange.StockFill{
		// Ids grow with time; the last two digits keep symbols apart.
		ExecID: strconv.FormatInt(at.UnixMilli()*100+int64(in.seed%100), 10),
		Price:  in.num(price),
		Size:   size(fillNotional, q, 1, h),
		Side:   side,
		TS:     exchange.MillisOf(at),
	}
}
