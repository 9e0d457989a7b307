package rules

import (
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// FuncDoc documents one helper function conditions and formulas can call.
type FuncDoc struct {
	Name    string
	Args    []ArgDoc
	Returns string // number, text, true/false, an object name, list of <object>
	Unit    string
	Doc     string
	Example string
}

// ArgDoc documents one argument of a function.
type ArgDoc struct {
	Name string
	Type string
	Doc  string
}

// argKind says how a constant argument is checked at load and what a
// symbol argument adds to the program's reads.
type argKind uint8

const (
	argStockPair argKind = iota + 1 // a stock pair symbol or code, checked against the catalog
	argContract                     // a futures symbol, checked against the catalog
	argSide                         // long, short or net
	argSideAny                      // long, short or any
	argClock                        // HH:MM
	argCoin                         // a coin name
	argProduct                      // a futures product type
	argNumber                       // any number
	argPlaces                       // a count of decimal places, 0 to maxFormatPlaces
	argRule                         // a rule's name, checked against the loaded rules
)

// function is one helper: its documentation, how its arguments are checked,
// what it reads, and its implementation. Every implementation receives the
// environment as a hidden first argument (inserted at compile time), and the
// object lookups (stock, position, market, balance) a hidden last argument
// with the marketdata.Need of the field that follows the call.
type function struct {
	doc   FuncDoc
	args  []argKind
	parts marketdata.PartSet // what it reads besides what the field needs
	// object names the marketdata object the call returns when a field must
	// follow it (stock("TSLA").bid); its Need decides the parts read.
	object string
	// variable marks the functions that stand for a bare variable
	// (market, positions, spot_records): the patcher turns the variable
	// into a call, so that reading an unfetched part is an error.
	variable string
	// allFutures marks the variables that read every futures contract
	// (positions, all_orders): the pollers must then cover every product
	// type.
	allFutures bool
	// clock marks the functions whose value moves with the tick's time
	// alone (today's closes and P&L start at 00:00 New York time,
	// minutes_ago counts from the tick): a program calling one is
	// evaluated every tick.
	clock bool
	impl  func(params ...any) (any, error)
	types []any // the checked signatures (overloads), hidden arguments included
}

func (f *function) arity() int { return len(f.args) }

func stateOf(p any) *marketdata.State { return p.(*vars).state }

func needOf(p any) marketdata.Need { return marketdata.Need(p.(int)) }

// functions returns the helper table. It is built once per Compiler.
func functions() []*function {
	var part = func(ps ...marketdata.Part) marketdata.PartSet {
		var s marketdata.PartSet
		for _, p := range ps {
			s = s.Add(p)
		}
		return s
	}
	pair := ArgDoc{"pair", "text", `stock pair symbol or stock code, like "TSLA" or "TSLAUSDT"`}
	sym := ArgDoc{"symbol", "text", `futures contract symbol, like "TSLAUSDT"`}
	ruleArg := ArgDoc{"rule", "text", "a rule's name, as written after name:"}
	// depthFunc is depth_bid or depth_ask: the size on one side of a stock
	// pair's book within bps basis points of the mid price.
	depthFunc := func(name, side, dir string, depth func(*marketdata.Stock, float64) float64) *function {
		return &function{
			doc: FuncDoc{name, []ArgDoc{pair, {"bps", "number", "distance " + dir + " the mid price in basis points"}}, "number", "shares (base coin)",
				"total " + side + " size within bps basis points " + dir + " the mid price", name + `("TSLA", 10) > 500`},
			args:  []argKind{argStockPair, argNumber},
			parts: part(marketdata.PartStockBook),
			impl: func(p ...any) (any, error) {
				s, err := stateOf(p[0]).Stock(p[1].(string), marketdata.NeedBook)
				if err != nil {
					return nil, err
				}
				return depth(s, toFloat(p[2])), nil
			},
			types: []any{new(func(*vars, string, float64) float64), new(func(*vars, string, int) float64)},
		}
	}
	// bookDepthFunc is book_depth_bid or book_depth_ask: depthFunc for the
	// book of a futures contract.
	bookDepthFunc := func(name, side, dir string, depth func(*marketdata.FuturesBook, float64) float64) *function {
		return &function{
			doc: FuncDoc{name, []ArgDoc{sym, {"bps", "number", "distance " + dir + " the mid price in basis points"}}, "number", "base coin (contracts)",
				"total " + side + " size of a futures contract's book within bps basis points " + dir + " the mid price", name + `("BTCUSDT", 10) > 5`},
			args:  []argKind{argContract, argNumber},
			parts: part(marketdata.PartFuturesBook),
			impl: func(p ...any) (any, error) {
				b, err := stateOf(p[0]).FuturesBook(p[1].(string))
				if err != nil {
					return nil, err
				}
				return depth(b, toFloat(p[2])), nil
			},
			types: []any{new(func(*vars, string, float64) float64), new(func(*vars, string, int) float64)},
		}
	}
	return []*function{
		{
			doc:    FuncDoc{"stock", []ArgDoc{pair}, "stock", "", "the stock pair; follow it with a field", `stock("TSLA").spread_bps < 8`},
			args:   []argKind{argStockPair},
			object: "stock",
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Stock(p[1].(string), needOf(p[2]))
			},
			types: []any{new(func(*vars, string, int) *marketdata.Stock)},
		},
		depthFunc("depth_bid", "bid", "below", (*marketdata.Stock).DepthBid),
		depthFunc("depth_ask", "ask", "above", (*marketdata.Stock).DepthAsk),
		{
			doc:    FuncDoc{"position", []ArgDoc{sym, {"side", "text", "long, short or net"}}, "position", "", "the futures position of symbol on side; follow it with a field. Flat is size 0, not missing", `position("TSLAUSDT", "long").size == 0`},
			args:   []argKind{argContract, argSide},
			parts:  part(marketdata.PartPositions),
			object: "position",
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Position(p[1].(string), p[2].(string), needOf(p[3]))
			},
			types: []any{new(func(*vars, string, string, int) *marketdata.Position)},
		},
		// The futures' own market. No native binding: the VM runs them.
		{
			doc:    FuncDoc{"ticker", []ArgDoc{sym}, "ticker", "", "the market of a futures contract from the venue's ticker; follow it with a field", `ticker("BTCUSDT").last > 100000`},
			args:   []argKind{argContract},
			parts:  part(marketdata.PartTicker),
			object: "ticker",
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Ticker(p[1].(string))
			},
			types: []any{new(func(*vars, string, int) *marketdata.Ticker)},
		},
		{
			doc:    FuncDoc{"book", []ArgDoc{sym}, "book", "", "the order book of a futures contract from the venue's merge-depth; follow it with a field", `book("BTCUSDT").spread_bps < 2`},
			args:   []argKind{argContract},
			parts:  part(marketdata.PartFuturesBook),
			object: "book",
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).FuturesBook(p[1].(string))
			},
			types: []any{new(func(*vars, string, int) *marketdata.FuturesBook)},
		},
		bookDepthFunc("book_depth_bid", "bid", "below", (*marketdata.FuturesBook).DepthBid),
		bookDepthFunc("book_depth_ask", "ask", "above", (*marketdata.FuturesBook).DepthAsk),
		{
			doc:   FuncDoc{"orders", []ArgDoc{sym}, "list of order", "", "the pending orders of symbol, oldest first", `any(orders("TSLAUSDT"), .age_seconds > 600)`},
			args:  []argKind{argContract},
			parts: part(marketdata.PartOrders),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Orders(p[1].(string))
			},
			types: []any{new(func(*vars, string) []*marketdata.Order)},
		},
		{
			doc:   FuncDoc{"orders_count", []ArgDoc{sym}, "number", "orders", "the number of pending orders of symbol", `orders_count("TSLAUSDT") == 0`},
			args:  []argKind{argContract},
			parts: part(marketdata.PartOrders),
			impl: func(p ...any) (any, error) {
				os, err := stateOf(p[0]).Orders(p[1].(string))
				return len(os), err
			},
			types: []any{new(func(*vars, string) int)},
		},
		{
			doc:   FuncDoc{"strategy_orders", []ArgDoc{sym}, "list of strategy_order", "", "the pending strategy orders of symbol", `len(strategy_orders("TSLAUSDT")) > 0`},
			args:  []argKind{argContract},
			parts: part(marketdata.PartStrategyOrders),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).StrategyOrders(p[1].(string))
			},
			types: []any{new(func(*vars, string) []*marketdata.StrategyOrder)},
		},
		{
			doc:   FuncDoc{"has_stop_loss", []ArgDoc{sym, {"side", "text", "long, short or any"}}, "true/false", "", "a pending strategy order of symbol on side has a stop-loss price", `position("TSLAUSDT", "long").is_open && !has_stop_loss("TSLAUSDT", "long")`},
			args:  []argKind{argContract, argSideAny},
			parts: part(marketdata.PartStrategyOrders),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).HasStrategyStop(p[1].(string), anySide(p[2].(string)), true)
			},
			types: []any{new(func(*vars, string, string) bool)},
		},
		{
			doc:   FuncDoc{"has_take_profit", []ArgDoc{sym, {"side", "text", "long, short or any"}}, "true/false", "", "a pending strategy order of symbol on side has a take-profit price", `!has_take_profit("TSLAUSDT", "any")`},
			args:  []argKind{argContract, argSideAny},
			parts: part(marketdata.PartStrategyOrders),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).HasStrategyStop(p[1].(string), anySide(p[2].(string)), false)
			},
			types: []any{new(func(*vars, string, string) bool)},
		},
		{
			doc:    FuncDoc{"balance", []ArgDoc{{"coin", "text", `margin coin, like "USDT"`}}, "balance", "", "the futures account of a margin coin; follow it with a field", `balance("USDT").available > 100`},
			args:   []argKind{argCoin},
			parts:  part(marketdata.PartBalances),
			object: "balance",
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Balance(p[1].(string))
			},
			types: []any{new(func(*vars, string, int) *marketdata.Balance)},
		},
		{
			doc:   FuncDoc{"position_mode", []ArgDoc{{"product_type", "text", "USDT-FUTURES, COIN-FUTURES or USDC-FUTURES"}}, "text", "", "one_way_mode or hedge_mode", `position_mode("USDT-FUTURES") == "hedge_mode"`},
			args:  []argKind{argProduct},
			parts: part(marketdata.PartBalances),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).PositionMode(exchange.ProductType(p[1].(string)))
			},
			types: []any{new(func(*vars, string) string)},
		},
		{
			doc:   FuncDoc{"discount_tiers", []ArgDoc{{"coin", "text", `coin, like "BTC"`}}, "list of discount_tier", "", "the discount tiers of coin, by ascending start value", `len(discount_tiers("BTC")) > 0`},
			args:  []argKind{argCoin},
			parts: part(marketdata.PartDiscount),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).DiscountTiers(p[1].(string))
			},
			types: []any{new(func(*vars, string) []*marketdata.DiscountTier)},
		},
		{
			doc:   FuncDoc{"discount_rate", []ArgDoc{{"coin", "text", `coin, like "BTC"`}, {"value", "number", "value in U"}}, "number", "as the exchange gives it", "the discount rate of the tier of coin that contains value", `discount_rate("BTC", 50000) > 0`},
			args:  []argKind{argCoin, argNumber},
			parts: part(marketdata.PartDiscount),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).DiscountRate(p[1].(string), toFloat(p[2]))
			},
			types: []any{new(func(*vars, string, float64) float64), new(func(*vars, string, int) float64)},
		},
		// Today's account and closed trades (the venue's position history).
		{
			doc:    FuncDoc{"last_close", []ArgDoc{sym}, "last_close", "", "the newest closed position of symbol (since yesterday 00:00 New York time); follow it with a field. None when it never closed: the condition is false", `last_close("TSLAUSDT").pnl < 0 && last_close("TSLAUSDT").minutes_ago < 30`},
			args:   []argKind{argContract},
			parts:  part(marketdata.PartClosedTrades),
			object: "last_close",
			clock:  true,
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).LastClose(p[1].(string))
			},
			types: []any{new(func(*vars, string, int) *marketdata.LastClose)},
		},
		{
			doc:   FuncDoc{"closes_today", []ArgDoc{sym}, "number", "positions", "how many positions of symbol closed since 00:00 New York time", `closes_today("TSLAUSDT") < 3`},
			args:  []argKind{argContract},
			parts: part(marketdata.PartClosedTrades),
			clock: true,
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).ClosesToday(p[1].(string), false)
			},
			types: []any{new(func(*vars, string) int)},
		},
		{
			doc:   FuncDoc{"losses_today", []ArgDoc{sym}, "number", "positions", "how many positions of symbol closed at a loss (after fees and funding) since 00:00 New York time", `losses_today("TSLAUSDT") >= 2`},
			args:  []argKind{argContract},
			parts: part(marketdata.PartClosedTrades),
			clock: true,
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).ClosesToday(p[1].(string), true)
			},
			types: []any{new(func(*vars, string) int)},
		},
		{
			doc: FuncDoc{"pnl_today", []ArgDoc{{"product_type", "text", "USDT-FUTURES, COIN-FUTURES or USDC-FUTURES"}}, "number", "margin coin",
				"today's P&L of product_type: what the positions closed since 00:00 New York time made after fees and funding, plus the unrealised P&L of the open positions now. A position open across midnight counts whole on the day it closes",
				`pnl_today("USDT-FUTURES") < -500`},
			args:  []argKind{argProduct},
			parts: part(marketdata.PartClosedTrades, marketdata.PartPositions),
			clock: true,
			impl: func(p ...any) (any, error) {
				return PnLToday(stateOf(p[0]), p[1].(string))
			},
			types: []any{new(func(*vars, string) float64)},
		},
		{
			doc: FuncDoc{"equity_day_start", []ArgDoc{{"coin", "text", `margin coin, like "USDT"`}}, "number", "margin coin",
				"the futures equity of coin at 00:00 New York time as the venue's records give it: equity now less today's P&L of the positions margined in coin (a transfer made today is counted in it)",
				`pnl_today("USDT-FUTURES") < -0.05 * equity_day_start("USDT")`},
			args:  []argKind{argCoin},
			parts: part(marketdata.PartClosedTrades, marketdata.PartPositions, marketdata.PartBalances),
			clock: true,
			impl: func(p ...any) (any, error) {
				return EquityDayStart(stateOf(p[0]), p[1].(string))
			},
			types: []any{new(func(*vars, string) float64)},
		},
		{
			doc: FuncDoc{"format", []ArgDoc{{"x", "number", ""}, {"places", "number", fmt.Sprintf("decimals to show, a whole number from 0 to %d", maxFormatPlaces)}}, "text", "",
				"x written with exactly places decimals, for messages: plain digits, rounded half away from zero (2.675 to 2 places is 2.68, 0.1 + 0.2 is 0.30); NaN, Inf or -Inf when x is not a number",
				`format(stock("TSLA").bid, 2) != ""`},
			args: []argKind{argNumber, argPlaces},
			impl: func(p ...any) (any, error) {
				return formatNumber(toFloat(p[1]), p[2].(int))
			},
			types: []any{new(func(*vars, float64, int) string), new(func(*vars, int, int) string)},
		},
		{
			doc:  FuncDoc{"minutes_until", []ArgDoc{{"time", "text", `Eastern wall-clock time "HH:MM"`}}, "number", "minutes, from 0 up to 1440", "minutes from now until the Eastern clock next shows time (at 15:56, minutes_until(\"15:55\") is 1439)", `minutes_until("15:55") <= 5`},
			args: []argKind{argClock},
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).MinutesUntil(p[1].(string))
			},
			types: []any{new(func(*vars, string) float64)},
		},
		{
			doc:  FuncDoc{"minutes_since", []ArgDoc{{"time", "text", `Eastern wall-clock time "HH:MM"`}}, "number", "minutes, from 0 up to 1440", "minutes since the Eastern clock last showed time", `minutes_since("09:30") < 15`},
			args: []argKind{argClock},
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).MinutesSince(p[1].(string))
			},
			types: []any{new(func(*vars, string) float64)},
		},
		{
			doc: FuncDoc{"firings_today", []ArgDoc{ruleArg}, "number", "firings",
				"how often the rule fired since 00:00 New York time (a for_each rule's name counts every instance; name[SYMBOL] one). Kept across restarts",
				`firings_today("buy-the-dip") < 2`},
			args: []argKind{argRule},
			impl: func(p ...any) (any, error) {
				n, _, err := fired(p[0], p[1].(string))
				return float64(n), err
			},
			types: []any{new(func(*vars, string) float64)},
		},
		{
			doc: FuncDoc{"minutes_since_fired", []ArgDoc{ruleArg}, "number", "minutes",
				"minutes since the rule last fired; a rule that never fired reads as fired at 1970-01-01 (about 29 million minutes ago), so minutes_since_fired(name) > 30 holds. Kept across restarts",
				`minutes_since_fired("buy-the-dip") > 30`},
			args: []argKind{argRule},
			impl: func(p ...any) (any, error) {
				_, last, err := fired(p[0], p[1].(string))
				if err != nil {
					return nil, err
				}
				now := stateOf(p[0]).Now
				if last.IsZero() {
					last = time.Unix(0, 0)
				}
				return now.Sub(last).Minutes(), nil
			},
			types: []any{new(func(*vars, string) float64)},
		},

		// The variables backed by State lookups.
		{
			variable: "market",
			doc:      FuncDoc{Returns: "market", Doc: "the US market session; see the market fields", Example: `market.session == "regular"`},
			object:   "market",
			parts:    part(marketdata.PartMarket),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Market(needOf(p[1]))
			},
			types: []any{new(func(*vars, int) *marketdata.Market)},
		},
		{
			variable:   "positions",
			doc:        FuncDoc{Returns: "list of position", Doc: "every open futures position of the fetched product types (each side separately)", Example: `any(positions, .unrealized_pnl_pct < -0.05)`},
			allFutures: true,
			parts:      part(marketdata.PartPositions),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).Positions()
			},
			types: []any{new(func(*vars) []*marketdata.Position)},
		},
		{
			variable:   "all_orders",
			doc:        FuncDoc{Returns: "list of order", Doc: "every pending order of every futures contract of the fetched product types, by symbol and then oldest first", Example: `count(all_orders, .age_seconds > 600) > 0`},
			allFutures: true,
			parts:      part(marketdata.PartOrders),
			impl: func(p ...any) (any, error) {
				return fetchedList(stateOf(p[0]), marketdata.PartOrders, "all_orders", "pending orders", (*marketdata.State).AllOrders)
			},
			types: []any{new(func(*vars) []*marketdata.Order)},
		},
		{
			variable:   "all_strategy_orders",
			doc:        FuncDoc{Returns: "list of strategy_order", Doc: "every pending strategy order (take-profit/stop-loss, trigger, ...) of the fetched product types, by symbol", Example: `none(all_strategy_orders, .symbol == "TSLAUSDT")`},
			allFutures: true,
			parts:      part(marketdata.PartStrategyOrders),
			impl: func(p ...any) (any, error) {
				return fetchedList(stateOf(p[0]), marketdata.PartStrategyOrders, "all_strategy_orders", "strategy orders", (*marketdata.State).AllStrategyOrders)
			},
			types: []any{new(func(*vars) []*marketdata.StrategyOrder)},
		},
		{
			variable:   "closed_trades",
			allFutures: true,
			doc:        FuncDoc{Returns: "list of last_close", Doc: "every position closed since yesterday 00:00 New York time, newest first, of the product types fetched; empty when none closed", Example: `none(closed_trades, .symbol == "TSLAUSDT" && .pnl < 0 && .minutes_ago < 30)`},
			parts:      part(marketdata.PartClosedTrades),
			clock:      true,
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).ClosedList()
			},
			types: []any{new(func(*vars) []*marketdata.LastClose)},
		},
		{
			variable: "spot_records",
			doc:      FuncDoc{Returns: "list of spot_record", Doc: "the fetched spot financial records, newest first", Example: `count(spot_records, .type == "Deposit") > 0`},
			parts:    part(marketdata.PartSpotRecords),
			impl: func(p ...any) (any, error) {
				return stateOf(p[0]).SpotRecords()
			},
			types: []any{new(func(*vars) []*marketdata.SpotRecord)},
		},
	}
}

