package marketdata

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// FieldDoc is the one row of a field a condition can read: everything the
// rest of the program knows about it comes from here. The checker takes
// its name, requirements, values and how it moves with time (package
// rules), the generated reference its words, the poller's demand the parts
// its requirements name (Need.Parts), the backtest's compiled conditions
// its reader (Read), and the engine's time tables how it moves with time.
//
// The value itself is a field of the object's Go type tagged
// expr:"<Name>": expr's VM reads that, Read reads the same, and a test
// checks that both agree for every row.
type FieldDoc struct {
	Name    string // as written in a condition: spread_bps
	Type    string // number, text, true/false, time, list of text, list of <object>; from Read's result
	Unit    string // e.g. "basis points (1 bps = 0.01%)", "ratio (0.05 = 5%)"; empty for text
	Doc     string
	Example string // a condition or value using it
	// Needs is what must be known for the field to have a value; its
	// parts (Need.Parts) are what a rule reading it makes the poller fetch.
	Needs Need
	// Time is how the field moves with State.Now alone, with no new fetch;
	// 0 when it changes only with a fetch.
	Time TimeKind
	// Clock is the clock value a MovesWithClock field is, which a
	// comparison with a constant turns into a ClockLimit.
	Clock ClockValue
	// Values are the values a text field takes, when the venue documents a
	// fixed set: the checker rejects a comparison with any other.
	Values []string
	// Read reads the field from its object: a func(*T) F, T the object's
	// Go type (ObjectDoc.GoType) and F the Go type of the field. Compiled
	// conditions (the backtest's) call it instead of expr's VM.
	Read any

	timeBit TimeFieldSet // its member of TimeFieldSet, for MovesWithData
}

// field starts the row of a field read by read; the methods below add what
// only some fields have.
func field[T, F any](name, unit, doc, example string, read func(*T) F) FieldDoc {
	return FieldDoc{Name: name, Unit: unit, Doc: doc, Example: example, Read: read}
}

// needs sets what must be known for the field to have a value.
func (f FieldDoc) needs(n Need) FieldDoc { f.Needs = n; return f }

// movesWithSession marks a market field that changes only with the
// session, the Eastern day or the calendar.
func (f FieldDoc) movesWithSession() FieldDoc { f.Time = MovesWithSession; return f }

// movesWithClock marks a field that changes from one tick to the next, as
// the clock value v.
func (f FieldDoc) movesWithClock(v ClockValue) FieldDoc {
	f.Time, f.Clock = MovesWithClock, v
	return f
}

// movesWithData marks a field of fetched data that changes with time (an
// age, the trade window), as the member bit of TimeFieldSet, which the
// State builder brings to the time of each tick.
func (f FieldDoc) movesWithData(bit TimeFieldSet) FieldDoc {
	f.Time, f.timeBit = MovesWithData, bit
	return f
}

// values sets the values a text field takes.
func (f FieldDoc) values(v []string) FieldDoc { f.Values = v; return f }

// Parts returns the parts the field comes from beyond its object's lookup:
// those its requirements name.
func (f FieldDoc) Parts() PartSet { return f.Needs.Parts() }

// ObjectDoc is the row of one kind of object of the State: its name, its
// words, the Go type conditions read it from and the rows of its fields.
type ObjectDoc struct {
	Name   string // market, stock, position, order, strategy_order, ...
	Doc    string
	Fields []FieldDoc

	goType reflect.Type
}

// Field returns the field called name.
func (o *ObjectDoc) Field(name string) (FieldDoc, bool) {
	i := slices.IndexFunc(o.Fields, func(f FieldDoc) bool { return f.Name == name })
	if i < 0 {
		return FieldDoc{}, false
	}
	return o.Fields[i], true
}

// FieldNames returns the names of the fields, in table order.
func (o *ObjectDoc) FieldNames() []string {
	out := make([]string, len(o.Fields))
	for i, f := range o.Fields {
		out[i] = f.Name
	}
	return out
}

// GoType returns the Go struct type the object is read from.
func (o *ObjectDoc) GoType() reflect.Type { return o.goType }

const (
	unitQuote  = "quote coin of the pair (USDT)"
	unitShares = "shares (base coin)"
	unitBps    = "basis points (1 bps = 0.01%)"
	unitRatio  = "ratio (0.05 = 5%)"
	unitSecs   = "seconds"
	unitMins   = "minutes"
	unitPrice  = "quote coin of the contract (USDT)"
	unitSize   = "base coin (contracts)"
	unitMargin = "margin coin"
)

