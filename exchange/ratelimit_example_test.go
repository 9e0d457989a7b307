package exchange

import "fmt"

func ExampleLimiter_Budget() {
	l := NewLimiter(LimiterOptions{Headroom: 0.8})
	for _, b := range l.Budget() {
		switch b.Op {
		case OpPlaceOrder, OpClosePositions, OpStockOrderBook, OpStockInfo:
			fmt.Printf("%s: %d per %s per %s; using %.1f/s, burst %d\n", b.Op, b.Rate, b.Per, b.Scope, b.PerSecond, b.Burst)
		}
	}
	// Output:
	// place-order: 10 per 1s per uid; using 8.0/s, burst 10
	// close-positions: 1 per 1s per uid; using 0.8/s, burst 1
	// stock-orderbook: 10 per 1s per uid; using 8.0/s, burst 10
	// stock-info: 1 per 1s per ip; using 0.8/s, burst 1
}
