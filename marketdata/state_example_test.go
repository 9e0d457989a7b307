package marketdata_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// A State is built once per tick from what the pollers fetched. Derived
// values are ready to read; data that was not fetched is an error, never 0.
func ExampleNewState() {
	now := time.Date(2026, 11, 20, 20, 50, 0, 0, time.UTC)
	s, err := marketdata.NewState(marketdata.BuildInput{
		Now:       now,
		Contracts: []marketdata.ProductContract{{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}}},
		Books: []marketdata.BookInput{{Symbol: "TSLAUSDT", At: now, Book: exchange.StockOrderBook{
			Bids: []exchange.PriceLevel{{"249.90", "30"}},
			Asks: []exchange.PriceLevel{{"250.10", "10"}},
		}}},
		Positions: []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, At: now}},
	}, marketdata.BuildOptions{})
	if err != nil {
		panic(err)
	}
	st, _ := s.Stock("TSLAUSDT", marketdata.NeedBook)
	fmt.Println("mid", st.Mid, "spread_bps", st.SpreadBps, "imbalance", st.Imbalance)

	_, err = s.Stock("TSLAUSDT", marketdata.NeedTrades)
	fmt.Println(err, errors.Is(err, marketdata.ErrMissingData))

	flat, _ := s.Position("TSLAUSDT", marketdata.SideLong, 0)
	fmt.Println("flat long size", flat.Size)
	// Output:
	// mid 250 spread_bps 8 imbalance 0.5
	// no data for stock TSLAUSDT: the platform fills were not fetched true
	// flat long size 0
}
