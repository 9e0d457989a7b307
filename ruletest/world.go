package ruletest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// world is the state a test holds: the values last given for each part
// (sample and hold), turned into a marketdata.State at every tick.
type world struct {
	cat    *rules.Catalog
	states []exchange.MarketState
	cal    exchange.Calendar

	stocks    map[string]*heldStock // by pair symbol
	positions map[posKey]*heldPosition
	orders    []*heldOrder
	strategy  []heldStrategy
	balances  map[string]*Balance
	modes     map[exchange.ProductType]exchange.PosMode
	futures   map[string]*Futures // by contract symbol; nil: none given
	// spot are the spot records in the venue's form, their times set at
	// each tick; spotGiven is false until a state gives spot_records (the
	// part is then not fetched, as before any poll).
	spot      []heldSpot
	spotGiven bool
	// closed are the closed trades in the venue's form, their close times
	// set at each tick.
	closed []heldClosed
}

// heldClosed is a closed trade with its product type, when it was set and
// how long before that it closed.
type heldClosed struct {
	r exchange.HistoryPosition
	// order is its closing order in the orders history, as the trade's
	// how: gives it (nil: none, how is unknown).
	order *exchange.HistoryOrder
	pt    exchange.ProductType
	setAt time.Time
	age   time.Duration
}

// heldSpot is a spot record with when it was set and its age then.
type heldSpot struct {
	r     exchange.SpotRecord
	setAt time.Time
	age   time.Duration
}

type posKey struct{ symbol, side string }

type heldStock struct {
	Stock
	// fills are the trades set with last:, oldest first; every one is kept
	// (the State keeps those inside its trade window), so vwap and volume
	// see more than the latest.
	fills []exchange.StockFill
}

type heldPosition struct {
	*Position
	pt    exchange.ProductType
	setAt time.Time
	// opened is when the position opened: its age before setAt, or, for a
	// position a change gives again without an age, when the held one
	// opened (the same position with new values: its high since entry and
	// its age go on).
	opened time.Time
}

// heldOrder is a pending order in the exchange's record form (a scenario
// account's orders come so, with fields a test cannot write); its times
// and position mode are set at each tick.
type heldOrder struct {
	o     exchange.PendingOrder
	pt    exchange.ProductType
	setAt time.Time
	age   time.Duration
}

// heldStrategy is a strategy order in the exchange's record form, which
// holds every type's parameters (a scenario account's orders come so); its
// created time is set at each tick from when it was set and its age.
type heldStrategy struct {
	o     exchange.StrategyOrder
	setAt time.Time
	age   time.Duration
}

func newWorld(cat *rules.Catalog, states []exchange.MarketState, cal exchange.Calendar) *world {
	w := &world{cat: cat, states: states, cal: cal, stocks: map[string]*heldStock{},
		positions: map[posKey]*heldPosition{}, balances: map[string]*Balance{}, modes: map[exchange.ProductType]exchange.PosMode{}}
	for _, pt := range exchange.ProductTypes() {
		w.modes[pt] = exchange.OneWayMode
	}
	return w
}

// posModeOf reads a position mode as a trader writes it.
func posModeOf(s string) (exchange.PosMode, bool) {
	switch s {
	case "one_way", "one_way_mode", "one-way":
		return exchange.OneWayMode, true
	case "hedge", "hedge_mode":
		return exchange.HedgeMode, true
	}
	return "", false
}

// where names a place in the test file for errors found at run time.
func where(line, col int) string { return fmt.Sprintf("%d:%d", line, col) }

