package exchange

// This file holds the wire types of the futures order operations that change
// state (place, reverse, batch-place, modify, cancel, batch-cancel,
// close-positions, cancel-all) and of set-position-mode. JSON names are the
// spec's exactly. Fields tagged `json:"-"` are the caller's statements for
// client-side validation and are never sent.

// PlaceOrderRequest is the body of POST /api/v2/mix/order/place-order.
type PlaceOrderRequest struct {
	Symbol                        string      `json:"symbol"`
	ProductType                   ProductType `json:"productType"`
	MarginMode                    MarginMode  `json:"marginMode"`
	MarginCoin                    string      `json:"marginCoin"`
	Size                          Num         `json:"size"`
	Price                         Num         `json:"price,omitempty"`
	Side                          Side        `json:"side"`
	TradeSide                     TradeSide   `json:"tradeSide,omitempty"`
	OrderType                     OrderType   `json:"orderType"`
	Force                         Force       `json:"force,omitempty"`
	ClientOID                     string      `json:"clientOid,omitempty"`
	ReduceOnly                    YesNo       `json:"reduceOnly,omitempty"`
	PresetStopSurplusPrice        Num         `json:"presetStopSurplusPrice,omitempty"`
	PresetStopLossPrice           Num         `json:"presetStopLossPrice,omitempty"`
	PresetStopSurplusExecutePrice Num         `json:"presetStopSurplusExecutePrice,omitempty"`
	PresetStopLossExecutePrice    Num         `json:"presetStopLossExecutePrice,omitempty"`
	STPMode                       STPMode     `json:"stpMode,omitempty"`

	// Mode is the account's position mode for ProductType as the caller knows
	// it. When set, tradeSide and reduceOnly are checked against it before
	// sending; it is not part of the request.
	Mode PosMode `json:"-"`
}

// OrderAck is the response data of the operations that answer with one order:
// place-order, click-backhand, modify-order and cancel-order. OrderID can be
// empty: a reduce-only order that displaced others (one-way rule 2) and an
// asynchronous modify come back without one, and the order must be looked up
// by client order id.
type OrderAck struct {
	OrderID   string `json:"orderId"`
	ClientOID string `json:"clientOid"`
}

// ClickBackhandRequest is the body of POST /api/v2/mix/order/click-backhand.
type ClickBackhandRequest struct {
	Symbol      string      `json:"symbol"`
	MarginCoin  string      `json:"marginCoin"`
	ProductType ProductType `json:"productType"`
	Side        Side        `json:"side"`
	Size        Num         `json:"size,omitempty"`
	TradeSide   TradeSide   `json:"tradeSide,omitempty"`
	ClientOID   string      `json:"clientOid,omitempty"`

	// Mode is the caller's statement of the position mode; not sent.
	Mode PosMode `json:"-"`
}

// BatchOrder is one item of orderList in batch-place-order.
type BatchOrder struct {
	Size                   Num       `json:"size"`
	Price                  Num       `json:"price,omitempty"`
	Side                   Side      `json:"side"`
	TradeSide              TradeSide `json:"tradeSide,omitempty"`
	OrderType              OrderType `json:"orderType"`
	Force                  Force     `json:"force,omitempty"`
	ClientOID              string    `json:"clientOid,omitempty"`
	ReduceOnly             YesNo     `json:"reduceOnly,omitempty"`
	PresetStopSurplusPrice Num       `json:"presetStopSurplusPrice,omitempty"`
	PresetStopLossPrice    Num       `json:"presetStopLossPrice,omitempty"`
	STPMode                STPMode   `json:"stpMode,omitempty"`
}

// BatchPlaceOrderRequest is the body of POST /api/v2/mix/order/batch-place-order.
type BatchPlaceOrderRequest struct {
	Symbol      string       `json:"symbol"`
	ProductType ProductType  `json:"productType"`
	MarginCoin  string       `json:"marginCoin"`
	MarginMode  MarginMode   `json:"marginMode"`
	OrderList   []BatchOrder `json:"orderList"`

	// Mode is the caller's statement of the position mode; not sent.
	Mode PosMode `json:"-"`
}

// BatchFailure is one failed item of a batch operation. Symbol is present in
// close-positions, ErrorCode in batch-cancel-orders and close-positions.
type BatchFailure struct {
	OrderID   string `json:"orderId"`
	ClientOID string `json:"clientOid"`
	Symbol    string `json:"symbol,omitempty"`
	ErrorMsg  string `json:"errorMsg"`
	ErrorCode string `json:"errorCode,omitempty"`
}

