package marketdata

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Ticker is the market of one futures contract, as the venue's ticker
// gives it: ticker("BTCUSDT"). Prices are in the contract's quote coin.
type Ticker struct {
	Symbol      string  `expr:"symbol" json:"symbol"`
	Last        float64 `expr:"last" json:"last"`
	Bid         float64 `expr:"bid" json:"bid"`
	Ask         float64 `expr:"ask" json:"ask"`
	Mark        float64 `expr:"mark" json:"mark"`
	Index       float64 `expr:"index" json:"index"`
	FundingRate float64 `expr:"funding_rate" json:"funding_rate"`
	Change24h   float64 `expr:"change_24h" json:"change_24h"`
}

// TickerInput is one fetch of the ticker of a futures contract. The venue
// answers a list (of one contract when asked for one).
type TickerInput struct {
	Symbol      string
	ProductType exchange.ProductType
	Tickers     []exchange.Ticker
	At          time.Time
}

// FuturesBook is the order book of one futures contract, from the venue's
// merge-depth: book("BTCUSDT"). Prices are in the contract's quote coin,
// sizes in its base coin.
type FuturesBook struct {
	Symbol    string  `expr:"symbol" json:"symbol"`
	Bid       float64 `expr:"bid" json:"bid"`
	Ask       float64 `expr:"ask" json:"ask"`
	Mid       float64 `expr:"mid" json:"mid"`
	Spread    float64 `expr:"spread" json:"spread"`
	SpreadBps float64 `expr:"spread_bps" json:"spread_bps"`
	BidSize   float64 `expr:"bid_size" json:"bid_size"`
	AskSize   float64 `expr:"ask_size" json:"ask_size"`

	bids, asks []BookLevel // bids descending, asks ascending
}

// FuturesBookInput is one fetch of the merge-depth of a futures contract.
type FuturesBookInput struct {
	Symbol      string
	ProductType exchange.ProductType
	Book        exchange.MergeDepth
	At          time.Time
}

// DepthBid returns the total bid size (base coin) at prices within bps
// basis points below the mid price.
func (b *FuturesBook) DepthBid(bps float64) float64 { return depthBelow(b.bids, b.Mid, bps) }

// DepthAsk returns the total ask size (base coin) at prices within bps
// basis points above the mid price.
func (b *FuturesBook) DepthAsk(bps float64) float64 { return depthAbove(b.asks, b.Mid, bps) }

// depthBelow sums the sizes of bids (descending) priced within bps basis
// points below mid: the one computation of a book's bid depth, for stock
// pairs and futures alike.
func depthBelow(bids []BookLevel, mid, bps float64) float64 {
	limit := mid * (1 - bps/1e4)
	var sum float64
	for _, l := range bids {
		if l.Price < limit {
			break
		}
		sum += l.Size
	}
	return sum
}

// depthAbove sums the sizes of asks (ascending) priced within bps basis
// points above mid.
func depthAbove(asks []BookLevel, mid, bps float64) float64 {
	limit := mid * (1 + bps/1e4)
	var sum float64
	for _, l := range asks {
		if l.Price > limit {
			break
		}
		sum += l.Size
	}
	return sum
}

func newTicker(w *exchange.Ticker) (*Ticker, error) {
	var p numParser
	t := &Ticker{
		Symbol: w.Symbol,
		Last:   p.num("lastPr", w.LastPr), Bid: p.num("bidPr", w.BidPr), Ask: p.num("askPr", w.AskPr),
		Mark: p.num("markPrice", w.MarkPrice), Index: p.num("indexPrice", w.IndexPrice),
		FundingRate: p.num("fundingRate", w.FundingRate), Change24h: p.num("change24h", w.Change24h),
	}
	if p.err != nil {
		return nil, fmt.Errorf("ticker %s: %w", w.Symbol, p.err)
	}
	return t, nil
}

// newFuturesBook builds the book of one contract; nil, without an error,
// when a side is empty: the book fields then have no value.
func newFuturesBook(in *FuturesBookInput) (*FuturesBook, error) {
	var p numParser
	bids, asks := p.levels("bids", in.Book.Bids), p.levels("asks", in.Book.Asks)
	if p.err != nil {
		return nil, fmt.Errorf("book %s: %w", in.Symbol, p.err)
	}
	bids, asks = sortBook(bids, asks)
	if len(bids) == 0 || len(asks) == 0 {
		return nil, nil
	}
	b := &FuturesBook{Symbol: in.Symbol, bids: bids, asks: asks,
		Bid: bids[0].Price, BidSize: bids[0].Size, Ask: asks[0].Price, AskSize: asks[0].Size}
	var hasBps bool
	b.Mid, b.Spread, b.SpreadBps, hasBps = topOfBook(b.Bid, b.Ask)
	if !hasBps {
		b.SpreadBps = 0
	}
	return b, nil
}

// tickers builds the tickers of the contracts fetched. A list with a bad
// number is left out whole, as if not fetched.
func (b *builder) tickers(fetches []TickerInput) {
	for _, f := range fetches {
		built := make([]*Ticker, 0, len(f.Tickers))
		var err error
		for i := range f.Tickers {
			var t *Ticker
			if t, err = newTicker(&f.Tickers[i]); err != nil {
				break
			}
			built = append(built, t)
		}
		if err != nil {
			b.fail(err)
			continue
		}
		b.fetched(PartTicker, f.At)
		b.s.tickers = append(b.s.tickers, built...)
		b.s.tickersAsked = append(b.s.tickersAsked, f.Symbol)
	}
	slices.SortFunc(b.s.tickers, func(x, y *Ticker) int { return strings.Compare(x.Symbol, y.Symbol) })
}

// futuresBooks builds the books of the contracts fetched.
func (b *builder) futuresBooks(fetches []FuturesBookInput) {
	for i := range fetches {
		f := &fetches[i]
		bk, err := newFuturesBook(f)
		if err != nil {
			b.fail(err)
			continue
		}
		b.fetched(PartFuturesBook, f.At)
		b.s.booksAsked = append(b.s.booksAsked, f.Symbol)
		if bk != nil {
			b.s.futuresBooks = append(b.s.futuresBooks, bk)
		}
	}
}

// Ticker returns the ticker of a futures contract, or an error when it was
// not fetched.
func (s *State) Ticker(symbol string) (*Ticker, error) {
	for _, t := range s.tickers {
		if t.Symbol == symbol {
			return t, nil
		}
	}
	if !slices.Contains(s.tickersAsked, symbol) {
		return nil, missing("ticker "+symbol, "the ticker was not fetched")
	}
	return nil, missing("ticker "+symbol, "the venue's ticker answer has no such contract")
}

// FuturesBook returns the order book of a futures contract, or an error
// when it was not fetched or has an empty side.
func (s *State) FuturesBook(symbol string) (*FuturesBook, error) {
	for _, bk := range s.futuresBooks {
		if bk.Symbol == symbol {
			return bk, nil
		}
	}
	if !slices.Contains(s.booksAsked, symbol) {
		return nil, missing("book "+symbol, "the order book was not fetched")
	}
	return nil, missing("book "+symbol, "the order book has an empty side")
}
