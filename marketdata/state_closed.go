package marketdata

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// This file holds today's account and the closed trades: the venue's
// position history (exchange.OpHistoryPosition), read back from the venue
// on every poll so that an engine restarted mid-day sees the same closes
// and the same pnl_today as one that ran all day. "Today" is the US Eastern
// day (America/New_York, daylight saving included): it starts at 00:00 New
// York time, the day the rest of the language counts in.

// ClosedTradesInput is one fetch of the position history of a product type
// (all pages of the fetch's window).
type ClosedTradesInput struct {
	ProductType exchange.ProductType
	Positions   []exchange.HistoryPosition
	// Orders are the product type's orders of the same window (the
	// venue's orders history), among which each close's closing order
	// says how it closed (ClosedTrade.How); none: every How is unknown.
	Orders []exchange.HistoryOrder
	At     time.Time
}

// ClosedTrade is one position closed to zero, from the venue's position
// history. PnL is the venue's netProfit: what the position changed the
// account by, realised P&L after opening and closing fees and the funding
// settled while it was open; GrossPnL is the realised P&L before them.
// Fees and Funding carry the account's sign (a fee paid is negative).
// OpenedAt and ClosedAt are the position's cTime and uTime.
type ClosedTrade struct {
	Product    exchange.ProductType
	Symbol     string
	Side       string // long or short: the side of the position that closed
	MarginCoin string
	PositionID string
	Size       decimal.Decimal // the size closed
	PnL        decimal.Decimal // net of fees and funding (netProfit)
	GrossPnL   decimal.Decimal // before fees and funding (pnl)
	Fees       decimal.Decimal // openFee + closeFee
	Funding    decimal.Decimal // totalFunding
	OpenPrice  decimal.Decimal
	ClosePrice decimal.Decimal
	OpenedAt   time.Time
	ClosedAt   time.Time
	// How is how the position was closed, from its closing order in the
	// orders history (howClosed): rule, take-profit, stop-loss,
	// trailing-stop, liquidation, trigger, by hand, or unknown.
	How string
}

// LastClose is a closed trade as a condition reads it: last_close("TSLAUSDT").
// MinutesAgo is counted at the State's time.
type LastClose struct {
	Symbol     string    `expr:"symbol" json:"symbol"`
	Side       string    `expr:"side" json:"side"`
	Size       float64   `expr:"size" json:"size"`
	PnL        float64   `expr:"pnl" json:"pnl"`
	Fees       float64   `expr:"fees" json:"fees"`
	Funding    float64   `expr:"funding" json:"funding"`
	Time       time.Time `expr:"time" json:"time"`
	MinutesAgo float64   `expr:"minutes_ago" json:"minutes_ago"`
	How        string    `expr:"how" json:"how"`
}

// newClosedTrade reads one history record; an unreadable number or time
// is an error (the fetch is then left out whole, as a list with a record
// missing would undercount today's losses).
func newClosedTrade(pt exchange.ProductType, w *exchange.HistoryPosition) (ClosedTrade, error) {
	t := ClosedTrade{Product: pt, Symbol: w.Symbol, Side: string(w.HoldSide), MarginCoin: w.MarginCoin, PositionID: w.PositionID}
	nums := []struct {
		name string
		v    exchange.Num
		dst  *decimal.Decimal
	}{
		{"closeTotalPos", w.CloseTotalPos, &t.Size}, {"netProfit", w.NetProfit, &t.PnL}, {"pnl", w.Pnl, &t.GrossPnL},
		{"totalFunding", w.TotalFunding, &t.Funding}, {"openAvgPrice", w.OpenAvgPrice, &t.OpenPrice}, {"closeAvgPrice", w.CloseAvgPrice, &t.ClosePrice},
	}
	for _, n := range nums {
		d, err := optionalDecimal(n.v)
		if err != nil {
			return ClosedTrade{}, fmt.Errorf("closed position %s %s: %s: %w", w.Symbol, w.PositionID, n.name, err)
		}
		*n.dst = d
	}
	openFee, err1 := optionalDecimal(w.OpenFee)
	closeFee, err2 := optionalDecimal(w.CloseFee)
	if err := cmp.Or(err1, err2); err != nil {
		return ClosedTrade{}, fmt.Errorf("closed position %s %s: fees: %w", w.Symbol, w.PositionID, err)
	}
	t.Fees = openFee.Add(closeFee)
	if w.UTime.Int() <= 0 {
		return ClosedTrade{}, fmt.Errorf("closed position %s %s: uTime %q is not Unix milliseconds", w.Symbol, w.PositionID, w.UTime)
	}
	t.ClosedAt = w.UTime.Time()
	if w.CTime.Int() > 0 {
		t.OpenedAt = w.CTime.Time()
	}
	return t, nil
}

