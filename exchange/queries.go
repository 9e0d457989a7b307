package exchange

import "cmp"

// This file holds the wire types of the futures order queries: order detail,
// fills, fill history, pending orders and order history. Query structs use
// their json tags as query parameter names; empty fields are not sent.

// OrderDetailRequest is the query of GET /api/v2/mix/order/detail.
type OrderDetailRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	OrderID     string      `json:"orderId,omitempty"`
	ClientOID   string      `json:"clientOid,omitempty"`
}

// OrderDetail is the futures order record of the order detail response. Its
// state field is named state; the list endpoints call it status.
type OrderDetail struct {
	Symbol                 string           `json:"symbol"`
	Size                   Num              `json:"size"`
	OrderID                string           `json:"orderId"`
	ClientOID              string           `json:"clientOid"`
	BaseVolume             Num              `json:"baseVolume"`
	QuoteVolume            Num              `json:"quoteVolume"`
	PriceAvg               Num              `json:"priceAvg"`
	Fee                    Num              `json:"fee"`
	Price                  Num              `json:"price"`
	State                  OrderState       `json:"state"`
	Side                   Side             `json:"side"`
	Force                  Force            `json:"force"`
	TotalProfits           Num              `json:"totalProfits"`
	PosSide                PosSide          `json:"posSide"`
	MarginCoin             string           `json:"marginCoin"`
	PresetStopSurplusPrice Num              `json:"presetStopSurplusPrice"`
	PresetStopLossPrice    Num              `json:"presetStopLossPrice"`
	OrderType              OrderType        `json:"orderType"`
	Leverage               Num              `json:"leverage"`
	MarginMode             MarginMode       `json:"marginMode"`
	ReduceOnly             YesNo            `json:"reduceOnly"`
	EnterPointSource       EnterPointSource `json:"enterPointSource"`
	TradeSide              TradeSide        `json:"tradeSide"`
	NewTradeSide           *TradeSide       `json:"newTradeSide"`
	PosMode                PosMode          `json:"posMode"`
	OrderSource            OrderSource      `json:"orderSource"`
	CancelReason           CancelReason     `json:"cancelReason"`
	CTime                  Millis           `json:"cTime"`
	UTime                  Millis           `json:"uTime"`
	PresetTriggers
}

// PresetTriggers are the trigger types and execute prices of an order's
// preset take-profit and stop-loss. Sources disagree on the keys: the spec
// and the pending-order docs write presetStopSurplusTriggerType, the venue's
// order-detail docs presetStopSurplusType (exchange/testdata/venue). Both
// are decoded; StopSurplusTriggerType and StopLossTriggerType read
// whichever came.
type PresetTriggers struct {
	PresetStopSurplusTriggerType  string `json:"presetStopSurplusTriggerType,omitempty"`
	PresetStopSurplusType         string `json:"presetStopSurplusType,omitempty"`
	PresetStopSurplusExecutePrice Num    `json:"presetStopSurplusExecutePrice,omitempty"`
	PresetStopLossTriggerType     string `json:"presetStopLossTriggerType,omitempty"`
	PresetStopLossType            string `json:"presetStopLossType,omitempty"`
	PresetStopLossExecutePrice    Num    `json:"presetStopLossExecutePrice,omitempty"`
}

// StopSurplusTriggerType returns the take-profit trigger type under either key.
func (p PresetTriggers) StopSurplusTriggerType() string {
	return cmp.Or(p.PresetStopSurplusTriggerType, p.PresetStopSurplusType)
}

// StopLossTriggerType returns the stop-loss trigger type under either key.
func (p PresetTriggers) StopLossTriggerType() string {
	return cmp.Or(p.PresetStopLossTriggerType, p.PresetStopLossType)
}

// ListOrder holds the fields that pending-order and history-order records share.
type ListOrder struct {
	Symbol                 string           `json:"symbol"`
	Size                   Num              `json:"size"`
	OrderID                string           `json:"orderId"`
	ClientOID              string           `json:"clientOid"`
	BaseVolume             Num              `json:"baseVolume"`
	Fee                    Num              `json:"fee"`
	Price                  Num              `json:"price"`
	PriceAvg               Num              `json:"priceAvg"`
	Status                 OrderState       `json:"status"`
	Side                   Side             `json:"side"`
	Force                  Force            `json:"force"`
	TotalProfits           Num              `json:"totalProfits"`
	PosSide                PosSide          `json:"posSide"`
	MarginCoin             string           `json:"marginCoin"`
	QuoteVolume            Num              `json:"quoteVolume"`
	Leverage               Num              `json:"leverage"`
	MarginMode             MarginMode       `json:"marginMode"`
	EnterPointSource       EnterPointSource `json:"enterPointSource"`
	TradeSide              TradeSide        `json:"tradeSide"`
	PosMode                PosMode          `json:"posMode"`
	OrderType              OrderType        `json:"orderType"`
	OrderSource            OrderSource      `json:"orderSource"`
	CTime                  Millis           `json:"cTime"`
	UTime                  Millis           `json:"uTime"`
	PresetStopSurplusPrice Num              `json:"presetStopSurplusPrice"`
	PresetStopLossPrice    Num              `json:"presetStopLossPrice"`
}

