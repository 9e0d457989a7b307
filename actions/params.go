package actions

import (
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// enumValues returns the values the exchange accepts for one of its enums
// (productType, side...).
func enumValues(name string) []string { return exchange.EnumValues()[name] }

// Parameters shared by several actions, declared once so that symbol or an
// order's fields read the same in every kind that takes them.
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
