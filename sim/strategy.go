package sim

import (
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// posTPSL is the take-profit/stop-loss strategy order of one position, which
// the venue creates when an order with presets (presetStopSurplusPrice,
// presetStopLossPrice) fills into the position. It covers the whole position:
// its qty is the position's size, and it goes when the position goes.
//
// The venue lists it among the pending strategy orders of type tpsl, in the
// record of the spec ("Strategy order record": takeProfit, stopLoss,
// tpTriggerBy, slTriggerBy, tpOrderType, slOrderType, posSide), which is
// also the StrategyOrderV3 type of the public bitget-api SDK
// (types/response/v3/strategy.d.ts). Its v2 plan-order names are pos_profit
// and pos_loss; the orders it places on a trigger carry the order sources
// pos_profit_market/pos_profit_limit and pos_loss_market/pos_loss_limit
// (spec, orderSource values).
type posTPSL struct {
	id   string
	acct *Account
	c    *contract
	long bool
	// tp and sl are the trigger prices, "" for none; tpExec and slExec the
	// execution prices of a limit order, "" for a market order.
	tp, sl, tpExec, slExec exchange.Num
	cTime, uTime           time.Time
}

// strategyIDBase keeps the ids of the simulator's strategy orders apart
// from its order and trade ids, so that creating one renumbers nothing.
const strategyIDBase = 1_300_000_000_000_000_000

// setPosTPSL gives the position of o's contract in direction long the
// presets of o, which just filled into it: a new strategy order, or the
// position's one with the new prices (a position has one, as at the venue,
// where the latest presets replace the earlier ones).
func (x *Exchange) setPosTPSL(o *order, long bool) {
	if o.presetTP == "" && o.presetSL == "" {
		return
	}
	x.changed()
	if s := x.posTPSLOf(o.acct, o.c, long); s != nil {
		if s.tp == o.presetTP && s.sl == o.presetSL && s.tpExec == o.presetTPExec && s.slExec == o.presetSLExec {
			return
		}
		s.tp, s.sl, s.tpExec, s.slExec, s.uTime = o.presetTP, o.presetSL, o.presetTPExec, o.presetSLExec, x.now
		return
	}
	x.strategySeq++
	x.tpsl = append(x.tpsl, &posTPSL{
		id: strconv.FormatUint(strategyIDBase+x.strategySeq, 10), acct: o.acct, c: o.c, long: long,
		tp: o.presetTP, sl: o.presetSL, tpExec: o.presetTPExec, slExec: o.presetSLExec, cTime: x.now, uTime: x.now,
	})
}

func (x *Exchange) posTPSLOf(a *Account, c *contract, long bool) *posTPSL {
	for _, s := range x.tpsl {
		if s.acct == a && s.c == c && s.long == long {
			return s
		}
	}
	return nil
}

// dropPosTPSL removes the strategy order of a position that closed (a
// close, a reduce to zero, a reversal): the venue cancels it with the
// position.
func (x *Exchange) dropPosTPSL(a *Account, c *contract, long bool) {
	x.dropPositionPlans(a, c, long)
	if len(x.tpsl) == 0 {
		return
	}
	x.tpsl = slices.DeleteFunc(x.tpsl, func(s *posTPSL) bool {
		if s.acct == a && s.c == c && s.long == long {
			x.changed()
			return true
		}
		return false
	})
}

// record is s as the pending strategy query lists it. The presets trigger
// on the last price (their trigger type fill_price), tpTriggerBy market.
func (s *posTPSL) record() exchange.StrategyOrder {
	rec := exchange.StrategyOrder{
		OrderID: s.id, ClientOID: s.id, Category: s.c.productType, Symbol: s.c.spec.Symbol,
		Qty: num(s.acct.posSize(s.c, s.long)), PosSide: holdSide(s.long), Status: exchange.StrategyPending,
		CreatedTime: exchange.MillisOf(s.cTime), UpdatedTime: exchange.MillisOf(s.uTime),
	}
	if s.tp != "" {
		rec.TakeProfit, rec.TPTriggerBy, rec.TPOrderType, rec.TPLimitPrice = s.tp, exchange.TriggerMarket, execType(s.tpExec), s.tpExec
	}
	if s.sl != "" {
		rec.StopLoss, rec.SLTriggerBy, rec.SLOrderType, rec.SLLimitPrice = s.sl, exchange.TriggerMarket, execType(s.slExec), s.slExec
	}
	return rec
}

func execType(exec exchange.Num) exchange.OrderType {
	if exec == "" {
		return exchange.Market
	}
	return exchange.Limit
}

// hit reports which side of s the price p crosses: take-profit when a long
// rises to it or a short falls to it, stop-loss the other way. The
// stop-loss wins when both would (a price path cannot cross both at once
// unless they overlap, and then losing less is the safe reading).
func (s *posTPSL) hit(p decimal.Decimal) (tp, sl bool) {
	if s.sl != "" {
		c := p.Cmp(s.sl.MustDecimal())
		if (s.long && c <= 0) || (!s.long && c >= 0) {
			return false, true
		}
	}
	if s.tp != "" {
		c := p.Cmp(s.tp.MustDecimal())
		if (s.long && c >= 0) || (!s.long && c <= 0) {
			return true, false
		}
	}
	return false, false
}

// triggerTPSL fires the position strategy orders that the price now
// crosses: each places an order closing its whole position (at market, or
// at its execution price) and disappears. The simulator's mark price is its
// last price, so the trigger types market and mark trigger alike. Like
// resting orders, they wait while their contract's market is closed.
func (x *Exchange) triggerTPSL() {
	if len(x.tpsl) == 0 {
		return
	}
	for _, s := range slices.Clone(x.tpsl) {
		if !slices.Contains(x.tpsl, s) || !x.mkt.FuturesOpen(x.now, s.c.rwa) {
			continue
		}
		p, ok := x.price(s.c)
		if !ok {
			continue
		}
		tp, sl := s.hit(p)
		if !tp && !sl {
			continue
		}
		x.dropPosTPSL(s.acct, s.c, s.long)
		x.closeByTPSL(s, tp)
	}
}

// closeByTPSL places the order of a triggered strategy order. Close orders
// that hold the position give way first, as for close-positions, since the
// strategy order closes the whole position.
func (x *Exchange) closeByTPSL(s *posTPSL, tp bool) {
	a, c := s.acct, s.c
	p := a.position(c, s.long)
	if p == nil {
		return
	}
	for _, h := range a.heldOrders(c, s.long) {
		a.cancel(h, exchange.NormalCancel)
	}
	src, exec := exchange.OSPosLossMarket, s.slExec
	if tp {
		src, exec = exchange.OSPosProfitMarket, s.tpExec
	}
	in := closingIntent(exchange.OpPlaceOrder, p, a.mode[c.productType] == exchange.HedgeMode, src)
	if exec != "" {
		in.orderType, in.price, in.force = exchange.Limit, exec.MustDecimal(), exchange.GTC
		in.source = exchange.OSPosLossLimit
		if tp {
			in.source = exchange.OSPosProfitLimit
		}
	}
	o, _, err := a.admit(in)
	if err != nil {
		x.log.Warn("triggered take-profit/stop-loss could not be placed", zap.String("uid", a.uid), zap.String("symbol", c.spec.Symbol), zap.String("strategyOrderId", s.id), zap.Error(err))
		return
	}
	a.submit(o)
}

// posStrategyRecords are the position strategy orders of a in creation
// order.
func (x *Exchange) posStrategyRecords(a *Account) []exchange.StrategyOrder {
	var out []exchange.StrategyOrder
	for _, s := range x.tpsl {
		if s.acct == a {
			out = append(out, s.record())
		}
	}
	return out
}