// apply merges s, given at time at, into what the world holds.
func (w *world) apply(s *State, at time.Time) error {
	for name, st := range s.Stocks {
		pair, ok := w.cat.StockPair(name)
		if !ok {
			hint := ""
			if sg := w.cat.SuggestStockPair(name); sg != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", sg)
			}
			return fmt.Errorf("stock %s is not a stock pair of the scenario%s", name, hint)
		}
		h := w.stocks[pair.Symbol]
		if h == nil {
			h = &heldStock{}
			w.stocks[pair.Symbol] = h
		}
		mergeStock(&h.Stock, st)
		if st.Last != "" {
			h.fills = append(h.fills, exchange.StockFill{ExecID: "test-" + strconv.Itoa(len(h.fills)+1),
				Price: exchange.Num(st.Last), Size: or(h.LastSize, "1"), Side: exchange.Buy, TS: exchange.MillisOf(at)})
		}
	}
	for _, p := range s.Positions {
		c, ok := w.cat.Contract(p.Symbol)
		if !ok {
			return fmt.Errorf("%s: position symbol %s is not a contract of the scenario", where(p.line, p.column), p.Symbol)
		}
		k := posKey{p.Symbol, p.Side}
		if d, _ := decimal.NewFromString(string(p.Size)); d.IsZero() {
			delete(w.positions, k)
			continue
		}
		opened := at.Add(-p.Age.D)
		if old := w.positions[k]; old != nil && p.Age.D == 0 {
			opened = old.opened
		}
		w.positions[k] = &heldPosition{Position: p, pt: c.ProductType, setAt: at, opened: opened}
	}
	if s.Orders != nil {
		w.orders = w.orders[:0:0]
		for i, o := range s.Orders {
			c, ok := w.cat.Contract(o.Symbol)
			if !ok {
				return fmt.Errorf("%s: order symbol %s is not a contract of the scenario", where(o.line, o.column), o.Symbol)
			}
			w.orders = append(w.orders, &heldOrder{o: orderRecord(o, i), pt: c.ProductType, setAt: at, age: o.Age.D})
		}
	}
	if s.StrategyOrders != nil {
		held := make([]heldStrategy, 0, len(s.StrategyOrders))
		for i, o := range s.StrategyOrders {
			c, ok := w.cat.Contract(o.Symbol)
			if !ok {
				return fmt.Errorf("%s: strategy order symbol %s is not a contract of the scenario", where(o.line, o.column), o.Symbol)
			}
			held = append(held, heldStrategy{o: strategyRecord(o, c.ProductType, i), setAt: at, age: o.Age.D})
		}
		w.setStrategy(held)
	}
	if s.SpotRecords != nil {
		w.spot, w.spotGiven = make([]heldSpot, 0, len(s.SpotRecords)), true
		for i, r := range s.SpotRecords {
			w.spot = append(w.spot, heldSpot{r: spotRecord(r, i), setAt: at, age: r.Age.D})
		}
	}
	if s.ClosedTrades != nil {
		w.closed = make([]heldClosed, 0, len(s.ClosedTrades))
		for i, r := range s.ClosedTrades {
			c, ok := w.cat.Contract(r.Symbol)
			if !ok {
				return fmt.Errorf("%s: closed trade symbol %s is not a contract of the scenario", where(r.line, r.column), r.Symbol)
			}
			w.closed = append(w.closed, heldClosed{r: closedRecord(r, marginCoinOf(c), i), order: closingOrder(r, i), pt: c.ProductType, setAt: at, age: r.Age.D})
		}
	}
	for coin, b := range s.Balances {
		w.balances[coin] = b
	}
	if err := w.setFutures(s.Futures); err != nil {
		return err
	}
	for pt, m := range s.PositionMode {
		if !slices.Contains(exchange.ProductTypes(), exchange.ProductType(pt)) {
			return fmt.Errorf("position_mode: %s is not a product type (USDT-FUTURES, COIN-FUTURES, USDC-FUTURES)", pt)
		}
		w.modes[exchange.ProductType(pt)], _ = posModeOf(m)
	}
	return w.possible()
}