// Objects returns the rows of every object a condition can reach and of
// its fields, in reference order. The result is a fresh copy.
func Objects() []ObjectDoc {
	ev := exchange.EnumValues()
	objs := []ObjectDoc{
		{Name: "market", goType: reflect.TypeFor[Market](), Doc: "The US stock market session now (Eastern time), from the states and calendar responses. While the market is closed, minutes_since_open and minutes_to_close have no value (a condition reading them does not fire).", Fields: []FieldDoc{
			field("session", "", "pre_market, regular, after_hours, overnight or closed", `market.session == "regular"`,
				func(x *Market) string { return x.Session }).movesWithSession().values(append(slices.Clone(ev["tradingPeriod"]), SessionClosed)),
			field("is_open", "", "a session is in progress", "market.is_open",
				func(x *Market) bool { return x.IsOpen }).movesWithSession(),
			field("is_holiday", "", "a holiday or other irregular closure (calendar specificConfig) is in force", "!market.is_holiday",
				func(x *Market) bool { return x.IsHoliday }).movesWithSession(),
			field("is_weekend", "", "the Eastern date is a regular closure day (calendar regularConfig, normally Saturday and Sunday)", "!market.is_weekend",
				func(x *Market) bool { return x.IsWeekend }).movesWithSession(),
			field("holiday", "", "the remark of the closure in force (empty when none)", `market.holiday != ""`,
				func(x *Market) string { return x.Holiday }).movesWithSession(),
			field("minutes_since_open", unitMins, "minutes since the current session opened; no value while closed", "market.minutes_since_open < 15",
				func(x *Market) float64 { return x.MinutesSinceOpen }).needs(NeedSessionOpen).movesWithClock(ClockMinutesSinceOpen),
			field("minutes_to_close", unitMins, "minutes until the current session closes; no value while closed", "market.minutes_to_close <= 5",
				func(x *Market) float64 { return x.MinutesToClose }).needs(NeedSessionOpen).movesWithClock(ClockMinutesToClose),
			field("next_session", "", "the next session that will open; no value when none is known", `market.next_session == "regular"`,
				func(x *Market) string { return x.NextSession }).needs(NeedNextSession).movesWithSession().values(ev["tradingPeriod"]),
			field("next_session_start", "", "when the next session opens", "market.next_session_start",
				func(x *Market) time.Time { return x.NextSessionStart }).needs(NeedNextSession).movesWithSession(),
			field("minutes_to_next_session", unitMins, "minutes until the next session opens", "market.minutes_to_next_session < 10",
				func(x *Market) float64 { return x.MinutesToNextSession }).needs(NeedNextSession).movesWithClock(ClockMinutesToNextSession),
			field("dst", "", "US Eastern time observes daylight saving time", "market.dst",
				func(x *Market) bool { return x.DST }).movesWithSession(),
		}},
		{Name: "stock", goType: reflect.TypeFor[Stock](), Doc: `A US stock pair, looked up by pair symbol or stock code: stock("TSLA"). Volume, trades_count and vwap cover the platform fills of the last 5 minutes (the trade window). A field whose data was not fetched has no value: the condition does not fire and the engine reports "no data" instead of reading 0.`, Fields: []FieldDoc{
			field("symbol", "", "pair symbol", `stock("TSLA").symbol == "TSLAUSDT"`,
				func(x *Stock) string { return x.Symbol }),
			field("code", "", "stock code", `stock("TSLAUSDT").code == "TSLA"`,
				func(x *Stock) string { return x.Code }).needs(NeedInfo),
			field("name", "", "company name", `stock("TSLA").name`,
				func(x *Stock) string { return x.Name }).needs(NeedInfo),
			field("trading_periods", "", "the sessions in which the pair trades", `"overnight" in stock("TSLA").trading_periods`,
				func(x *Stock) []string { return x.TradingPeriods }).needs(NeedInfo).values(ev["tradingPeriod"]),
			field("weekend_tradable", "", "the pair trades at weekends", `stock("TSLA").weekend_tradable`,
				func(x *Stock) bool { return x.WeekendTradable }).needs(NeedInfo),
			field("tradable_now", "", "the pair can trade now: at a weekend when weekend_tradable, otherwise when the market is open in one of its trading_periods", `stock("TSLA").tradable_now`,
				func(x *Stock) bool { return x.TradableNow }).needs(NeedInfo | NeedMarket).movesWithData(stockTradable),
			field("bid", unitQuote, "best bid price", `stock("TSLA").bid`,
				func(x *Stock) float64 { return x.Bid }).needs(NeedBook),
			field("ask", unitQuote, "best ask price", `stock("TSLA").ask`,
				func(x *Stock) float64 { return x.Ask }).needs(NeedBook),
			field("mid", unitQuote, "(bid + ask) / 2", `stock("TSLA").mid`,
				func(x *Stock) float64 { return x.Mid }).needs(NeedBook),
			field("spread", unitQuote, "ask - bid", `stock("TSLA").spread < 0.05`,
				func(x *Stock) float64 { return x.Spread }).needs(NeedBook),
			field("spread_bps", unitBps, "spread / mid x 10000", `stock("TSLA").spread_bps < 8`,
				func(x *Stock) float64 { return x.SpreadBps }).needs(NeedBook),
			field("bid_size", unitShares, "size at the best bid", `stock("TSLA").bid_size > 100`,
				func(x *Stock) float64 { return x.BidSize }).needs(NeedBook),
			field("ask_size", unitShares, "size at the best ask", `stock("TSLA").ask_size > 100`,
				func(x *Stock) float64 { return x.AskSize }).needs(NeedBook),
			field("imbalance", "ratio from -1 (all asks) to 1 (all bids)", "(bid_size - ask_size) / (bid_size + ask_size) at the top of the book", `stock("TSLA").imbalance > 0.3`,
				func(x *Stock) float64 { return x.Imbalance }).needs(NeedBook),
			field("book_age_seconds", unitSecs, "age of the order-book snapshot", `stock("TSLA").book_age_seconds < 5`,
				func(x *Stock) float64 { return x.BookAgeSeconds }).needs(NeedBook).movesWithData(stockBookAge),
			field("last_price", unitQuote, "price of the newest platform fill", `stock("TSLA").last_price > 250`,
				func(x *Stock) float64 { return x.LastPrice }).needs(NeedTrades | NeedLastTrade),
			field("last_trade_age_seconds", unitSecs, "age of the newest platform fill", `stock("TSLA").last_trade_age_seconds < 60`,
				func(x *Stock) float64 { return x.LastTradeAgeSeconds }).needs(NeedTrades | NeedLastTrade).movesWithData(stockLastTradeAge),
			field("volume", unitShares, "total size of the fills in the trade window (0 when none)", `stock("TSLA").volume > 1000`,
				func(x *Stock) float64 { return x.Volume }).needs(NeedTrades).movesWithData(stockVolume),
			field("trades_count", "fills", "number of fills in the trade window", `stock("TSLA").trades_count >= 3`,
				func(x *Stock) int { return x.TradesCount }).needs(NeedTrades).movesWithData(stockTradesCount),
			field("vwap", unitQuote, "volume-weighted average price of the fills in the trade window; no value without a fill in it", `stock("TSLA").last_price > stock("TSLA").vwap`,
				func(x *Stock) float64 { return x.VWAP }).needs(NeedTrades | NeedWindowTrades).movesWithData(stockVWAP),
		}},
		{Name: "position", goType: reflect.TypeFor[Position](), Doc: `A futures position: position("TSLAUSDT", "long"). Side is long, short or net (long minus short; in one-way mode the signed position). A flat position has size 0; its prices and ratios have no value.`, Fields: []FieldDoc{
			field("symbol", "", "contract symbol", "",
				func(x *Position) string { return x.Symbol }),
			field("side", "", "long, short or net", "",
				func(x *Position) string { return x.Side }).values(ev["posSide"]),
			field("product_type", "", "USDT-FUTURES, COIN-FUTURES or USDC-FUTURES", "",
				func(x *Position) string { return x.ProductType }).values(ev["productType"]),
			field("is_open", "", "size is not 0", `position("TSLAUSDT", "long").is_open`,
				func(x *Position) bool { return x.IsOpen }),
			field("size", unitSize, "position size; for net, long minus short (negative when short)", `position("TSLAUSDT", "long").size == 0`,
				func(x *Position) float64 { return x.Size }),
			field("unrealized_pnl", unitMargin, "unrealised profit or loss (0 when flat)", `position("TSLAUSDT", "long").unrealized_pnl < -50`,
				func(x *Position) float64 { return x.UnrealizedPnL }),
			field("available", unitSize, "size that can be closed now", "",
				func(x *Position) float64 { return x.Available }).needs(NeedOpen),
			field("entry_price", unitPrice, "average open price", "",
				func(x *Position) float64 { return x.EntryPrice }).needs(NeedOpen),
			field("mark_price", unitPrice, "mark price", "",
				func(x *Position) float64 { return x.MarkPrice }).needs(NeedOpen),
			field("unrealized_pnl_pct", unitRatio, "price move in the position's favour since entry: (mark - entry) / entry, negated for short; leverage does not change it", `position("TSLAUSDT", "long").unrealized_pnl_pct < -0.02`,
				func(x *Position) float64 { return x.UnrealizedPnLPct }).needs(NeedOpen),
			field("roe", unitRatio, "unrealised P&L / margin (return on margin, grows with leverage)", `position("TSLAUSDT", "long").roe < -0.5`,
				func(x *Position) float64 { return x.ROE }).needs(NeedOpen),
			field("leverage", "times", "leverage", "",
				func(x *Position) float64 { return x.Leverage }).needs(NeedOpen),
			field("margin_mode", "", "isolated or crossed", "",
				func(x *Position) string { return x.MarginMode }).needs(NeedOpen).values(ev["marginMode"]),
			field("margin_coin", "", "margin coin", "",
				func(x *Position) string { return x.MarginCoin }).needs(NeedOpen),
			field("margin", unitMargin, "margin of the position", "",
				func(x *Position) float64 { return x.Margin }).needs(NeedOpen),
			field("liquidation_price", unitPrice, "estimated liquidation price", "",
				func(x *Position) float64 { return x.LiquidationPrice }).needs(NeedOpen),
			field("break_even_price", unitPrice, "break-even price", "",
				func(x *Position) float64 { return x.BreakEvenPrice }).needs(NeedOpen),
			field("position_mode", "", "one_way_mode or hedge_mode", "",
				func(x *Position) string { return x.PositionMode }).needs(NeedOpen).values(ev["posMode"]),
			field("high_since_open", unitPrice, "highest mark price since the position opened (since the engine first saw it, when it opened while the engine was down); kept across restarts", `position("TSLAUSDT", "long").mark_price < position("TSLAUSDT", "long").high_since_open * 0.98`,
				func(x *Position) float64 { return x.HighSinceOpen }).needs(NeedOpen),
			field("low_since_open", unitPrice, "lowest mark price since the position opened (or the engine first saw it); kept across restarts", `position("TSLAUSDT", "short").mark_price > position("TSLAUSDT", "short").low_since_open * 1.02`,
				func(x *Position) float64 { return x.LowSinceOpen }).needs(NeedOpen),
			field("peak_pnl", unitMargin, "best unrealised P&L since the position opened (or the engine first saw it); kept across restarts", `position("TSLAUSDT", "long").unrealized_pnl < position("TSLAUSDT", "long").peak_pnl - 50`,
				func(x *Position) float64 { return x.PeakPnL }).needs(NeedOpen),
			field("age_seconds", unitSecs, "time since the position was opened", "",
				func(x *Position) float64 { return x.AgeSeconds }).needs(NeedOpen).movesWithData(positionAge),
		}},
		{Name: "order", goType: reflect.TypeFor[Order](), Doc: `A pending futures order (live or partially filled): an item of orders("TSLAUSDT").`, Fields: []FieldDoc{
			field("id", "", "order id", "",
				func(x *Order) string { return x.ID }),
			field("client_oid", "", "client order id", "",
				func(x *Order) string { return x.ClientOID }),
			field("symbol", "", "contract symbol", "",
				func(x *Order) string { return x.Symbol }),
			field("product_type", "", "product type", "",
				func(x *Order) string { return x.ProductType }).values(ev["productType"]),
			field("side", "", "buy or sell", "",
				func(x *Order) string { return x.Side }).values(ev["side"]),
			field("trade_side", "", "open or close (hedge mode); empty in one-way mode", "",
				func(x *Order) string { return x.TradeSide }),
			field("pos_side", "", "long, short or net", "",
				func(x *Order) string { return x.PosSide }).values(ev["posSide"]),
			field("order_type", "", "limit or market", "",
				func(x *Order) string { return x.OrderType }).values(ev["orderType"]),
			field("force", "", "gtc, ioc, fok or post_only", "",
				func(x *Order) string { return x.Force }).values(ev["force"]),
			field("price", unitPrice, "limit price (0 for a market order)", "",
				func(x *Order) float64 { return x.Price }),
			field("size", unitSize, "order size", "",
				func(x *Order) float64 { return x.Size }),
			field("filled", unitSize, "filled size", "",
				func(x *Order) float64 { return x.Filled }),
			field("remaining", unitSize, "size - filled", "",
				func(x *Order) float64 { return x.Remaining }),
			field("status", "", "live or partially_filled", "",
				func(x *Order) string { return x.Status }).values(ev["status (orders-pending filter)"]),
			field("take_profit", unitPrice, "preset take-profit price (0 when none)", "",
				func(x *Order) float64 { return x.TakeProfit }),
			field("stop_loss", unitPrice, "preset stop-loss price (0 when none)", "",
				func(x *Order) float64 { return x.StopLoss }),
			field("age_seconds", unitSecs, "time since the order was created", `any(orders("TSLAUSDT"), .age_seconds > 600)`,
				func(x *Order) float64 { return x.AgeSeconds }).movesWithData(orderAge),
			field("modifications", "times", "how often the engine moved this order with modify_order (followed through its new client order id; a modified order is a new order, so its age starts again). Kept across restarts", `any(orders("TSLAUSDT"), .modifications >= 3)`,
				func(x *Order) int { return x.Modifications }),
		}},
		{Name: "strategy_order", goType: reflect.TypeFor[StrategyOrder](), Doc: `A pending strategy order: an item of strategy_orders("TSLAUSDT"). Prices are 0 where the type has none.`, Fields: []FieldDoc{
			field("id", "", "order id", "",
				func(x *StrategyOrder) string { return x.ID }),
			field("client_oid", "", "client order id", "",
				func(x *StrategyOrder) string { return x.ClientOID }),
			field("symbol", "", "symbol", "",
				func(x *StrategyOrder) string { return x.Symbol }),
			field("category", "", "category as the exchange reports it", "",
				func(x *StrategyOrder) string { return x.Category }),
			field("type", "", "tpsl, trigger, oco, trailing_stop, iceberg or twap", `any(strategy_orders("TSLAUSDT"), .type == "tpsl")`,
				func(x *StrategyOrder) string { return x.Type }).values(ev["type (strategy)"]),
			field("side", "", "position side it applies to (long, short)", "",
				func(x *StrategyOrder) string { return x.Side }).values(ev["posSide"]),
			field("size", unitSize, "quantity", "",
				func(x *StrategyOrder) float64 { return x.Size }),
			field("status", "", "strategy order status", "",
				func(x *StrategyOrder) string { return x.Status }),
			field("take_profit", unitPrice, "take-profit trigger price", "",
				func(x *StrategyOrder) float64 { return x.TakeProfit }),
			field("stop_loss", unitPrice, "stop-loss trigger price", "",
				func(x *StrategyOrder) float64 { return x.StopLoss }),
			field("tp_trigger_by", "", "price the take-profit triggers on", "",
				func(x *StrategyOrder) string { return x.TPTriggerBy }),
			field("sl_trigger_by", "", "price the stop-loss triggers on", "",
				func(x *StrategyOrder) string { return x.SLTriggerBy }),
			field("tp_order_type", "", "order type placed at take-profit", "",
				func(x *StrategyOrder) string { return x.TPOrderType }),
			field("sl_order_type", "", "order type placed at stop-loss", "",
				func(x *StrategyOrder) string { return x.SLOrderType }),
			field("tp_limit_price", unitPrice, "limit price at take-profit", "",
				func(x *StrategyOrder) float64 { return x.TPLimitPrice }),
			field("sl_limit_price", unitPrice, "limit price at stop-loss", "",
				func(x *StrategyOrder) float64 { return x.SLLimitPrice }),
			field("trigger_by", "", "price a trigger order triggers on", "",
				func(x *StrategyOrder) string { return x.TriggerBy }),
			field("trigger_price", unitPrice, "trigger price", "",
				func(x *StrategyOrder) float64 { return x.TriggerPrice }),
			field("trigger_order_type", "", "order type placed at the trigger", "",
				func(x *StrategyOrder) string { return x.TriggerOrderType }),
			field("trigger_order_price", unitPrice, "order price placed at the trigger", "",
				func(x *StrategyOrder) float64 { return x.TriggerOrderPrice }),
			field("age_seconds", unitSecs, "time since it was created", "",
				func(x *StrategyOrder) float64 { return x.AgeSeconds }).movesWithData(strategyOrderAge),
			field("oco", "", "OCO legs (type oco)", "",
				func(x *StrategyOrder) []*OCOLeg { return x.OCO }),
			field("trailing_stop", "", "trailing-stop parameters (type trailing_stop)", "",
				func(x *StrategyOrder) []*TrailingStop { return x.TrailingStop }),
			field("iceberg", "", "iceberg parameters (type iceberg)", "",
				func(x *StrategyOrder) []*Iceberg { return x.Iceberg }),
			field("twap", "", "TWAP parameters (type twap)", "",
				func(x *StrategyOrder) []*TWAP { return x.TWAP }),
		}},
		{Name: "oco_leg", goType: reflect.TypeFor[OCOLeg](), Doc: "One leg of an OCO strategy order.", Fields: []FieldDoc{
			field("limit_price", unitPrice, "limit price", "",
				func(x *OCOLeg) float64 { return x.LimitPrice }),
			field("trigger_price", unitPrice, "trigger price", "",
				func(x *OCOLeg) float64 { return x.TriggerPrice }),
			field("order_type", "", "limit or market", "",
				func(x *OCOLeg) string { return x.OrderType }),
			field("order_price", unitPrice, "order price", "",
				func(x *OCOLeg) float64 { return x.OrderPrice }),
		}},
		{Name: "trailing_stop", goType: reflect.TypeFor[TrailingStop](), Doc: "Parameters of a trailing-stop strategy order.", Fields: []FieldDoc{
			field("activation_price", unitPrice, "activation price", "",
				func(x *TrailingStop) float64 { return x.ActivationPrice }),
			field("activation_type", "", "activation price type", "",
				func(x *TrailingStop) string { return x.ActivationType }),
			field("trail_type", "", "trail type", "",
				func(x *TrailingStop) string { return x.TrailType }),
			field("trail_variance", "", "trail distance or ratio, per trail_type", "",
				func(x *TrailingStop) float64 { return x.TrailVariance }),
			field("order_type", "", "order type placed", "",
				func(x *TrailingStop) string { return x.OrderType }),
			field("order_price", unitPrice, "order price", "",
				func(x *TrailingStop) float64 { return x.OrderPrice }),
		}},
		{Name: "iceberg", goType: reflect.TypeFor[Iceberg](), Doc: "Parameters of an iceberg strategy order.", Fields: []FieldDoc{
			field("split_mode", "", "split mode", "",
				func(x *Iceberg) string { return x.SplitMode }),
			field("qty_per_order", unitSize, "quantity per child order", "",
				func(x *Iceberg) float64 { return x.QtyPerOrder }),
			field("split_order_numbers", "orders", "number of child orders", "",
				func(x *Iceberg) float64 { return x.SplitOrderNumbers }),
			field("order_preference", "", "order preference", "",
				func(x *Iceberg) string { return x.OrderPreference }),
			field("execution_strategy", "", "execution strategy", "",
				func(x *Iceberg) string { return x.ExecutionStrategy }),
			field("distance", "", "price distance", "",
				func(x *Iceberg) float64 { return x.Distance }),
			field("fixed_price", unitPrice, "fixed price", "",
				func(x *Iceberg) float64 { return x.FixedPrice }),
			field("price_limit", unitPrice, "price limit", "",
				func(x *Iceberg) float64 { return x.PriceLimit }),
		}},
		{Name: "twap", goType: reflect.TypeFor[TWAP](), Doc: "Parameters of a TWAP strategy order.", Fields: []FieldDoc{
			field("duration_minutes", unitMins, "total duration", "",
				func(x *TWAP) float64 { return x.DurationMinutes }),
			field("interval_seconds", unitSecs, "interval between child orders", "",
				func(x *TWAP) float64 { return x.IntervalSeconds }),
			field("order_type", "", "order type of child orders", "",
				func(x *TWAP) string { return x.OrderType }),
			field("trigger_price", unitPrice, "trigger price", "",
				func(x *TWAP) float64 { return x.TriggerPrice }),
			field("termination_price", unitPrice, "termination price", "",
				func(x *TWAP) float64 { return x.TerminatePrice }),
		}},
		{Name: "balance", goType: reflect.TypeFor[Balance](), Doc: `The futures account of a margin coin: balance("USDT").`, Fields: []FieldDoc{
			field("margin_coin", "", "margin coin", "",
				func(x *Balance) string { return x.MarginCoin }),
			field("product_type", "", "product type", "",
				func(x *Balance) string { return x.ProductType }).values(ev["productType"]),
			field("available", unitMargin, "available balance", `balance("USDT").available > 100`,
				func(x *Balance) float64 { return x.Available }),
			field("locked", unitMargin, "locked balance", "",
				func(x *Balance) float64 { return x.Locked }),
			field("equity", unitMargin, "account equity", "",
				func(x *Balance) float64 { return x.Equity }),
			field("unrealized_pnl", unitMargin, "unrealised P&L of all positions", "",
				func(x *Balance) float64 { return x.UnrealizedPnL }),
			field("crossed_max_available", unitMargin, "maximum available in crossed margin", "",
				func(x *Balance) float64 { return x.CrossedMaxAvailable }),
			field("isolated_max_available", unitMargin, "maximum available in isolated margin", "",
				func(x *Balance) float64 { return x.IsolatedMaxAvailable }),
			field("position_mode", "", "one_way_mode or hedge_mode", "",
				func(x *Balance) string { return x.PositionMode }).values(ev["posMode"]),
		}},
		{Name: "ticker", goType: reflect.TypeFor[Ticker](), Doc: `The market of a futures contract, from the venue's ticker: ticker("BTCUSDT"). Prices are in the contract's quote coin.`, Fields: []FieldDoc{
			field("symbol", "", "contract symbol", "",
				func(x *Ticker) string { return x.Symbol }),
			field("last", unitPrice, "last traded price", `ticker("BTCUSDT").last > 100000`,
				func(x *Ticker) float64 { return x.Last }),
			field("bid", unitPrice, "best bid price", "",
				func(x *Ticker) float64 { return x.Bid }),
			field("ask", unitPrice, "best ask price", "",
				func(x *Ticker) float64 { return x.Ask }),
			field("mark", unitPrice, "mark price (what unrealised P&L and liquidation use)", "",
				func(x *Ticker) float64 { return x.Mark }),
			field("index", unitPrice, "index price", "",
				func(x *Ticker) float64 { return x.Index }),
			field("funding_rate", unitRatio, "current funding rate", `ticker("BTCUSDT").funding_rate > 0.0005`,
				func(x *Ticker) float64 { return x.FundingRate }),
			field("change_24h", unitRatio, "price change over the last 24 hours", `ticker("BTCUSDT").change_24h < -0.05`,
				func(x *Ticker) float64 { return x.Change24h }),
		}},
		{Name: "book", goType: reflect.TypeFor[FuturesBook](), Doc: `The order book of a futures contract, from the venue's merge-depth: book("BTCUSDT"). A book with an empty side has no value. For the size within a distance of the mid price, see book_depth_bid and book_depth_ask.`, Fields: []FieldDoc{
			field("symbol", "", "contract symbol", "",
				func(x *FuturesBook) string { return x.Symbol }),
			field("bid", unitPrice, "best bid price", "",
				func(x *FuturesBook) float64 { return x.Bid }),
			field("ask", unitPrice, "best ask price", "",
				func(x *FuturesBook) float64 { return x.Ask }),
			field("mid", unitPrice, "(bid + ask) / 2", "",
				func(x *FuturesBook) float64 { return x.Mid }),
			field("spread", unitPrice, "ask - bid", "",
				func(x *FuturesBook) float64 { return x.Spread }),
			field("spread_bps", unitBps, "spread / mid x 10000", `book("BTCUSDT").spread_bps < 2`,
				func(x *FuturesBook) float64 { return x.SpreadBps }),
			field("bid_size", unitSize, "size at the best bid", "",
				func(x *FuturesBook) float64 { return x.BidSize }),
			field("ask_size", unitSize, "size at the best ask", "",
				func(x *FuturesBook) float64 { return x.AskSize }),
		}},
		{Name: "discount_tier", goType: reflect.TypeFor[DiscountTier](), Doc: `A coin discount tier: an item of discount_tiers("BTC").`, Fields: []FieldDoc{
			field("start_value", "U", "value at which the tier starts (it ends where the next starts)", "",
				func(x *DiscountTier) float64 { return x.StartValue }),
			field("rate", "as the exchange gives it", "discount rate of the tier", "",
				func(x *DiscountTier) float64 { return x.Rate }),
		}},
		{Name: "spot_record", goType: reflect.TypeFor[SpotRecord](), Doc: "A spot financial record: an item of spot_records, newest first.", Fields: []FieldDoc{
			field("id", "", "record id", "",
				func(x *SpotRecord) string { return x.ID }),
			field("coin", "", "coin", "",
				func(x *SpotRecord) string { return x.Coin }),
			field("type", "", `financial type (spotTaxType), e.g. "Deposit"`, `any(spot_records, .type == "Deposit" && .age_seconds < 3600)`,
				func(x *SpotRecord) string { return x.Type }),
			field("amount", "coin", "amount", "",
				func(x *SpotRecord) float64 { return x.Amount }),
			field("fee", "coin", "fee", "",
				func(x *SpotRecord) float64 { return x.Fee }),
			field("balance", "coin", "balance after the record", "",
				func(x *SpotRecord) float64 { return x.Balance }),
			field("biz_order_id", "", "business order id", "",
				func(x *SpotRecord) string { return x.BizOrderID }),
			field("time", "", "when it was booked", "",
				func(x *SpotRecord) time.Time { return x.Time }),
			field("age_seconds", unitSecs, "time since it was booked", "",
				func(x *SpotRecord) float64 { return x.AgeSeconds }).movesWithData(spotRecordAge),
		}},
		{Name: "last_close", goType: reflect.TypeFor[LastClose](), Doc: `The newest closed position of a futures contract, from the venue's position history: last_close("TSLAUSDT"). A contract with no close since yesterday 00:00 New York time has none: a condition reading it is false.`, Fields: []FieldDoc{
			field("symbol", "", "contract symbol", "",
				func(x *LastClose) string { return x.Symbol }),
			field("side", "", "side of the position that closed: long or short", `last_close("TSLAUSDT").side == "long"`,
				func(x *LastClose) string { return x.Side }).values([]string{"long", "short"}),
			field("size", unitSize, "size closed", "",
				func(x *LastClose) float64 { return x.Size }),
			field("pnl", unitMargin, "what the position made: realised P&L after its fees and funding (the venue's netProfit); below 0 for a loss", `last_close("TSLAUSDT").pnl < 0`,
				func(x *LastClose) float64 { return x.PnL }),
			field("fees", unitMargin, "opening and closing fees, negative when paid", "",
				func(x *LastClose) float64 { return x.Fees }),
			field("funding", unitMargin, "funding settled while it was open, negative when paid", "",
				func(x *LastClose) float64 { return x.Funding }),
			field("time", "", "when it closed", "",
				func(x *LastClose) time.Time { return x.Time }),
			field("minutes_ago", unitMins, "minutes since it closed, at the tick", `last_close("TSLAUSDT").minutes_ago < 30`,
				func(x *LastClose) float64 { return x.MinutesAgo }),
			field("how", "", "how it closed, from its closing order in the venue's orders history: rule (an order sent through the API: the engine's rules, or another program with the same key), take-profit, stop-loss, trailing-stop, liquidation, trigger, delivery, by hand (the website or the app), or unknown", `last_close("TSLAUSDT").how == "stop-loss"`,
				func(x *LastClose) string { return x.How }).values([]string{"rule", "take-profit", "stop-loss", "trailing-stop", "liquidation", "trigger", "delivery", "by hand", "unknown"}),
		}},
	}
	named := map[reflect.Type]string{}
	for _, o := range objs {
		named[o.goType] = o.Name
	}
	for i := range objs {
		for j := range objs[i].Fields {
			f := &objs[i].Fields[j]
			f.Type = typeName(reflect.TypeOf(f.Read).Out(0), named)
		}
	}
	return objs
}

