package exchange

import (
	"errors"
	"fmt"
	"time"
)

func ExamplePlaceOrderRequest_Validate() {
	req := PlaceOrderRequest{
		Symbol: "BTCUSDT", ProductType: USDTFutures, MarginMode: Crossed, MarginCoin: "usdt",
		Size: "0.01", Side: Buy, OrderType: Limit, TradeSide: Open,
		Mode: OneWayMode, // the caller knows the account is in one-way mode
	}
	err := req.Validate(time.Now())

	// Every problem, one per line.
	fmt.Println(err)

	// The first problem, with the code the exchange (and the simulator) answers.
	var first *ValidationError
	if errors.As(err, &first) {
		fmt.Println("first:", first.Field, first.Code)
	}
	// Output:
	// place-order: marginCoin: must be upper case (got "usdt", want "USDT")
	// place-order: price: required when orderType is limit
	// place-order: tradeSide: must be omitted in one-way mode (got "open")
	// first: marginCoin 40017
}