// possible reports an account the exchange cannot have: in one-way mode a
// symbol has one position, long or short, never both.
func (w *world) possible() error {
	keys := make([]posKey, 0, len(w.positions))
	for k := range w.positions {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b posKey) int { return strings.Compare(a.symbol+" "+a.side, b.symbol+" "+b.side) })
	for _, k := range keys {
		long := w.positions[k]
		if k.side != marketdata.SideLong || w.modes[long.pt] != exchange.OneWayMode {
			continue
		}
		short, ok := w.positions[posKey{k.symbol, marketdata.SideShort}]
		if !ok {
			continue
		}
		at := ""
		if short.line > 0 {
			at = where(short.line, short.column) + ": "
		}
		return fmt.Errorf("%sthe account holds a long and a short %s position, but %s is in one-way mode, where a symbol has one position: "+
			"keep one side, or set position_mode: {%s: hedge}", at, k.symbol, long.pt, long.pt)
	}
	return nil
}

// modeMismatch returns, for the first rule file whose defaults state a
// position mode the test's account is not in, what to say; "" when every
// file agrees. Such a test would check the rules against an account they
// were not written for.
func (w *world) modeMismatch(rs *rules.RuleSet) string {
	for _, f := range rs.Files {
		d := f.Defaults
		if d.PositionMode == "" {
			continue
		}
		if have := w.modes[d.ProductType]; have != d.PositionMode {
			short := map[exchange.PosMode]string{exchange.OneWayMode: "one_way", exchange.HedgeMode: "hedge"}[d.PositionMode]
			return fmt.Sprintf("%s says position_mode: %s in its defaults, but this test's account is in %s for %s: "+
				"set position_mode: {%s: %s} in the test's state, or change the rule file", f.Path, d.PositionMode, have, d.ProductType, d.ProductType, short)
		}
	}
	return ""
}

// closedRecord is the venue's history record of an inline closed trade;
// the i-th trade of a list gets a made-up position id. The gross P&L is
// what is left of the net P&L without the fees and funding.
func closedRecord(r *ClosedTrade, marginCoin string, i int) exchange.HistoryPosition {
	fees, funding := or(r.Fees, "0"), or(r.Funding, "0")
	gross := dec(r.PnL).Sub(dec(Num(fees))).Sub(dec(Num(funding)))
	return exchange.HistoryPosition{PositionID: fmt.Sprintf("test-close-%d", i+1), MarginCoin: marginCoin, Symbol: r.Symbol,
		HoldSide: exchange.HoldSide(r.Side), OpenTotalPos: exchange.Num(r.Size), CloseTotalPos: exchange.Num(r.Size),
		Pnl: exchange.NumOf(gross), NetProfit: exchange.Num(r.PnL), CloseFee: fees, TotalFunding: funding}
}

// closeSources are the order source and entry point of a closing order
// for each how: a test may write, as the orders history would show them.
var closeSources = map[string]struct {
	source exchange.OrderSource
	entry  exchange.EnterPointSource
}{
	"rule": {exchange.OSMarket, exchange.SourceAPI}, "by hand": {exchange.OSMarket, exchange.SourceWeb},
	"take-profit": {exchange.OSPosProfitMarket, exchange.SourceSys}, "stop-loss": {exchange.OSPosLossMarket, exchange.SourceSys},
	"trailing-stop": {exchange.OSMoveMarket, exchange.SourceSys}, "liquidation": {exchange.OSLiquidation, exchange.SourceSys},
	"trigger": {exchange.OSPlanMarket, exchange.SourceSys}, "delivery": {exchange.OSDeliveryCloseLong, exchange.SourceSys},
}

// closingOrder is the closing order in the orders history of the i-th
// inline closed trade, from its how: (nil without one): a one-way order
// of the opposite side, its times those of the close.
func closingOrder(r *ClosedTrade, i int) *exchange.HistoryOrder {
	src, ok := closeSources[r.How]
	if !ok {
		return nil
	}
	side := exchange.Sell
	if r.Side == string(exchange.Short) {
		side = exchange.Buy
	}
	o := &exchange.HistoryOrder{}
	o.Symbol, o.OrderID, o.Size, o.Side, o.Status = r.Symbol, fmt.Sprintf("test-close-order-%d", i+1), exchange.Num(r.Size), side, exchange.StateFilled
	o.PosMode, o.PosSide, o.OrderSource, o.EnterPointSource = exchange.OneWayMode, exchange.PosNet, src.source, src.entry
	return o
}

