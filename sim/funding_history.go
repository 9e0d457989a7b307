package sim

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// FundingSettlement is one funding settlement of a symbol: its time and the
// rate settled then.
type FundingSettlement struct {
	At   time.Time
	Rate decimal.Decimal
}

// MarkPathName is the name of the scenario price path that holds a
// symbol's mark price, when the scenario has one (a backtest on stored
// mark candles); without it the mark price is the last price.
func MarkPathName(symbol string) string { return symbol + " mark" }

// IndexPathName is the name of the price path of a symbol's index price;
// see MarkPathName.
func IndexPathName(symbol string) string { return symbol + " index" }

// settleFundingHistory books the settlements of Scenario.FundingHistory in
// (from, to] on every open position of their symbol, each at its own rate
// and at the mark price of its time, as the venue settles funding: with a
// positive rate a long pays rate × value and a short receives it. Like
// settleFunding it moves the balance only.
func (x *Exchange) settleFundingHistory(from, to time.Time) {
	for _, a := range x.accounts {
		for _, p := range a.positions {
			if !p.size.IsPositive() {
				continue
			}
			list := x.sc.FundingHistory[p.c.spec.Symbol]
			// The first settlement after from.
			i := sort.Search(len(list), func(i int) bool { return list[i].At.After(from) })
			for ; i < len(list) && !list[i].At.After(to); i++ {
				price, ok := x.mkt.PriceAt(p.c.markSymbol, list[i].At)
				if !ok {
					continue
				}
				pay := p.c.value(p.size, price).Mul(list[i].Rate).Round(8)
				if !p.long {
					pay = pay.Neg()
				}
				x.changed()
				a.balance[p.c.marginCoin] = a.balance[p.c.marginCoin].Sub(pay)
				p.funding = p.funding.Sub(pay)
			}
		}
	}
}

// lastSettlement returns the index in list (sorted by time) of the last
// settlement at or before t, or -1.
func lastSettlement(list []FundingSettlement, t time.Time) int {
	return sort.Search(len(list), func(i int) bool { return list[i].At.After(t) }) - 1
}

// tickerFundingRate is the ticker's fundingRate of symbol. With a
// FundingHistory (a replay of stored history) it is the rate of the
// symbol's last settlement at or before now, "0" before the first: the
// venue's ticker shows the current period's rate as it forms, which no
// history keeps, and the rate settled at the period's end would be known
// only then (a look-ahead). Otherwise it is the scenario's rate.
func (x *Exchange) tickerFundingRate(symbol string) exchange.Num {
	if len(x.sc.FundingHistory) == 0 {
		return x.fundingRateNum()
	}
	list := x.sc.FundingHistory[symbol]
	if i := lastSettlement(list, x.now); i >= 0 {
		return num(list[i].Rate)
	}
	return "0"
}
