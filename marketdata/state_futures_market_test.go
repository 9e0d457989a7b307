package marketdata

import (
	"errors"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

func TestTickerAndFuturesBook(t *testing.T) {
	s := build(t, fullInput())
	tk, err := s.Ticker("TSLAUSDT")
	if err != nil {
		t.Fatal(err)
	}
	want := Ticker{Symbol: "TSLAUSDT", Last: 230.5, Bid: 230.49, Ask: 230.51, Mark: 230.48, Index: 230.45, FundingRate: 0.0001, Change24h: -0.02}
	if *tk != want {
		t.Errorf("ticker %+v, want %+v", *tk, want)
	}
	bk, err := s.FuturesBook("TSLAUSDT")
	if err != nil {
		t.Fatal(err)
	}
	if bk.Bid != 230.49 || bk.Ask != 230.51 || bk.Mid != 230.5 || bk.BidSize != 0.8 || bk.AskSize != 1.2 {
		t.Errorf("book top %+v", bk)
	}
	// 0.02 / 230.5 x 10000 = 0.8677 bps.
	if bk.SpreadBps < 0.867 || bk.SpreadBps > 0.868 {
		t.Errorf("spread_bps %g", bk.SpreadBps)
	}
	for _, c := range []struct {
		name             string
		bps              float64
		wantBid, wantAsk float64
	}{
		{name: "top only", bps: 1, wantBid: 0.8, wantAsk: 1.2},
		// 10 bps of 230.5 is 0.2305: 230.2695 to 230.7305.
		{name: "second levels", bps: 10, wantBid: 2.8, wantAsk: 4.2},
		{name: "whole book", bps: 1000, wantBid: 52.8, wantAsk: 4.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := bk.DepthBid(c.bps); got != c.wantBid {
				t.Errorf("depth bid %g, want %g", got, c.wantBid)
			}
			if got := bk.DepthAsk(c.bps); got != c.wantAsk {
				t.Errorf("depth ask %g, want %g", got, c.wantAsk)
			}
		})
	}
}

func TestTickerAndBookMissing(t *testing.T) {
	at := now.Add(-time.Second)
	s := build(t, BuildInput{Now: now,
		Tickers: []TickerInput{{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, At: at}},
		FuturesBooks: []FuturesBookInput{{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, At: at, Book: exchange.MergeDepth{
			Bids: []exchange.PriceLevel{{"100", "1"}},
		}}},
	})
	for _, c := range []struct {
		name, want string
		get        func() error
	}{
		{"ticker not fetched", "no data for ticker ETHUSDT: the ticker was not fetched", func() error { _, err := s.Ticker("ETHUSDT"); return err }},
		{"ticker answer empty", "no data for ticker BTCUSDT: the venue's ticker answer has no such contract", func() error { _, err := s.Ticker("BTCUSDT"); return err }},
		{"book not fetched", "no data for book ETHUSDT: the order book was not fetched", func() error { _, err := s.FuturesBook("ETHUSDT"); return err }},
		{"book one-sided", "no data for book BTCUSDT: the order book has an empty side", func() error { _, err := s.FuturesBook("BTCUSDT"); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.get()
			if !errors.Is(err, ErrMissingData) || err.Error() != c.want {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	if !s.Fetched(PartTicker) || !s.Fetched(PartFuturesBook) {
		t.Error("an empty answer is still a fetch")
	}
}

func TestTickerBadNumberIsLeftOut(t *testing.T) {
	s, err := NewState(BuildInput{Now: now, Tickers: []TickerInput{{Symbol: "BTCUSDT", At: now,
		Tickers: []exchange.Ticker{{Symbol: "BTCUSDT", LastPr: "x"}}}}}, BuildOptions{})
	if err == nil {
		t.Error("no error for a bad number")
	}
	if s.Fetched(PartTicker) {
		t.Error("a ticker with a bad number counts as fetched")
	}
}
