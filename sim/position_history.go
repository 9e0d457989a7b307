package sim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

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
	a.history = append(a.history, historyRecord(p.c, uint64(len(a.history))+1, closedPosition{
		long: p.long, marginMode: p.marginMode, openAvg: p.avg, closeAvg: closeAvg, opened: p.opened, closed: p.closed,
		pnl: p.achieved, openFee: p.openFee.Neg(), closeFee: p.closeFee.Neg(), funding: p.funding, cTime: p.cTime, uTime: a.x.now}))
}

// closedPosition is what a history record says of a closed position: fees
// and funding with the sign of the account's money (paid is negative).
type closedPosition struct {
	long                            bool
	marginMode                      exchange.MarginMode
	openAvg, closeAvg               decimal.Decimal
	opened, closed                  decimal.Decimal
	pnl, openFee, closeFee, funding decimal.Decimal
	cTime, uTime                    time.Time
}

// historyRecord is the n-th history record of the account, of contract c.
func historyRecord(c *contract, n uint64, h closedPosition) exchange.HistoryPosition {
	hold := exchange.Short
	if h.long {
		hold = exchange.Long
	}
	openFee, closeFee, funding := h.openFee.Round(8), h.closeFee.Round(8), h.funding.Round(8)
	return exchange.HistoryPosition{
		PositionID:    strconv.FormatUint(positionIDBase+n, 10),
		MarginCoin:    c.marginCoin,
		Symbol:        c.spec.Symbol,
		HoldSide:      hold,
		OpenAvgPrice:  roundedNum(h.openAvg, c.pricePlace+4),
		CloseAvgPrice: roundedNum(h.closeAvg, c.pricePlace+4),
		MarginMode:    h.marginMode,
		OpenTotalPos:  num(h.opened),
		CloseTotalPos: num(h.closed),
		Pnl:           roundedNum(h.pnl, 8),
		NetProfit:     roundedNum(h.pnl.Add(openFee).Add(closeFee).Add(funding), 8),
		TotalFunding:  num(funding),
		OpenFee:       num(openFee),
		CloseFee:      num(closeFee),
		CTime:         exchange.MillisOf(h.cTime),
		UTime:         exchange.MillisOf(h.uTime),
	}
}

// seedHistory writes the scenario's closed positions of spec into the
// account's history, oldest close first, before any close of the run.
func (a *Account) seedHistory(specs []ClosedPositionSpec) error {
	specs = slices.Clone(specs)
	slices.SortStableFunc(specs, func(p, q ClosedPositionSpec) int { return p.Closed.Compare(q.Closed) })
	for i, h := range specs {
		c, err := a.x.contract("", h.productType(), h.Symbol)
		if err != nil {
			return fmt.Errorf("position_history[%d]: %w", i, err)
		}
		mode := h.MarginMode
		if mode == "" {
			mode = exchange.Crossed
		}
		long := h.HoldSide == exchange.Long
		// The fees of the scenario are the opening and closing fees
		// together; the record gives them as the closing fee.
		a.history = append(a.history, historyRecord(c, uint64(len(a.history))+1, closedPosition{
			long: long, marginMode: mode, openAvg: h.OpenPrice, closeAvg: h.ClosePrice, opened: h.Size, closed: h.Size,
			pnl: pnlOf(c.inverse, long, h.Size, h.OpenPrice, h.ClosePrice), closeFee: h.Fees.Neg(), funding: h.Funding,
			cTime: h.Opened, uTime: h.Closed}))
	}
	return nil
}

// productType is the spec's product type, USDT-FUTURES when not given.
func (h ClosedPositionSpec) productType() exchange.ProductType {
	if h.ProductType == "" {
		return exchange.USDTFutures
	}
	return h.ProductType
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
