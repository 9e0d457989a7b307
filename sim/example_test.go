package sim_test

import (
	"context"
	"fmt"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

// An in-process simulated exchange on the demo scenario, driven by a
// virtual clock: place a limit order far below the market and read it back.
func ExampleNew() {
	sc := sim.Demo()
	x, err := sim.New(sc, sim.Options{Clock: clock.NewVirtual(sc.Clock.Start)})
	if err != nil {
		panic(err)
	}
	demo, _ := x.Account("demo-key") // one-way mode on every product type
	ctx := context.Background()
	ack, err := demo.PlaceOrder(ctx, exchange.PlaceOrderRequest{
		Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT",
		Size: "0.01", Price: "60000", Side: exchange.Buy, OrderType: exchange.Limit, ClientOID: "example-1",
	})
	if err != nil {
		panic(err)
	}
	d, err := demo.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: "example-1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(ack.OrderID, d.State, d.TradeSide, d.PosSide)
	// Output: 1100000000000000001 live buy_single net
}