// typeName names the Go type of a field as the reference and the checker's
// messages do.
func typeName(t reflect.Type, objects map[reflect.Type]string) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "time"
	case t.Kind() == reflect.Float64, t.Kind() == reflect.Int:
		return "number"
	case t.Kind() == reflect.String:
		return "text"
	case t.Kind() == reflect.Bool:
		return "true/false"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "list of text"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Pointer && objects[t.Elem().Elem()] != "":
		return "list of " + objects[t.Elem().Elem()]
	}
	panic(fmt.Sprintf("marketdata: a State field of Go type %s has no name for rules", t))
}

// Object returns the documentation of the object called name.
func Object(name string) (ObjectDoc, bool) {
	for _, o := range Objects() {
		if o.Name == name {
			return o, true
		}
	}
	return ObjectDoc{}, false
}

// TimeKind says how a field moves with time.
type TimeKind uint8

const (
	// MovesWithSession is a market field that changes only when the
	// session, the Eastern day or the calendar does: a condition reading
	// only such fields and fetched data keeps its value between two States
	// with the same data (State.SameData) and the same session
	// (State.SameSession).
	MovesWithSession TimeKind = iota + 1
	// MovesWithClock is a field that changes from one tick to the next
	// (the minutes to the close).
	MovesWithClock
	// MovesWithData is a field of fetched data that changes with time (an
	// age, the trade window, tradable_now): a State sharing its data with
	// an earlier one would leave it behind.
	MovesWithData
)

