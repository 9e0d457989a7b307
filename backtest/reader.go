package backtest

import (
	"context"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
)

// numericReader is the simulated account as the backtest's source reads
// it, with the stock order books handed over in numbers
// (bookNumbersReader): writing 160 decimal strings a book only for the
// source to parse them back was most of a backtest's time. Between two
// price steps the simulator returns the same levels, so the source sees an
// unchanged book. It also tells the source when an answer cannot have
// changed (promiseReader: Version, and Promise and Mark from the account),
// so that most polls of a tick are not asked at all.
type numericReader struct {
	*sim.Account
}

func newNumericReader(a *sim.Account) *numericReader { return &numericReader{Account: a} }

// textReader is the simulated account read as a live exchange is: only
// the Reader's methods, so that it is read as the live poller reads a
// venue, without books in numbers or versions.
type textReader struct{ poll.Reader }

// Promise is the account's promise that no answer version moves before
// until while its mark stays (sim.Account.UnchangedUntil).
func (r *numericReader) Promise(ctx context.Context) (mark uint64, until time.Time) {
	return r.UnchangedUntil(ctx)
}

// Version is the simulator's version of the answers of part, for the parts
// whose answers it can version.
func (r *numericReader) Version(ctx context.Context, part marketdata.Part, key string) ([3]int64, bool) {
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
	// The key of the positions and the balances is their product type.
	return r.AnswerVersion(ctx, op, exchange.ProductType(key))
}
