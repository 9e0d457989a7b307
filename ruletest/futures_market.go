package ruletest

import (
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Futures is the market of a futures contract, what ticker() and book()
// read: the ticker's prices and the top and deeper levels of the book.
// Bid, ask, mark and index default to last; the book has the bid and the
// ask (sizes default 1) and the deeper levels given.
type Futures struct {
	Last        Num `yaml:"last"`
	Bid         Num `yaml:"bid"`
	Ask         Num `yaml:"ask"`
	BidSize     Num `yaml:"bid_size"`
	AskSize     Num `yaml:"ask_size"`
	Mark        Num `yaml:"mark"`
	Index       Num `yaml:"index"`
	FundingRate Num `yaml:"funding_rate"`
	Change24h   Num `yaml:"change_24h"`
	// Bids and Asks are deeper levels below the bid and above the ask, each
	// [price, size].
	Bids [][2]Num `yaml:"bids"`
	Asks [][2]Num `yaml:"asks"`
}

// setFutures merges the contracts' markets given in a state or change
// into what is held, field by field.
func (w *world) setFutures(given map[string]*Futures) error {
	for sym, f := range given {
		if _, ok := w.cat.Contract(sym); !ok {
			return fmt.Errorf("futures: %s is not a contract of the scenario", sym)
		}
		if w.futures == nil {
			w.futures = map[string]*Futures{}
		}
		h := w.futures[sym]
		if h == nil {
			h = &Futures{}
			w.futures[sym] = h
		}
		mergeFutures(h, f)
	}
	return nil
}

// mergeFutures sets the fields given in src.
func mergeFutures(dst, src *Futures) {
	for _, f := range []struct{ d, s *Num }{
		{&dst.Last, &src.Last}, {&dst.Bid, &src.Bid}, {&dst.Ask, &src.Ask}, {&dst.BidSize, &src.BidSize},
		{&dst.AskSize, &src.AskSize}, {&dst.Mark, &src.Mark}, {&dst.Index, &src.Index},
		{&dst.FundingRate, &src.FundingRate}, {&dst.Change24h, &src.Change24h},
	} {
		if *f.s != "" {
			*f.d = *f.s
		}
	}
	if src.Bids != nil {
		dst.Bids = src.Bids
	}
	if src.Asks != nil {
		dst.Asks = src.Asks
	}
}

// futuresInput adds the tickers and books of the contracts held to in, as
// fetched at the tick's time.
func (w *world) futuresInput(in *marketdata.BuildInput) {
	for _, sym := range sortedKeys(w.futures) {
		f := w.futures[sym]
		c, _ := w.cat.Contract(sym)
		last := exchange.Num(f.Last)
		price := func(n Num) exchange.Num { return or(n, string(last)) }
		in.Tickers = append(in.Tickers, marketdata.TickerInput{Symbol: sym, ProductType: c.ProductType, At: in.Now, Tickers: []exchange.Ticker{{
			Symbol: sym, LastPr: or(f.Last, "0"), BidPr: price(f.Bid), AskPr: price(f.Ask), BidSz: or(f.BidSize, "1"), AskSz: or(f.AskSize, "1"),
			MarkPrice: price(f.Mark), IndexPrice: price(f.Index), FundingRate: or(f.FundingRate, "0"), Change24h: or(f.Change24h, "0"),
			TS: exchange.MillisOf(in.Now)}}})
		b := exchange.MergeDepth{TS: exchange.MillisOf(in.Now), Precision: "scale0", IsMaxPrecision: "NO"}
		if bid := price(f.Bid); bid != "" {
			b.Bids = append(b.Bids, exchange.PriceLevel{bid, or(f.BidSize, "1")})
		}
		for _, l := range f.Bids {
			b.Bids = append(b.Bids, exchange.PriceLevel{exchange.Num(l[0]), exchange.Num(l[1])})
		}
		if ask := price(f.Ask); ask != "" {
			b.Asks = append(b.Asks, exchange.PriceLevel{ask, or(f.AskSize, "1")})
		}
		for _, l := range f.Asks {
			b.Asks = append(b.Asks, exchange.PriceLevel{exchange.Num(l[0]), exchange.Num(l[1])})
		}
		in.FuturesBooks = append(in.FuturesBooks, marketdata.FuturesBookInput{Symbol: sym, ProductType: c.ProductType, Book: b, At: in.Now})
	}
}
