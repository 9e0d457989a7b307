package sim

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/market"
)

// Schema returns the JSON Schema (draft 2020-12) of scenario files. It is
// generated from the Go types the loader decodes into, so the schema and the
// loader cannot disagree; sim/scenario.schema.json is its output, kept in
// step by a test.
func Schema() []byte {
	s := schemaOf(reflect.TypeFor[Scenario](), false)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = "https://github.com/tickrules/tickrules/sim/scenario.schema.json"
	s["title"] = "tickrules simulator scenario"
	s["description"] = "A scenario of the simulated exchange; see docs/scenarios.md."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err) // only maps, slices and strings: cannot fail
	}
	return append(b, '\n')
}

// schemaEnums are the enumerations of the scenario's own fields.
var schemaEnums = func() map[reflect.Type][]string {
	e := exchange.EnumValues()
	perms := make([]string, len(allPermissions))
	for i, p := range allPermissions {
		perms[i] = string(p)
	}
	var grans []string
	for _, g := range exchange.Granularities() {
		grans = append(grans, string(g))
	}
	return map[reflect.Type][]string{
		reflect.TypeFor[exchange.Granularity]():   grans,
		reflect.TypeFor[exchange.ProductType]():   e["productType"],
		reflect.TypeFor[exchange.PosMode]():       e["posMode"],
		reflect.TypeFor[exchange.HoldSide]():      e["holdSide"],
		reflect.TypeFor[exchange.Side]():          e["side"],
		reflect.TypeFor[exchange.TradeSide]():     e["tradeSide"],
		reflect.TypeFor[exchange.OrderType]():     e["orderType"],
		reflect.TypeFor[exchange.Force]():         e["force"],
		reflect.TypeFor[exchange.YesNo]():         e["reduceOnly"],
		reflect.TypeFor[exchange.MarginMode]():    e["marginMode"],
		reflect.TypeFor[exchange.TradingPeriod](): e["tradingPeriod"],
		reflect.TypeFor[exchange.Permission]():    perms,
	}
}()

// schemaRequired are the keys a scenario cannot omit.
var schemaRequired = map[reflect.Type][]string{
	reflect.TypeFor[ClockSpec]():          {"start"},
	reflect.TypeFor[AccountSpec]():        {"uid", "api_key"},
	reflect.TypeFor[ContractSpec]():       {"product_type", "symbol"},
	reflect.TypeFor[market.CandlesSpec](): {"interval"},
	reflect.TypeFor[market.CandleRow]():   {"at", "open", "high", "low", "close"},
}

// wireSpecs are decoded from snake_case keys into wire types (decodeWire).
var wireSpecs = []reflect.Type{
	reflect.TypeFor[ContractSpec](), reflect.TypeFor[StrategyOrderSpec](),
	reflect.TypeFor[DiscountCoinSpec](), reflect.TypeFor[SpotRecordSpec](),
}

var (
	numberOrString = map[string]any{"type": []string{"string", "number"}}
	durationSchema = map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`, "description": "a Go duration such as 1s, 500ms or 1h30m"}
)

func schemaOf(t reflect.Type, wire bool) map[string]any {
	switch t {
	case reflect.TypeFor[time.Time]():
		return map[string]any{"type": "string", "format": "date-time"}
	case reflect.TypeFor[time.Duration]():
		return durationSchema
	case reflect.TypeFor[decimal.Decimal](), reflect.TypeFor[exchange.Num](), reflect.TypeFor[exchange.Millis](), reflect.TypeFor[json.Number]():
		return numberOrString
	}
	if vals, ok := schemaEnums[t]; ok && !wire {
		return map[string]any{"type": "string", "enum": vals}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), wire)
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		if wire {
			return map[string]any{"type": []string{"boolean", "string"}}
		}
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), wire)}
	case reflect.Map:
		s := map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), wire)}
		if vals, ok := schemaEnums[t.Key()]; ok {
			s["propertyNames"] = map[string]any{"enum": vals}
		}
		return s
	case reflect.Struct:
		isWire := wire || slices.Contains(wireSpecs, t)
		props := map[string]any{}
		addFields(props, t, isWire)
		s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if req, ok := schemaRequired[t]; ok {
			s["required"] = req
		}
		return s
	}
	return map[string]any{}
}

// addFields adds the keys of struct t: yaml tags for the scenario's own
// types, json tags in snake_case for wire types; embedded structs are
// flattened as both decoders do.
func addFields(props map[string]any, t reflect.Type, wire bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if wire {
			tag = f.Tag.Get("json")
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			addFields(props, f.Type, wire)
			continue
		}
		if name == "-" || name == "" {
			continue
		}
		if wire {
			name = snakeName(name)
		}
		props[name] = schemaOf(f.Type, wire)
	}
}

// snakeName turns a wire name into the scenario's snake_case key:
// minTradeUSDT -> min_trade_usdt, bizOrderId -> biz_order_id.
func snakeName(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
