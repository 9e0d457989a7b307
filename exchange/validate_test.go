package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// validateNow is the "now" of every validation test.
var validateNow = time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)

func ms(t time.Time) Millis { return MillisOf(t) }

// validator is what every request type satisfies.
type validator interface{ Validate(now time.Time) error }

// vcase mutates a valid baseline request and names the one problem expected.
type vcase[T validator] struct {
	name  string
	mut   func(*T)
	field string
	code  string
	// also lists further fields expected besides field, when one mutation
	// breaks more than one rule.
	also []string
}

// flatten returns every *ValidationError in err, in order.
func flatten(t *testing.T, err error) []*ValidationError {
	t.Helper()
	var out []*ValidationError
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var ve *ValidationError
		if !errors.As(e, &ve) {
			t.Fatalf("not a *ValidationError: %T %v", e, e)
		}
		out = append(out, ve)
	}
	walk(err)
	return out
}

// runValidate checks that base() is valid and that each case yields exactly
// the problems it names, with the expected field, code and operation.
func runValidate[T validator](t *testing.T, op Op, base func() T, cases []vcase[T]) {
	t.Helper()
	if err := base().Validate(validateNow); err != nil {
		t.Fatalf("baseline is invalid: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := base()
			c.mut(&r)
			err := r.Validate(validateNow)
			if err == nil {
				t.Fatalf("accepted; want %s (%s)", c.field, c.code)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false")
			}
			got := flatten(t, err)
			want := append([]string{c.field}, c.also...)
			if len(got) != len(want) {
				t.Fatalf("got %d problems, want %d: %v", len(got), len(want), err)
			}
			first := got[0]
			if first.Field != c.field || first.Code != c.code {
				t.Errorf("first problem = %s (code %s), want field %s code %s", first, first.Code, c.field, c.code)
			}
			for i, ve := range got {
				if ve.Op != op {
					t.Errorf("problem %d: Op = %q, want %q", i, ve.Op, op)
				}
				if ve.Field != want[i] {
					t.Errorf("problem %d: Field = %q, want %q", i, ve.Field, want[i])
				}
				if ve.Rule == "" || ve.Code == "" {
					t.Errorf("problem %d: empty rule or code: %+v", i, ve)
				}
			}
			var as *ValidationError
			if !errors.As(err, &as) || as != first {
				t.Errorf("errors.As does not find the first problem")
			}
		})
	}
}

