package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// StrategyType is the type of a strategy order (filter of unfilled-strategy-orders).
type StrategyType string

// Strategy order types.
const (
	StrategyTPSL         StrategyType = "tpsl"    // take-profit/stop-loss
	StrategyTrigger      StrategyType = "trigger" // plan order
	StrategyOCO          StrategyType = "oco"
	StrategyTrailingStop StrategyType = "trailing_stop"
	StrategyIceberg      StrategyType = "iceberg"
	StrategyTWAP         StrategyType = "twap"
)

var strategyTypes = enum[StrategyType]{"type (strategy)", []StrategyType{StrategyTPSL, StrategyTrigger, StrategyOCO, StrategyTrailingStop, StrategyIceberg, StrategyTWAP}}

// Valid reports whether t is a strategy order type of the spec.
func (t StrategyType) Valid() bool { return strategyTypes.has(t) }

// StrategyTypes returns every strategy order type in the spec's order.
func StrategyTypes() []StrategyType { return append([]StrategyType(nil), strategyTypes.values...) }

// StrategyStatus is the status of a strategy order.
type StrategyStatus string

// Strategy order statuses.
const (
	StrategyPending    StrategyStatus = "pending"
	StrategySuccess    StrategyStatus = "success"
	StrategyFailed     StrategyStatus = "failed"
	StrategyCancelled  StrategyStatus = "cancelled"
	StrategySubmitting StrategyStatus = "submitting"
)

var strategyStatuses = enum[StrategyStatus]{"status (strategy)", []StrategyStatus{StrategyPending, StrategySuccess, StrategyFailed, StrategyCancelled, StrategySubmitting}}

// Valid reports whether s is a strategy order status of the spec.
func (s StrategyStatus) Valid() bool { return strategyStatuses.has(s) }

// TriggerType is the price a strategy order triggers on: market or mark.
type TriggerType string

// Trigger price types.
const (
	TriggerMarket TriggerType = "market"
	TriggerMark   TriggerType = "mark"
)

var triggerTypes = enum[TriggerType]{"triggerBy", []TriggerType{TriggerMarket, TriggerMark}}

// Valid reports whether t is market or mark.
func (t TriggerType) Valid() bool { return triggerTypes.has(t) }

// ActivationType is the price a trailing stop activates on.
type ActivationType string

// Trailing-stop activation price types.
const (
	ActivationMarket ActivationType = "market"
	ActivationMark   ActivationType = "mark"
	ActivationIndex  ActivationType = "index"
)

var activationTypes = enum[ActivationType]{"activationType", []ActivationType{ActivationMarket, ActivationMark, ActivationIndex}}

// Valid reports whether a is an activation type of the spec.
func (a ActivationType) Valid() bool { return activationTypes.has(a) }

// TrailType says how a trailing stop trails: by ratio or by price spread.
type TrailType string

// Trail types.
const (
	TrailRatio  TrailType = "ratio"
	TrailSpread TrailType = "spread"
)

var trailTypes = enum[TrailType]{"trailType", []TrailType{TrailRatio, TrailSpread}}

// Valid reports whether t is a trail type of the spec.
func (t TrailType) Valid() bool { return trailTypes.has(t) }

// SplitMode is how an iceberg order is split.
type SplitMode string

// Iceberg split modes.
const (
	SplitByQuantity SplitMode = "quantity"
	SplitByOrder    SplitMode = "order"
)

var splitModes = enum[SplitMode]{"splitMode", []SplitMode{SplitByQuantity, SplitByOrder}}

// Valid reports whether m is a split mode of the spec.
func (m SplitMode) Valid() bool { return splitModes.has(m) }

// OrderPreference is the pricing preference of an iceberg order.
type OrderPreference string

// Iceberg order preferences.
const (
	FasterExecution OrderPreference = "faster_execution"
	FixedDistance   OrderPreference = "fixed_distance"
	FixedPrice      OrderPreference = "fixed_price"
)

var orderPreferences = enum[OrderPreference]{"orderPreference", []OrderPreference{FasterExecution, FixedDistance, FixedPrice}}

// Valid reports whether p is an order preference of the spec.
func (p OrderPreference) Valid() bool { return orderPreferences.has(p) }

// ExecutionStrategy is the reference price of an iceberg slice.
type ExecutionStrategy string

// Iceberg execution strategies.
const (
	Queue1        ExecutionStrategy = "queue1"        // same-side price 1
	Counterparty1 ExecutionStrategy = "counterparty1" // counterparty price 1
)

var executionStrategies = enum[ExecutionStrategy]{"executionStrategy", []ExecutionStrategy{Queue1, Counterparty1}}

// Valid reports whether s is an execution strategy of the spec.
func (s ExecutionStrategy) Valid() bool { return executionStrategies.has(s) }

// FixedDistanceType is how an iceberg fixed distance is measured.
type FixedDistanceType string

// Fixed distance types.
const (
	DistanceSpread     FixedDistanceType = "spread"
	DistancePercentage FixedDistanceType = "percentage"
)

var fixedDistanceTypes = enum[FixedDistanceType]{"fixedDistanceType", []FixedDistanceType{DistanceSpread, DistancePercentage}}

// Valid reports whether t is a fixed distance type of the spec.
func (t FixedDistanceType) Valid() bool { return fixedDistanceTypes.has(t) }

// LimitOffsetType is how a TWAP limit slice is offset. The spec types the field
// as a number while listing words as its values, so decoding accepts a JSON
// string or a bare token.
type LimitOffsetType string

// TWAP limit offset types.
const (
	OffsetPercentage LimitOffsetType = "percentage"
	OffsetSpread     LimitOffsetType = "spread"
)

var limitOffsetTypes = enum[LimitOffsetType]{"limitOffsetType", []LimitOffsetType{OffsetPercentage, OffsetSpread}}

// Valid reports whether t is a limit offset type of the spec.
func (t LimitOffsetType) Valid() bool { return limitOffsetTypes.has(t) }

// UnmarshalJSON accepts a JSON string or a bare number.
func (t *LimitOffsetType) UnmarshalJSON(b []byte) error {
	s, err := flexString(b)
	if err != nil {
		return fmt.Errorf("limitOffsetType: %w", err)
	}
	*t = LimitOffsetType(s)
	return nil
}

// flexString decodes a JSON string, a bare number or null into a string.
func flexString(b []byte) (string, error) {
	if len(b) == 0 {
		return "", fmt.Errorf("empty value")
	}
	switch b[0] {
	case '"':
		// Fast path: numbers and ids never carry escapes, and a nested
		// json.Unmarshal per field was most of the decode time of a page.
		if n := len(b); n >= 2 && b[n-1] == '"' && bytes.IndexByte(b[1:n-1], '\\') < 0 && bytes.IndexByte(b[1:n-1], '"') < 0 {
			return string(b[1 : n-1]), nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", err
		}
		return s, nil
	case 'n':
		if string(b) == "null" {
			return "", nil
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return "", err
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("want a string or a number, got %.20q", b)
}