// optionalDecimal reads a number the venue may leave empty (as zero).
func optionalDecimal(n exchange.Num) (decimal.Decimal, error) {
	if n == "" {
		return decimal.Zero, nil
	}
	return n.Decimal()
}

func (b *builder) closedTrades(fetches []ClosedTradesInput) {
	for _, f := range fetches {
		trades := make([]ClosedTrade, 0, len(f.Positions))
		var err error
		for i := range f.Positions {
			var t ClosedTrade
			if t, err = newClosedTrade(f.ProductType, &f.Positions[i]); err != nil {
				break
			}
			t.How = howClosed(&t, f.Orders)
			trades = append(trades, t)
		}
		if err != nil {
			b.fail(err)
			continue
		}
		b.s.closed = append(b.s.closed, trades...)
		b.s.closedScope = append(b.s.closedScope, f.ProductType)
		b.fetched(PartClosedTrades, f.At)
	}
	// Newest first; a position id breaks a tie so that the order does
	// not depend on the order of the fetches.
	slices.SortStableFunc(b.s.closed, func(x, y ClosedTrade) int {
		return cmp.Or(y.ClosedAt.Compare(x.ClosedAt), cmp.Compare(y.PositionID, x.PositionID))
	})
}

// ClosedTrades returns the fetched closed trades, newest first: the
// positions closed since 00:00 New York time of the day before (the
// poller's window), of the product types fetched.
func (s *State) ClosedTrades() ([]ClosedTrade, error) {
	if !s.Fetched(PartClosedTrades) {
		return nil, missing("closed trades", "no position history was fetched")
	}
	return s.closed, nil
}

// DayStart returns 00:00 New York time of the State's day: where today's
// P&L and today's closes start counting.
func (s *State) DayStart() time.Time { return midnight(s.eastern) }

// midnight is 00:00 of t's day in t's location.
func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// ClosedTradesFrom is where the poller's window of closed trades starts at
// now: 00:00 New York time of the day before, so that today's closes are
// all there and last_close still sees a close shortly before midnight.
func ClosedTradesFrom(now time.Time) (time.Time, error) {
	e, err := easternOf(now)
	if err != nil {
		return time.Time{}, err
	}
	d := midnight(e)
	return time.Date(d.Year(), d.Month(), d.Day()-1, 0, 0, 0, 0, d.Location()), nil
}

// closedOf checks that the closes of symbol were fetched: its product
// type's history is among the fetches.
func (s *State) closedOf(symbol string) error {
	if !s.Fetched(PartClosedTrades) {
		return missing("closed trades of "+symbol, "no position history was fetched")
	}
	pt, ok := s.product(symbol)
	if !ok || !slices.Contains(s.closedScope, pt) {
		return missing("closed trades of "+symbol, "the position history of its product type was not fetched")
	}
	return nil
}

