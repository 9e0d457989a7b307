package marketdata

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// DefaultTradeWindow is the span of recent platform fills over which volume,
// trades_count and vwap are computed when BuildOptions leaves it zero.
const DefaultTradeWindow = 5 * time.Minute

// Stock is one US stock pair: its info, the top of its order book and its
// recent platform fills. Prices are in the pair's quote coin, sizes in shares
// (base coin). Which groups are known is recorded per pair; see Need.
type Stock struct {
	Symbol          string   `expr:"symbol" json:"symbol"`
	Code            string   `expr:"code" json:"code"`
	Name            string   `expr:"name" json:"name"`
	TradingPeriods  []string `expr:"trading_periods" json:"trading_periods"`
	WeekendTradable bool     `expr:"weekend_tradable" json:"weekend_tradable"`
	TradableNow     bool     `expr:"tradable_now" json:"tradable_now"`

	Bid            float64 `expr:"bid" json:"bid"`
	Ask            float64 `expr:"ask" json:"ask"`
	Mid            float64 `expr:"mid" json:"mid"`
	Spread         float64 `expr:"spread" json:"spread"`
	SpreadBps      float64 `expr:"spread_bps" json:"spread_bps"`
	BidSize        float64 `expr:"bid_size" json:"bid_size"`
	AskSize        float64 `expr:"ask_size" json:"ask_size"`
	Imbalance      float64 `expr:"imbalance" json:"imbalance"`
	BookAgeSeconds float64 `expr:"book_age_seconds" json:"book_age_seconds"`

	LastPrice           float64 `expr:"last_price" json:"last_price"`
	LastTradeAgeSeconds float64 `expr:"last_trade_age_seconds" json:"last_trade_age_seconds"`
	Volume              float64 `expr:"volume" json:"volume"`
	TradesCount         int     `expr:"trades_count" json:"trades_count"`
	VWAP                float64 `expr:"vwap" json:"vwap"`

	// InfoAt, BookAt and TradesAt are when each group was fetched (zero:
	// not). Rules cannot read them, so a trace does not show them.
	InfoAt, BookAt, TradesAt time.Time `json:"-"`

	bids, asks []BookLevel // for depth; bids descending, asks ascending
	more       *moreLevels // the rest of the book, when bids and asks are its top
	bookStamp  time.Time   // the book's time, which its age counts from
	trades     *tradeList  // the fills in numbers; nil: not fetched
	have       Need
	src        stockSource // what it was built from (State.SameKeys, atTime)
}

// moreLevels is the rest of a book handed over top first (NumericBook's
// Depth), fetched and sorted on first use. The memo does not change what a
// reader observes, so the Stock stays immutable in effect.
type moreLevels struct {
	once       sync.Once
	levels     func() (bids, asks []BookLevel)
	bids, asks []BookLevel
}

// depth returns every level of the book: bids descending, asks ascending.
func (s *Stock) depth() (bids, asks []BookLevel) {
	m := s.more
	if m == nil {
		return s.bids, s.asks
	}
	m.once.Do(func() { m.bids, m.asks = sortBook(m.levels()) })
	return m.bids, m.asks
}

// BookLevel is one level of an order book in numbers: a price in quote coin
// and the size in shares there.
type BookLevel = exchange.LevelNumbers

var (
	two         = decimal.NewFromInt(2)
	tenThousand = decimal.NewFromInt(10000)
)

// DepthBid returns the total bid size (shares) at prices within bps basis
// points below the mid price. The book must be known.
func (s *Stock) DepthBid(bps float64) float64 {
	bids, _ := s.depth()
	return depthBelow(bids, s.Mid, bps)
}

// DepthAsk returns the total ask size (shares) at prices within bps basis
// points above the mid price. The book must be known.
func (s *Stock) DepthAsk(bps float64) float64 {
	_, asks := s.depth()
	return depthAbove(asks, s.Mid, bps)
}

// Has reports whether every requirement in need is met.
func (s *Stock) Has(need Need) bool { return need&^s.have == 0 }

// newStock builds a Stock from what was fetched for it; any argument may be
// nil. market may be nil. old, when set, is the pair built before: what it
// took from the same info is shared.
func newStock(symbol string, info *exchange.StockInfo, infoAt time.Time, book *BookInput, fills *FillsInput,
	now time.Time, window time.Duration, market *Market, cache *ParseCache, old *Stock) (*Stock, error) {
	s := &Stock{Symbol: symbol}
	if info != nil {
		s.src.info = info
		s.have |= NeedInfo
		s.InfoAt = infoAt
		s.Code, s.Name = info.Code, info.Name
		if old != nil && old.src.info == info {
			s.TradingPeriods = old.TradingPeriods // read-only, like the info
		} else {
			s.TradingPeriods = make([]string, len(info.TradingPeriod))
			for i, p := range info.TradingPeriod {
				s.TradingPeriods[i] = string(p)
			}
		}
		s.WeekendTradable = info.WeekendTradable == exchange.LowerYes
		if market != nil {
			s.have |= NeedMarket
			s.TradableNow = tradableNow(s, market)
		}
	}
	if book != nil {
		if err := s.setBook(book, now, cache); err != nil {
			return nil, fmt.Errorf("stock %s book: %w", symbol, err)
		}
	}
	if fills != nil {
		trades, err := cache.trades(symbol, fills.Fills)
		if err != nil {
			return nil, fmt.Errorf("stock %s fills: %w", symbol, err)
		}
		s.trades = trades
		s.setTrades(trades, fills.At, now, window)
		s.src.fills, s.src.fillsIn = fills.Fills, true
	}
	return s, nil
}

