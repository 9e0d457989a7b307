package ruletest

import (
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// File is one *_test.yaml file.
type File struct {
	// Path is the file as named on the command line or found in a directory.
	Path string `yaml:"-"`
	// RuleFiles are the rule files under test, relative to the test file;
	// empty means every rule file in the test file's directory.
	RuleFiles []string `yaml:"rule_files"`
	// Scenario is a scenario file (relative to the test file) whose
	// contracts, stock pairs, market states and calendar the tests use;
	// empty means the built-in demo scenario.
	Scenario string `yaml:"scenario"`
	// Env gives ${NAME} references in the rule files their values; a name
	// not listed here is read from the environment (Options.Getenv).
	Env map[string]string `yaml:"env"`
	// Tick is the time between engine evaluations (default 1s).
	Tick  Duration `yaml:"tick"`
	Tests []*Test  `yaml:"tests"`
}

// Test is one named test.
type Test struct {
	Name string `yaml:"name"`
	// Start is the first tick; End the last (default: one minute after the
	// latest time the test names).
	Start When `yaml:"start"`
	End   When `yaml:"end"`
	// State is the state at Start.
	State State `yaml:"state"`
	// Fired are the rules' firings before Start, by rule name, for rules
	// that read firings_today or minutes_since_fired.
	Fired map[string]*Fired `yaml:"fired"`
	// Changes apply at their times and hold until a later change.
	Changes []*Change `yaml:"changes"`
	Expect  []*Expect `yaml:"expect"`

	line, column int
}

// Fired is how a rule fired before a test starts: how often on the start's
// New York day (Today) and when last (Last, at or before the start). A
// rule given here starts in its cooldown from Last, as after a firing.
type Fired struct {
	Today int  `yaml:"today"`
	Last  When `yaml:"last"`

	line, column int
}

// State is the account and market data of a test, in readable form. Every
// part is optional. Stocks, positions, balances and position modes given in
// a change are merged into what is held (by stock, by symbol and side, by
// coin, by product type); orders and strategy orders given in a change
// replace every order of their kind.
type State struct {
	// Account, in a test's state only, is the uid of an account of the
	// file's scenario whose positions, orders, strategy orders, balances and
	// position modes, as the simulator serves them at the scenario's start,
	// are the test's starting account; the other keys of the state are
	// applied on top of it.
	Account string `yaml:"account"`
	// Stocks by stock code (TSLA) or pair symbol (TSLAUSDT).
	Stocks    map[string]*Stock `yaml:"stocks"`
	Positions []*Position       `yaml:"positions"`
	// Orders are the pending futures orders. A nil list (not written) keeps
	// what is held; an empty list ([]) removes every order.
	Orders []*Order `yaml:"orders"`
	// StrategyOrders are the pending strategy orders (take-profit/stop-loss
	// and trigger orders). Like Orders, nil keeps what is held and an empty
	// list removes them all.
	StrategyOrders []*StrategyOrder `yaml:"strategy_orders"`
	// Balances by margin coin (USDT, USDC, BTC).
	Balances map[string]*Balance `yaml:"balances"`
	// SpotRecords are the account's spot financial records (what
	// spot_records reads). Like Orders, a nil list keeps what is held and
	// an empty list removes them all; a test that never gives them has
	// none fetched.
	SpotRecords []*SpotRecord `yaml:"spot_records"`
	// ClosedTrades are the positions the account closed (what last_close,
	// closes_today, losses_today and pnl_today read from the venue's
	// position history). Like Orders, a nil list keeps what is held and
	// an empty list removes them all; a test that never gives them has an
	// account that closed nothing.
	ClosedTrades []*ClosedTrade `yaml:"closed_trades"`
	// PositionMode by product type: one_way or hedge (default one_way).
	PositionMode map[string]string `yaml:"position_mode"`
	// Futures by contract symbol (BTCUSDT): the ticker and book of the
	// contract, merged field by field into what is held.
	Futures map[string]*Futures `yaml:"futures"`
}

// Stock is the order book top and last trade of a stock pair.
type Stock struct {
	Bid     Num `yaml:"bid"`
	Ask     Num `yaml:"ask"`
	BidSize Num `yaml:"bid_size"` // default 1
	AskSize Num `yaml:"ask_size"` // default 1
	// Bids and Asks are deeper levels below the bid and above the ask, each
	// [price, size].
	Bids [][2]Num `yaml:"bids"`
	Asks [][2]Num `yaml:"asks"`
	// Last is the price of a platform fill at the time it was set.
	Last     Num `yaml:"last"`
	LastSize Num `yaml:"last_size"` // default 1
}

// Position is an open futures position.
type Position struct {
	Symbol string `yaml:"symbol"`
	Side   string `yaml:"side"` // long or short
	// Size 0 in a change closes the held position.
	Size  Num `yaml:"size"`
	Entry Num `yaml:"entry"`
	Mark  Num `yaml:"mark"` // default: the entry price
	// UnrealizedPnL defaults to (mark - entry) * size, negated for short.
	UnrealizedPnL Num      `yaml:"unrealized_pnl"`
	Leverage      Num      `yaml:"leverage"`    // default 10
	MarginMode    string   `yaml:"margin_mode"` // default crossed
	Age           Duration `yaml:"age"`         // how long it has been open at the time it was set

	line, column int
}

// Order is a pending futures order.
type Order struct {
	Symbol    string   `yaml:"symbol"`
	Side      string   `yaml:"side"` // buy or sell
	TradeSide string   `yaml:"trade_side"`
	Type      string   `yaml:"type"` // default limit
	Size      Num      `yaml:"size"`
	Price     Num      `yaml:"price"`
	Filled    Num      `yaml:"filled"`
	ID        string   `yaml:"id"`
	ClientOID string   `yaml:"client_oid"`
	Age       Duration `yaml:"age"` // at the time it was set
	// Modifications is how often the engine had already moved the order
	// (its .modifications), as a restart would find it; only in the
	// test's state, not in a change.
	Modifications int `yaml:"modifications"`

	line, column int
}

// StrategyOrder is a pending strategy order of the unified account, as the
// unfilled-strategy-orders record carries it. Only the tpsl and trigger
// types can be written inline: the other types carry parameter lists that
// a test takes from a scenario account instead (State.Account).
type StrategyOrder struct {
	Symbol string `yaml:"symbol"`
	// Side is the position side the order works on (the record's posSide):
	// long or short.
	Side string `yaml:"side"`
	// Type is tpsl or trigger; default tpsl when a stop-loss or take-profit
	// is given, trigger otherwise.
	Type         string   `yaml:"type"`
	Size         Num      `yaml:"size"` // the record's qty
	StopLoss     Num      `yaml:"stop_loss"`
	TakeProfit   Num      `yaml:"take_profit"`
	TriggerPrice Num      `yaml:"trigger_price"`
	Status       string   `yaml:"status"` // default pending
	ID           string   `yaml:"id"`
	ClientOID    string   `yaml:"client_oid"`
	Age          Duration `yaml:"age"` // at the time it was set

	line, column int
}

// SpotRecord is one spot financial record, in the names a rule reads it
// by (spot_records[0].type, .amount...).
type SpotRecord struct {
	Coin string `yaml:"coin"`
	// Type is the venue's spotTaxType: Deposit, Withdrawal, Buy, Sell...
	Type string `yaml:"type"`
	// Amount is signed: positive for what came in, negative for what went
	// out, as the venue books it.
	Amount     Num    `yaml:"amount"`
	Fee        Num    `yaml:"fee"`     // default 0; a fee paid is negative
	Balance    Num    `yaml:"balance"` // the coin's balance after it; default 0
	BizOrderID string `yaml:"biz_order_id"`
	ID         string `yaml:"id"`
	// Age is how long before the time it was set it was booked.
	Age Duration `yaml:"age"`

	line, column int
}

// ClosedTrade is one closed position, in the names a rule reads it by
// (last_close("TSLAUSDT").pnl, .side...).
type ClosedTrade struct {
	Symbol string `yaml:"symbol"`
	Side   string `yaml:"side"` // long or short: the side of the position that closed
	Size   Num    `yaml:"size"`
	// PnL is what the position made after its fees and funding (the
	// venue's netProfit); below 0 for a loss.
	PnL     Num `yaml:"pnl"`
	Fees    Num `yaml:"fees"`    // default 0; fees paid are negative
	Funding Num `yaml:"funding"` // default 0; funding paid is negative
	// Age is how long before the time it was set it closed: a trade
	// given at 10:00 with age: 30m closed at 09:30.
	Age Duration `yaml:"age"`
	// How is how it closed (what last_close(...).how reads): rule,
	// take-profit, stop-loss, trailing-stop, liquidation, trigger,
	// delivery or by hand; none: unknown.
	How string `yaml:"how"`

	line, column int
}

// Balance is the futures account of one margin coin.
type Balance struct {
	Available Num `yaml:"available"`
	Locked    Num `yaml:"locked"`
	Equity    Num `yaml:"equity"` // default available + locked
}

// Change is new values from a time on.
type Change struct {
	At    When  `yaml:"at"`
	State State `yaml:",inline"`

	line, column int
}

// Expect is what one rule is expected to do during the test.
type Expect struct {
	Rule string `yaml:"rule"`
	// Fires, when written, lists every firing of the rule in the test (or in
	// Window): one more or one less is a failure. fires: [] means never.
	Fires []*Firing `yaml:"fires"`
	// DoesNotFire, when written, is a window in which the rule must not fire.
	DoesNotFire *Window `yaml:"does_not_fire"`

	firesGiven   bool
	line, column int
}

// Firing is one expected firing.
type Firing struct {
	At When `yaml:"at"`
	// Actions, when written, are compared leg by leg with what the firing
	// sent: same kinds in the same order, and each parameter written here
	// equal in the request (parameters not written are not compared).
	Actions []*ActionExpect `yaml:"actions"`
	// Logs, when written, are the messages of every log action of the
	// firing, in order, each compared as the whole text written out (the
	// other actions are not compared). logs: [] means the firing wrote none.
	Logs []string `yaml:"logs"`

	line, column int
}

// Window is a span of test time; an open end is the test's start or end.
type Window struct {
	From When `yaml:"from"`
	To   When `yaml:"to"`
}

// ActionExpect is one expected action: its kind as written in rule files and
// the request parameters to compare.
type ActionExpect struct {
	Kind   string
	Params []Param

	line, column int
}

// Param is one expected parameter; Value is a scalar text or, for a batch's
// orders, a list of parameter lists.
type Param struct {
	Key    string
	Value  string
	Items  [][]Param
	IsList bool

	line, column int
}

// Num is a decimal number as written (kept as text, never a float).
type Num string

// When is a time as written: "09:31", "09:31:30", "+90s", "2026-03-09
// 09:31" (New York time) or RFC 3339. It is resolved against the test's start.
type When struct {
	Text         string
	T            time.Time
	line, column int
}

// Duration is a Go duration as written ("30s", "5m", "1h30m").
type Duration struct {
	D            time.Duration
	line, column int
}

// UnmarshalYAML keeps the text and position; the time is resolved later.
func (w *When) UnmarshalYAML(n *yaml.Node) error {
	w.Text, w.line, w.column = n.Value, n.Line, n.Column
	return nil
}

// UnmarshalYAML parses a duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	d.line, d.column = n.Line, n.Column
	if _, err := strconv.ParseFloat(n.Value, 64); err == nil && n.Value != "0" {
		// A bare number is the commonest slip: the rule reads age_seconds,
		// so seconds seem implied, but a test's durations carry their unit.
		return &posError{n.Line, n.Column, n.Value + " has no unit",
			fmt.Sprintf("write %ss for seconds, %sm for minutes or %sh for hours", n.Value, n.Value, n.Value)}
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return &posError{n.Line, n.Column, "not a duration: " + n.Value, `write a number and a unit, like 30s, 5m or 1h30m`}
	}
	if v < 0 {
		return &posError{n.Line, n.Column, "a duration cannot be negative", ""}
	}
	d.D = v
	return nil
}
