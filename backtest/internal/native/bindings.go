package native

import (
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// bindings returns the typed form of every helper function of the rules
// package's table (rules/functions.go), by the name the patched tree calls
// it: the object lookups take the Need of the field that follows as an int
// and are called without expr's environment. Each calls what the VM's
// implementation calls, so both give the same values and errors; a helper
// missing here leaves the conditions that call it on the VM
// (TestEveryHelperIsBound).
func bindings() map[string]Helper {
	depth := func(side func(*marketdata.Stock, float64) float64) Helper {
		return Func2[string, float64, float64](func(st *marketdata.State, pair string, bps float64) (float64, error) {
			s, err := st.Stock(pair, marketdata.NeedBook)
			if err != nil {
				return 0, err
			}
			return side(s, bps), nil
		})
	}
	bookDepth := func(side func(*marketdata.FuturesBook, float64) float64) Helper {
		return Func2[string, float64, float64](func(st *marketdata.State, symbol string, bps float64) (float64, error) {
			b, err := st.FuturesBook(symbol)
			if err != nil {
				return 0, err
			}
			return side(b, bps), nil
		})
	}
	return map[string]Helper{
		"stock": Func2[string, int, *marketdata.Stock](func(s *marketdata.State, pair string, need int) (*marketdata.Stock, error) {
			return s.Stock(pair, marketdata.Need(need))
		}),
		"depth_bid": depth((*marketdata.Stock).DepthBid),
		"depth_ask": depth((*marketdata.Stock).DepthAsk),
		"ticker": Func2[string, int, *marketdata.Ticker](func(s *marketdata.State, symbol string, _ int) (*marketdata.Ticker, error) {
			return s.Ticker(symbol)
		}),
		"book": Func2[string, int, *marketdata.FuturesBook](func(s *marketdata.State, symbol string, _ int) (*marketdata.FuturesBook, error) {
			return s.FuturesBook(symbol)
		}),
		"book_depth_bid": bookDepth((*marketdata.FuturesBook).DepthBid),
		"book_depth_ask": bookDepth((*marketdata.FuturesBook).DepthAsk),
		"position": Func3[string, string, int, *marketdata.Position](func(s *marketdata.State, symbol, side string, need int) (*marketdata.Position, error) {
			return s.Position(symbol, side, marketdata.Need(need))
		}),
		"orders": Func1[string, []*marketdata.Order]((*marketdata.State).Orders),
		"orders_count": Func1[string, int](func(s *marketdata.State, symbol string) (int, error) {
			os, err := s.Orders(symbol)
			return len(os), err
		}),
		"strategy_orders": Func1[string, []*marketdata.StrategyOrder]((*marketdata.State).StrategyOrders),
		"has_stop_loss": Func2[string, string, bool](func(s *marketdata.State, symbol, side string) (bool, error) {
			return rules.StrategyStop(s, symbol, side, true)
		}),
		"has_take_profit": Func2[string, string, bool](func(s *marketdata.State, symbol, side string) (bool, error) {
			return rules.StrategyStop(s, symbol, side, false)
		}),
		"balance": Func2[string, int, *marketdata.Balance](func(s *marketdata.State, coin string, _ int) (*marketdata.Balance, error) {
			return s.Balance(coin)
		}),
		"position_mode": Func1[string, string](func(s *marketdata.State, pt string) (string, error) {
			return s.PositionMode(exchange.ProductType(pt))
		}),
		"discount_tiers": Func1[string, []*marketdata.DiscountTier]((*marketdata.State).DiscountTiers),
		"discount_rate":  Func2[string, float64, float64]((*marketdata.State).DiscountRate),
		"format": Func2[float64, int, string](func(_ *marketdata.State, x float64, places int) (string, error) {
			return rules.FormatNumber(x, places)
		}),
		"last_close": Func2[string, int, *marketdata.LastClose](func(s *marketdata.State, symbol string, _ int) (*marketdata.LastClose, error) {
			return s.LastClose(symbol)
		}),
		"closes_today": Func1[string, int](func(s *marketdata.State, symbol string) (int, error) {
			return s.ClosesToday(symbol, false)
		}),
		"losses_today": Func1[string, int](func(s *marketdata.State, symbol string) (int, error) {
			return s.ClosesToday(symbol, true)
		}),
		"pnl_today":        Func1[string, float64](rules.PnLToday),
		"equity_day_start": Func1[string, float64](rules.EquityDayStart),
		"minutes_until":    Func1[string, float64]((*marketdata.State).MinutesUntil),
		"minutes_since":    Func1[string, float64]((*marketdata.State).MinutesSince),

		// The variables backed by State lookups.
		"_market": Func1[int, *marketdata.Market](func(s *marketdata.State, need int) (*marketdata.Market, error) {
			return s.Market(marketdata.Need(need))
		}),
		"_positions":           Func0[[]*marketdata.Position]((*marketdata.State).Positions),
		"_all_orders":          Func0[[]*marketdata.Order](rules.AllOrders),
		"_all_strategy_orders": Func0[[]*marketdata.StrategyOrder](rules.AllStrategyOrders),
		"_spot_records":        Func0[[]*marketdata.SpotRecord]((*marketdata.State).SpotRecords),
		"_closed_trades":       Func0[[]*marketdata.LastClose]((*marketdata.State).ClosedList),
	}
}
