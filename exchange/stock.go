package exchange

// This file holds the wire types of the US stock-pair market data: order
// book, platform fills, pair info, market states and the closure calendar.

// StockOrderBookRequest is the query of GET /api/v3/account/stock-orderbook.
type StockOrderBookRequest struct {
	Symbol string `json:"symbol"`
}

// PriceLevel is one [price, size] level of an order book.
type PriceLevel [2]Num

// Price returns the level's price.
func (l PriceLevel) Price() Num { return l[0] }

// Size returns the level's size.
func (l PriceLevel) Size() Num { return l[1] }

// StockOrderBook is the order-book snapshot of a stock pair: at most 40
// unmerged levels, asks ascending and bids descending by price.
type StockOrderBook struct {
	Symbol string       `json:"symbol"`
	Asks   []PriceLevel `json:"a"`
	Bids   []PriceLevel `json:"b"`
	TS     Millis       `json:"ts"`
}

// StockFillsRequest is the query of GET /api/v3/account/stock-fills.
type StockFillsRequest struct {
	Symbol string `json:"symbol"`
	Limit  int    `json:"limit,omitempty"`
}

// StockFill is one platform fill of a stock pair; Size is in base coin.
type StockFill struct {
	ExecID string `json:"execId"`
	Price  Num    `json:"price"`
	Size   Num    `json:"size"`
	Side   Side   `json:"side"`
	TS     Millis `json:"ts"`
}

// StockInfoRequest is the query of GET /api/v3/stock/market/stock-info. An
// empty Symbol returns every pair.
type StockInfoRequest struct {
	Symbol string `json:"symbol,omitempty"`
}

// StockInfo describes one stock pair.
type StockInfo struct {
	Symbol          string          `json:"symbol"`
	Code            string          `json:"code"`
	Name            string          `json:"name"`
	TradingPeriod   []TradingPeriod `json:"tradingPeriod"`
	WeekendTradable YesNoLower      `json:"weekendTradable"`
}

// SessionWindow is one item of stateList: a session and its local start and
// end times (HH:mm) in TimeZone.
type SessionWindow struct {
	State     TradingPeriod `json:"state"`
	TimeZone  string        `json:"timeZone"`
	StartTime string        `json:"startTime"`
	EndTime   string        `json:"endTime"`
}

// MarketState is one market of the states response (only US is supported).
type MarketState struct {
	Market       string          `json:"market"`
	DaylightType DaylightType    `json:"daylightType"`
	StateList    []SessionWindow `json:"stateList"`
}

// Closure is an irregular closure of the calendar (a holiday, for example);
// StartTime and EndTime are "YYYY-MM-DD HH:mm" in the calendar's time zone.
type Closure struct {
	Remark    string `json:"remark"`
	StartTime string `json:"startTime"`
	EndTime   string `json:"endTime"`
}

// Calendar is the closure calendar. TimeZone is always EST; RegularConfig
// lists recurring closure days as upper-case weekday names.
type Calendar struct {
	TimeZone       string    `json:"timeZone"`
	SpecificConfig []Closure `json:"specificConfig"`
	RegularConfig  []string  `json:"regularConfig"`
}
