package exchange

// TradingPeriod is a US market session in which a stock pair can trade; it is
// also the state name in the market states response.
type TradingPeriod string

// US market sessions (Eastern Time).
const (
	PreMarket  TradingPeriod = "pre_market"  // 04:00-09:30
	Regular    TradingPeriod = "regular"     // 09:30-16:00
	AfterHours TradingPeriod = "after_hours" // 16:00-20:00
	Overnight  TradingPeriod = "overnight"   // 20:00-04:00 of the next day
)

var tradingPeriods = enum[TradingPeriod]{"tradingPeriod", []TradingPeriod{PreMarket, Regular, AfterHours, Overnight}}

// Valid reports whether p is a session of the spec.
func (p TradingPeriod) Valid() bool { return tradingPeriods.has(p) }

// TradingPeriods returns the four sessions in the order of a trading day.
func TradingPeriods() []TradingPeriod { return append([]TradingPeriod(nil), tradingPeriods.values...) }

// DaylightType is standard (winter time) or dst (summer time).
type DaylightType string

// Daylight types.
const (
	Standard DaylightType = "standard"
	DST      DaylightType = "dst"
)

var daylightTypes = enum[DaylightType]{"daylightType", []DaylightType{Standard, DST}}

// Valid reports whether d is a daylight type of the spec.
func (d DaylightType) Valid() bool { return daylightTypes.has(d) }

// YesNoLower is the lower-case yes/no of weekendTradable.
type YesNoLower string

// weekendTradable values.
const (
	LowerYes YesNoLower = "yes"
	LowerNo  YesNoLower = "no"
)

var weekendTradables = enum[YesNoLower]{"weekendTradable", []YesNoLower{LowerYes, LowerNo}}

// Valid reports whether y is yes or no.
func (y YesNoLower) Valid() bool { return weekendTradables.has(y) }
