package rules

import (
	"reflect"
	"time"

	"github.com/expr-lang/expr/parser"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// ClosureCompiler compiles a checked condition or formula into Go code that
// gives what expr's VM gives, faster: the backtest's compiled conditions
// (backtest/internal/native), which only engine backtest turns on
// (LoadOptions.Closures). Without one - engine run, check and test - every
// program runs on expr's VM, the one evaluator the code that trades money
// uses.
type ClosureCompiler interface {
	// Compile compiles tree, checked (and optimized) with the
	// configuration of the VM program it stands for; expect is that
	// configuration's Expect, the kind expr converts the result to. An
	// error leaves the program on the VM: the same results, only slower.
	Compile(tree *parser.Tree, expect reflect.Kind) (ClosureProgram, error)
}

// ClosureProgram is a program a ClosureCompiler made. Run gives the value
// and the error expr's VM gives for the same program over env; an error is
// a *file.Error located where the VM locates it.
type ClosureProgram interface {
	Run(env *ClosureEnv) (any, error)
}

// ClosureEnv is what a ClosureProgram reads while it runs: the tick's State
// and the variables of the expression environment. Env keeps one beside
// its expr environment; it must not be shared between goroutines.
type ClosureEnv struct {
	State   *marketdata.State
	Now     time.Time // the tick's time in US Eastern time (variable now)
	NowMs   float64   // variable now_ms
	Weekday string    // variable weekday
	Symbol  string    // variable symbol, in a for_each rule
	// Item is the compiled code's own: the item a list test is looking at
	// (#), a pointer to an object.
	Item any
}

// The helpers below are the ones a ClosureCompiler calls where expr's VM
// calls this package's function table (functions.go), so that both
// evaluators share the logic and its error texts.

// FormatNumber is format(x, places).
func FormatNumber(x float64, places int) (string, error) { return formatNumber(x, places) }

// AllOrders is the variable all_orders: every pending order, or a
// *marketdata.MissingError when no pending orders were fetched.
func AllOrders(s *marketdata.State) ([]*marketdata.Order, error) {
	return fetchedList(s, marketdata.PartOrders, "all_orders", "pending orders", (*marketdata.State).AllOrders)
}

// AllStrategyOrders is the variable all_strategy_orders, as AllOrders.
func AllStrategyOrders(s *marketdata.State) ([]*marketdata.StrategyOrder, error) {
	return fetchedList(s, marketdata.PartStrategyOrders, "all_strategy_orders", "strategy orders", (*marketdata.State).AllStrategyOrders)
}

// PnLToday is pnl_today(product_type): the State's decimal figure as a
// condition's number.
func PnLToday(s *marketdata.State, productType string) (float64, error) {
	d, err := s.PnLTodayProduct(exchange.ProductType(productType))
	return d.InexactFloat64(), err
}

// EquityDayStart is equity_day_start(coin) as a condition's number.
func EquityDayStart(s *marketdata.State, coin string) (float64, error) {
	d, err := s.EquityDayStart(coin)
	return d.InexactFloat64(), err
}

// StrategyStop is has_stop_loss(symbol, side) when stop is set, else
// has_take_profit(symbol, side); side is long, short or any.
func StrategyStop(s *marketdata.State, symbol, side string, stop bool) (bool, error) {
	return s.HasStrategyStop(symbol, anySide(side), stop)
}
