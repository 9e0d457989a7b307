package poll

import (
	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// A close moves a position from the positions (polled every second) to the
// position history (polled every 5 s). Until the history is read again, a
// rule would see the position gone and no close: "no loss in the last 30
// minutes" would hold right after a loss. So when a positions answer shows
// a position closed or reduced, the history of that product type is read
// at once, in the same round of polls, before the State of the next tick is
// built. The live poller and the backtest's source both do it (FollowUp).

// FollowUp is the task to fetch at once after t, whose answer changed
// the positions of its product type from before: the position history of
// that product type when a position closed or got smaller (its Part and
// Key; the caller takes its own task of them). ok is false when there is
// nothing to follow up.
func FollowUp(t Task, before []exchange.Position, into *marketdata.Answers) (Task, bool) {
	if t.Part != marketdata.PartPositions {
		return Task{}, false
	}
	if !PositionsReduced(before, into.Positions(exchange.ProductType(t.Key))) {
		return Task{}, false
	}
	return Task{Part: marketdata.PartClosedTrades, Key: t.Key}, true
}

// PositionsReduced reports whether after, a positions answer, holds a
// position of before (same symbol, side and margin mode) with a smaller
// size, or none.
func PositionsReduced(before, after []exchange.Position) bool {
	type key struct{ symbol, side, mode string }
	now := make(map[key]decimal.Decimal, len(after))
	for _, p := range after {
		now[key{p.Symbol, string(p.HoldSide), string(p.MarginMode)}] = p.Total.MustDecimal()
	}
	for _, p := range before {
		was := p.Total.MustDecimal() // unreadable: zero, no position to follow
		if !was.IsPositive() {
			continue
		}
		if is, ok := now[key{p.Symbol, string(p.HoldSide), string(p.MarginMode)}]; !ok || is.LessThan(was) {
			return true
		}
	}
	return false
}
