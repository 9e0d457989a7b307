package backtest

import (
	"context"
	"sync"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
)

// numericReader is the simulated account as the pollers read it, with the
// stock order books handed over in numbers (marketdata.NumericBookReader):
// writing 160 decimal strings a book only for the pollers to parse them
// back was most of a backtest's time. Between two price steps the
// simulator returns the same levels, and so does this reader, so the
// pollers see an unchanged book. It also tells the pollers when an answer
// cannot have changed (marketdata.Versioner), so that most polls of a tick
// are not asked at all.
type numericReader struct {
	*sim.Account

	mu   sync.Mutex
	last map[string]convertedBook // by symbol
}

type convertedBook struct {
	from *market.Level // the best bid of the simulator's book it was made from
	ts   string
	book marketdata.NumericBook
}

func newNumericReader(a *sim.Account) *numericReader {
	return &numericReader{Account: a, last: map[string]convertedBook{}}
}

// StockBookNumbers returns the book of symbol in numbers: its best levels,
// and every level when the State first asks for them.
func (r *numericReader) StockBookNumbers(ctx context.Context, symbol string) (marketdata.NumericBook, error) {
	nb, err := r.Account.StockBookNumbers(ctx, symbol)
	if err != nil {
		return marketdata.NumericBook{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Bids and asks of one drawn book are one pair of slices: the best bid
	// (or, on an empty bid side, the best ask) identifies it with its time.
	from := first(nb.Bids)
	if from == nil {
		from = first(nb.Asks)
	}
	if c, ok := r.last[symbol]; ok && c.from == from && c.ts == string(nb.TS) {
		return c.book, nil
	}
	// The depth is converted once per book: a State built every tick asks
	// for it again on every tick.
	var once sync.Once
	var bids, asks []marketdata.BookLevel
	book := marketdata.NumericBook{Bids: levels(nb.Bids), Asks: levels(nb.Asks), TS: nb.TS,
		Depth: func() ([]marketdata.BookLevel, []marketdata.BookLevel) {
			once.Do(func() {
				b, a := nb.Depth()
				bids, asks = levels(b), levels(a)
			})
			return bids, asks
		}}
	r.last[symbol] = convertedBook{from: from, ts: string(nb.TS), book: book}
	return book, nil
}

// Version is the simulator's version of the answers of part, for the parts
// whose answers it can version.
func (r *numericReader) Version(ctx context.Context, part marketdata.Part, _ string) ([3]int64, bool) {
	var op exchange.Op
	switch part {
	case marketdata.PartStockBook:
		op = exchange.OpStockOrderBook
	case marketdata.PartPositions:
		op = exchange.OpAllPositions
	case marketdata.PartOrders:
		op = exchange.OpOrdersPending
	case marketdata.PartStrategyOrders:
		op = exchange.OpStrategyOrders
	case marketdata.PartBalances:
		op = exchange.OpAccounts
	default:
		return [3]int64{}, false
	}
	return r.AnswerVersion(ctx, op)
}

func first(ls []market.Level) *market.Level {
	if len(ls) == 0 {
		return nil
	}
	return &ls[0]
}

func levels(ls []market.Level) []marketdata.BookLevel {
	out := make([]marketdata.BookLevel, len(ls))
	for i, l := range ls {
		out[i] = marketdata.BookLevel{Price: l.Price, Size: l.Size}
	}
	return out
}