// spotRecord is the venue's record of an inline spot record; the i-th
// record of a list without an id gets a made-up one.
func spotRecord(r *SpotRecord, i int) exchange.SpotRecord {
	id := r.ID
	if id == "" {
		id = fmt.Sprintf("test-spot-%d", i+1)
	}
	return exchange.SpotRecord{ID: id, Coin: r.Coin, SpotTaxType: exchange.SpotTaxType(r.Type), Amount: exchange.Num(r.Amount),
		Fee: or(r.Fee, "0"), Balance: or(r.Balance, "0"), BizOrderID: r.BizOrderID}
}

// setStrategy replaces every strategy order.
func (w *world) setStrategy(held []heldStrategy) { w.strategy = held }

// strategyRecord is the exchange's record of an inline strategy order; the
// i-th order of a list without an id gets a made-up one.
func strategyRecord(o *StrategyOrder, pt exchange.ProductType, i int) exchange.StrategyOrder {
	id := o.ID
	if id == "" {
		id = fmt.Sprintf("test-strategy-%d", i+1)
	}
	status := exchange.StrategyStatus(o.Status)
	if status == "" {
		status = exchange.StrategyPending
	}
	r := exchange.StrategyOrder{OrderID: id, ClientOID: o.ClientOID, Category: exchange.ProductType(pt.Category()),
		Symbol: o.Symbol, Qty: exchange.Num(o.Size), PosSide: exchange.HoldSide(o.Side), Status: status,
		TakeProfit: exchange.Num(o.TakeProfit), StopLoss: exchange.Num(o.StopLoss)}
	// Trigger types and order types stay empty: the test format does not
	// describe them, and making them up would show a rule values the
	// trader never wrote.
	r.TriggerPrice = exchange.Num(o.TriggerPrice)
	return r
}

// mergeStock sets the fields given in src.
func mergeStock(dst, src *Stock) {
	set := func(d *Num, s Num) {
		if s != "" {
			*d = s
		}
	}
	set(&dst.Bid, src.Bid)
	set(&dst.Ask, src.Ask)
	set(&dst.BidSize, src.BidSize)
	set(&dst.AskSize, src.AskSize)
	set(&dst.Last, src.Last)
	set(&dst.LastSize, src.LastSize)
	if src.Bids != nil {
		dst.Bids = src.Bids
	}
	if src.Asks != nil {
		dst.Asks = src.Asks
	}
}

func or(n Num, def string) exchange.Num {
	if n == "" {
		return exchange.Num(def)
	}
	return exchange.Num(n)
}

