package native

import (
	"reflect"
	"time"

	"github.com/expr-lang/expr/file"

	"github.com/tickrules/tickrules/marketdata"
)

// object is what compiled code can do with one object type of the State
// (stock, position, order...): read its fields, index a list of it, and run
// a list test over it. Each is an objectOf[T].
type object interface {
	field(name string, obj any, at file.Location) (any, bool)
	index(list any, i fn[int], at file.Location) (any, bool)
	length(list any) (any, bool)
	loop(name string, list any, test fn[bool], threshold *int) (any, bool)
	item() any
	pointerType() reflect.Type
}

// objectOf is the object type T with its fields by the names rules use
// (the expr tags).
type objectOf[T any] map[string]accessor[T]

// accessor reads one field of a T.
type accessor[T any] interface {
	read(obj fn[*T], at file.Location) any
}

// field reads a field of type F of a T.
type field[T, F any] func(*T) F

func get[T, F any](read func(*T) F) accessor[T] { return field[T, F](read) }

// read gives the field of the object obj gives. A nil object fails as it
// does in expr's VM.
func (f field[T, F]) read(obj fn[*T], at file.Location) any {
	return fn[F](func(e *Env) (F, error) {
		o, err := obj(e)
		if err != nil || o == nil {
			var zero F
			if err == nil {
				err = nilFieldError(at)
			}
			return zero, err
		}
		return f(o), nil
	})
}

func (o objectOf[T]) field(name string, obj any, at file.Location) (any, bool) {
	f, ok := o[name]
	x, ok2 := obj.(fn[*T])
	if !ok || !ok2 {
		return nil, false
	}
	return f.read(x, at), true
}

func (o objectOf[T]) index(list any, i fn[int], at file.Location) (any, bool) {
	l, ok := list.(fn[[]*T])
	if !ok {
		return nil, false
	}
	return index(l, i, at), true
}

func (o objectOf[T]) length(list any) (any, bool) {
	l, ok := list.(fn[[]*T])
	if !ok {
		return nil, false
	}
	return length(l), true
}

func (o objectOf[T]) loop(name string, list any, test fn[bool], threshold *int) (any, bool) {
	l, ok := list.(fn[[]*T])
	if !ok {
		return nil, false
	}
	return listTest(name, l, test, threshold)
}

// item is # inside a list test over Ts.
func (o objectOf[T]) item() any {
	return fn[*T](func(e *Env) (*T, error) { return e.Item.(*T), nil })
}

func (o objectOf[T]) pointerType() reflect.Type { return reflect.TypeFor[*T]() }

