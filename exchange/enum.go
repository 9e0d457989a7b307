package exchange

import (
	"fmt"
	"slices"
	"strings"
)

// enum describes one enumeration of the spec: the name it has in the spec and
// its allowed values, in the spec's order. The tables are written once here and
// never changed; Valid, Check and the generated docs all read the same table.
type enum[T ~string] struct {
	name   string
	values []T
}

func (e enum[T]) has(v T) bool { return slices.Contains(e.values, v) }

func (e enum[T]) strings() []string {
	out := make([]string, len(e.values))
	for i, v := range e.values {
		out[i] = string(v)
	}
	return out
}

// check returns a *ValidationError naming field when v is not allowed.
// Empty values are accepted: whether a field is required is a separate rule.
func (e enum[T]) check(field string, v T) error {
	if v == "" || e.has(v) {
		return nil
	}
	return &ValidationError{Field: field, Rule: fmt.Sprintf("must be one of %s (got %q)", strings.Join(e.strings(), ", "), string(v))}
}

// EnumValues returns every enumeration of the spec by its spec name (for
// example "productType", "force", "spotTaxType") with its allowed values in the
// spec's order. The result is a fresh copy; rules/ builds its schema and
// reference from it so that the docs can never disagree with validation.
func EnumValues() map[string][]string {
	all := []interface {
		enumName() string
		enumStrings() []string
	}{
		productTypes, categories, marginModes, sides, orderTypes, forces,
		requestTradeSides, recordTradeSides, reduceOnlys, stpModes, holdSides, posSides,
		posModes, enterPointSources, cancelReasons, orderSources, orderStates,
		pendingStatuses, strategyTypes, strategyStatuses, triggerTypes, activationTypes,
		trailTypes, splitModes, orderPreferences, executionStrategies,
		fixedDistanceTypes, limitOffsetTypes, tradingPeriods, daylightTypes,
		weekendTradables, spotTaxTypes, symbolStatuses, locales,
	}
	out := make(map[string][]string, len(all))
	for _, e := range all {
		out[e.enumName()] = e.enumStrings()
	}
	return out
}

func (e enum[T]) enumName() string      { return e.name }
func (e enum[T]) enumStrings() []string { return e.strings() }