// builtFrom reports whether s was built from exactly these fetches (nil:
// not fetched): the very answers, fetched at the same times.
func (s *Stock) builtFrom(info *exchange.StockInfo, infoAt time.Time, book *BookInput, fills *FillsInput) bool {
	if s.src.info != info || (info != nil && !s.InfoAt.Equal(infoAt)) {
		return false
	}
	if book == nil {
		if !s.src.bookAt.IsZero() {
			return false
		}
	} else if src := (stockSource{levels: book.Levels, bids: book.Book.Bids, asks: book.Book.Asks, ts: book.Book.TS, bookAt: book.At}); !s.src.sameBook(&src) {
		return false
	}
	if fills == nil {
		return !s.src.fillsIn
	}
	return s.src.fillsIn && sameView(s.src.fills, fills.Fills) && s.TradesAt.Equal(fills.At)
}

// atTime returns s as newStock would build it from the same fetches at
// now, except for the fields in keep, which keep s's values: only what
// follows the clock or the market session is computed again (whether the
// pair trades now, the ages, the trade window). It returns s itself when
// none of those changed, a copy otherwise. A rule that reads the trade
// window or tradable_now has a State built every tick, mostly from the
// answers of the tick before, and these seldom change.
func (s *Stock) atTime(now time.Time, window time.Duration, market *Market, keep TimeFieldSet) *Stock {
	n := *s
	if keep&stockTradable == 0 {
		n.have &^= NeedMarket
		n.TradableNow = false
		if n.have&NeedInfo != 0 && market != nil {
			n.have |= NeedMarket
			n.TradableNow = tradableNow(&n, market)
		}
	}
	if keep&stockBookAge == 0 && n.have&NeedBook != 0 {
		n.BookAgeSeconds = now.Sub(n.bookStamp).Seconds()
	}
	if n.trades != nil {
		if keep&stockLastTradeAge == 0 {
			n.setLastTrade(n.trades, now)
		}
		if keep&stockWindow != stockWindow {
			n.setWindow(n.trades, now, window)
		}
	}
	if n.timeValues() == s.timeValues() {
		return s
	}
	c := new(Stock)
	*c = n
	return c
}

// stockTime is what atTime may change.
type stockTime struct {
	tradable                                   bool
	have                                       Need
	bookAge, lastPrice, tradeAge, volume, vwap float64
	count                                      int
}

func (s *Stock) timeValues() stockTime {
	return stockTime{s.TradableNow, s.have, s.BookAgeSeconds, s.LastPrice, s.LastTradeAgeSeconds, s.Volume, s.VWAP, s.TradesCount}
}

// tradableNow: a pair trades when a session in its tradingPeriod is in
// progress on an open market day; a weekendTradable pair also trades at the
// weekend whatever the session says.
func tradableNow(s *Stock, m *Market) bool {
	if m.IsWeekend {
		return s.WeekendTradable
	}
	return m.IsOpen && !m.IsHoliday && slices.Contains(s.TradingPeriods, m.Session)
}

func (s *Stock) setBook(in *BookInput, now time.Time, cache *ParseCache) error {
	s.BookAt = in.At
	s.src.levels, s.src.bids, s.src.asks, s.src.ts, s.src.bookAt = in.Levels, in.Book.Bids, in.Book.Asks, in.Book.TS, in.At
	ts := in.Book.TS
	if in.Levels != nil {
		s.bids, s.asks = sortBook(in.Levels.Bids, in.Levels.Asks)
		ts = in.Levels.TS
		if in.Levels.Depth != nil {
			s.more = &moreLevels{levels: in.Levels.Depth}
		}
	} else {
		var err error
		if s.bids, s.asks, err = cache.levels(s.Symbol, &in.Book); err != nil {
			return err
		}
	}
	if len(s.bids) == 0 || len(s.asks) == 0 {
		return nil // fetched but one-sided: the book fields stay unknown
	}
	s.have |= NeedBook
	s.Bid, s.BidSize = s.bids[0].Price, s.bids[0].Size
	s.Ask, s.AskSize = s.asks[0].Price, s.asks[0].Size
	var hasBps bool
	s.Mid, s.Spread, s.SpreadBps, hasBps = topOfBook(s.Bid, s.Ask)
	if !hasBps {
		s.SpreadBps = 0
	}
	if tot := s.BidSize + s.AskSize; tot > 0 {
		s.Imbalance = (s.BidSize - s.AskSize) / tot
	}
	s.bookStamp = ts.Time()
	if s.bookStamp.IsZero() {
		s.bookStamp = in.At
	}
	s.BookAgeSeconds = now.Sub(s.bookStamp).Seconds()
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
