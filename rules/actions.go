package rules

import (
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// ActionKind names one kind of action a rule can take.
type ActionKind string

// The action kinds, each the key of one item of a rule's actions list.
const (
	PlaceOrder      ActionKind = "place_order"
	BatchPlace      ActionKind = "batch_place"
	ModifyOrder     ActionKind = "modify_order"
	CancelOrder     ActionKind = "cancel_order"
	BatchCancel     ActionKind = "batch_cancel"
	ReversePosition ActionKind = "reverse_position"
	ClosePositions  ActionKind = "close_positions"
	CancelAll       ActionKind = "cancel_all"
	Log             ActionKind = "log"
	Notify          ActionKind = "notify"

	Protect              ActionKind = "protect"
	PlaceTrigger         ActionKind = "place_trigger"
	CancelStrategyOrders ActionKind = "cancel_strategy_orders"

	Halt ActionKind = "halt"
)

// ActionDef defines one action kind: its parameters, the exchange operation
// it uses and the rules between its parameters that a schema cannot say.
type ActionDef struct {
	Kind    ActionKind
	Doc     string
	Op      exchange.Op
	Params  []rulefmt.ParamDef
	Example string // a complete action item in YAML
	// check reports contradictions between parameters; it sees only the
	// parameters that were given, already type-checked.
	check func(c *actionCheck)
}

// Param returns the definition of the parameter name.
func (d *ActionDef) Param(name string) (rulefmt.ParamDef, bool) {
	for _, p := range d.Params {
		if p.Name == name {
			return p, true
		}
	}
	return rulefmt.ParamDef{}, false
}

func enumValues(name string) []string { return exchange.EnumValues()[name] }

// Parameters shared by several actions.
var (
	pSymbol = rulefmt.ParamDef{Name: "symbol", Type: rulefmt.ParamSymbol, Required: true,
		Doc:     "The futures contract. In a for_each rule it may be left out: it is then the rule's symbol.",
		Example: "TSLAUSDT"}
	pProductType = rulefmt.ParamDef{Name: "product_type", Type: rulefmt.ParamChoice, Values: enumValues("productType"), Formula: true,
		Doc: "Overrides the file's defaults.product_type for this action. A formula must give one of the values when the rule fires, or the action is not sent.", Example: "USDC-FUTURES"}
	pMarginCoin = rulefmt.ParamDef{Name: "margin_coin", Type: rulefmt.ParamText,
		Doc: "Overrides the margin coin (upper case). Default: USDT for USDT-FUTURES, USDC for USDC-FUTURES, the contract's base coin for COIN-FUTURES.", Example: "USDT"}
	pMarginMode = rulefmt.ParamDef{Name: "margin_mode", Type: rulefmt.ParamChoice, Values: enumValues("marginMode"),
		Doc: "Overrides the file's defaults.margin_mode for this action."}
	pOrderID = rulefmt.ParamDef{Name: "order_id", Type: rulefmt.ParamText,
		Doc: "The exchange's order id. Give order_id or client_oid, not both.", Example: `"1234567890"`}
	pMessage = rulefmt.ParamDef{Name: "message", Type: rulefmt.ParamMessage, Required: true,
		Doc:     "The text. {{ formula }} inserts a value computed when the rule fires (no = inside the braces).",
		Example: `"TSLA spread is {{ stock(\"TSLA\").spread_bps }} bps"`}
	pClientOID = rulefmt.ParamDef{Name: "client_oid", Type: rulefmt.ParamText,
		Doc: "The client order id. Give order_id or client_oid, not both.", Example: `"my-order-1"`}
)

// orderItemParams are the fields of one order, in place_order and in each
// item of batch_place.
var orderItemParams = []rulefmt.ParamDef{
	{Name: "open", Type: rulefmt.ParamChoice, Values: []string{"long", "short"},
		Doc: "Open (or add to) a long or short position. The engine maps it to side/trade_side for the account's position mode. Give one of open, close or side.", Example: "long"},
	{Name: "close", Type: rulefmt.ParamChoice, Values: []string{"long", "short"},
		Doc: "Close (or reduce) a long or short position; in one-way mode the order is reduce-only. Give one of open, close or side.", Example: "short"},
	{Name: "side", Type: rulefmt.ParamChoice, Values: enumValues("side"),
		Doc: "Raw side, for authors who know the exchange's one-way/hedge table. Prefer open/close.", Example: "buy"},
	{Name: "trade_side", Type: rulefmt.ParamChoice, Values: []string{"open", "close"},
		Doc: "Raw trade side, with side, hedge mode only."},
	{Name: "reduce_only", Type: rulefmt.ParamFlag,
		Doc: "Raw reduce-only flag, with side, one-way mode only.", Example: "true"},
	{Name: "type", Type: rulefmt.ParamChoice, Values: enumValues("orderType"), Required: true,
		Doc: "limit (needs price) or market.", Example: "limit"},
	{Name: "size", Type: rulefmt.ParamNumber, Required: true, Positive: true, Unit: "base coin",
		Doc: "Quantity in the contract's base coin; rounded down to the contract's size step when sent.", Example: "2"},
	{Name: "price", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
		Doc: "Limit price; required for limit orders, not allowed for market orders. Rounded to the contract's price step when sent.", Example: `=stock("TSLA").bid * 0.999`},
	{Name: "force", Type: rulefmt.ParamChoice, Values: enumValues("force"),
		Doc: "Time in force of a limit order; default gtc.", Example: "post_only"},
	{Name: "take_profit", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
		Doc: "Preset take-profit trigger price.", Example: "=position(symbol, \"long\").entry_price * 1.05"},
	{Name: "stop_loss", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
		Doc: "Preset stop-loss trigger price.", Example: "240"},
	{Name: "stp_mode", Type: rulefmt.ParamChoice, Values: enumValues("stpMode"),
		Doc: "Self-trade prevention; default none."},
}

var actionDefs = []*ActionDef{
	{
		Kind: PlaceOrder, Op: exchange.OpPlaceOrder,
		Doc:    "Place one futures order.",
		Params: concatParams([]rulefmt.ParamDef{pSymbol}, orderItemParams, []rulefmt.ParamDef{pProductType, pMarginCoin, pMarginMode}),
		Example: `place_order:
  symbol: TSLAUSDT
  open: long
  type: limit
  size: 2
  price: =stock("TSLA").bid * 0.999`,
		check: func(c *actionCheck) { c.checkOrderItem(c.params, c.keys, c.at) },
	},
	{
		Kind: BatchPlace, Op: exchange.OpBatchPlaceOrder,
		Doc: "Place several orders on one contract at once (any number; the engine sends them 50 at a time).",
		Params: []rulefmt.ParamDef{pSymbol,
			{Name: "orders", Type: rulefmt.ParamOrders, Required: true, Items: orderItemParams,
				Doc: "The orders; each item has the fields of place_order except symbol and the overrides."},
			pProductType, pMarginCoin, pMarginMode},
		Example: `batch_place:
  symbol: TSLAUSDT
  orders:
    - { open: long, type: limit, size: 1, price: 240 }
    - { open: long, type: limit, size: 1, price: 238 }`,
	},
	{
		Kind: ModifyOrder, Op: exchange.OpModifyOrder,
		Doc: "Change an unfilled limit order: size and price together, or the preset take-profit/stop-loss.",
		Params: []rulefmt.ParamDef{pSymbol, pOrderID, pClientOID,
			{Name: "new_size", Type: rulefmt.ParamNumber, Positive: true, Unit: "base coin", Doc: "New size; only together with new_price.", Example: "3"},
			{Name: "new_price", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin", Doc: "New price; only together with new_size.", Example: "=stock(\"TSLA\").bid"},
			{Name: "new_take_profit", Type: rulefmt.ParamNumber, Unit: "quote currency per base coin", Doc: "New preset take-profit price; 0 deletes it.", Example: "260"},
			{Name: "new_stop_loss", Type: rulefmt.ParamNumber, Unit: "quote currency per base coin", Doc: "New preset stop-loss price; 0 deletes it.", Example: "230"},
			pProductType},
		Example: `modify_order:
  symbol: TSLAUSDT
  client_oid: my-order-1
  new_size: 2
  new_price: =stock("TSLA").bid`,
		check: func(c *actionCheck) {
			c.exactlyOne("order_id", "client_oid")
			c.together("new_size", "new_price")
			c.atLeastOne("new_size", "new_price", "new_take_profit", "new_stop_loss")
		},
	},
	{
		Kind: CancelOrder, Op: exchange.OpCancelOrder,
		Doc:    "Cancel one order.",
		Params: []rulefmt.ParamDef{pSymbol, pOrderID, pClientOID, pProductType, pMarginCoin},
		Example: `cancel_order:
  symbol: TSLAUSDT
  client_oid: my-order-1`,
		check: func(c *actionCheck) { c.exactlyOne("order_id", "client_oid") },
	},
	{
		Kind: BatchCancel, Op: exchange.OpBatchCancelOrders,
		Doc: "Cancel several orders of one contract; without orders and client_oids, every pending order of the contract.",
		Params: []rulefmt.ParamDef{pSymbol,
			{Name: "orders", Type: rulefmt.ParamIDList, Doc: "Order ids to cancel. A formula giving an empty list cancels nothing (never every order).", Example: `=map(filter(orders("TSLAUSDT"), .age_seconds > 600), .id)`},
			{Name: "client_oids", Type: rulefmt.ParamIDList, Doc: "Client order ids to cancel. A formula giving an empty list cancels nothing.", Example: "[my-order-1, my-order-2]"},
			pProductType, pMarginCoin},
		Example: `batch_cancel:
  symbol: TSLAUSDT`,
	},
	{
		Kind: ReversePosition, Op: exchange.OpClickBackhand,
		Doc: "Reverse a position at market (close it and open the other direction).",
		Params: []rulefmt.ParamDef{pSymbol,
			{Name: "side", Type: rulefmt.ParamChoice, Values: []string{"long", "short"},
				Doc: "The position to reverse; needed in hedge mode, ignored in one-way mode.", Example: "long"},
			{Name: "size", Type: rulefmt.ParamNumber, Positive: true, Unit: "base coin",
				Doc: "Hedge mode: how much to reverse (default: the whole position). Ignored in one-way mode.", Example: "1"},
			pProductType, pMarginCoin},
		Example: `reverse_position:
  symbol: TSLAUSDT
  side: long`,
		check: func(c *actionCheck) { c.checkReverse() },
	},
	{
		Kind: ClosePositions, Op: exchange.OpClosePositions,
		Doc: "Close positions at market: of one contract or, without symbol, of the whole product type.",
		Params: []rulefmt.ParamDef{{Name: "symbol", Type: rulefmt.ParamSymbol, Doc: "The contract; without it, every position of the product type.", Example: "TSLAUSDT"},
			{Name: "side", Type: rulefmt.ParamChoice, Values: []string{"long", "short"},
				Doc: "Hedge mode: only this direction (default both). Ignored in one-way mode.", Example: "long"},
			pProductType},
		Example: `close_positions:
  symbol: TSLAUSDT`,
		check: func(c *actionCheck) { c.checkClose() },
	},
	{
		Kind: CancelAll, Op: exchange.OpCancelAllOrders,
		Doc: "Cancel every pending order of the product type, or of each product type of a list (one request each).",
		Params: []rulefmt.ParamDef{{Name: "product_type", Type: rulefmt.ParamChoice, Values: enumValues("productType"), Formula: true, Many: true,
			Doc:     "Overrides the file's defaults.product_type; a list cancels on each product type in turn.",
			Example: "[USDT-FUTURES, USDC-FUTURES]"}, pMarginCoin,
			{Name: "include", Type: rulefmt.ParamChoice, Values: []string{"strategy"}, Many: true,
				Doc:     "strategy also cancels the orders that rest on the exchange (take-profits, stop-losses, trailing stops and trigger orders, as cancel_strategy_orders with type all); without it they stay.",
				Example: "[strategy]"}},
		Example: `cancel_all: { include: [strategy] }`,
		check:   func(c *actionCheck) { c.checkCancelAll() },
	},
	{
		Kind: Protect, Op: exchange.OpPlaceTPSLOrder,
		Doc: "Protect an open position with orders that rest on the exchange, so they hold while the engine is down: a take-profit, a stop-loss and a trailing stop, each one request. They only ever close the position, so the kill switch and the safety limits never hold them back; the exchange cancels them when the position closes.",
		Params: []rulefmt.ParamDef{pSymbol,
			{Name: "position", Type: rulefmt.ParamChoice, Values: []string{"long", "short"}, Required: true,
				Doc: "The position to protect. The engine maps it to the exchange's hold side for the account's position mode.", Example: "long"},
			{Name: "take_profit", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
				Doc: "Close at market when the price reaches this (a long's rises to it, a short's falls to it).", Example: "=position(symbol, \"long\").entry_price * 1.05"},
			{Name: "stop_loss", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
				Doc: "Close at market when the price reaches this (a long's falls to it, a short's rises to it).", Example: "=position(symbol, \"long\").entry_price * 0.97"},
			{Name: "trailing_ratio", Type: rulefmt.ParamNumber, Positive: true, Unit: "percent",
				Doc: "Trailing stop: once active it follows the best price since (the high of a long, the low of a short) and closes at market when the price comes back this many percent from it. At most 10.", Example: "2"},
			{Name: "trailing_distance", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
				Doc: "Trailing stop by a price distance instead of a ratio. The exchange trails by ratio only: the engine sends distance / activation price as the ratio, so the distance holds exactly at the activation price.", Example: "5"},
			{Name: "activation_price", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
				Doc: "Trailing stop: the price at which it starts to follow (a long's above, a short's below). Default: the last price when the rule fires, so it follows at once.", Example: "250"},
			{Name: "size", Type: rulefmt.ParamNumber, Positive: true, Unit: "base coin",
				Doc: "How much of the position to close. Default: take-profit and stop-loss the whole position (whatever its size when they trigger); the trailing stop the position's size when the rule fires.", Example: "1"},
			{Name: "trigger", Type: rulefmt.ParamChoice, Values: []string{"mark", "last"},
				Doc: "The price that triggers them: mark (default; harder to spike) or last (the last trade).", Example: "last"},
			pProductType, pMarginCoin},
		Example: `protect:
  symbol: TSLAUSDT
  position: long
  stop_loss: =position("TSLAUSDT", "long").entry_price * 0.97
  trailing_ratio: 2`,
		check: func(c *actionCheck) { c.checkProtect() },
	},
	{
		Kind: PlaceTrigger, Op: exchange.OpPlacePlanOrder,
		Doc: "Place a trigger order that rests on the exchange: when the price reaches trigger_price, the exchange places the order (with trailing_ratio, when the price then comes back that many percent). An order that opens is checked by the kill switch and the safety limits when it is sent, like place_order.",
		Params: concatParams([]rulefmt.ParamDef{pSymbol,
			{Name: "trigger_price", Type: rulefmt.ParamNumber, Required: true, Positive: true, Unit: "quote currency per base coin",
				Doc: "The price that triggers the order, from either side: above the price when placed, it triggers on a rise to it; below, on a fall.", Example: "260"},
			{Name: "trigger", Type: rulefmt.ParamChoice, Values: []string{"mark", "last"},
				Doc: "The price compared with trigger_price: mark (default) or last.", Example: "last"},
			{Name: "trailing_ratio", Type: rulefmt.ParamNumber, Positive: true, Unit: "percent",
				Doc: "Makes it a trailing trigger: active at trigger_price, it places a market order once the price comes back this many percent from its best since. At most 10; only with type: market.", Example: "1.5"}},
			pickParams(orderItemParams, "open", "close", "side", "trade_side", "reduce_only", "type", "size", "price"),
			[]rulefmt.ParamDef{pProductType, pMarginCoin, pMarginMode}),
		Example: `place_trigger:
  symbol: TSLAUSDT
  open: long
  type: market
  size: 1
  trigger_price: 260`,
		check: func(c *actionCheck) { c.checkOrderItem(c.params, c.keys, c.at); c.checkTrigger() },
	},
	{
		Kind: CancelStrategyOrders, Op: exchange.OpCancelPlanOrder,
		Doc: "Cancel orders that rest on the exchange (placed by protect, place_trigger or by hand): of one contract or, without symbol, of the whole product type; of some types or all. One request per type.",
		Params: []rulefmt.ParamDef{{Name: "symbol", Type: rulefmt.ParamSymbol, Doc: "The contract; without it, those of every contract of the product type.", Example: "TSLAUSDT"},
			{Name: "type", Type: rulefmt.ParamChoice, Values: []string{"all", "take_profit", "stop_loss", "trailing_stop", "trigger"}, Many: true,
				Doc: "Which ones: take_profit, stop_loss (of part or the whole position), trailing_stop (of a position, and trailing triggers), trigger, or all (default).", Example: "[stop_loss, trailing_stop]"},
			pProductType, pMarginCoin},
		Example: `cancel_strategy_orders:
  symbol: TSLAUSDT
  type: all`,
	},
	{
		Kind: Log, Op: "",
		Doc: "Write a line to the engine's log (and the trace). Sends nothing to the exchange.",
		Params: []rulefmt.ParamDef{
			pMessage,
			{Name: "level", Type: rulefmt.ParamChoice, Values: []string{"debug", "info", "warn", "error"},
				Doc: "Log level; default info.", Example: "warn"},
		},
		Example: `log:
  message: "flattening TSLA, spread {{ stock(\"TSLA\").spread_bps }} bps"
  level: warn`,
	},
	{
		Kind: Notify, Op: "",
		Doc: "Send a message to the trader's notification targets (Telegram, Discord, Slack or a webhook, set up with engine run --notify FILE). Sends nothing to the exchange. The message is always logged and kept with the firing; without --notify, and in backtests, nothing is sent; with --notify a dry run sends it too, marked (dry run).",
		Params: []rulefmt.ParamDef{pMessage,
			{Name: "to", Type: rulefmt.ParamNames,
				Doc: "The names of the notify file's targets that get the message, and only they (whatever their events:). Without to, every target whose events include notify gets it. engine run refuses to start when a name is not a target of its notify file.", Example: "[ops]"}},
		Example: `notify:
  message: "TSLA stop fired, spread {{ stock(\"TSLA\").spread_bps }} bps"`,
	},
	{
		Kind: Halt, Op: "",
		Doc: "Stop new entries for every rule: no order that opens or grows a position is sent until the halt ends; closes, cancels and protective orders still go. Sends nothing to the exchange. The halt is logged at error level, shows on the status page, in engine status and in /readyz, and is kept across restarts.",
		Params: []rulefmt.ParamDef{
			{Name: "until", Type: rulefmt.ParamText, Required: true,
				Doc: "When the halt ends: end_of_day (the next 00:00 New York time), a duration such as 30m or 2h from the firing, or manual (until lifted by hand: engine resume, the status page's button, or kill -USR2 PID). Written as it is, not as a formula.", Example: "end_of_day"},
			{Name: "reason", Type: rulefmt.ParamText, Required: true,
				Doc: "Why, as the log, the status page and engine status show it.", Example: `"lost 500 USDT today"`},
		},
		Example: `halt:
  until: end_of_day
  reason: "lost 500 USDT today"`,
		check: func(c *actionCheck) { c.checkHalt() },
	},
}

// pickParams returns the parameters of defs named names, in names' order.
func pickParams(defs []rulefmt.ParamDef, names ...string) []rulefmt.ParamDef {
	var out []rulefmt.ParamDef
	for _, n := range names {
		for _, d := range defs {
			if d.Name == n {
				out = append(out, d)
			}
		}
	}
	return out
}

func concatParams(lists ...[]rulefmt.ParamDef) []rulefmt.ParamDef {
	var out []rulefmt.ParamDef
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Actions returns the definition of every action kind, in the order the
// reference lists them.
func Actions() []*ActionDef { return actionDefs }

// LookupAction returns the definition of kind.
func LookupAction(kind string) (*ActionDef, bool) {
	for _, d := range actionDefs {
		if string(d.Kind) == kind {
			return d, true
		}
	}
	return nil, false
}

func actionKindNames() []string {
	out := make([]string, len(actionDefs))
	for i, d := range actionDefs {
		out[i] = string(d.Kind)
	}
	return out
}

func paramNames(defs []rulefmt.ParamDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}
