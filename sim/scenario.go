package sim

import (
	"time"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/market"
)

// Scenario is everything the simulator starts from: the clock range, accounts
// with their balances, positions and orders, the contracts, price paths, stock
// pairs, the closure calendar, the records it serves, and fault injection.
// docs/scenarios.md documents every key; sim/scenario.schema.json is its JSON
// Schema. A Scenario is read-only once loaded: New copies what it mutates.
type Scenario struct {
	Name      string         `yaml:"name" json:"name"`
	Clock     ClockSpec      `yaml:"clock" json:"clock"`
	Settings  Settings       `yaml:"settings" json:"settings"`
	Accounts  []AccountSpec  `yaml:"accounts" json:"accounts"`
	Contracts []ContractSpec `yaml:"contracts" json:"contracts"`
	// Prices holds one price path per contract symbol. Map keys are only
	// looked up, never iterated in output order.
	Prices     map[string]market.PathSpec `yaml:"prices" json:"prices"`
	StockPairs []market.StockPairSpec     `yaml:"stock_pairs" json:"stock_pairs"`
	Calendar   market.CalendarSpec        `yaml:"calendar" json:"calendar"`
	// StrategyOrders are served to every account unless an item names one.
	StrategyOrders []StrategyOrderSpec `yaml:"strategy_orders" json:"strategy_orders"`
	DiscountTiers  []DiscountCoinSpec  `yaml:"discount_tiers" json:"discount_tiers"`
	Faults         Faults              `yaml:"faults" json:"faults"`

	// FundingHistory, when set, replaces Settings.FundingRate: the funding
	// settlements of each symbol (oldest first) charged at their own times
	// with their own rates, as a backtest on stored history replays them.
	// It is built in Go (backtest.LoadHistory), not read from YAML.
	FundingHistory map[string][]FundingSettlement `yaml:"-" json:"-"`

	// BaseDir is the directory relative file names (CSV price paths) resolve
	// against; Source names the file in messages. Neither is read from YAML.
	BaseDir string `yaml:"-" json:"-"`
	Source  string `yaml:"-" json:"-"`

	// doc is the parsed file, kept by ParseScenario so that a mistake
	// found when the market is built (a closure's date, a CSV price path)
	// names its line too.
	doc *yaml.Node
}

// ClockSpec is the simulated time range. Step is how far matching advances
// per evaluation when the simulator catches up with its clock (default 1s).
type ClockSpec struct {
	Start time.Time     `yaml:"start" json:"start"`
	End   time.Time     `yaml:"end" json:"end"`
	Step  time.Duration `yaml:"step" json:"step"`
}

// Settings are the simulator's choices where the spec says "not shown" or
// where sources disagree. Zero values mean the documented default.
type Settings struct {
	// OneWayTradeSide is what a tradeSide sent in one-way mode does: "reject"
	// (default, code 40774, as users observe) or "ignore" (as documented).
	OneWayTradeSide string `yaml:"one_way_trade_side" json:"one_way_trade_side"`
	// ModifyDelay is how long after an accepted size/price modify the new
	// order appears. 0 means at the next catch-up (the next call).
	ModifyDelay time.Duration `yaml:"modify_delay" json:"modify_delay"`
	// DefaultLeverage applies to symbols without an account leverage (default 10).
	DefaultLeverage decimal.Decimal `yaml:"default_leverage" json:"default_leverage"`
	// MaintenanceMarginRate enters the liquidation price formula (default 0.004).
	MaintenanceMarginRate decimal.Decimal `yaml:"maintenance_margin_rate" json:"maintenance_margin_rate"`
	// BookLevels is how deep market orders walk the synthetic book (default 40).
	BookLevels int `yaml:"book_levels" json:"book_levels"`
	// MaxCatchUpSteps bounds the work of one catch-up: when the clock jumped
	// further than MaxCatchUpSteps steps, the step is widened (default 100000).
	MaxCatchUpSteps int `yaml:"max_catch_up_steps" json:"max_catch_up_steps"`
	// FundingRate is the funding rate settled on every open position at the
	// venue's funding times, 00:00, 08:00 and 16:00 UTC: a positive rate has
	// longs pay rate × position value and shorts receive it (default 0: no
	// funding).
	FundingRate decimal.Decimal `yaml:"funding_rate" json:"funding_rate"`
}

// One-way tradeSide settings.
const (
	TradeSideReject = "reject"
	TradeSideIgnore = "ignore"
)

// Faults is the fault injection of a scenario. The HTTP server applies all of
// it except VisibilityDelay, which the core applies to its queries.
type Faults struct {
	Seed                int64         `yaml:"seed" json:"seed"`
	ErrorRate           float64       `yaml:"error_rate" json:"error_rate"` // fraction answered HTTP 500 (code 45001)
	Latency             time.Duration `yaml:"latency" json:"latency"`       // added before each response
	RateLimitBursts     []Window      `yaml:"rate_limit_bursts" json:"rate_limit_bursts"`
	DropRate            float64       `yaml:"drop_rate" json:"drop_rate"`                         // fraction of connections closed with no response
	DropAfterProcessing bool          `yaml:"drop_after_processing" json:"drop_after_processing"` // drop after the order was applied
	VisibilityDelay     time.Duration `yaml:"visibility_delay" json:"visibility_delay"`           // new orders show in queries only after this
}

// Window is a time range [Start, End).
type Window struct {
	Start time.Time `yaml:"start" json:"start"`
	End   time.Time `yaml:"end" json:"end"`
}