// lastCloseOf is trade t as a condition reads it, at the State's time.
func (s *State) lastCloseOf(t *ClosedTrade) *LastClose {
	return &LastClose{
		Symbol: t.Symbol, Side: t.Side, Size: t.Size.InexactFloat64(), PnL: t.PnL.InexactFloat64(),
		Fees: t.Fees.InexactFloat64(), Funding: t.Funding.InexactFloat64(),
		Time: t.ClosedAt.In(s.eastern.Location()), MinutesAgo: s.Now.Sub(t.ClosedAt).Minutes(), How: t.How,
	}
}

// ClosedList returns every fetched close as a condition reads it
// (closed_trades), newest first, with MinutesAgo at the State's time: an
// empty list when none closed, so that none(closed_trades, ...) is true
// for a contract never closed.
func (s *State) ClosedList() ([]*LastClose, error) {
	if !s.Fetched(PartClosedTrades) {
		return nil, missing("closed trades", "no position history was fetched")
	}
	out := make([]*LastClose, len(s.closed))
	for i := range s.closed {
		out[i] = s.lastCloseOf(&s.closed[i])
	}
	return out, nil
}

// LastClose returns the newest close of symbol, with MinutesAgo at the
// State's time. A symbol with no close in the fetched window has none:
// the error is a missing value, which a condition treats as false.
func (s *State) LastClose(symbol string) (*LastClose, error) {
	if err := s.closedOf(symbol); err != nil {
		return nil, err
	}
	for i := range s.closed {
		t := &s.closed[i]
		if t.Symbol != symbol {
			continue
		}
		return s.lastCloseOf(t), nil
	}
	return nil, missing("last close of "+symbol, "no position of it was closed since yesterday 00:00 New York time")
}

// ClosesToday counts the closes of symbol since 00:00 New York time;
// losses only counts those whose PnL (net of fees and funding) is below
// zero.
func (s *State) ClosesToday(symbol string, losses bool) (int, error) {
	if err := s.closedOf(symbol); err != nil {
		return 0, err
	}
	start, n := s.DayStart(), 0
	for i := range s.closed {
		t := &s.closed[i]
		if t.Symbol == symbol && !t.ClosedAt.Before(start) && (!losses || t.PnL.IsNegative()) {
			n++
		}
	}
	return n, nil
}

// PnLToday is today's P&L of the positions margined in coin: the PnL (net
// of fees and funding) of every position closed since 00:00 New York time,
// plus the unrealised P&L of the open positions now. A position open
// across midnight counts whole on the day it closes: the venue's history
// gives one figure per position. It needs the position history of every
// product type whose positions use coin, and the positions.
func (s *State) PnLToday(coin string) (decimal.Decimal, error) {
	if pt := exchange.ProductTypeOfCoin(coin); !slices.Contains(s.closedScope, pt) {
		return decimal.Zero, missing("pnl today in "+coin, "the position history of "+string(pt)+" was not fetched")
	}
	return s.pnlToday("pnl today in "+coin, func(pt exchange.ProductType, marginCoin string) bool { return marginCoin == coin })
}

// PnLTodayProduct is PnLToday over the positions of product type pt.
func (s *State) PnLTodayProduct(pt exchange.ProductType) (decimal.Decimal, error) {
	if !slices.Contains(s.closedScope, pt) {
		return decimal.Zero, missing("pnl_today "+string(pt), "the position history of "+string(pt)+" was not fetched")
	}
	return s.pnlToday("pnl_today "+string(pt), func(p exchange.ProductType, _ string) bool { return p == pt })
}

func (s *State) pnlToday(what string, match func(pt exchange.ProductType, coin string) bool) (decimal.Decimal, error) {
	if !s.Fetched(PartClosedTrades) {
		return decimal.Zero, missing(what, "no position history was fetched")
	}
	if !s.Fetched(PartPositions) {
		return decimal.Zero, missing(what, "no positions were fetched")
	}
	start, sum := s.DayStart(), decimal.Zero
	for i := range s.closed {
		t := &s.closed[i]
		if match(t.Product, t.MarginCoin) && !t.ClosedAt.Before(start) {
			sum = sum.Add(t.PnL)
		}
	}
	for _, p := range s.positions {
		if match(exchange.ProductType(p.ProductType), p.MarginCoin) {
			// The positions are read as float64 (conditions' numbers);
			// their text had at most the venue's decimals.
			sum = sum.Add(decimal.NewFromFloat(p.UnrealizedPnL))
		}
	}
	return sum, nil
}