// TimeFieldSet is a set of the fields of fetched data that move with time
// (an age, the trade window, tradable_now), one bit per object and field:
// the ones a reader reads must follow the clock in every State, the others
// may keep the value of the tick their object was built at
// (Answers.SetTimedFields).
type TimeFieldSet uint16

// The members of TimeFieldSet, each given to its field by its row in
// Objects (movesWithData).
const (
	stockTradable TimeFieldSet = 1 << iota
	stockBookAge
	stockLastTradeAge
	stockVolume
	stockTradesCount
	stockVWAP
	positionAge
	orderAge
	strategyOrderAge
	spotRecordAge

	// AllTimeFields has every field of fetched data that moves with time.
	AllTimeFields TimeFieldSet = 1<<iota - 1
)

// The groups of TimeFieldSet the State builder asks about.
const (
	stockWindow     = stockVolume | stockTradesCount | stockVWAP
	stockTimeFields = stockTradable | stockBookAge | stockLastTradeAge | stockWindow
)

// timeMove is how one field moves with time; bit is its member of
// TimeFieldSet when it is a field of fetched data (MovesWithData).
type timeMove struct {
	object, field string
	kind          TimeKind
	bit           TimeFieldSet
}

// timeMoves lists every field whose value moves with State.Now alone, with
// no new fetch, and how, taken once from the rows of Objects: everything
// that follows the session, the minutes that follow the clock, and the ages
// and the trade window of fetched data. A condition reading none of them
// has the same value until a part it reads is fetched with a different
// answer. Tests check the rows against States built at two times and
// against State.SameSession. It is never changed after it is made.
var timeMoves = movesOf(Objects())

