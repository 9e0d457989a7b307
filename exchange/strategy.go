package exchange

import "encoding/json"

// StrategyOrdersRequest is the query of GET /api/v3/trade/unfilled-strategy-orders.
type StrategyOrdersRequest struct {
	Category Category     `json:"category"`
	Type     StrategyType `json:"type,omitempty"`
}

// OCOParams is an item of ocoParams (type oco).
type OCOParams struct {
	OCOLimitPrice   Num       `json:"ocoLimitPrice"`
	OCOTriggerPrice Num       `json:"ocoTriggerPrice"`
	OCOOrderType    OrderType `json:"ocoOrderType"`
	OCOOrderPrice   Num       `json:"ocoOrderPrice"`
}

// TrailingStopParams is an item of trailingStopParams (type trailing_stop).
type TrailingStopParams struct {
	ActivationPrice Num            `json:"activationPrice"`
	ActivationType  ActivationType `json:"activationType"`
	TrailType       TrailType      `json:"trailType"`
	TrailVariance   Num            `json:"trailVariance"`
	PreOrderType    OrderType      `json:"preOrderType"`
	PreOrderPrice   Num            `json:"preOrderPrice"`
}

// IcebergParams is an item of icebergParams (type iceberg).
type IcebergParams struct {
	SplitMode         SplitMode         `json:"splitMode"`
	QtyPerOrder       Num               `json:"qtyPerOrder"`
	SplitOrderNumbers Num               `json:"splitOrderNumbers"`
	OrderPreference   OrderPreference   `json:"orderPreference"`
	ExecutionStrategy ExecutionStrategy `json:"executionStrategy"`
	FixedDistanceType FixedDistanceType `json:"fixedDistanceType"`
	Distance          Num               `json:"distance"`
	FixedPrice        Num               `json:"fixedPrice"`
	PriceLimit        Num               `json:"priceLimit"`
}

// TWAPParams is an item of twapParams (type twap). The spec types the last
// five fields as numbers, so they are json.Number: sent as bare numbers and
// accepted as numbers or numeric strings.
type TWAPParams struct {
	Duration              Num             `json:"duration"` // total minutes
	Interval              Num             `json:"interval"` // seconds
	OrderType             OrderType       `json:"orderType"`
	LimitOffsetType       LimitOffsetType `json:"limitOffsetType"`
	LimitOffsetPercentage json.Number     `json:"limitOffsetPercentage"`
	LimitOffsetSpread     json.Number     `json:"limitOffsetSpread"`
	TWAPTriggerPrice      json.Number     `json:"twapTriggerPrice"`
	TWAPTerminationPrice  json.Number     `json:"twapTerminationPrice"`
}

// StrategyOrder is one pending strategy order of the unified account. Only
// the parameter list of its type is present.
type StrategyOrder struct {
	OrderID            string               `json:"orderId"`
	ClientOID          string               `json:"clientOid"`
	Category           ProductType          `json:"category"`
	Symbol             string               `json:"symbol"`
	Qty                Num                  `json:"qty"`
	PosSide            HoldSide             `json:"posSide"`
	Status             StrategyStatus       `json:"status"`
	TPTriggerBy        TriggerType          `json:"tpTriggerBy"`
	SLTriggerBy        TriggerType          `json:"slTriggerBy"`
	TakeProfit         Num                  `json:"takeProfit"`
	StopLoss           Num                  `json:"stopLoss"`
	TPOrderType        OrderType            `json:"tpOrderType"`
	SLOrderType        OrderType            `json:"slOrderType"`
	TPLimitPrice       Num                  `json:"tpLimitPrice"`
	SLLimitPrice       Num                  `json:"slLimitPrice"`
	TriggerBy          TriggerType          `json:"triggerBy"`
	TriggerPrice       Num                  `json:"triggerPrice"`
	TriggerOrderType   OrderType            `json:"triggerOrderType"`
	TriggerOrderPrice  Num                  `json:"triggerOrderPrice"`
	OCOParams          []OCOParams          `json:"ocoParams,omitempty"`
	TrailingStopParams []TrailingStopParams `json:"trailingStopParams,omitempty"`
	IcebergParams      []IcebergParams      `json:"icebergParams,omitempty"`
	TWAPParams         []TWAPParams         `json:"twapParams,omitempty"`
	CreatedTime        Millis               `json:"createdTime"`
	UpdatedTime        Millis               `json:"updatedTime"`
}

// Type infers the strategy type from the parameter list present; an order
// with none of the lists is a tpsl order when it has a take-profit or
// stop-loss and a trigger order otherwise. The record has no type field, so
// this is the only way to tell.
func (o *StrategyOrder) Type() StrategyType {
	switch {
	case len(o.OCOParams) > 0:
		return StrategyOCO
	case len(o.TrailingStopParams) > 0:
		return StrategyTrailingStop
	case len(o.IcebergParams) > 0:
		return StrategyIceberg
	case len(o.TWAPParams) > 0:
		return StrategyTWAP
	case o.TakeProfit != "" || o.StopLoss != "":
		return StrategyTPSL
	default:
		return StrategyTrigger
	}
}