// EquityDayStart is the equity of coin's futures account at 00:00 New York
// time as the venue's records give it: the equity now less PnLToday(coin),
// so that EquityDayStart + PnLToday is the equity now and a daily loss in
// percent is PnLToday / EquityDayStart. A transfer made today is counted
// in it (the position history has no transfers), and so is the unrealised
// P&L of a position open across midnight as of when it opened.
func (s *State) EquityDayStart(coin string) (decimal.Decimal, error) {
	pnl, err := s.PnLToday(coin)
	if err != nil {
		return decimal.Zero, err
	}
	equity, err := s.Equity(coin)
	if err != nil {
		return decimal.Zero, err
	}
	return equity.Sub(pnl), nil
}

// Equity is the equity of coin now, over every fetched futures account
// of that margin coin (each product type's account is its own at the
// venue): balance plus unrealised P&L, as the venue gives it.
func (s *State) Equity(coin string) (decimal.Decimal, error) {
	equity, found := decimal.Zero, false
	for _, b := range s.balances {
		if b.MarginCoin == coin {
			equity, found = equity.Add(decimal.NewFromFloat(b.Equity)), true
		}
	}
	if !found {
		_, err := s.Balance(coin)
		return decimal.Zero, err
	}
	return equity, nil
}

// closeMatch is how far a closing order's last update may be from the
// position history's close time: the venue writes both as the fill
// completes, not in the same instant.
const closeMatch = 3 * time.Second

// howClosed finds the order that closed t among orders (of its product
// type and window) and says how it was placed: by its source (a triggered
// take-profit, stop-loss or trailing stop, a liquidation, a trigger order),
// else by where it came from: "rule" for an order sent through the API
// (the engine's rules, or another program using the same key), "by hand"
// for the website or the app. "unknown" when no order matches (the orders
// history was not read, or the close was not an order of this account's
// history).
func howClosed(t *ClosedTrade, orders []exchange.HistoryOrder) string {
	var best *exchange.HistoryOrder
	for i := range orders {
		o := &orders[i]
		u := o.UTime.Time()
		// The venue's docs write symbols and sources in lower case, its
		// live answers in upper case: both are read.
		if !strings.EqualFold(o.Symbol, t.Symbol) || !closes(o, t.Side) || o.UTime.Int() <= 0 || u.Before(t.OpenedAt) ||
			u.Sub(t.ClosedAt).Abs() > closeMatch {
			continue
		}
		if best == nil || u.Sub(t.ClosedAt).Abs() < best.UTime.Time().Sub(t.ClosedAt).Abs() {
			best = o
		}
	}
	if best == nil {
		return "unknown"
	}
	entry := exchange.EnterPointSource(strings.ToUpper(string(best.EnterPointSource)))
	switch kind := best.OrderSource.CloseKind(); {
	case kind != "":
		return kind
	case entry == exchange.SourceAPI:
		return "rule"
	case entry == exchange.SourceWeb || entry == exchange.SourceAndroid || entry == exchange.SourceIOS:
		return "by hand"
	case entry == exchange.SourceSys:
		return "liquidation"
	}
	return "unknown"
}

// closes reports whether o is an order that reduces a position of side:
// in hedge mode a close of that position side; in one-way mode an order
// of the opposite side (a long is closed by selling).
func closes(o *exchange.HistoryOrder, side string) bool {
	if o.PosMode == exchange.HedgeMode || o.TradeSide == exchange.Close {
		return o.PosSide == exchange.PosSide(side) && o.TradeSide == exchange.Close
	}
	if side == string(exchange.Long) {
		return o.Side == exchange.Sell
	}
	return o.Side == exchange.Buy
}