// Gone reports a failed item whose target no longer exists: the order is
// already cancelled or filled, or there is no position to close. The spec
// gives such items an errorCode; the venue's docs show batch-cancel and
// cancel-all items with only errorMsg "notExistend" (exchange/testdata/venue),
// so an item without a code is judged by that message. Any other message
// stays a failure: a false alarm costs less than a cancel wrongly taken as
// done.
func (f BatchFailure) Gone() bool {
	if f.ErrorCode != "" {
		return (&APIError{Code: f.ErrorCode}).IsNotFound()
	}
	return f.ErrorMsg == goneItemMessage
}

// goneItemMessage is errorMsg of a failed batch item whose order does not
// exist, spelled as the venue's docs show it.
const goneItemMessage = "notExistend"

// BatchPlaceOrderResult is the response data of batch-place-order. Result is
// false when at least one item failed.
type BatchPlaceOrderResult struct {
	SuccessList []OrderAck     `json:"successList"`
	FailureList []BatchFailure `json:"failureList"`
	Result      bool           `json:"result"`
}

// ModifyOrderRequest is the body of POST /api/v2/mix/order/modify-order.
type ModifyOrderRequest struct {
	Symbol                    string      `json:"symbol"`
	ProductType               ProductType `json:"productType"`
	NewClientOID              string      `json:"newClientOid"`
	OrderID                   string      `json:"orderId,omitempty"`
	ClientOID                 string      `json:"clientOid,omitempty"`
	NewSize                   Num         `json:"newSize,omitempty"`
	NewPrice                  Num         `json:"newPrice,omitempty"`
	NewPresetStopSurplusPrice Num         `json:"newPresetStopSurplusPrice,omitempty"`
	NewPresetStopLossPrice    Num         `json:"newPresetStopLossPrice,omitempty"`
}

// CancelOrderRequest is the body of POST /api/v2/mix/order/cancel-order.
type CancelOrderRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	MarginCoin  string      `json:"marginCoin,omitempty"`
	OrderID     string      `json:"orderId,omitempty"`
	ClientOID   string      `json:"clientOid,omitempty"`
}

// OrderRef names an order by id or client order id (orderId wins when both are set).
type OrderRef struct {
	OrderID   string `json:"orderId,omitempty"`
	ClientOID string `json:"clientOid,omitempty"`
}

// BatchCancelOrdersRequest is the body of POST /api/v2/mix/order/batch-cancel-orders.
// Without OrderIDList every order of ProductType and Symbol is cancelled.
type BatchCancelOrdersRequest struct {
	ProductType ProductType `json:"productType"`
	OrderIDList []OrderRef  `json:"orderIdList,omitempty"`
	Symbol      string      `json:"symbol,omitempty"`
	MarginCoin  string      `json:"marginCoin,omitempty"`
}

// BatchResult is the response data of batch-cancel-orders and cancel-all-orders.
type BatchResult struct {
	SuccessList []OrderAck     `json:"successList"`
	FailureList []BatchFailure `json:"failureList"`
}

// ClosePositionsRequest is the body of POST /api/v2/mix/order/close-positions.
// HoldSide is ignored in one-way mode; in hedge mode an empty HoldSide closes
// both directions.
type ClosePositionsRequest struct {
	ProductType ProductType `json:"productType"`
	Symbol      string      `json:"symbol,omitempty"`
	HoldSide    HoldSide    `json:"holdSide,omitempty"`
}

// CloseAck is one closed position of close-positions.
type CloseAck struct {
	OrderID   string `json:"orderId"`
	ClientOID string `json:"clientOid"`
	Symbol    string `json:"symbol"`
}

// ClosePositionsResult is the response data of close-positions.
type ClosePositionsResult struct {
	SuccessList []CloseAck     `json:"successList"`
	FailureList []BatchFailure `json:"failureList"`
}

// CancelAllOrdersRequest is the body of POST /api/v2/mix/order/cancel-all-orders.
// ReceiveWindow (ms) must not exceed 60 seconds.
type CancelAllOrdersRequest struct {
	ProductType   ProductType `json:"productType"`
	MarginCoin    string      `json:"marginCoin,omitempty"`
	RequestTime   Millis      `json:"requestTime,omitempty"`
	ReceiveWindow Millis      `json:"receiveWindow,omitempty"`
}

// SetPositionModeRequest is the body of POST /api/v2/mix/account/set-position-mode
// (outside the spec; see the exchange notes). It fails with 40920 while
// positions or orders exist.
type SetPositionModeRequest struct {
	ProductType ProductType `json:"productType"`
	PosMode     PosMode     `json:"posMode"`
}

// SetPositionModeResult is the response data of set-position-mode.
type SetPositionModeResult struct {
	PosMode PosMode `json:"posMode"`
}