// Contains reports whether t is in [Start, End).
func (w Window) Contains(t time.Time) bool { return !t.Before(w.Start) && t.Before(w.End) }

// AccountSpec is one account of a scenario.
type AccountSpec struct {
	UID        string `yaml:"uid" json:"uid"`
	APIKey     string `yaml:"api_key" json:"api_key"`
	Secret     string `yaml:"secret" json:"secret"`
	Passphrase string `yaml:"passphrase" json:"passphrase"`
	// Permissions of the API key; omitted means every permission.
	Permissions []exchange.Permission `yaml:"permissions" json:"permissions"`
	// Balances per coin (USDT, USDC, BTC, ...).
	Balances map[string]decimal.Decimal `yaml:"balances" json:"balances"`
	// PositionMode per product type; omitted product types are one-way.
	PositionMode map[exchange.ProductType]exchange.PosMode `yaml:"position_mode" json:"position_mode"`
	// Leverage per symbol; omitted symbols use Settings.DefaultLeverage.
	Leverage       map[string]decimal.Decimal `yaml:"leverage" json:"leverage"`
	Positions      []PositionSpec             `yaml:"positions" json:"positions"`
	Orders         []OrderSpec                `yaml:"orders" json:"orders"`
	SpotRecords    []SpotRecordSpec           `yaml:"spot_records" json:"spot_records"`
	StrategyOrders []StrategyOrderSpec        `yaml:"strategy_orders" json:"strategy_orders"`
	// PositionHistory are positions the account closed before the start:
	// what rules read as closed trades, today's P&L and their counts.
	PositionHistory []ClosedPositionSpec `yaml:"position_history" json:"position_history"`
}

// ClosedPositionSpec is a position the account closed before the scenario
// starts, as the position history (history-position) records it. Its
// realised P&L is worked out from the prices as for any close; fees paid
// and funding received (negative when paid) make its net profit.
type ClosedPositionSpec struct {
	Symbol      string               `yaml:"symbol" json:"symbol"`
	ProductType exchange.ProductType `yaml:"product_type" json:"product_type"`
	HoldSide    exchange.HoldSide    `yaml:"hold_side" json:"hold_side"`
	Size        decimal.Decimal      `yaml:"size" json:"size"`
	OpenPrice   decimal.Decimal      `yaml:"open_price" json:"open_price"`
	ClosePrice  decimal.Decimal      `yaml:"close_price" json:"close_price"`
	Opened      time.Time            `yaml:"opened" json:"opened"`
	Closed      time.Time            `yaml:"closed" json:"closed"`
	Fees        decimal.Decimal      `yaml:"fees" json:"fees"`
	Funding     decimal.Decimal      `yaml:"funding" json:"funding"`
	MarginMode  exchange.MarginMode  `yaml:"margin_mode" json:"margin_mode"`
}

// PositionSpec is a position open at the scenario start.
type PositionSpec struct {
	Symbol      string               `yaml:"symbol" json:"symbol"`
	ProductType exchange.ProductType `yaml:"product_type" json:"product_type"`
	HoldSide    exchange.HoldSide    `yaml:"hold_side" json:"hold_side"`
	Size        decimal.Decimal      `yaml:"size" json:"size"`
	OpenPrice   decimal.Decimal      `yaml:"open_price" json:"open_price"`
	MarginMode  exchange.MarginMode  `yaml:"margin_mode" json:"margin_mode"`
}

// OrderSpec is an order placed at the scenario start, through the same rules
// as place-order.
type OrderSpec struct {
	Symbol      string               `yaml:"symbol" json:"symbol"`
	ProductType exchange.ProductType `yaml:"product_type" json:"product_type"`
	MarginMode  exchange.MarginMode  `yaml:"margin_mode" json:"margin_mode"`
	Side        exchange.Side        `yaml:"side" json:"side"`
	TradeSide   exchange.TradeSide   `yaml:"trade_side" json:"trade_side"`
	OrderType   exchange.OrderType   `yaml:"order_type" json:"order_type"`
	Price       exchange.Num         `yaml:"price" json:"price"`
	Size        exchange.Num         `yaml:"size" json:"size"`
	Force       exchange.Force       `yaml:"force" json:"force"`
	ClientOID   string               `yaml:"client_oid" json:"client_oid"`
	ReduceOnly  exchange.YesNo       `yaml:"reduce_only" json:"reduce_only"`
}

// ContractSpec is one futures contract: its product type and the fields of
// the contracts endpoint, written in snake_case (price_place, min_trade_usdt,
// is_rwa, ...).
type ContractSpec struct {
	ProductType exchange.ProductType `json:"productType"`
	exchange.Contract
}

// StrategyOrderSpec is one pending strategy order to serve: the record's
// fields in snake_case plus Account (a uid; empty serves it to every account)
// and Type, which must agree with the parameter list given.
type StrategyOrderSpec struct {
	Account string                `json:"account"`
	Type    exchange.StrategyType `json:"type"`
	exchange.StrategyOrder
}

// DiscountCoinSpec is the discount tiers of one coin (coin, list of
// tier_start_value and discount_rate).
type DiscountCoinSpec struct {
	exchange.DiscountCoin
}

// SpotRecordSpec is one spot financial record (id, coin, spot_tax_type,
// amount, fee, balance, biz_order_id, ts). An empty id is assigned in ts order.
type SpotRecordSpec struct {
	exchange.SpotRecord
}
