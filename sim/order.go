package sim

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// order is one futures order of an account, pending or final.
type order struct {
	id        string
	seq       uint64 // creation order across the exchange
	acct      *Account
	c         *contract
	clientOID string

	side      exchange.Side
	open      bool // hedge mode: tradeSide open; one-way: unused
	posMode   exchange.PosMode
	orderType exchange.OrderType
	force     exchange.Force
	price     decimal.Decimal // zero for market orders
	size      decimal.Decimal
	reduce    bool // one-way reduceOnly YES
	margin    exchange.MarginMode
	leverage  decimal.Decimal
	stp       exchange.STPMode
	source    exchange.OrderSource

	presetTP, presetSL, presetTPExec, presetSLExec exchange.Num

	filled, quote, fee, profit decimal.Decimal
	reserved                   decimal.Decimal // margin held while pending (Account.reserve)
	state                      exchange.OrderState
	cancelReason               exchange.CancelReason
	cTime, uTime, visibleAt    time.Time
}

// buys reports whether the order buys: in one-way mode its side; in hedge
// mode opening a long or closing a short.
func (o *order) buys() bool {
	if o.posMode == exchange.HedgeMode && !o.open {
		return o.side == exchange.Sell
	}
	return o.side == exchange.Buy
}

// closes reports whether the order may only reduce a position.
func (o *order) closes() bool {
	if o.posMode == exchange.HedgeMode {
		return !o.open
	}
	return o.reduce
}

// remaining is the size still to fill.
func (o *order) remaining() decimal.Decimal { return o.size.Sub(o.filled) }

func (o *order) pending() bool { return !o.state.Final() }

// recordTradeSide is the tradeSide of the order record: open/close in hedge
// mode, buy_single, sell_single or their reduce_ forms in one-way mode.
func (o *order) recordTradeSide() exchange.TradeSide {
	if o.posMode == exchange.HedgeMode {
		if o.open {
			return exchange.Open
		}
		return exchange.Close
	}
	switch {
	case o.side == exchange.Buy && o.reduce:
		return exchange.ReduceBuySingle
	case o.side == exchange.Buy:
		return exchange.BuySingle
	case o.reduce:
		return exchange.ReduceSellSingle
	}
	return exchange.SellSingle
}

func (o *order) posSide() exchange.PosSide {
	if o.posMode != exchange.HedgeMode {
		return exchange.PosNet
	}
	if o.side == exchange.Buy {
		return exchange.PosLong
	}
	return exchange.PosShort
}

func (o *order) priceAvg() decimal.Decimal {
	if o.filled.IsZero() {
		return decimal.Zero
	}
	return o.quote.DivRound(o.filled, o.c.pricePlace+4)
}

func num(d decimal.Decimal) exchange.Num { return exchange.NumOf(d) }

// roundedNum is num(d.Round(places)). A d with no more than places
// decimal places is written as it is: rounding it only appends zeros,
// which num trims again.
func roundedNum(d decimal.Decimal, places int32) exchange.Num {
	if d.Exponent() >= -places {
		return num(d)
	}
	return num(d.Round(places))
}

func priceNum(d decimal.Decimal) exchange.Num {
	if d.IsZero() {
		return ""
	}
	return exchange.NumOf(d)
}

func reduceFlag(b bool) exchange.YesNo {
	if b {
		return exchange.Yes
	}
	return exchange.No
}

// listOrder is the part of the record that the detail and list endpoints share.
func (o *order) listOrder() exchange.ListOrder {
	return exchange.ListOrder{
		Symbol: o.c.spec.Symbol, Size: num(o.size), OrderID: o.id, ClientOID: o.clientOID,
		BaseVolume: num(o.filled), Fee: num(o.fee.Neg()), Price: priceNum(o.price), PriceAvg: num(o.priceAvg()),
		Status: o.state, Side: o.side, Force: o.force, TotalProfits: num(o.profit), PosSide: o.posSide(),
		MarginCoin: o.c.marginCoin, QuoteVolume: num(o.quote), Leverage: num(o.leverage), MarginMode: o.margin,
		EnterPointSource: exchange.SourceAPI, TradeSide: o.recordTradeSide(), PosMode: o.posMode,
		OrderType: o.orderType, OrderSource: o.source, CTime: exchange.MillisOf(o.cTime), UTime: exchange.MillisOf(o.uTime),
		PresetStopSurplusPrice: o.presetTP, PresetStopLossPrice: o.presetSL,
	}
}

func (o *order) detail() exchange.OrderDetail {
	l := o.listOrder()
	ts := l.TradeSide
	return exchange.OrderDetail{
		Symbol: l.Symbol, Size: l.Size, OrderID: l.OrderID, ClientOID: l.ClientOID, BaseVolume: l.BaseVolume,
		QuoteVolume: l.QuoteVolume, PriceAvg: l.PriceAvg, Fee: l.Fee, Price: l.Price, State: l.Status, Side: l.Side,
		Force: l.Force, TotalProfits: l.TotalProfits, PosSide: l.PosSide, MarginCoin: l.MarginCoin,
		PresetStopSurplusPrice: l.PresetStopSurplusPrice, PresetStopLossPrice: l.PresetStopLossPrice,
		OrderType: l.OrderType, Leverage: l.Leverage, MarginMode: l.MarginMode, ReduceOnly: reduceFlag(o.reduce),
		EnterPointSource: l.EnterPointSource, TradeSide: ts, NewTradeSide: &ts, PosMode: l.PosMode,
		OrderSource: l.OrderSource, CancelReason: o.cancelReason, CTime: l.CTime, UTime: l.UTime,
	}
}

func (o *order) pendingRecord() exchange.PendingOrder {
	return exchange.PendingOrder{
		ListOrder: o.listOrder(), PresetStopSurplusExecutePrice: o.presetTPExec, PresetStopLossExecutePrice: o.presetSLExec,
		PresetStopSurplusTriggerType: presetTrigger(o.presetTP), PresetStopLossTriggerType: presetTrigger(o.presetSL),
	}
}

// presetTrigger is the trigger type reported for a preset: fill_price, the
// exchange's default. When the order fills, its presets become the
// position's take-profit/stop-loss strategy order (see strategy.go).
func presetTrigger(p exchange.Num) string {
	if p == "" {
		return ""
	}
	return "fill_price"
}

// historyRecord is the orders-history record. posAvg is the order's own
// average fill price; liqPrice is left empty because the simulator does not
// keep a position's history.
func (o *order) historyRecord() exchange.HistoryOrder {
	return exchange.HistoryOrder{ListOrder: o.listOrder(), ReduceOnly: reduceFlag(o.reduce), PosAvg: num(o.priceAvg())}
}

// fill is one execution of an order.
type fill struct {
	rec exchange.Fill
	seq uint64
	o   *order
	t   time.Time
}