// hiddenName returns the name the function is registered under in expr.
// A variable backed by a State lookup is registered as a function whose
// name starts with an underscore, which keeps it out of the way of rule
// authors: it is not documented and the checker rejects it in source.
func (f *function) hiddenName() string {
	if f.variable != "" {
		return "_" + f.variable
	}
	return f.doc.Name
}

// fetchedList returns a list of the State that covers every symbol
// (all_orders), or says that its part was not fetched: an empty list must
// mean "none", never "not looked at".
func fetchedList[T any](s *marketdata.State, part marketdata.Part, name, what string, list func(*marketdata.State) []T) ([]T, error) {
	if !s.Fetched(part) {
		return nil, &marketdata.MissingError{What: name, Reason: "no " + what + " were fetched"}
	}
	return list(s), nil
}

// toFloat reads a number argument, which the int overloads pass as int.
// fired reads the firings of the rule named name from the Env's Firings.
func fired(env any, name string) (int, time.Time, error) {
	f := env.(*vars).firings
	if f == nil {
		return 0, time.Time{}, fmt.Errorf("%w: the firings of rules (only a running engine, a dry run, a rule test or a backtest has them)", marketdata.ErrMissingData)
	}
	n, last, ok := f.Fired(name)
	if !ok {
		return 0, time.Time{}, fmt.Errorf("no rule is named %q", name)
	}
	return n, last, nil
}

func toFloat(v any) float64 {
	if i, ok := v.(int); ok {
		return float64(i)
	}
	return v.(float64)
}

func anySide(s string) string {
	if s == "any" {
		return ""
	}
	return s
}

// Functions returns the documentation of every helper function, in
// reference order.
func Functions() []FuncDoc {
	var out []FuncDoc
	for _, f := range functions() {
		if f.variable == "" {
			out = append(out, f.doc)
		}
	}
	return out
}