// objects returns the field tables of every object type of the State, by
// pointer type. Only the fields with an expr name are there: the rules
// package documents and accepts those alone. A test checks the table
// against the struct tags.
func objects() map[reflect.Type]object {
	out := map[reflect.Type]object{}
	add := func(o object) { out[o.pointerType()] = o }
	add(objectOf[marketdata.Market]{
		"session":                 get(func(x *marketdata.Market) string { return x.Session }),
		"is_open":                 get(func(x *marketdata.Market) bool { return x.IsOpen }),
		"is_holiday":              get(func(x *marketdata.Market) bool { return x.IsHoliday }),
		"is_weekend":              get(func(x *marketdata.Market) bool { return x.IsWeekend }),
		"holiday":                 get(func(x *marketdata.Market) string { return x.Holiday }),
		"minutes_since_open":      get(func(x *marketdata.Market) float64 { return x.MinutesSinceOpen }),
		"minutes_to_close":        get(func(x *marketdata.Market) float64 { return x.MinutesToClose }),
		"next_session":            get(func(x *marketdata.Market) string { return x.NextSession }),
		"next_session_start":      get(func(x *marketdata.Market) time.Time { return x.NextSessionStart }),
		"minutes_to_next_session": get(func(x *marketdata.Market) float64 { return x.MinutesToNextSession }),
		"dst":                     get(func(x *marketdata.Market) bool { return x.DST }),
	})
	add(objectOf[marketdata.Stock]{
		"symbol":                 get(func(x *marketdata.Stock) string { return x.Symbol }),
		"code":                   get(func(x *marketdata.Stock) string { return x.Code }),
		"name":                   get(func(x *marketdata.Stock) string { return x.Name }),
		"trading_periods":        get(func(x *marketdata.Stock) []string { return x.TradingPeriods }),
		"weekend_tradable":       get(func(x *marketdata.Stock) bool { return x.WeekendTradable }),
		"tradable_now":           get(func(x *marketdata.Stock) bool { return x.TradableNow }),
		"bid":                    get(func(x *marketdata.Stock) float64 { return x.Bid }),
		"ask":                    get(func(x *marketdata.Stock) float64 { return x.Ask }),
		"mid":                    get(func(x *marketdata.Stock) float64 { return x.Mid }),
		"spread":                 get(func(x *marketdata.Stock) float64 { return x.Spread }),
		"spread_bps":             get(func(x *marketdata.Stock) float64 { return x.SpreadBps }),
		"bid_size":               get(func(x *marketdata.Stock) float64 { return x.BidSize }),
		"ask_size":               get(func(x *marketdata.Stock) float64 { return x.AskSize }),
		"imbalance":              get(func(x *marketdata.Stock) float64 { return x.Imbalance }),
		"book_age_seconds":       get(func(x *marketdata.Stock) float64 { return x.BookAgeSeconds }),
		"last_price":             get(func(x *marketdata.Stock) float64 { return x.LastPrice }),
		"last_trade_age_seconds": get(func(x *marketdata.Stock) float64 { return x.LastTradeAgeSeconds }),
		"volume":                 get(func(x *marketdata.Stock) float64 { return x.Volume }),
		"trades_count":           get(func(x *marketdata.Stock) int { return x.TradesCount }),
		"vwap":                   get(func(x *marketdata.Stock) float64 { return x.VWAP }),
	})
	add(objectOf[marketdata.Position]{
		"symbol":             get(func(x *marketdata.Position) string { return x.Symbol }),
		"side":               get(func(x *marketdata.Position) string { return x.Side }),
		"product_type":       get(func(x *marketdata.Position) string { return x.ProductType }),
		"is_open":            get(func(x *marketdata.Position) bool { return x.IsOpen }),
		"size":               get(func(x *marketdata.Position) float64 { return x.Size }),
		"unrealized_pnl":     get(func(x *marketdata.Position) float64 { return x.UnrealizedPnL }),
		"available":          get(func(x *marketdata.Position) float64 { return x.Available }),
		"entry_price":        get(func(x *marketdata.Position) float64 { return x.EntryPrice }),
		"mark_price":         get(func(x *marketdata.Position) float64 { return x.MarkPrice }),
		"unrealized_pnl_pct": get(func(x *marketdata.Position) float64 { return x.UnrealizedPnLPct }),
		"roe":                get(func(x *marketdata.Position) float64 { return x.ROE }),
		"leverage":           get(func(x *marketdata.Position) float64 { return x.Leverage }),
		"margin_mode":        get(func(x *marketdata.Position) string { return x.MarginMode }),
		"margin_coin":        get(func(x *marketdata.Position) string { return x.MarginCoin }),
		"margin":             get(func(x *marketdata.Position) float64 { return x.Margin }),
		"liquidation_price":  get(func(x *marketdata.Position) float64 { return x.LiquidationPrice }),
		"break_even_price":   get(func(x *marketdata.Position) float64 { return x.BreakEvenPrice }),
		"position_mode":      get(func(x *marketdata.Position) string { return x.PositionMode }),
		"age_seconds":        get(func(x *marketdata.Position) float64 { return x.AgeSeconds }),
	})
	add(objectOf[marketdata.Order]{
		"id":           get(func(x *marketdata.Order) string { return x.ID }),
		"client_oid":   get(func(x *marketdata.Order) string { return x.ClientOID }),
		"symbol":       get(func(x *marketdata.Order) string { return x.Symbol }),
		"product_type": get(func(x *marketdata.Order) string { return x.ProductType }),
		"side":         get(func(x *marketdata.Order) string { return x.Side }),
		"trade_side":   get(func(x *marketdata.Order) string { return x.TradeSide }),
		"pos_side":     get(func(x *marketdata.Order) string { return x.PosSide }),
		"order_type":   get(func(x *marketdata.Order) string { return x.OrderType }),
		"force":        get(func(x *marketdata.Order) string { return x.Force }),
		"price":        get(func(x *marketdata.Order) float64 { return x.Price }),
		"size":         get(func(x *marketdata.Order) float64 { return x.Size }),
		"filled":       get(func(x *marketdata.Order) float64 { return x.Filled }),
		"remaining":    get(func(x *marketdata.Order) float64 { return x.Remaining }),
		"status":       get(func(x *marketdata.Order) string { return x.Status }),
		"take_profit":  get(func(x *marketdata.Order) float64 { return x.TakeProfit }),
		"stop_loss":    get(func(x *marketdata.Order) float64 { return x.StopLoss }),
		"age_seconds":  get(func(x *marketdata.Order) float64 { return x.AgeSeconds }),
	})
	add(objectOf[marketdata.StrategyOrder]{
		"id":                  get(func(x *marketdata.StrategyOrder) string { return x.ID }),
		"client_oid":          get(func(x *marketdata.StrategyOrder) string { return x.ClientOID }),
		"symbol":              get(func(x *marketdata.StrategyOrder) string { return x.Symbol }),
		"category":            get(func(x *marketdata.StrategyOrder) string { return x.Category }),
		"type":                get(func(x *marketdata.StrategyOrder) string { return x.Type }),
		"side":                get(func(x *marketdata.StrategyOrder) string { return x.Side }),
		"size":                get(func(x *marketdata.StrategyOrder) float64 { return x.Size }),
		"status":              get(func(x *marketdata.StrategyOrder) string { return x.Status }),
		"take_profit":         get(func(x *marketdata.StrategyOrder) float64 { return x.TakeProfit }),
		"stop_loss":           get(func(x *marketdata.StrategyOrder) float64 { return x.StopLoss }),
		"tp_trigger_by":       get(func(x *marketdata.StrategyOrder) string { return x.TPTriggerBy }),
		"sl_trigger_by":       get(func(x *marketdata.StrategyOrder) string { return x.SLTriggerBy }),
		"tp_order_type":       get(func(x *marketdata.StrategyOrder) string { return x.TPOrderType }),
		"sl_order_type":       get(func(x *marketdata.StrategyOrder) string { return x.SLOrderType }),
		"tp_limit_price":      get(func(x *marketdata.StrategyOrder) float64 { return x.TPLimitPrice }),
		"sl_limit_price":      get(func(x *marketdata.StrategyOrder) float64 { return x.SLLimitPrice }),
		"trigger_by":          get(func(x *marketdata.StrategyOrder) string { return x.TriggerBy }),
		"trigger_price":       get(func(x *marketdata.StrategyOrder) float64 { return x.TriggerPrice }),
		"trigger_order_type":  get(func(x *marketdata.StrategyOrder) string { return x.TriggerOrderType }),
		"trigger_order_price": get(func(x *marketdata.StrategyOrder) float64 { return x.TriggerOrderPrice }),
		"age_seconds":         get(func(x *marketdata.StrategyOrder) float64 { return x.AgeSeconds }),
		"oco":                 get(func(x *marketdata.StrategyOrder) []*marketdata.OCOLeg { return x.OCO }),
		"trailing_stop":       get(func(x *marketdata.StrategyOrder) []*marketdata.TrailingStop { return x.TrailingStop }),
		"iceberg":             get(func(x *marketdata.StrategyOrder) []*marketdata.Iceberg { return x.Iceberg }),
		"twap":                get(func(x *marketdata.StrategyOrder) []*marketdata.TWAP { return x.TWAP }),
	})
	add(objectOf[marketdata.OCOLeg]{
		"limit_price":   get(func(x *marketdata.OCOLeg) float64 { return x.LimitPrice }),
		"trigger_price": get(func(x *marketdata.OCOLeg) float64 { return x.TriggerPrice }),
		"order_type":    get(func(x *marketdata.OCOLeg) string { return x.OrderType }),
		"order_price":   get(func(x *marketdata.OCOLeg) float64 { return x.OrderPrice }),
	})
	add(objectOf[marketdata.TrailingStop]{
		"activation_price": get(func(x *marketdata.TrailingStop) float64 { return x.ActivationPrice }),
		"activation_type":  get(func(x *marketdata.TrailingStop) string { return x.ActivationType }),
		"trail_type":       get(func(x *marketdata.TrailingStop) string { return x.TrailType }),
		"trail_variance":   get(func(x *marketdata.TrailingStop) float64 { return x.TrailVariance }),
		"order_type":       get(func(x *marketdata.TrailingStop) string { return x.OrderType }),
		"order_price":      get(func(x *marketdata.TrailingStop) float64 { return x.OrderPrice }),
	})
	add(objectOf[marketdata.Iceberg]{
		"split_mode":          get(func(x *marketdata.Iceberg) string { return x.SplitMode }),
		"qty_per_order":       get(func(x *marketdata.Iceberg) float64 { return x.QtyPerOrder }),
		"split_order_numbers": get(func(x *marketdata.Iceberg) float64 { return x.SplitOrderNumbers }),
		"order_preference":    get(func(x *marketdata.Iceberg) string { return x.OrderPreference }),
		"execution_strategy":  get(func(x *marketdata.Iceberg) string { return x.ExecutionStrategy }),
		"distance":            get(func(x *marketdata.Iceberg) float64 { return x.Distance }),
		"fixed_price":         get(func(x *marketdata.Iceberg) float64 { return x.FixedPrice }),
		"price_limit":         get(func(x *marketdata.Iceberg) float64 { return x.PriceLimit }),
	})
	add(objectOf[marketdata.TWAP]{
		"duration_minutes":  get(func(x *marketdata.TWAP) float64 { return x.DurationMinutes }),
		"interval_seconds":  get(func(x *marketdata.TWAP) float64 { return x.IntervalSeconds }),
		"order_type":        get(func(x *marketdata.TWAP) string { return x.OrderType }),
		"trigger_price":     get(func(x *marketdata.TWAP) float64 { return x.TriggerPrice }),
		"termination_price": get(func(x *marketdata.TWAP) float64 { return x.TerminatePrice }),
	})
	add(objectOf[marketdata.Balance]{
		"margin_coin":            get(func(x *marketdata.Balance) string { return x.MarginCoin }),
		"product_type":           get(func(x *marketdata.Balance) string { return x.ProductType }),
		"available":              get(func(x *marketdata.Balance) float64 { return x.Available }),
		"locked":                 get(func(x *marketdata.Balance) float64 { return x.Locked }),
		"equity":                 get(func(x *marketdata.Balance) float64 { return x.Equity }),
		"unrealized_pnl":         get(func(x *marketdata.Balance) float64 { return x.UnrealizedPnL }),
		"crossed_max_available":  get(func(x *marketdata.Balance) float64 { return x.CrossedMaxAvailable }),
		"isolated_max_available": get(func(x *marketdata.Balance) float64 { return x.IsolatedMaxAvailable }),
		"position_mode":          get(func(x *marketdata.Balance) string { return x.PositionMode }),
	})
	add(objectOf[marketdata.DiscountTier]{
		"start_value": get(func(x *marketdata.DiscountTier) float64 { return x.StartValue }),
		"rate":        get(func(x *marketdata.DiscountTier) float64 { return x.Rate }),
	})
	add(objectOf[marketdata.SpotRecord]{
		"id":           get(func(x *marketdata.SpotRecord) string { return x.ID }),
		"coin":         get(func(x *marketdata.SpotRecord) string { return x.Coin }),
		"type":         get(func(x *marketdata.SpotRecord) string { return x.Type }),
		"amount":       get(func(x *marketdata.SpotRecord) float64 { return x.Amount }),
		"fee":          get(func(x *marketdata.SpotRecord) float64 { return x.Fee }),
		"balance":      get(func(x *marketdata.SpotRecord) float64 { return x.Balance }),
		"biz_order_id": get(func(x *marketdata.SpotRecord) string { return x.BizOrderID }),
		"time":         get(func(x *marketdata.SpotRecord) time.Time { return x.Time }),
		"age_seconds":  get(func(x *marketdata.SpotRecord) float64 { return x.AgeSeconds }),
	})
	return out
}