// input is what the pollers would have fetched at now: every part a test
// can describe is fetched at now, so nothing is stale; the part a test
// cannot describe (discount tiers), and spot records until a state gives
// them, are not fetched, and a rule that reads them cannot be evaluated.
func (w *world) input(now time.Time) (marketdata.BuildInput, error) {
	in := marketdata.BuildInput{Now: now, Contracts: w.cat.Contracts}
	sess, err := marketdata.ComputeSession(now, w.states, w.cal)
	if err != nil {
		return in, fmt.Errorf("market session at %s: %w", now.Format(time.RFC3339), err)
	}
	in.Market = &marketdata.MarketFetch{Session: sess, At: now}
	in.StockInfo = &marketdata.StockInfoInput{Pairs: w.cat.StockPairs, At: now}
	for _, sym := range sortedKeys(w.stocks) {
		h := w.stocks[sym]
		if h.Bid != "" || h.Ask != "" || h.Bids != nil || h.Asks != nil {
			b := exchange.StockOrderBook{Symbol: sym, TS: exchange.MillisOf(now)}
			if h.Bid != "" {
				b.Bids = append(b.Bids, exchange.PriceLevel{exchange.Num(h.Bid), or(h.BidSize, "1")})
			}
			for _, l := range h.Bids {
				b.Bids = append(b.Bids, exchange.PriceLevel{exchange.Num(l[0]), exchange.Num(l[1])})
			}
			if h.Ask != "" {
				b.Asks = append(b.Asks, exchange.PriceLevel{exchange.Num(h.Ask), or(h.AskSize, "1")})
			}
			for _, l := range h.Asks {
				b.Asks = append(b.Asks, exchange.PriceLevel{exchange.Num(l[0]), exchange.Num(l[1])})
			}
			in.Books = append(in.Books, marketdata.BookInput{Symbol: sym, Book: b, At: now})
		}
		in.Fills = append(in.Fills, marketdata.FillsInput{Symbol: sym, At: now, Fills: append([]exchange.StockFill{}, h.fills...)})
	}
	for _, pt := range exchange.ProductTypes() {
		pos := marketdata.PositionsInput{ProductType: pt, At: now, Positions: []exchange.Position{}}
		for _, k := range sortedPosKeys(w.positions) {
			if h := w.positions[k]; h.pt == pt {
				pos.Positions = append(pos.Positions, w.position(h))
			}
		}
		in.Positions = append(in.Positions, pos)
		ords := marketdata.OrdersInput{ProductType: pt, At: now, Orders: []exchange.PendingOrder{}}
		for _, h := range w.orders {
			if h.pt == pt {
				o := h.o
				o.PosMode = w.modes[pt]
				o.CTime, o.UTime = exchange.MillisOf(h.setAt.Add(-h.age)), exchange.MillisOf(h.setAt)
				ords.Orders = append(ords.Orders, o)
			}
		}
		in.Orders = append(in.Orders, ords)
		cat := pt.Category()
		so := marketdata.StrategyOrdersInput{Category: cat, At: now, Orders: []exchange.StrategyOrder{}}
		for _, h := range w.strategy {
			if exchange.Category(h.o.Category) == cat {
				o := h.o
				o.CreatedTime, o.UpdatedTime = exchange.MillisOf(h.setAt.Add(-h.age)), exchange.MillisOf(h.setAt)
				so.Orders = append(so.Orders, o)
			}
		}
		in.StrategyOrders = append(in.StrategyOrders, so)
		closed := marketdata.ClosedTradesInput{ProductType: pt, At: now, Positions: []exchange.HistoryPosition{}}
		for _, h := range w.closed {
			if h.pt == pt {
				r := h.r
				r.UTime = exchange.MillisOf(h.setAt.Add(-h.age))
				closed.Positions = append(closed.Positions, r)
				if h.order != nil {
					o := *h.order
					o.CTime, o.UTime = r.UTime, r.UTime
					closed.Orders = append(closed.Orders, o)
				}
			}
		}
		in.ClosedTrades = append(in.ClosedTrades, closed)
	}
	if w.spotGiven {
		recs := make([]exchange.SpotRecord, 0, len(w.spot))
		for _, h := range w.spot {
			r := h.r
			r.TS = exchange.MillisOf(h.setAt.Add(-h.age))
			recs = append(recs, r)
		}
		in.SpotRecords = &marketdata.SpotRecordsInput{Records: recs, At: now}
	}
	for _, coin := range sortedKeys(w.balances) {
		b := w.balances[coin]
		pt := exchange.ProductTypeOfCoin(coin)
		eq := exchange.Num(b.Equity)
		if eq == "" {
			eq = exchange.NumOf(dec(b.Available).Add(dec(b.Locked)))
		}
		in.Balances = append(in.Balances, marketdata.BalancesInput{ProductType: pt, At: now, Accounts: []exchange.Account{{
			MarginCoin: coin, Available: or(b.Available, "0"), Locked: or(b.Locked, "0"), AccountEquity: eq,
			CrossedMaxAvailable: or(b.Available, "0"), IsolatedMaxAvailable: or(b.Available, "0"), PosMode: w.modes[pt]}}})
	}
	w.futuresInput(&in)
	return in, nil
}