// movesOf collects the fields of objs that move with time.
func movesOf(objs []ObjectDoc) []timeMove {
	var out []timeMove
	for _, o := range objs {
		for _, f := range o.Fields {
			if f.Time != 0 {
				out = append(out, timeMove{o.Name, f.Name, f.Time, f.timeBit})
			}
		}
	}
	return out
}

// timeKindOf is how field of object moves with time; 0 when it does not.
func timeKindOf(object, field string) TimeKind {
	for _, m := range timeMoves {
		if m.object == object && m.field == field {
			return m.kind
		}
	}
	return 0
}

// TimeFieldsOf returns the fields that move with time a program reads when
// it reads field of object (a name of Objects): that field when it is one,
// every such field of object when field is empty (the object taken whole,
// as a trace shows it), none otherwise.
func TimeFieldsOf(object, field string) TimeFieldSet {
	var f TimeFieldSet
	for _, m := range timeMoves {
		if m.object == object && (field == "" || m.field == field) {
			f |= m.bit
		}
	}
	return f
}

// TimeFieldsNamed is TimeFieldsOf for a field read from an object that is
// not known when the program is checked: the field of that name in every
// object; every field that moves with time when name is empty (a field
// name computed as the program runs).
func TimeFieldsNamed(name string) TimeFieldSet {
	var f TimeFieldSet
	for _, m := range timeMoves {
		if name == "" || m.field == name {
			f |= m.bit
		}
	}
	return f
}

// String lists the members as object.field, e.g. "stock.vwap,order.age_seconds".
func (f TimeFieldSet) String() string {
	var names []string
	for _, m := range timeMoves {
		if f&m.bit != 0 {
			names = append(names, m.object+"."+m.field)
		}
	}
	return strings.Join(names, ",")
}

// MovesWithTime reports whether field of object changes with State.Now
// alone, between two fetches of the data it comes from.
func MovesWithTime(object, field string) bool {
	return timeKindOf(object, field) != 0
}

// TimeFields returns how each field name that moves with time moves, in
// any object: a program that reaches a field through a list (.age_seconds
// in any(orders("X"), ...)) is judged by the name alone, so a name shared
// by two objects gets the stronger kind.
func TimeFields() map[string]TimeKind {
	out := map[string]TimeKind{}
	for _, m := range timeMoves {
		out[m.field] = max(out[m.field], m.kind)
	}
	return out
}
