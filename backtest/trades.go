package backtest

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// Trade is one round trip: the part of an opening order that one closing
// order closed. Fills are paired first in, first out per symbol and
// position side, and the fills of one order are added up, so an order
// that filled in three pieces is one entry. A position still open at the
// end of the run is a Trade with Open set and no exit. A position the
// account held when the run started is an entry at the run's start, at the
// position's average open price, with EntryBy "held at start": its close
// is a closed trade, not a new position the other way.
type Trade struct {
	ProductType string `json:"productType"`
	Symbol      string `json:"symbol"`
	Side        string `json:"side"` // long or short
	Size        string `json:"size"`
	EntryTime   string `json:"entryTime"`
	EntryPrice  string `json:"entryPrice"` // size-weighted over the paired fills
	EntryRule   string `json:"entryRule"`  // "" when no firing placed the order (e.g. a stop-loss plan)
	// EntryBy and ExitBy name what placed the order when no rule did:
	// "held at start", "stop-loss", "take-profit", "liquidation", "plan
	// order" or the venue's order source (exitLabel).
	EntryBy   string `json:"entryBy,omitempty"`
	ExitTime  string `json:"exitTime,omitempty"`
	ExitPrice string `json:"exitPrice,omitempty"`
	ExitRule  string `json:"exitRule,omitempty"`
	ExitBy    string `json:"exitBy,omitempty"`
	// PnL is this trade's share of the exchange's realised profit of the
	// exit fills (so the trades add up to the account's realised P&L).
	PnL string `json:"pnl,omitempty"`
	// Fees is this trade's share of the entry and exit fees paid, as the
	// engine's own summary counts them: positive is paid, negative a
	// rebate received. They are added up whatever their fee coin (the
	// margin coin, unless fees are paid in another).
	Fees   string `json:"fees"`
	NetPnL string `json:"netPnl,omitempty"` // PnL - Fees
	Open   bool   `json:"open,omitempty"`
}

// tradePrecision is the number of decimal places of averaged and shared
// figures of a trade (prices, P&L and fees are split across trades) before
// they are rounded for display (roundTrades).
const tradePrecision = 8

// heldAtStart is the label of a trade's entry that the account held when
// the run started.
const heldAtStart = "held at start"

// orderNames names what placed each order: the rule of the firing that
// placed it, or, for an order no firing placed, what the venue says placed
// it (exitLabel of its order source).
type orderNames struct {
	rule map[string]string // order id -> rule
	by   map[string]string // order id -> label, for orders of no rule
}

// namesOf maps every order id a firing produced to the firing's rule, and
// every other order of orders with a known source to its label.
func namesOf(firings []Firing, orders []Order) orderNames {
	n := orderNames{rule: map[string]string{}, by: map[string]string{}}
	for _, f := range firings {
		for _, a := range f.Actions {
			for _, id := range a.OrderIDs {
				n.rule[id] = f.Rule
			}
		}
	}
	for _, o := range orders {
		if _, ok := n.rule[o.OrderID]; !ok && o.Source != "" {
			n.by[o.OrderID] = exitLabel(o.Source)
		}
	}
	return n
}

// exitLabel names, for a trader, the venue's order source of an order no
// rule placed (exchange.OrderSource.CloseKind): a triggered take-profit,
// stop-loss or trailing stop, a liquidation, a triggered plan order; ""
// for an ordinary order, placed by hand.
func exitLabel(source string) string { return exchange.OrderSource(source).CloseKind() }

// HeldPosition is a position the account held when the run started: the
// trade list pairs its closing fills with it.
type HeldPosition struct {
	Position
	// OneWay says the account was in one-way mode for its product type:
	// its fills then change one net position.
	OneWay bool
}

// positionKey names one position a fill changes: hold side is long or
// short in hedge mode, net in one-way mode.
type positionKey struct{ productType, symbol, holdSide string }

// lot is the still open part of an opening fill.
type lot struct {
	fill *Fill
	left decimal.Decimal
}

// tradeRow adds up the pairings of one opening order with one closing
// order (or with nothing, while open).
type tradeRow struct {
	key                 positionKey
	side                string
	openOrder           string
	closeOrder          string
	size                decimal.Decimal
	entryValue          decimal.Decimal // sum of price * size
	exitValue           decimal.Decimal
	pnl, fees           decimal.Decimal
	entryTime, exitAt   string
	entryRule, exitRule string
	entryBy, exitBy     string
}

