package exchange

// BookNumbers is an order book in numbers, handed over in process by a
// venue that can skip writing decimal text (the simulator, in a backtest)
// to a reader that would only parse it back (the pollers). It is never
// sent or received on the wire. Each number is the float64 that parsing
// the level's decimal text would give. With Depth set, Bids and Asks hold
// only the best level of each side, and Depth returns every level on first
// use (a book nobody reads deeply is never drawn deeply). The slices are
// shared and read-only.
type BookNumbers struct {
	Bids, Asks []LevelNumbers
	TS         Millis
	Depth      func() (bids, asks []LevelNumbers)
}

// LevelNumbers is one book level in numbers: a price in quote coin and a
// size in base coin (shares for a stock pair).
type LevelNumbers struct{ Price, Size float64 }
