package sim

import (
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// FundingInterval is how often the simulator settles funding: every 8
// hours, at 00:00, 08:00 and 16:00 UTC, the venue's default schedule for
// its perpetual futures (the venue can shorten it per contract, which the
// simulator does not model; its public funding-time query gives the next
// settlement).
const FundingInterval = 8 * time.Hour

// settleFunding books the funding of every settlement time in (from, to]
// on every open position, at the last price of that time: with a positive
// rate a long pays rate × value and a short receives it, with a negative
// rate the other way round, as at the venue. It moves the balance only:
// the position's record (achievedProfits) keeps its trading profit. With Settings.FundingRate 0
// (the default) it does nothing at all, so that nothing else changes. A
// scenario with a FundingHistory settles that instead (funding_history.go).
func (x *Exchange) settleFunding(from, to time.Time) {
	if len(x.sc.FundingHistory) > 0 {
		if to.After(from) {
			x.settleFundingHistory(from, to)
		}
		return
	}
	rate := x.set.FundingRate
	if rate.IsZero() || !to.After(from) {
		return
	}
	for at := from.Truncate(FundingInterval).Add(FundingInterval); !at.After(to); at = at.Add(FundingInterval) {
		for _, a := range x.accounts {
			for _, p := range a.positions {
				price, ok := x.mkt.PriceAt(p.c.spec.Symbol, at)
				if !ok || !p.size.IsPositive() {
					continue
				}
				pay := p.c.value(p.size, price).Mul(rate).Round(8)
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

// fundingRateNum is the ticker's fundingRate: the scenario's rate, "0"
// when it has none.
func (x *Exchange) fundingRateNum() exchange.Num {
	if x.set.FundingRate.IsZero() {
		return "0"
	}
	return num(x.set.FundingRate)
}
