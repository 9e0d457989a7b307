package marketdata

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// BenchmarkNewState builds the State of one tick with 10 stock pairs (info,
// 40-level books, 100 fills each), 20 positions and 50 pending orders: the
// per-tick cost of the builder.
func BenchmarkNewState(b *testing.B) {
	in := BuildInput{Now: now, Market: fullInput().Market, StockInfo: &StockInfoInput{At: now}}
	var positions []exchange.Position
	var orders []exchange.PendingOrder
	for i := range 10 {
		sym := fmt.Sprintf("S%dUSDT", i)
		in.StockInfo.Pairs = append(in.StockInfo.Pairs, exchange.StockInfo{Symbol: sym, Code: fmt.Sprintf("S%d", i), TradingPeriod: []exchange.TradingPeriod{exchange.Regular}})
		book := exchange.StockOrderBook{TS: ms(now)}
		for l := range 40 {
			book.Bids = append(book.Bids, exchange.PriceLevel{exchange.Num(fmt.Sprintf("%d.%02d", 99-l/100, 99-l%100)), "10"})
			book.Asks = append(book.Asks, exchange.PriceLevel{exchange.Num(fmt.Sprintf("%d.%02d", 100+l/100, l%100)), "10"})
		}
		in.Books = append(in.Books, BookInput{Symbol: sym, Book: book, At: now})
		fills := make([]exchange.StockFill, 100)
		for f := range fills {
			fills[f] = exchange.StockFill{Price: "100.01", Size: "3", TS: ms(now.Add(-time.Duration(f) * 10 * time.Second))}
		}
		in.Fills = append(in.Fills, FillsInput{Symbol: sym, Fills: fills, At: now})
		in.Contracts = append(in.Contracts, ProductContract{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: sym}})
		for _, side := range []exchange.HoldSide{exchange.Long, exchange.Short} {
			positions = append(positions, exchange.Position{Symbol: sym, HoldSide: side, Total: "2", OpenPriceAvg: "100", MarkPrice: "101", MarginSize: "40", UnrealizedPL: "2", CTime: ms(now)})
		}
		for o := range 5 {
			orders = append(orders, exchange.PendingOrder{ListOrder: exchange.ListOrder{Symbol: sym, OrderID: fmt.Sprint(i*10 + o), Size: "1", Price: "99", CTime: ms(now)}})
		}
	}
	in.Positions = []PositionsInput{{ProductType: exchange.USDTFutures, Positions: positions, At: now}}
	in.Orders = []OrdersInput{{ProductType: exchange.USDTFutures, Orders: orders, At: now}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewState(in, BuildOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