// marginCoinOf is the margin coin of contract c's positions: USDT or USDC,
// or the base coin of a coin-margined contract.
func marginCoinOf(c marketdata.ProductContract) string {
	switch c.ProductType {
	case exchange.USDCFutures:
		return "USDC"
	case exchange.COINFutures:
		return c.BaseCoin
	}
	return "USDT"
}

// dec parses a number the loader has already checked.
func dec(n Num) decimal.Decimal {
	d, _ := decimal.NewFromString(string(n))
	return d
}

func (w *world) position(h *heldPosition) exchange.Position {
	size, entry := dec(h.Size), dec(h.Entry)
	mark := entry
	if h.Mark != "" {
		mark = dec(h.Mark)
	}
	lev := decimal.NewFromInt(10)
	if h.Leverage != "" {
		lev = dec(h.Leverage)
	}
	upl := mark.Sub(entry).Mul(size)
	if h.Side == "short" {
		upl = upl.Neg()
	}
	if h.UnrealizedPnL != "" {
		upl = dec(h.UnrealizedPnL)
	}
	margin := decimal.Zero
	if lev.IsPositive() {
		margin = entry.Mul(size).Div(lev)
	}
	mm := exchange.MarginMode(h.MarginMode)
	if mm == "" {
		mm = exchange.Crossed
	}
	c, _ := w.cat.Contract(h.Symbol)
	coin := marginCoinOf(c)
	return exchange.Position{Symbol: h.Symbol, MarginCoin: coin, HoldSide: exchange.HoldSide(h.Side),
		Total: exchange.NumOf(size), Available: exchange.NumOf(size), Locked: "0",
		OpenPriceAvg: exchange.NumOf(entry), MarkPrice: exchange.NumOf(mark), Leverage: exchange.NumOf(lev),
		MarginMode: mm, PosMode: w.modes[h.pt], UnrealizedPL: exchange.NumOf(upl), MarginSize: exchange.NumOf(margin),
		BreakEvenPrice: exchange.NumOf(entry), CTime: exchange.MillisOf(h.opened), UTime: exchange.MillisOf(h.setAt)}
}

// orderRecord is the exchange's record of an inline order; the i-th order
// of a list without an id gets a made-up one.
func orderRecord(h *Order, i int) exchange.PendingOrder {
	id := h.ID
	if id == "" {
		id = fmt.Sprintf("test-order-%d", i+1)
	}
	ot := exchange.OrderType(h.Type)
	if ot == "" {
		ot = exchange.Limit
	}
	o := exchange.PendingOrder{}
	o.Symbol, o.OrderID, o.ClientOID = h.Symbol, id, orderClientOID(h, i)
	o.Size, o.Price, o.BaseVolume = exchange.Num(h.Size), exchange.Num(h.Price), or(h.Filled, "0")
	o.Side, o.TradeSide, o.OrderType = exchange.Side(h.Side), exchange.TradeSide(h.TradeSide), ot
	o.Status = exchange.StateLive
	return o
}

// orderClientOID is the order's client order id: as written, or, for an
// order stated as moved before (modifications) without one, its id, under
// which the engine keeps the count.
func orderClientOID(h *Order, i int) string {
	if h.ClientOID == "" && h.Modifications > 0 {
		if h.ID != "" {
			return h.ID
		}
		return fmt.Sprintf("test-order-%d", i+1)
	}
	return h.ClientOID
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedPosKeys(m map[posKey]*heldPosition) []posKey {
	out := make([]posKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b posKey) int {
		if a.symbol != b.symbol {
			if a.symbol < b.symbol {
				return -1
			}
			return 1
		}
		if a.side < b.side {
			return -1
		} else if a.side > b.side {
			return 1
		}
		return 0
	})
	return out
}
