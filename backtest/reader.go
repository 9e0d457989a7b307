package backtest

import (
	"context"
	"sync"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
)

// numericReader is the simulated account as the pollers read it, with the
// stock order books handed over in numbers (marketdata.NumericBookReader):
// writing 160 decimal strings a book only for the pollers to parse them
// back was most of a backtest's time. Between two price steps the
// simulator returns the same levels, and so does this reader, so the
// pollers see an unchanged book.
type numericReader struct {
	*sim.Account

	mu   sync.Mutex
	last map[string]convertedBook // by symbol
}

type convertedBook struct {
	bids, asks *market.Level // the simulator's slices it was made from
	book       marketdata.NumericBook
}

func newNumericReader(a *sim.Account) *numericReader {
	return &numericReader{Account: a, last: map[string]convertedBook{}}
}

// StockBookNumbers returns the book of symbol in numbers.
func (r *numericReader) StockBookNumbers(ctx context.Context, symbol string) (marketdata.NumericBook, error) {
	bids, asks, ts, err := r.Account.StockBookNumbers(ctx, symbol)
	if err != nil {
		return marketdata.NumericBook{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.last[symbol]; ok && c.bids == first(bids) && c.asks == first(asks) && c.book.TS == ts {
		return c.book, nil
	}
	book := marketdata.NumericBook{Bids: levels(bids), Asks: levels(asks), TS: ts}
	r.last[symbol] = convertedBook{bids: first(bids), asks: first(asks), book: book}
	return book, nil
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