// PendingOrder is an item of entrustedList in orders-pending.
type PendingOrder struct {
	ListOrder
	PresetStopSurplusTriggerType  string `json:"presetStopSurplusTriggerType"`
	PresetStopSurplusExecutePrice Num    `json:"presetStopSurplusExecutePrice"`
	PresetStopLossTriggerType     string `json:"presetStopLossTriggerType"`
	PresetStopLossExecutePrice    Num    `json:"presetStopLossExecutePrice"`
	// PresetStopSurplusType and PresetStopLossType are the same trigger
	// types under the order-detail docs' keys (see PresetTriggers).
	PresetStopSurplusType string `json:"presetStopSurplusType,omitempty"`
	PresetStopLossType    string `json:"presetStopLossType,omitempty"`
}

// StopSurplusTriggerType returns the take-profit trigger type under either
// key: the venue's pending-order answers use presetStopSurplusType, the
// spec presetStopSurplusTriggerType (exchange/testdata/venue).
func (o PendingOrder) StopSurplusTriggerType() string {
	return cmp.Or(o.PresetStopSurplusTriggerType, o.PresetStopSurplusType)
}

// StopLossTriggerType returns the stop-loss trigger type under either key.
func (o PendingOrder) StopLossTriggerType() string {
	return cmp.Or(o.PresetStopLossTriggerType, o.PresetStopLossType)
}

// HistoryOrder is an item of entrustedList in orders-history.
type HistoryOrder struct {
	ListOrder
	ReduceOnly YesNo `json:"reduceOnly"`
	PosAvg     Num   `json:"posAvg"`
	LiqPrice   Num   `json:"liqPrice"`
}

// FeeDetail is an item of feeDetail in a fill record.
type FeeDetail struct {
	Deduction         string `json:"deduction"`
	FeeCoin           string `json:"feeCoin"`
	TotalDeductionFee Num    `json:"totalDeductionFee"`
	TotalFee          Num    `json:"totalFee"`
}

// Fill is an item of fillList in fills and fill-history.
type Fill struct {
	TradeID          string           `json:"tradeId"`
	Symbol           string           `json:"symbol"`
	MarginCoin       string           `json:"marginCoin,omitempty"`
	OrderID          string           `json:"orderId"`
	Price            Num              `json:"price"`
	BaseVolume       Num              `json:"baseVolume"`
	QuoteVolume      Num              `json:"quoteVolume"`
	FeeDetail        []FeeDetail      `json:"feeDetail"`
	Side             Side             `json:"side"`
	Profit           Num              `json:"profit"`
	EnterPointSource EnterPointSource `json:"enterPointSource"`
	TradeSide        TradeSide        `json:"tradeSide"`
	PosMode          PosMode          `json:"posMode"`
	TradeScope       string           `json:"tradeScope"`
	CTime            Millis           `json:"cTime"`
}

// FillsRequest is the query of GET /api/v2/mix/order/fills.
type FillsRequest struct {
	ProductType ProductType `json:"productType"`
	OrderID     string      `json:"orderId,omitempty"`
	Symbol      string      `json:"symbol,omitempty"`
	IDLessThan  string      `json:"idLessThan,omitempty"`
	StartTime   Millis      `json:"startTime,omitempty"`
	EndTime     Millis      `json:"endTime,omitempty"`
	Limit       int         `json:"limit,omitempty"`
}

// FillHistoryRequest is the query of GET /api/v2/mix/order/fill-history. The
// span from StartTime to EndTime is at most one week.
type FillHistoryRequest FillsRequest

// FillPage is the response data of fills and fill-history. EndID is the
// oldest tradeId on the page; pass it as IDLessThan for the next page.
type FillPage struct {
	FillList []Fill `json:"fillList"`
	EndID    string `json:"endId"`
}

// PendingOrdersRequest is the query of GET /api/v2/mix/order/orders-pending.
type PendingOrdersRequest struct {
	ProductType ProductType `json:"productType"`
	OrderID     string      `json:"orderId,omitempty"`
	ClientOID   string      `json:"clientOid,omitempty"`
	Symbol      string      `json:"symbol,omitempty"`
	Status      OrderState  `json:"status,omitempty"`
	IDLessThan  string      `json:"idLessThan,omitempty"`
	StartTime   Millis      `json:"startTime,omitempty"`
	EndTime     Millis      `json:"endTime,omitempty"`
	Limit       int         `json:"limit,omitempty"`
}

// PendingOrdersPage is the response data of orders-pending.
type PendingOrdersPage struct {
	EntrustedList []PendingOrder `json:"entrustedList"`
	EndID         string         `json:"endId"`
}

// OrderHistoryRequest is the query of GET /api/v2/mix/order/orders-history.
// Only the last 90 days are queryable.
type OrderHistoryRequest struct {
	ProductType ProductType `json:"productType"`
	OrderID     string      `json:"orderId,omitempty"`
	ClientOID   string      `json:"clientOid,omitempty"`
	Symbol      string      `json:"symbol,omitempty"`
	IDLessThan  string      `json:"idLessThan,omitempty"`
	OrderSource OrderSource `json:"orderSource,omitempty"`
	StartTime   Millis      `json:"startTime,omitempty"`
	EndTime     Millis      `json:"endTime,omitempty"`
	Limit       int         `json:"limit,omitempty"`
}

// OrderHistoryPage is the response data of orders-history.
type OrderHistoryPage struct {
	EntrustedList []HistoryOrder `json:"entrustedList"`
	EndID         string         `json:"endId"`
}
