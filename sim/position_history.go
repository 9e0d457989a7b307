package sim

import (
	"context"
	"strconv"

	"github.com/tickrules/tickrules/exchange"
)

// The position history (GET history-position): every position of an
// account that was closed to zero, as the venue records it (the venue's
// docs, contract/position "Get Historical Position").
//
// Modelled, and so written down here:
//   - a record is written when the position's size reaches zero; a partial
//     close writes none (the venue's history lists closed positions);
//   - pnl is the realised P&L of the closing fills; openFee and closeFee
//     are the fees of the opening and closing fills and totalFunding the
//     funding settled while open, each with the sign of the account's
//     money (a fee paid is negative, as in the venue's websocket push of
//     the same record and in the fills' feeDetail); netProfit is their
//     sum, what the position changed the balance by;
//   - the times filter uTime (the close), the page is newest first, 20
//     rows by default and at most 100, older pages by idLessThan = endId.

// positionIDBase starts the simulator's position ids, apart from order and
// trade ids.
const positionIDBase = 1_290_000_000_000_000_000

// recordClosed writes the history record of p, whose size just reached
// zero.
func (a *Account) recordClosed(p *position) {
	closeAvg := p.closeQuote
	if p.closed.IsPositive() {
		closeAvg = p.closeQuote.DivRound(p.closed, p.c.pricePlace+4)
	}
	hold := exchange.Short
	if p.long {
		hold = exchange.Long
	}
	openFee, closeFee := p.openFee.Neg().Round(8), p.closeFee.Neg().Round(8)
	funding := p.funding.Round(8)
	a.history = append(a.history, exchange.HistoryPosition{
		PositionID:    strconv.FormatUint(positionIDBase+uint64(len(a.history))+1, 10),
		MarginCoin:    p.c.marginCoin,
		Symbol:        p.c.spec.Symbol,
		HoldSide:      hold,
		OpenAvgPrice:  roundedNum(p.avg, p.c.pricePlace+4),
		CloseAvgPrice: roundedNum(closeAvg, p.c.pricePlace+4),
		MarginMode:    p.marginMode,
		OpenTotalPos:  num(p.opened),
		CloseTotalPos: num(p.closed),
		Pnl:           roundedNum(p.achieved, 8),
		NetProfit:     roundedNum(p.achieved.Add(openFee).Add(closeFee).Add(funding), 8),
		TotalFunding:  num(funding),
		OpenFee:       num(openFee),
		CloseFee:      num(closeFee),
		CTime:         exchange.MillisOf(p.cTime),
		UTime:         exchange.MillisOf(a.x.now),
	})
}

// PositionHistory returns the account's closed positions of req, newest
// first (GET history-position).
func (a *Account) PositionHistory(ctx context.Context, req exchange.PositionHistoryRequest) (exchange.PositionHistoryPage, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpHistoryPosition, req, a.x.now); err != nil {
		return exchange.PositionHistoryPage{}, err
	}
	pt := req.ProductType
	if pt == "" {
		pt = exchange.USDTFutures // the venue's default
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 20 // the venue's default
	}
	from, to := req.StartTime.Int(), req.EndTime.Int()
	list, endID := page(a.history, func(h exchange.HistoryPosition) string { return h.PositionID }, func(h exchange.HistoryPosition) bool {
		if req.Symbol != "" {
			if h.Symbol != req.Symbol {
				return false
			}
		} else if c, ok := a.x.contractBy[contractKey(pt, h.Symbol)]; !ok || c.productType != pt {
			return false
		}
		u := h.UTime.Int()
		return (req.StartTime == "" || u >= from) && (req.EndTime == "" || u <= to)
	}, req.IDLessThan, limit)
	return exchange.PositionHistoryPage{List: list, EndID: endID}, nil
}
