package marketdata

import (
	"reflect"
	"slices"
	"strings"
)

// FieldDoc documents one field a condition can read. The expression checker
// (package rules) takes field names and requirements from here and the
// generated reference takes everything, so the docs cannot drift from what
// the compiler accepts; a test checks this table against the struct tags.
type FieldDoc struct {
	Name    string // as written in a condition: spread_bps
	Type    string // number, text, true/false, time, list of text, list of <object>
	Unit    string // e.g. "basis points (1 bps = 0.01%)", "ratio (0.05 = 5%)"; empty for text
	Doc     string
	Example string // a condition or value using it
	Needs   Need   // what must be known for the field to have a value
}

// ObjectDoc documents one kind of object of the State and its fields.
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

// Objects returns the documentation of every object a condition can reach,
// in reference order. The result is a fresh copy.
func Objects() []ObjectDoc {
	return []ObjectDoc{
		{Name: "market", goType: reflect.TypeFor[Market](), Doc: "The US stock market session now (Eastern time), from the states and calendar responses. While the market is closed, minutes_since_open and minutes_to_close have no value (a condition reading them does not fire).", Fields: []FieldDoc{
			{"session", "text", "", "pre_market, regular, after_hours, overnight or closed", `market.session == "regular"`, 0},
			{"is_open", "true/false", "", "a session is in progress", "market.is_open", 0},
			{"is_holiday", "true/false", "", "a holiday or other irregular closure (calendar specificConfig) is in force", "!market.is_holiday", 0},
			{"is_weekend", "true/false", "", "the Eastern date is a regular closure day (calendar regularConfig, normally Saturday and Sunday)", "!market.is_weekend", 0},
			{"holiday", "text", "", "the remark of the closure in force (empty when none)", `market.holiday != ""`, 0},
			{"minutes_since_open", "number", unitMins, "minutes since the current session opened; no value while closed", "market.minutes_since_open < 15", NeedSessionOpen},
			{"minutes_to_close", "number", unitMins, "minutes until the current session closes; no value while closed", "market.minutes_to_close <= 5", NeedSessionOpen},
			{"next_session", "text", "", "the next session that will open; no value when none is known", `market.next_session == "regular"`, NeedNextSession},
			{"next_session_start", "time", "", "when the next session opens", "market.next_session_start", NeedNextSession},
			{"minutes_to_next_session", "number", unitMins, "minutes until the next session opens", "market.minutes_to_next_session < 10", NeedNextSession},
			{"dst", "true/false", "", "US Eastern time observes daylight saving time", "market.dst", 0},
		}},
		{Name: "stock", goType: reflect.TypeFor[Stock](), Doc: `A US stock pair, looked up by pair symbol or stock code: stock("TSLA"). Volume, trades_count and vwap cover the platform fills of the last 5 minutes (the trade window). A field whose data was not fetched has no value: the condition does not fire and the engine reports "no data" instead of reading 0.`, Fields: []FieldDoc{
			{"symbol", "text", "", "pair symbol", `stock("TSLA").symbol == "TSLAUSDT"`, 0},
			{"code", "text", "", "stock code", `stock("TSLAUSDT").code == "TSLA"`, NeedInfo},
			{"name", "text", "", "company name", `stock("TSLA").name`, NeedInfo},
			{"trading_periods", "list of text", "", "the sessions in which the pair trades", `"overnight" in stock("TSLA").trading_periods`, NeedInfo},
			{"weekend_tradable", "true/false", "", "the pair trades at weekends", `stock("TSLA").weekend_tradable`, NeedInfo},
			{"tradable_now", "true/false", "", "the pair can trade now: at a weekend when weekend_tradable, otherwise when the market is open in one of its trading_periods", `stock("TSLA").tradable_now`, NeedInfo | NeedMarket},
			{"bid", "number", unitQuote, "best bid price", `stock("TSLA").bid`, NeedBook},
			{"ask", "number", unitQuote, "best ask price", `stock("TSLA").ask`, NeedBook},
			{"mid", "number", unitQuote, "(bid + ask) / 2", `stock("TSLA").mid`, NeedBook},
			{"spread", "number", unitQuote, "ask - bid", `stock("TSLA").spread < 0.05`, NeedBook},
			{"spread_bps", "number", unitBps, "spread / mid x 10000", `stock("TSLA").spread_bps < 8`, NeedBook},
			{"bid_size", "number", unitShares, "size at the best bid", `stock("TSLA").bid_size > 100`, NeedBook},
			{"ask_size", "number", unitShares, "size at the best ask", `stock("TSLA").ask_size > 100`, NeedBook},
			{"imbalance", "number", "ratio from -1 (all asks) to 1 (all bids)", "(bid_size - ask_size) / (bid_size + ask_size) at the top of the book", `stock("TSLA").imbalance > 0.3`, NeedBook},
			{"book_age_seconds", "number", unitSecs, "age of the order-book snapshot", `stock("TSLA").book_age_seconds < 5`, NeedBook},
			{"last_price", "number", unitQuote, "price of the newest platform fill", `stock("TSLA").last_price > 250`, NeedTrades | NeedLastTrade},
			{"last_trade_age_seconds", "number", unitSecs, "age of the newest platform fill", `stock("TSLA").last_trade_age_seconds < 60`, NeedTrades | NeedLastTrade},
			{"volume", "number", unitShares, "total size of the fills in the trade window (0 when none)", `stock("TSLA").volume > 1000`, NeedTrades},
			{"trades_count", "number", "fills", "number of fills in the trade window", `stock("TSLA").trades_count >= 3`, NeedTrades},
			{"vwap", "number", unitQuote, "volume-weighted average price of the fills in the trade window; no value without a fill in it", `stock("TSLA").last_price > stock("TSLA").vwap`, NeedTrades | NeedWindowTrades},
		}},
		{Name: "position", goType: reflect.TypeFor[Position](), Doc: `A futures position: position("TSLAUSDT", "long"). Side is long, short or net (long minus short; in one-way mode the signed position). A flat position has size 0; its prices and ratios have no value.`, Fields: []FieldDoc{
			{"symbol", "text", "", "contract symbol", "", 0},
			{"side", "text", "", "long, short or net", "", 0},
			{"product_type", "text", "", "USDT-FUTURES, COIN-FUTURES or USDC-FUTURES", "", 0},
			{"is_open", "true/false", "", "size is not 0", `position("TSLAUSDT", "long").is_open`, 0},
			{"size", "number", unitSize, "position size; for net, long minus short (negative when short)", `position("TSLAUSDT", "long").size == 0`, 0},
			{"unrealized_pnl", "number", unitMargin, "unrealised profit or loss (0 when flat)", `position("TSLAUSDT", "long").unrealized_pnl < -50`, 0},
			{"available", "number", unitSize, "size that can be closed now", "", NeedOpen},
			{"entry_price", "number", unitPrice, "average open price", "", NeedOpen},
			{"mark_price", "number", unitPrice, "mark price", "", NeedOpen},
			{"unrealized_pnl_pct", "number", unitRatio, "price move in the position's favour since entry: (mark - entry) / entry, negated for short; leverage does not change it", `position("TSLAUSDT", "long").unrealized_pnl_pct < -0.02`, NeedOpen},
			{"roe", "number", unitRatio, "unrealised P&L / margin (return on margin, grows with leverage)", `position("TSLAUSDT", "long").roe < -0.5`, NeedOpen},
			{"leverage", "number", "times", "leverage", "", NeedOpen},
			{"margin_mode", "text", "", "isolated or crossed", "", NeedOpen},
			{"margin_coin", "text", "", "margin coin", "", NeedOpen},
			{"margin", "number", unitMargin, "margin of the position", "", NeedOpen},
			{"liquidation_price", "number", unitPrice, "estimated liquidation price", "", NeedOpen},
			{"break_even_price", "number", unitPrice, "break-even price", "", NeedOpen},
			{"position_mode", "text", "", "one_way_mode or hedge_mode", "", NeedOpen},
			{"age_seconds", "number", unitSecs, "time since the position was opened", "", NeedOpen},
		}},
		{Name: "order", goType: reflect.TypeFor[Order](), Doc: `A pending futures order (live or partially filled): an item of orders("TSLAUSDT").`, Fields: []FieldDoc{
			{"id", "text", "", "order id", "", 0},
			{"client_oid", "text", "", "client order id", "", 0},
			{"symbol", "text", "", "contract symbol", "", 0},
			{"product_type", "text", "", "product type", "", 0},
			{"side", "text", "", "buy or sell", "", 0},
			{"trade_side", "text", "", "open or close (hedge mode); empty in one-way mode", "", 0},
			{"pos_side", "text", "", "long, short or net", "", 0},
			{"order_type", "text", "", "limit or market", "", 0},
			{"force", "text", "", "gtc, ioc, fok or post_only", "", 0},
			{"price", "number", unitPrice, "limit price (0 for a market order)", "", 0},
			{"size", "number", unitSize, "order size", "", 0},
			{"filled", "number", unitSize, "filled size", "", 0},
			{"remaining", "number", unitSize, "size - filled", "", 0},
			{"status", "text", "", "live or partially_filled", "", 0},
			{"take_profit", "number", unitPrice, "preset take-profit price (0 when none)", "", 0},
			{"stop_loss", "number", unitPrice, "preset stop-loss price (0 when none)", "", 0},
			{"age_seconds", "number", unitSecs, "time since the order was created", `any(orders("TSLAUSDT"), .age_seconds > 600)`, 0},
		}},
		{Name: "strategy_order", goType: reflect.TypeFor[StrategyOrder](), Doc: `A pending strategy order: an item of strategy_orders("TSLAUSDT"). Prices are 0 where the type has none.`, Fields: []FieldDoc{
			{"id", "text", "", "order id", "", 0},
			{"client_oid", "text", "", "client order id", "", 0},
			{"symbol", "text", "", "symbol", "", 0},
			{"category", "text", "", "category as the exchange reports it", "", 0},
			{"type", "text", "", "tpsl, trigger, oco, trailing_stop, iceberg or twap", `any(strategy_orders("TSLAUSDT"), .type == "tpsl")`, 0},
			{"side", "text", "", "position side it applies to (long, short)", "", 0},
			{"size", "number", unitSize, "quantity", "", 0},
			{"status", "text", "", "strategy order status", "", 0},
			{"take_profit", "number", unitPrice, "take-profit trigger price", "", 0},
			{"stop_loss", "number", unitPrice, "stop-loss trigger price", "", 0},
			{"tp_trigger_by", "text", "", "price the take-profit triggers on", "", 0},
			{"sl_trigger_by", "text", "", "price the stop-loss triggers on", "", 0},
			{"tp_order_type", "text", "", "order type placed at take-profit", "", 0},
			{"sl_order_type", "text", "", "order type placed at stop-loss", "", 0},
			{"tp_limit_price", "number", unitPrice, "limit price at take-profit", "", 0},
			{"sl_limit_price", "number", unitPrice, "limit price at stop-loss", "", 0},
			{"trigger_by", "text", "", "price a trigger order triggers on", "", 0},
			{"trigger_price", "number", unitPrice, "trigger price", "", 0},
			{"trigger_order_type", "text", "", "order type placed at the trigger", "", 0},
			{"trigger_order_price", "number", unitPrice, "order price placed at the trigger", "", 0},
			{"age_seconds", "number", unitSecs, "time since it was created", "", 0},
			{"oco", "list of oco_leg", "", "OCO legs (type oco)", "", 0},
			{"trailing_stop", "list of trailing_stop", "", "trailing-stop parameters (type trailing_stop)", "", 0},
			{"iceberg", "list of iceberg", "", "iceberg parameters (type iceberg)", "", 0},
			{"twap", "list of twap", "", "TWAP parameters (type twap)", "", 0},
		}},
		{Name: "oco_leg", goType: reflect.TypeFor[OCOLeg](), Doc: "One leg of an OCO strategy order.", Fields: []FieldDoc{
			{"limit_price", "number", unitPrice, "limit price", "", 0},
			{"trigger_price", "number", unitPrice, "trigger price", "", 0},
			{"order_type", "text", "", "limit or market", "", 0},
			{"order_price", "number", unitPrice, "order price", "", 0},
		}},
		{Name: "trailing_stop", goType: reflect.TypeFor[TrailingStop](), Doc: "Parameters of a trailing-stop strategy order.", Fields: []FieldDoc{
			{"activation_price", "number", unitPrice, "activation price", "", 0},
			{"activation_type", "text", "", "activation price type", "", 0},
			{"trail_type", "text", "", "trail type", "", 0},
			{"trail_variance", "number", "", "trail distance or ratio, per trail_type", "", 0},
			{"order_type", "text", "", "order type placed", "", 0},
			{"order_price", "number", unitPrice, "order price", "", 0},
		}},
		{Name: "iceberg", goType: reflect.TypeFor[Iceberg](), Doc: "Parameters of an iceberg strategy order.", Fields: []FieldDoc{
			{"split_mode", "text", "", "split mode", "", 0},
			{"qty_per_order", "number", unitSize, "quantity per child order", "", 0},
			{"split_order_numbers", "number", "orders", "number of child orders", "", 0},
			{"order_preference", "text", "", "order preference", "", 0},
			{"execution_strategy", "text", "", "execution strategy", "", 0},
			{"distance", "number", "", "price distance", "", 0},
			{"fixed_price", "number", unitPrice, "fixed price", "", 0},
			{"price_limit", "number", unitPrice, "price limit", "", 0},
		}},
		{Name: "twap", goType: reflect.TypeFor[TWAP](), Doc: "Parameters of a TWAP strategy order.", Fields: []FieldDoc{
			{"duration_minutes", "number", unitMins, "total duration", "", 0},
			{"interval_seconds", "number", unitSecs, "interval between child orders", "", 0},
			{"order_type", "text", "", "order type of child orders", "", 0},
			{"trigger_price", "number", unitPrice, "trigger price", "", 0},
			{"termination_price", "number", unitPrice, "termination price", "", 0},
		}},
		{Name: "balance", goType: reflect.TypeFor[Balance](), Doc: `The futures account of a margin coin: balance("USDT").`, Fields: []FieldDoc{
			{"margin_coin", "text", "", "margin coin", "", 0},
			{"product_type", "text", "", "product type", "", 0},
			{"available", "number", unitMargin, "available balance", `balance("USDT").available > 100`, 0},
			{"locked", "number", unitMargin, "locked balance", "", 0},
			{"equity", "number", unitMargin, "account equity", "", 0},
			{"unrealized_pnl", "number", unitMargin, "unrealised P&L of all positions", "", 0},
			{"crossed_max_available", "number", unitMargin, "maximum available in crossed margin", "", 0},
			{"isolated_max_available", "number", unitMargin, "maximum available in isolated margin", "", 0},
			{"position_mode", "text", "", "one_way_mode or hedge_mode", "", 0},
		}},
		{Name: "discount_tier", goType: reflect.TypeFor[DiscountTier](), Doc: `A coin discount tier: an item of discount_tiers("BTC").`, Fields: []FieldDoc{
			{"start_value", "number", "U", "value at which the tier starts (it ends where the next starts)", "", 0},
			{"rate", "number", "as the exchange gives it", "discount rate of the tier", "", 0},
		}},
		{Name: "spot_record", goType: reflect.TypeFor[SpotRecord](), Doc: "A spot financial record: an item of spot_records, newest first.", Fields: []FieldDoc{
			{"id", "text", "", "record id", "", 0},
			{"coin", "text", "", "coin", "", 0},
			{"type", "text", "", `financial type (spotTaxType), e.g. "Deposit"`, `any(spot_records, .type == "Deposit" && .age_seconds < 3600)`, 0},
			{"amount", "number", "coin", "amount", "", 0},
			{"fee", "number", "coin", "fee", "", 0},
			{"balance", "number", "coin", "balance after the record", "", 0},
			{"biz_order_id", "text", "", "business order id", "", 0},
			{"time", "time", "", "when it was booked", "", 0},
			{"age_seconds", "number", unitSecs, "time since it was booked", "", 0},
		}},
	}
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

// The members of TimeFieldSet, named in timeMoves.
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
// no new fetch, and how: everything that follows the session, the minutes
// that follow the clock, and the ages and the trade window of fetched
// data. A condition reading none of them has the same value until a part
// it reads is fetched with a different answer, so the engine need not
// evaluate it again in between. Tests check the table against Objects,
// against States built at two times and against State.SameSession.
var timeMoves = [...]timeMove{
	{"market", "session", MovesWithSession, 0},
	{"market", "is_open", MovesWithSession, 0},
	{"market", "is_holiday", MovesWithSession, 0},
	{"market", "is_weekend", MovesWithSession, 0},
	{"market", "holiday", MovesWithSession, 0},
	{"market", "minutes_since_open", MovesWithClock, 0},
	{"market", "minutes_to_close", MovesWithClock, 0},
	{"market", "next_session", MovesWithSession, 0},
	{"market", "next_session_start", MovesWithSession, 0},
	{"market", "minutes_to_next_session", MovesWithClock, 0},
	{"market", "dst", MovesWithSession, 0},
	{"stock", "tradable_now", MovesWithData, stockTradable},
	{"stock", "book_age_seconds", MovesWithData, stockBookAge},
	{"stock", "last_trade_age_seconds", MovesWithData, stockLastTradeAge},
	{"stock", "volume", MovesWithData, stockVolume},
	{"stock", "trades_count", MovesWithData, stockTradesCount},
	{"stock", "vwap", MovesWithData, stockVWAP},
	{"position", "age_seconds", MovesWithData, positionAge},
	{"order", "age_seconds", MovesWithData, orderAge},
	{"strategy_order", "age_seconds", MovesWithData, strategyOrderAge},
	{"spot_record", "age_seconds", MovesWithData, spotRecordAge},
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