// roundTrips pairs fills (oldest first) into trades. held are the
// positions open at the run's start, at time start: they are the first
// lots of their side. names names what placed each order (see namesOf;
// the zero value names none). A closing fill with nothing open to pair
// with is left out.
func roundTrips(fills []Fill, held []HeldPosition, start string, names orderNames) []Trade {
	books := map[positionKey][]lot{}
	var order []positionKey // first appearance, so open trades come out in a fixed order
	var rows []*tradeRow
	last := map[positionKey]*tradeRow{}
	for _, h := range held {
		key := positionKey{productType: h.ProductType, symbol: h.Symbol, holdSide: h.HoldSide}
		if h.OneWay {
			key.holdSide = "net"
		}
		side := "buy"
		if h.HoldSide == "short" {
			side = "sell"
		}
		// A fill without an order id stands for the position: no rule
		// placed it and it paid no fee in this run.
		seed := &Fill{Time: start, ProductType: h.ProductType, Symbol: h.Symbol, Side: side, Price: h.OpenPriceAvg, Size: h.Size, Fee: "0"}
		if size := parseOrZero(h.Size); size.IsPositive() {
			if _, seen := books[key]; !seen {
				order = append(order, key)
			}
			books[key] = append(books[key], lot{fill: seed, left: size})
		}
	}
	entryBy := func(f *Fill) string {
		if f.OrderID == "" {
			return heldAtStart
		}
		return names.by[f.OrderID]
	}
	// pair books q of close against open; closing is the part of close
	// that closes (less than its size when a one-way fill turns the
	// position around), the part its realised profit belongs to.
	pair := func(key positionKey, side string, open lot, close *Fill, q, closing decimal.Decimal) {
		r := last[key]
		if r == nil || r.openOrder != open.fill.OrderID || r.closeOrder != close.OrderID {
			r = &tradeRow{key: key, side: side, openOrder: open.fill.OrderID, closeOrder: close.OrderID,
				entryTime: open.fill.Time, entryRule: names.rule[open.fill.OrderID], exitRule: names.rule[close.OrderID],
				entryBy: entryBy(open.fill), exitBy: names.by[close.OrderID]}
			rows = append(rows, r)
			last[key] = r
		}
		r.size = r.size.Add(q)
		r.entryValue = r.entryValue.Add(parseOrZero(open.fill.Price).Mul(q))
		r.exitValue = r.exitValue.Add(parseOrZero(close.Price).Mul(q))
		r.pnl = r.pnl.Add(parseOrZero(close.Profit).Mul(q).Div(closing))
		// The exchange reports a fee paid as negative; the report counts
		// it as the engine's summary does, positive when paid.
		r.fees = r.fees.Sub(share(open.fill.Fee, q, open.fill.Size)).Sub(share(close.Fee, q, close.Size))
		r.exitAt = close.Time
	}
	for i := range fills {
		f := &fills[i]
		size := parseOrZero(f.Size)
		if !size.IsPositive() {
			continue
		}
		key, side, opens := classifyFill(f, books)
		if _, seen := books[key]; !seen {
			order = append(order, key)
			books[key] = nil
		}
		if !opens {
			q := size
			lots := books[key]
			closing := size
			if key.holdSide == "net" {
				held := decimal.Zero
				for _, l := range lots {
					held = held.Add(l.left)
				}
				closing = decimal.Min(size, held)
			}
			for q.IsPositive() && len(lots) > 0 {
				m := decimal.Min(q, lots[0].left)
				pair(key, side, lots[0], f, m, closing)
				lots[0].left = lots[0].left.Sub(m)
				q = q.Sub(m)
				if !lots[0].left.IsPositive() {
					lots = lots[1:]
				}
			}
			books[key] = lots
			if !q.IsPositive() || key.holdSide != "net" {
				continue
			}
			// One-way mode: a fill larger than the position turns it
			// around; the rest opens the other way.
			size = q
		}
		books[key] = append(books[key], lot{fill: f, left: size})
	}
	out := make([]Trade, 0, len(rows))
	for _, r := range rows {
		out = append(out, Trade{ProductType: r.key.productType, Symbol: r.key.symbol, Side: r.side, Size: r.size.String(),
			EntryTime: r.entryTime, EntryPrice: r.entryValue.DivRound(r.size, tradePrecision).String(), EntryRule: r.entryRule,
			EntryBy: r.entryBy, ExitTime: r.exitAt, ExitPrice: r.exitValue.DivRound(r.size, tradePrecision).String(), ExitRule: r.exitRule,
			ExitBy: r.exitBy, PnL: r.pnl.Round(tradePrecision).String(), Fees: r.fees.Round(tradePrecision).String(),
			NetPnL: r.pnl.Sub(r.fees).Round(tradePrecision).String()})
	}
	for _, key := range order {
		var cur *Trade
		var openOrder string
		var value, size, fees decimal.Decimal
		flush := func() {
			if cur != nil {
				cur.Size, cur.EntryPrice, cur.Fees = size.String(), value.DivRound(size, tradePrecision).String(), fees.Round(tradePrecision).String()
				out = append(out, *cur)
			}
		}
		for _, l := range books[key] {
			if cur == nil || l.fill.OrderID != openOrder {
				flush()
				cur = &Trade{ProductType: key.productType, Symbol: key.symbol, Side: lotSide(key, l.fill), EntryTime: l.fill.Time,
					EntryRule: names.rule[l.fill.OrderID], EntryBy: entryBy(l.fill), Open: true}
				openOrder = l.fill.OrderID
				value, size, fees = decimal.Zero, decimal.Zero, decimal.Zero
			}
			value = value.Add(parseOrZero(l.fill.Price).Mul(l.left))
			size = size.Add(l.left)
			fees = fees.Sub(share(l.fill.Fee, l.left, l.fill.Size))
		}
		flush()
	}
	return out
}