func TestValidClientOID(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"rule-7_leg#2+x", true},
		{"ABCxyz0189", true},
		{strings.Repeat("a", 49), true},
		{strings.Repeat("a", 50), false},
		{"", false},
		{"has space", false},
		{"dot.x", false},
		{"slash/x", false},
		{"ünï", false},
		{"semi;colon", false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q", c.in), func(t *testing.T) {
			if got := ValidClientOID(c.in); got != c.want {
				t.Errorf("ValidClientOID(%q) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestValidationErrorMessage(t *testing.T) {
	r := basePlace()
	r.Price = ""
	err := r.Validate(validateNow)
	const want = "place-order: price: required when orderType is limit"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestValidateJoinsAllProblems(t *testing.T) {
	err := PlaceOrderRequest{}.Validate(validateNow)
	got := flatten(t, err)
	var fields []string
	for _, ve := range got {
		fields = append(fields, ve.Field)
	}
	want := []string{"symbol", "productType", "marginMode", "marginCoin", "size", "side", "orderType"}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("fields = %v, want %v", fields, want)
	}
	for _, ve := range got {
		if ve.Code != CodeParamEmpty {
			t.Errorf("%s: code %s, want %s", ve.Field, ve.Code, CodeParamEmpty)
		}
	}
}

// TestEveryRequestValidates makes sure no request type of the Venue lacks a
// Validate method: a new operation without one fails here.
func TestEveryRequestValidates(t *testing.T) {
	vt := reflect.TypeFor[validator]()
	venue := reflect.TypeFor[Venue]()
	n := 0
	for i := range venue.NumMethod() {
		m := venue.Method(i)
		if m.Type.NumIn() < 2 {
			continue // MarketStates and MarketCalendar take no request
		}
		req := m.Type.In(1)
		n++
		if !req.Implements(vt) {
			t.Errorf("%s: request type %s has no Validate(time.Time) error", m.Name, req)
		}
	}
	if n < 25 {
		t.Errorf("only %d request types found", n)
	}
}

func basePlace() PlaceOrderRequest {
	return PlaceOrderRequest{
		Symbol: "BTCUSDT", ProductType: USDTFutures, MarginMode: Crossed, MarginCoin: "USDT",
		Size: "0.01", Price: "27000.5", Side: Buy, OrderType: Limit, Force: GTC, ClientOID: "r1-f2-l0",
	}
}

func TestValidatePlaceOrder(t *testing.T) {
	runValidate(t, OpPlaceOrder, basePlace, []vcase[PlaceOrderRequest]{
		{name: "symbol missing", mut: func(r *PlaceOrderRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "productType missing", mut: func(r *PlaceOrderRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "productType unknown", mut: func(r *PlaceOrderRequest) { r.ProductType = "usdt-futures" }, field: "productType", code: CodeParamVerify},
		{name: "marginMode missing", mut: func(r *PlaceOrderRequest) { r.MarginMode = "" }, field: "marginMode", code: CodeParamEmpty},
		{name: "marginMode unknown", mut: func(r *PlaceOrderRequest) { r.MarginMode = "cross" }, field: "marginMode", code: CodeParamVerify},
		{name: "marginCoin missing", mut: func(r *PlaceOrderRequest) { r.MarginCoin = "" }, field: "marginCoin", code: CodeParamEmpty},
		{name: "marginCoin lower case", mut: func(r *PlaceOrderRequest) { r.MarginCoin = "usdt" }, field: "marginCoin", code: CodeParamVerify},
		{name: "size missing", mut: func(r *PlaceOrderRequest) { r.Size = "" }, field: "size", code: CodeParamEmpty},
		{name: "size zero", mut: func(r *PlaceOrderRequest) { r.Size = "0" }, field: "size", code: CodeParamVerify},
		{name: "size negative", mut: func(r *PlaceOrderRequest) { r.Size = "-1" }, field: "size", code: CodeParamVerify},
		{name: "size not a number", mut: func(r *PlaceOrderRequest) { r.Size = "one" }, field: "size", code: CodeParamVerify},
		{name: "size exponent", mut: func(r *PlaceOrderRequest) { r.Size = "1e-2" }, field: "size", code: CodeParamVerify},
		{name: "size float artefact spaces", mut: func(r *PlaceOrderRequest) { r.Size = " 0.1" }, field: "size", code: CodeParamVerify},
		{name: "side missing", mut: func(r *PlaceOrderRequest) { r.Side = "" }, field: "side", code: CodeParamEmpty},
		{name: "side unknown", mut: func(r *PlaceOrderRequest) { r.Side = "long" }, field: "side", code: CodeParamVerify},
		{name: "orderType missing", mut: func(r *PlaceOrderRequest) { r.OrderType = "" }, field: "orderType", code: CodeParamEmpty},
		{name: "orderType unknown", mut: func(r *PlaceOrderRequest) { r.OrderType = "stop" }, field: "orderType", code: CodeParamVerify},
		{name: "limit without price", mut: func(r *PlaceOrderRequest) { r.Price = "" }, field: "price", code: CodeParamEmpty},
		{name: "price zero", mut: func(r *PlaceOrderRequest) { r.Price = "0" }, field: "price", code: CodeParamVerify},
		{name: "price garbage", mut: func(r *PlaceOrderRequest) { r.Price = "27,000" }, field: "price", code: CodeParamVerify},
		{name: "market price negative", mut: func(r *PlaceOrderRequest) { r.OrderType, r.Price = Market, "-5" }, field: "price", code: CodeParamVerify},
		{name: "tradeSide unknown", mut: func(r *PlaceOrderRequest) { r.TradeSide = "buy_single" }, field: "tradeSide", code: CodeParamVerify},
		{name: "force unknown", mut: func(r *PlaceOrderRequest) { r.Force = "GTC" }, field: "force", code: CodeParamVerify},
		{name: "clientOid charset", mut: func(r *PlaceOrderRequest) { r.ClientOID = "r1 f2" }, field: "clientOid", code: CodeParamVerify},
		{name: "clientOid length 50", mut: func(r *PlaceOrderRequest) { r.ClientOID = strings.Repeat("x", 50) }, field: "clientOid", code: CodeParamVerify},
		{name: "reduceOnly lower case", mut: func(r *PlaceOrderRequest) { r.ReduceOnly = "yes" }, field: "reduceOnly", code: CodeParamVerify},
		{name: "stpMode unknown", mut: func(r *PlaceOrderRequest) { r.STPMode = "cancel" }, field: "stpMode", code: CodeParamVerify},
		{name: "preset take-profit zero", mut: func(r *PlaceOrderRequest) { r.PresetStopSurplusPrice = "0" }, field: "presetStopSurplusPrice", code: CodeParamVerify},
		{name: "preset stop-loss garbage", mut: func(r *PlaceOrderRequest) { r.PresetStopLossPrice = "x" }, field: "presetStopLossPrice", code: CodeParamVerify},
		{name: "preset take-profit execute negative", mut: func(r *PlaceOrderRequest) { r.PresetStopSurplusExecutePrice = "-1" }, field: "presetStopSurplusExecutePrice", code: CodeParamVerify},
		{name: "preset stop-loss execute zero", mut: func(r *PlaceOrderRequest) { r.PresetStopLossExecutePrice = "0.0" }, field: "presetStopLossExecutePrice", code: CodeParamVerify},
		{name: "one-way with tradeSide", mut: func(r *PlaceOrderRequest) { r.Mode, r.TradeSide = OneWayMode, Open }, field: "tradeSide", code: CodeTradeSideOneWay},
		{name: "hedge without tradeSide", mut: func(r *PlaceOrderRequest) { r.Mode = HedgeMode }, field: "tradeSide", code: CodeParamEmpty},
		{name: "hedge with reduceOnly", mut: func(r *PlaceOrderRequest) { r.Mode, r.TradeSide, r.ReduceOnly = HedgeMode, Close, Yes }, field: "reduceOnly", code: CodeParamVerify},
		{name: "mode unknown", mut: func(r *PlaceOrderRequest) { r.Mode = "hedge" }, field: "Mode", code: CodeParamVerify},
	})

	// Combinations that the rules allow.
	ok := []func(*PlaceOrderRequest){
		func(r *PlaceOrderRequest) { r.OrderType, r.Price = Market, "" },
		func(r *PlaceOrderRequest) { r.Mode, r.ReduceOnly = OneWayMode, Yes },
		func(r *PlaceOrderRequest) { r.Mode, r.TradeSide = HedgeMode, Close },
		func(r *PlaceOrderRequest) { r.TradeSide = Open }, // mode not stated: the server decides
		func(r *PlaceOrderRequest) { r.ClientOID = "" },
		func(r *PlaceOrderRequest) { r.ClientOID = strings.Repeat("x", 49) },
		func(r *PlaceOrderRequest) { r.Size, r.Price = "100", "0.00001" },
	}
	for i, mut := range ok {
		r := basePlace()
		mut(&r)
		if err := r.Validate(validateNow); err != nil {
			t.Errorf("valid variant %d rejected: %v", i, err)
		}
	}
}

func baseBackhand() ClickBackhandRequest {
	return ClickBackhandRequest{Symbol: "BTCUSDT", MarginCoin: "USDT", ProductType: USDTFutures, Side: Sell, Size: "1"}
}

func TestValidateClickBackhand(t *testing.T) {
	runValidate(t, OpClickBackhand, baseBackhand, []vcase[ClickBackhandRequest]{
		{name: "symbol missing", mut: func(r *ClickBackhandRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "marginCoin missing", mut: func(r *ClickBackhandRequest) { r.MarginCoin = "" }, field: "marginCoin", code: CodeParamEmpty},
		{name: "marginCoin lower", mut: func(r *ClickBackhandRequest) { r.MarginCoin = "Usdt" }, field: "marginCoin", code: CodeParamVerify},
		{name: "productType missing", mut: func(r *ClickBackhandRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "side missing", mut: func(r *ClickBackhandRequest) { r.Side = "" }, field: "side", code: CodeParamEmpty},
		{name: "side unknown", mut: func(r *ClickBackhandRequest) { r.Side = "short" }, field: "side", code: CodeParamVerify},
		{name: "size zero", mut: func(r *ClickBackhandRequest) { r.Size = "0" }, field: "size", code: CodeParamVerify},
		{name: "tradeSide unknown", mut: func(r *ClickBackhandRequest) { r.TradeSide = "reverse" }, field: "tradeSide", code: CodeParamVerify},
		{name: "clientOid charset", mut: func(r *ClickBackhandRequest) { r.ClientOID = "a.b" }, field: "clientOid", code: CodeParamVerify},
		{name: "one-way with tradeSide", mut: func(r *ClickBackhandRequest) { r.Mode, r.TradeSide = OneWayMode, Open }, field: "tradeSide", code: CodeTradeSideOneWay},
		{name: "hedge without tradeSide", mut: func(r *ClickBackhandRequest) { r.Mode = HedgeMode }, field: "tradeSide", code: CodeParamEmpty},
		{name: "mode unknown", mut: func(r *ClickBackhandRequest) { r.Mode = "two_way" }, field: "Mode", code: CodeParamVerify},
	})
}

func baseBatchPlace() BatchPlaceOrderRequest {
	return BatchPlaceOrderRequest{
		Symbol: "BTCUSDT", ProductType: USDTFutures, MarginCoin: "USDT", MarginMode: Isolated,
		OrderList: []BatchOrder{
			{Size: "1", Price: "100", Side: Buy, OrderType: Limit, ClientOID: "a"},
			{Size: "2", Side: Sell, OrderType: Market, ClientOID: "b"},
			{Size: "3", Price: "101", Side: Buy, OrderType: Limit},
			{Size: "4", Price: "102", Side: Buy, OrderType: Limit, ClientOID: "d"},
		},
	}
}

func TestValidateBatchPlaceOrder(t *testing.T) {
	many := func(n int) []BatchOrder {
		out := make([]BatchOrder, n)
		for i := range out {
			out[i] = BatchOrder{Size: "1", Side: Buy, OrderType: Market}
		}
		return out
	}
	runValidate(t, OpBatchPlaceOrder, baseBatchPlace, []vcase[BatchPlaceOrderRequest]{
		{name: "symbol missing", mut: func(r *BatchPlaceOrderRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "productType unknown", mut: func(r *BatchPlaceOrderRequest) { r.ProductType = "SPOT" }, field: "productType", code: CodeParamVerify},
		{name: "marginCoin lower", mut: func(r *BatchPlaceOrderRequest) { r.MarginCoin = "usdt" }, field: "marginCoin", code: CodeParamVerify},
		{name: "marginMode missing", mut: func(r *BatchPlaceOrderRequest) { r.MarginMode = "" }, field: "marginMode", code: CodeParamEmpty},
		{name: "orderList empty", mut: func(r *BatchPlaceOrderRequest) { r.OrderList = nil }, field: "orderList", code: CodeParamEmpty},
		{name: "orderList 51", mut: func(r *BatchPlaceOrderRequest) { r.OrderList = many(51) }, field: "orderList", code: CodeBatchTooLarge},
		{name: "item price missing", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[3].Price = "" }, field: "orderList[3].price", code: CodeParamEmpty},
		{name: "item size zero", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[1].Size = "0" }, field: "orderList[1].size", code: CodeParamVerify},
		{name: "item side missing", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[0].Side = "" }, field: "orderList[0].side", code: CodeParamEmpty},
		{name: "item orderType unknown", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[2].OrderType = "LIMIT" }, field: "orderList[2].orderType", code: CodeParamVerify},
		{name: "item force unknown", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[2].Force = "day" }, field: "orderList[2].force", code: CodeParamVerify},
		{name: "item clientOid charset", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[0].ClientOID = "a b" }, field: "orderList[0].clientOid", code: CodeParamVerify},
		{name: "item clientOid duplicate", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[3].ClientOID = "a" }, field: "orderList[3].clientOid", code: CodeParamVerify},
		{name: "item preset zero", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[0].PresetStopLossPrice = "0" }, field: "orderList[0].presetStopLossPrice", code: CodeParamVerify},
		{name: "item stpMode unknown", mut: func(r *BatchPlaceOrderRequest) { r.OrderList[1].STPMode = "x" }, field: "orderList[1].stpMode", code: CodeParamVerify},
		{name: "one-way item with tradeSide", mut: func(r *BatchPlaceOrderRequest) {
			r.Mode = OneWayMode
			r.OrderList[2].TradeSide = Open
		}, field: "orderList[2].tradeSide", code: CodeTradeSideOneWay},
		{name: "hedge items without tradeSide", mut: func(r *BatchPlaceOrderRequest) {
			r.Mode = HedgeMode
			r.OrderList = r.OrderList[:2]
			r.OrderList[0].TradeSide = Open
		}, field: "orderList[1].tradeSide", code: CodeParamEmpty},
		{name: "hedge item with reduceOnly", mut: func(r *BatchPlaceOrderRequest) {
			r.Mode = HedgeMode
			r.OrderList = r.OrderList[:1]
			r.OrderList[0].TradeSide, r.OrderList[0].ReduceOnly = Close, No
		}, field: "orderList[0].reduceOnly", code: CodeParamVerify},
		{name: "mode unknown reported once", mut: func(r *BatchPlaceOrderRequest) { r.Mode = "x" }, field: "Mode", code: CodeParamVerify},
	})
	r := baseBatchPlace()
	r.OrderList = many(50)
	if err := r.Validate(validateNow); err != nil {
		t.Errorf("50 orders rejected: %v", err)
	}
}

