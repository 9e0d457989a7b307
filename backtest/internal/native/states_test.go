package native_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// randomState builds a State from testInput with its parts dropped,
// emptied or changed at random: sessions open and closed, books with an
// empty side, no orders or many, flat and open positions, zeros where a
// ratio divides. The same seed gives the same State; nil when the State
// cannot be built from what was drawn.
func randomState(seed uint64) *marketdata.State {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	in := testInput()
	in.Now = testNow.Add(time.Duration(r.IntN(4*24*60)-2*24*60) * time.Minute)
	at := func() time.Time { return in.Now.Add(-time.Duration(r.IntN(120)) * time.Second) }
	drop := func(p float64) bool { return r.Float64() < p }
	num := func(choices ...string) exchange.Num { return exchange.Num(choices[r.IntN(len(choices))]) }
	price := func() exchange.Num { return num("0", "1", "180.20", "249.90", "250", "250.10", "260", "0.5") }
	size := func() exchange.Num { return num("0", "1", "2", "5", "30", "100", "0.25") }

	if drop(0.15) {
		in.Market = nil
	} else {
		sessions := []string{"regular", "pre_market", "after_hours", "overnight", marketdata.SessionClosed}
		s := sessions[r.IntN(len(sessions))]
		info := marketdata.SessionInfo{Session: s, IsOpen: s != marketdata.SessionClosed,
			IsHoliday: drop(0.2), IsWeekend: drop(0.2), DST: drop(0.5)}
		if info.IsOpen {
			info.MinutesSinceOpen, info.MinutesToClose = float64(r.IntN(400)), float64(r.IntN(400))
		}
		if !drop(0.2) {
			info.Next, info.NextStart = sessions[r.IntN(4)], in.Now.Add(time.Duration(r.IntN(600))*time.Minute)
		}
		if info.IsHoliday {
			info.HolidayRemark = "Thanksgiving"
		}
		in.Market = &marketdata.MarketFetch{At: at(), Session: info}
	}

	if drop(0.15) {
		in.StockInfo = nil
	} else {
		periods := []exchange.TradingPeriod{exchange.PreMarket, exchange.Regular, exchange.AfterHours, exchange.Overnight}
		for i := range in.StockInfo.Pairs {
			p := &in.StockInfo.Pairs[i]
			p.TradingPeriod = nil
			for _, tp := range periods {
				if drop(0.5) {
					p.TradingPeriod = append(p.TradingPeriod, tp)
				}
			}
			p.WeekendTradable = []exchange.YesNoLower{exchange.LowerYes, exchange.LowerNo}[r.IntN(2)]
		}
		in.StockInfo.At = at()
	}

	levels := func(from, step float64) []exchange.PriceLevel {
		out := []exchange.PriceLevel{}
		for i := range r.IntN(4) {
			out = append(out, exchange.PriceLevel{exchange.Num(fmt.Sprintf("%.2f", from+step*float64(i))), size()})
		}
		return out
	}
	var books []marketdata.BookInput
	for _, b := range in.Books {
		if drop(0.2) {
			continue
		}
		b.At = at()
		b.Book.Bids, b.Book.Asks = levels(249.9, -0.1), levels(250.1, 0.1)
		books = append(books, b)
	}
	in.Books = books

	if drop(0.3) {
		in.Fills = nil
	} else {
		in.Fills[0].At = at()
		in.Fills[0].Fills = nil
		for i := range r.IntN(4) {
			in.Fills[0].Fills = append(in.Fills[0].Fills, exchange.StockFill{ExecID: fmt.Sprint(i), Price: price(), Size: size(),
				Side: exchange.Buy, TS: ms(in.Now.Add(-time.Duration(r.IntN(600)) * time.Second))})
		}
	}

	symbols := []string{"TSLAUSDT", "NVDAUSDT", "BTCUSDT"}
	if drop(0.15) {
		in.Positions = nil
	} else {
		var ps []exchange.Position
		seen := map[string]bool{}
		for range r.IntN(4) {
			sym, side := symbols[r.IntN(len(symbols))], []exchange.HoldSide{exchange.Long, exchange.Short}[r.IntN(2)]
			if seen[sym+string(side)] {
				continue
			}
			seen[sym+string(side)] = true
			total := size()
			ps = append(ps, exchange.Position{Symbol: sym, MarginCoin: "USDT", HoldSide: side, Total: total, Available: total,
				OpenPriceAvg: price(), MarkPrice: price(), UnrealizedPL: num("0", "-20", "15.5"), Leverage: num("1", "5", "20"),
				MarginMode: exchange.Crossed, PosMode: exchange.HedgeMode, MarginSize: num("0", "104", "50"),
				LiquidationPrice: price(), CTime: ms(in.Now.Add(-time.Hour))})
		}
		in.Positions[0].Positions, in.Positions[0].At = ps, at()
	}

	if drop(0.15) {
		in.Orders = nil
	} else {
		var os []exchange.PendingOrder
		for i := range r.IntN(5) {
			os = append(os, exchange.PendingOrder{ListOrder: exchange.ListOrder{Symbol: symbols[r.IntN(2)], OrderID: fmt.Sprintf("o%d", i),
				Size: size(), Price: price(), Side: []exchange.Side{exchange.Buy, exchange.Sell}[r.IntN(2)], Status: exchange.StateLive,
				OrderType: exchange.Limit, CTime: ms(in.Now.Add(-time.Duration(r.IntN(3600)) * time.Second))}})
		}
		in.Orders[0].Orders, in.Orders[0].At = os, at()
	}

	if drop(0.2) {
		in.StrategyOrders = nil
	} else {
		var os []exchange.StrategyOrder
		for i := range r.IntN(3) {
			o := exchange.StrategyOrder{OrderID: fmt.Sprintf("s%d", i), Symbol: symbols[r.IntN(2)], Qty: size(),
				PosSide: []exchange.HoldSide{exchange.Long, exchange.Short}[r.IntN(2)]}
			if drop(0.5) {
				o.StopLoss = price()
			}
			if drop(0.5) {
				o.TakeProfit = price()
			}
			os = append(os, o)
		}
		in.StrategyOrders[0].Orders, in.StrategyOrders[0].At = os, at()
	}

	if drop(0.2) {
		in.Balances = nil
	} else {
		in.Balances[0].At = at()
		in.Balances[0].Accounts[0].Available = num("0", "1000", "12.5")
	}
	if drop(0.3) {
		in.Discount = nil
	}
	if drop(0.3) {
		in.SpotRecords = nil
	}
	s, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		return nil
	}
	return s
}