// share is the part q of a fill of size total gets of amount.
func share(amount string, q decimal.Decimal, total string) decimal.Decimal {
	t := parseOrZero(total)
	if !t.IsPositive() {
		return decimal.Zero
	}
	return parseOrZero(amount).Mul(q).Div(t)
}

// fillDirection is the side a fill opens in one-way mode: a buy opens long.
func fillDirection(f *Fill) string {
	if f.Side == "sell" {
		return "short"
	}
	return "long"
}

// lotSide is the side of an open lot of position key.
func lotSide(key positionKey, f *Fill) string {
	if key.holdSide != "net" {
		return key.holdSide
	}
	return fillDirection(f)
}

// classifyFill finds the position a fill changes and whether it opens
// (adds to) it. Hedge mode records say open or close, and the side names
// the position: buy is the long one, also when closing (the exchange's
// mapping). One-way records (the *_single trade sides) change one net
// position: a fill opens when the position is flat or on the fill's side.
func classifyFill(f *Fill, books map[positionKey][]lot) (key positionKey, side string, opens bool) {
	key = positionKey{productType: f.ProductType, symbol: f.Symbol}
	ts := f.TradeSide
	switch {
	case ts == "open" || ts == "close":
		key.holdSide = fillDirection(f)
		return key, key.holdSide, ts == "open"
	case strings.HasSuffix(ts, "_close_long"):
		key.holdSide = "long"
		return key, "long", false
	case strings.HasSuffix(ts, "_close_short"):
		key.holdSide = "short"
		return key, "short", false
	}
	key.holdSide = "net"
	lots := books[key]
	if len(lots) == 0 {
		return key, fillDirection(f), true
	}
	held := lotSide(key, lots[0].fill)
	return key, held, held == fillDirection(f)
}

// tradeStats sums the closed trades up: how many, the share of winners (net
// P&L above zero) in percent, and the profit factor: net gains of the
// winners over net losses of the losers. winRatePct is "" without a closed
// trade, profitFactor "" without a losing trade.
func tradeStats(trades []Trade) (closed int, winRatePct, profitFactor string) {
	wins := 0
	var gains, losses decimal.Decimal
	for _, t := range trades {
		if t.Open {
			continue
		}
		closed++
		net := parseOrZero(t.NetPnL)
		switch {
		case net.IsPositive():
			wins++
			gains = gains.Add(net)
		case net.IsNegative():
			losses = losses.Sub(net)
		}
	}
	if closed > 0 {
		winRatePct = percent(decimal.NewFromInt(int64(wins)), decimal.NewFromInt(int64(closed)))
	}
	if losses.IsPositive() {
		profitFactor = gains.DivRound(losses, 2).String()
	}
	return closed, winRatePct, profitFactor
}

// percentPlaces is the number of decimal places of report percentages: a
// 1.5 USDT move of 100,000 is 0.0015 %.
const percentPlaces = 4

// percent is part of base in percent ("0" for a base of zero).
func percent(part, base decimal.Decimal) string {
	if base.IsZero() {
		return "0"
	}
	return part.Mul(decimal.NewFromInt(100)).DivRound(base, percentPlaces).String()
}

// places are the decimal places of a contract's figures in the report.
type places struct{ price, volume, money int32 }

// contractPlaces are the places of symbol's figures: prices to the
// contract's price places, sizes to its volume places, and money (P&L,
// fees) to both added up, the places of a price times a size, at most
// tradePrecision. An unknown symbol keeps tradePrecision everywhere.
func contractPlaces(cat *rules.Catalog, symbol string) places {
	c, ok := cat.Contract(symbol)
	if !ok {
		return places{tradePrecision, tradePrecision, tradePrecision}
	}
	p := int32(parseOrZero(string(c.PricePlace)).IntPart())
	v := int32(parseOrZero(string(c.VolumePlace)).IntPart())
	return places{price: p, volume: v, money: min(p+v, tradePrecision)}
}

// roundTrades rounds the averaged and shared figures of trades for
// display (places of each symbol): an average of fills at several prices,
// or a third of a fee, has more digits than a trader can use. The sums of
// the account summary are taken from the fills, not from these.
func roundTrades(trades []Trade, placesOf func(symbol string) places) {
	round := func(s string, n int32) string {
		if s == "" {
			return ""
		}
		return parseOrZero(s).Round(n).String()
	}
	for i := range trades {
		t := &trades[i]
		p := placesOf(t.Symbol)
		t.Size = round(t.Size, p.volume)
		t.EntryPrice, t.ExitPrice = round(t.EntryPrice, p.price), round(t.ExitPrice, p.price)
		t.PnL, t.Fees, t.NetPnL = round(t.PnL, p.money), round(t.Fees, p.money), round(t.NetPnL, p.money)
	}
}