func baseModify() ModifyOrderRequest {
	return ModifyOrderRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, NewClientOID: "r1-m1", OrderID: "1001", NewSize: "2", NewPrice: "27100"}
}

func TestValidateModifyOrder(t *testing.T) {
	runValidate(t, OpModifyOrder, baseModify, []vcase[ModifyOrderRequest]{
		{name: "symbol missing", mut: func(r *ModifyOrderRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "productType missing", mut: func(r *ModifyOrderRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "newClientOid missing with size and price", mut: func(r *ModifyOrderRequest) { r.NewClientOID = "" }, field: "newClientOid", code: CodeModifyNoNewOID},
		{name: "newClientOid missing presets only", mut: func(r *ModifyOrderRequest) {
			r.NewClientOID, r.NewSize, r.NewPrice, r.NewPresetStopLossPrice = "", "", "", "26000"
		}, field: "newClientOid", code: CodeParamEmpty},
		{name: "newClientOid charset", mut: func(r *ModifyOrderRequest) { r.NewClientOID = "new id" }, field: "newClientOid", code: CodeParamVerify},
		{name: "no order id", mut: func(r *ModifyOrderRequest) { r.OrderID = "" }, field: "orderId", code: CodeOrderIDOrClientOID},
		{name: "newSize alone", mut: func(r *ModifyOrderRequest) { r.NewPrice = "" }, field: "newPrice", code: CodeSizePriceTogether},
		{name: "newPrice alone", mut: func(r *ModifyOrderRequest) { r.NewSize = "" }, field: "newSize", code: CodeSizePriceTogether},
		{name: "newSize zero", mut: func(r *ModifyOrderRequest) { r.NewSize = "0" }, field: "newSize", code: CodeParamVerify},
		{name: "newPrice negative", mut: func(r *ModifyOrderRequest) { r.NewPrice = "-1" }, field: "newPrice", code: CodeParamVerify},
		{name: "preset negative", mut: func(r *ModifyOrderRequest) { r.NewPresetStopSurplusPrice = "-1" }, field: "newPresetStopSurplusPrice", code: CodeParamVerify},
		{name: "nothing to modify", mut: func(r *ModifyOrderRequest) { r.NewSize, r.NewPrice = "", "" }, field: "newSize", code: CodeModifyUnchanged},
	})
	ok := []func(*ModifyOrderRequest){
		func(r *ModifyOrderRequest) { r.OrderID, r.ClientOID = "", "old-oid" },
		func(r *ModifyOrderRequest) { r.NewSize, r.NewPrice, r.NewPresetStopLossPrice = "", "", "0" }, // 0 deletes the preset
		func(r *ModifyOrderRequest) { r.NewSize, r.NewPrice, r.NewPresetStopSurplusPrice = "", "", "30000" },
	}
	for i, mut := range ok {
		r := baseModify()
		mut(&r)
		if err := r.Validate(validateNow); err != nil {
			t.Errorf("valid variant %d rejected: %v", i, err)
		}
	}
}

func TestValidateCancelOrder(t *testing.T) {
	base := func() CancelOrderRequest {
		return CancelOrderRequest{Symbol: "BTCUSDT", ProductType: COINFutures, ClientOID: "x"}
	}
	runValidate(t, OpCancelOrder, base, []vcase[CancelOrderRequest]{
		{name: "symbol missing", mut: func(r *CancelOrderRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "productType unknown", mut: func(r *CancelOrderRequest) { r.ProductType = "coin-futures" }, field: "productType", code: CodeParamVerify},
		{name: "marginCoin lower", mut: func(r *CancelOrderRequest) { r.MarginCoin = "btc" }, field: "marginCoin", code: CodeParamVerify},
		{name: "neither id", mut: func(r *CancelOrderRequest) { r.ClientOID = "" }, field: "orderId", code: CodeOrderIDOrClientOID},
	})
}

func TestValidateBatchCancelOrders(t *testing.T) {
	base := func() BatchCancelOrdersRequest {
		return BatchCancelOrdersRequest{ProductType: USDTFutures, Symbol: "BTCUSDT", OrderIDList: []OrderRef{{OrderID: "1"}, {ClientOID: "c"}}}
	}
	refs := func(n int) []OrderRef {
		out := make([]OrderRef, n)
		for i := range out {
			out[i] = OrderRef{OrderID: fmt.Sprint(i + 1)}
		}
		return out
	}
	runValidate(t, OpBatchCancelOrders, base, []vcase[BatchCancelOrdersRequest]{
		{name: "productType missing", mut: func(r *BatchCancelOrdersRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "symbol missing with list", mut: func(r *BatchCancelOrdersRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "marginCoin lower", mut: func(r *BatchCancelOrdersRequest) { r.MarginCoin = "usdt" }, field: "marginCoin", code: CodeParamVerify},
		{name: "51 items", mut: func(r *BatchCancelOrdersRequest) { r.OrderIDList = refs(51) }, field: "orderIdList", code: CodeBatchTooLarge},
		{name: "item without id", mut: func(r *BatchCancelOrdersRequest) { r.OrderIDList[1] = OrderRef{} }, field: "orderIdList[1].orderId", code: CodeOrderIDOrClientOID},
	})
	for _, r := range []BatchCancelOrdersRequest{
		{ProductType: USDTFutures},                    // every order of the product type
		{ProductType: USDTFutures, Symbol: "ETHUSDT"}, // every order of a symbol
		{ProductType: USDTFutures, Symbol: "ETHUSDT", OrderIDList: refs(50)},
	} {
		if err := r.Validate(validateNow); err != nil {
			t.Errorf("valid request rejected: %v", err)
		}
	}
}

func TestValidateClosePositions(t *testing.T) {
	base := func() ClosePositionsRequest { return ClosePositionsRequest{ProductType: USDCFutures, HoldSide: Long} }
	runValidate(t, OpClosePositions, base, []vcase[ClosePositionsRequest]{
		{name: "productType missing", mut: func(r *ClosePositionsRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "holdSide unknown", mut: func(r *ClosePositionsRequest) { r.HoldSide = "net" }, field: "holdSide", code: CodeParamVerify},
	})
}

func TestValidateCancelAllOrders(t *testing.T) {
	base := func() CancelAllOrdersRequest {
		return CancelAllOrdersRequest{ProductType: USDTFutures, MarginCoin: "USDT", RequestTime: ms(validateNow), ReceiveWindow: "60000"}
	}
	runValidate(t, OpCancelAllOrders, base, []vcase[CancelAllOrdersRequest]{
		{name: "productType missing", mut: func(r *CancelAllOrdersRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "marginCoin lower", mut: func(r *CancelAllOrdersRequest) { r.MarginCoin = "usdt" }, field: "marginCoin", code: CodeParamVerify},
		{name: "receiveWindow over 60 s", mut: func(r *CancelAllOrdersRequest) { r.ReceiveWindow = "60001" }, field: "receiveWindow", code: CodeParamVerify},
		{name: "receiveWindow beyond a Duration", mut: func(r *CancelAllOrdersRequest) { r.ReceiveWindow = "9223372036854775807" }, field: "receiveWindow", code: CodeParamVerify},
		{name: "receiveWindow not a number", mut: func(r *CancelAllOrdersRequest) { r.ReceiveWindow = "5s" }, field: "receiveWindow", code: CodeParamVerify},
		{name: "requestTime not a number", mut: func(r *CancelAllOrdersRequest) { r.RequestTime = "now" }, field: "requestTime", code: CodeParamVerify},
	})
}

func TestValidateSetPositionMode(t *testing.T) {
	base := func() SetPositionModeRequest {
		return SetPositionModeRequest{ProductType: USDTFutures, PosMode: HedgeMode}
	}
	runValidate(t, OpSetPositionMode, base, []vcase[SetPositionModeRequest]{
		{name: "productType missing", mut: func(r *SetPositionModeRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "posMode missing", mut: func(r *SetPositionModeRequest) { r.PosMode = "" }, field: "posMode", code: CodeParamEmpty},
		{name: "posMode unknown", mut: func(r *SetPositionModeRequest) { r.PosMode = "hedge" }, field: "posMode", code: CodeParamVerify},
	})
}

func TestValidateOrderDetail(t *testing.T) {
	base := func() OrderDetailRequest {
		return OrderDetailRequest{Symbol: "BTCUSDT", ProductType: USDTFutures, OrderID: "1"}
	}
	runValidate(t, OpOrderDetail, base, []vcase[OrderDetailRequest]{
		{name: "symbol missing", mut: func(r *OrderDetailRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "symbol lower case", mut: func(r *OrderDetailRequest) { r.Symbol = "btcusdt" }, field: "symbol", code: CodeParamVerify},
		{name: "productType missing", mut: func(r *OrderDetailRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "neither id", mut: func(r *OrderDetailRequest) { r.OrderID = "" }, field: "orderId", code: CodeOrderIDOrClientOID},
	})
}

func TestValidateFills(t *testing.T) {
	base := func() FillsRequest {
		return FillsRequest{ProductType: USDTFutures, StartTime: ms(validateNow.Add(-30 * 24 * time.Hour)), EndTime: ms(validateNow), Limit: 100}
	}
	runValidate(t, OpFills, base, []vcase[FillsRequest]{
		{name: "productType missing", mut: func(r *FillsRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "limit 101", mut: func(r *FillsRequest) { r.Limit = 101 }, field: "limit", code: CodeParamVerify},
		{name: "limit negative", mut: func(r *FillsRequest) { r.Limit = -1 }, field: "limit", code: CodeParamVerify},
		{name: "start after end", mut: func(r *FillsRequest) { r.StartTime = ms(validateNow.Add(time.Millisecond)) }, field: "endTime", code: CodeParamVerify},
		{name: "startTime garbage", mut: func(r *FillsRequest) { r.StartTime = "2026-03-01" }, field: "startTime", code: CodeParamVerify},
	})
}

func TestValidateFillHistory(t *testing.T) {
	week := 7 * 24 * time.Hour
	base := func() FillHistoryRequest {
		return FillHistoryRequest{ProductType: USDTFutures, StartTime: ms(validateNow.Add(-week)), EndTime: ms(validateNow)}
	}
	runValidate(t, OpFillHistory, base, []vcase[FillHistoryRequest]{
		{name: "productType missing", mut: func(r *FillHistoryRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "span one week and 1 ms", mut: func(r *FillHistoryRequest) { r.StartTime = ms(validateNow.Add(-week - time.Millisecond)) }, field: "endTime", code: CodeSpanTooLarge},
		{name: "start after end", mut: func(r *FillHistoryRequest) { r.StartTime, r.EndTime = r.EndTime, r.StartTime }, field: "endTime", code: CodeParamVerify},
		{name: "limit 101", mut: func(r *FillHistoryRequest) { r.Limit = 101 }, field: "limit", code: CodeParamVerify},
		{name: "endTime garbage", mut: func(r *FillHistoryRequest) { r.EndTime = "-5" }, field: "endTime", code: CodeParamVerify},
	})
	// endTime omitted: the server ends the span a week after the start.
	r := base()
	r.StartTime, r.EndTime = ms(validateNow.Add(-300*24*time.Hour)), ""
	if err := r.Validate(validateNow); err != nil {
		t.Errorf("startTime alone rejected: %v", err)
	}
}

func TestValidatePendingOrders(t *testing.T) {
	base := func() PendingOrdersRequest {
		return PendingOrdersRequest{ProductType: USDTFutures, Status: StatePartiallyFilled, Limit: 50}
	}
	runValidate(t, OpOrdersPending, base, []vcase[PendingOrdersRequest]{
		{name: "productType missing", mut: func(r *PendingOrdersRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "status filled", mut: func(r *PendingOrdersRequest) { r.Status = StateFilled }, field: "status", code: CodeParamVerify},
		{name: "status canceled", mut: func(r *PendingOrdersRequest) { r.Status = StateCanceled }, field: "status", code: CodeParamVerify},
		{name: "limit 101", mut: func(r *PendingOrdersRequest) { r.Limit = 101 }, field: "limit", code: CodeParamVerify},
		{name: "start after end", mut: func(r *PendingOrdersRequest) { r.StartTime, r.EndTime = "2", "1" }, field: "endTime", code: CodeParamVerify},
	})
}

func TestValidateOrderHistory(t *testing.T) {
	days := func(n int) Millis { return ms(validateNow.Add(-time.Duration(n) * 24 * time.Hour)) }
	base := func() OrderHistoryRequest {
		return OrderHistoryRequest{ProductType: USDTFutures, OrderSource: OSPosLossMarket, StartTime: days(90), EndTime: days(0)}
	}
	runValidate(t, OpOrdersHistory, base, []vcase[OrderHistoryRequest]{
		{name: "productType missing", mut: func(r *OrderHistoryRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "orderSource not a filter value", mut: func(r *OrderHistoryRequest) { r.OrderSource = OSProfitChase }, field: "orderSource", code: CodeParamVerify},
		{name: "orderSource unknown", mut: func(r *OrderHistoryRequest) { r.OrderSource = "manual" }, field: "orderSource", code: CodeParamVerify},
		{name: "startTime 90 days and 1 ms ago", mut: func(r *OrderHistoryRequest) {
			r.StartTime = ms(validateNow.Add(-90*24*time.Hour - time.Millisecond))
		}, field: "startTime", code: CodeOnly90Days},
		{name: "endTime alone older than 90 days", mut: func(r *OrderHistoryRequest) { r.StartTime, r.EndTime = "", days(91) }, field: "endTime", code: CodeOnly90Days},
		{name: "span over 90 days into the future", mut: func(r *OrderHistoryRequest) { r.EndTime = days(-1) }, field: "endTime", code: CodeSpanOver90Days},
		{name: "limit 101", mut: func(r *OrderHistoryRequest) { r.Limit = 101 }, field: "limit", code: CodeParamVerify},
	})
}

func TestValidateStock(t *testing.T) {
	runValidate(t, OpStockOrderBook, func() StockOrderBookRequest { return StockOrderBookRequest{Symbol: "TSLAUSDT"} }, []vcase[StockOrderBookRequest]{
		{name: "symbol missing", mut: func(r *StockOrderBookRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
	})
	runValidate(t, OpStockFills, func() StockFillsRequest { return StockFillsRequest{Symbol: "TSLAUSDT", Limit: 100} }, []vcase[StockFillsRequest]{
		{name: "symbol missing", mut: func(r *StockFillsRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "limit 101", mut: func(r *StockFillsRequest) { r.Limit = 101 }, field: "limit", code: CodeParamVerify},
	})
	if err := (StockInfoRequest{}).Validate(validateNow); err != nil {
		t.Errorf("stock-info without symbol rejected: %v", err)
	}
}

func TestValidateStrategyOrders(t *testing.T) {
	base := func() StrategyOrdersRequest {
		return StrategyOrdersRequest{Category: CategoryUSDTFutures, Type: StrategyTWAP}
	}
	runValidate(t, OpStrategyOrders, base, []vcase[StrategyOrdersRequest]{
		{name: "category missing", mut: func(r *StrategyOrdersRequest) { r.Category = "" }, field: "category", code: CodeParamEmpty},
		{name: "category unknown", mut: func(r *StrategyOrdersRequest) { r.Category = "usdt-swap" }, field: "category", code: CodeParamVerify},
		{name: "type unknown", mut: func(r *StrategyOrdersRequest) { r.Type = "grid" }, field: "type", code: CodeParamVerify},
	})
}

func TestValidateSpotRecord(t *testing.T) {
	month := 30 * 24 * time.Hour
	base := func() SpotRecordRequest {
		return SpotRecordRequest{Coin: "USDT", StartTime: ms(validateNow.Add(-month)), EndTime: ms(validateNow), Limit: 500}
	}
	runValidate(t, OpSpotRecord, base, []vcase[SpotRecordRequest]{
		{name: "startTime missing", mut: func(r *SpotRecordRequest) { r.StartTime = "" }, field: "startTime", code: CodeParamEmpty},
		{name: "endTime missing", mut: func(r *SpotRecordRequest) { r.EndTime = "" }, field: "endTime", code: CodeParamEmpty},
		{name: "both missing", mut: func(r *SpotRecordRequest) { r.StartTime, r.EndTime = "", "" }, field: "startTime", code: CodeParamEmpty, also: []string{"endTime"}},
		{name: "span 30 days and 1 ms", mut: func(r *SpotRecordRequest) { r.StartTime = ms(validateNow.Add(-month - time.Millisecond)) }, field: "endTime", code: CodeSpanTooLarge},
		{name: "start after end", mut: func(r *SpotRecordRequest) { r.StartTime, r.EndTime = r.EndTime, r.StartTime }, field: "endTime", code: CodeParamVerify},
		{name: "limit 501", mut: func(r *SpotRecordRequest) { r.Limit = 501 }, field: "limit", code: CodeParamVerify},
		{name: "span beyond a Duration", mut: func(r *SpotRecordRequest) { r.StartTime, r.EndTime = "0", "9223372036854775807" }, field: "endTime", code: CodeSpanTooLarge},
	})
}

func TestValidateExtraEndpoints(t *testing.T) {
	runValidate(t, OpAllPositions, func() AllPositionsRequest { return AllPositionsRequest{ProductType: USDTFutures, MarginCoin: "USDT"} }, []vcase[AllPositionsRequest]{
		{name: "productType missing", mut: func(r *AllPositionsRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
		{name: "marginCoin lower", mut: func(r *AllPositionsRequest) { r.MarginCoin = "usdt" }, field: "marginCoin", code: CodeParamVerify},
	})
	runValidate(t, OpSinglePosition, func() SinglePositionRequest {
		return SinglePositionRequest{ProductType: USDTFutures, Symbol: "BTCUSDT", MarginCoin: "USDT"}
	}, []vcase[SinglePositionRequest]{
		{name: "symbol missing", mut: func(r *SinglePositionRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "marginCoin missing", mut: func(r *SinglePositionRequest) { r.MarginCoin = "" }, field: "marginCoin", code: CodeParamEmpty},
	})
	runValidate(t, OpContracts, func() ContractsRequest { return ContractsRequest{ProductType: USDTFutures} }, []vcase[ContractsRequest]{
		{name: "productType missing", mut: func(r *ContractsRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
	})
	runValidate(t, OpTicker, func() TickerRequest { return TickerRequest{Symbol: "BTCUSDT", ProductType: USDTFutures} }, []vcase[TickerRequest]{
		{name: "symbol missing", mut: func(r *TickerRequest) { r.Symbol = "" }, field: "symbol", code: CodeParamEmpty},
		{name: "productType unknown", mut: func(r *TickerRequest) { r.ProductType = "X" }, field: "productType", code: CodeParamVerify},
	})
	runValidate(t, OpAccounts, func() AccountsRequest { return AccountsRequest{ProductType: USDTFutures} }, []vcase[AccountsRequest]{
		{name: "productType missing", mut: func(r *AccountsRequest) { r.ProductType = "" }, field: "productType", code: CodeParamEmpty},
	})
	if err := (DiscountRateRequest{}).Validate(validateNow); err != nil {
		t.Errorf("discount rate without coin rejected: %v", err)
	}
}

// FuzzValidate decodes outside input into every request the simulator
// validates and checks that Validate never panics and reports only
// well-formed problems the simulator can answer with.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"1","side":"buy","orderType":"limit"}`))
	f.Add([]byte(`{"orderList":[{"size":"-0","price":"1.","clientOid":"a"},{"clientOid":"a"}],"orderIdList":[{}]}`))
	f.Add([]byte(`{"startTime":"99999999999999999999","endTime":"-1","limit":501,"receiveWindow":"60001","newSize":"1e3"}`))
	reqs := []func() validator{
		func() validator { return new(PlaceOrderRequest) },
		func() validator { return new(ClickBackhandRequest) },
		func() validator { return new(BatchPlaceOrderRequest) },
		func() validator { return new(ModifyOrderRequest) },
		func() validator { return new(CancelOrderRequest) },
		func() validator { return new(BatchCancelOrdersRequest) },
		func() validator { return new(CancelAllOrdersRequest) },
		func() validator { return new(FillHistoryRequest) },
		func() validator { return new(OrderHistoryRequest) },
		func() validator { return new(SpotRecordRequest) },
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range reqs {
			r := mk()
			if json.Unmarshal(data, r) != nil {
				continue
			}
			err := r.Validate(validateNow)
			if err == nil {
				continue
			}
			for _, ve := range flatten(t, err) {
				if ve.Op == "" || ve.Field == "" || ve.Rule == "" || ve.Code == "" {
					t.Fatalf("%T: incomplete problem %+v", r, ve)
				}
			}
		}
	})
}
