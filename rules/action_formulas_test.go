package rules_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/rules"
)

// TestActionFormulasAndLists loads the parameters that may be formulas or
// lists beyond numbers and texts: batch_cancel ids, product types and
// cancel_all over several product types.
func TestActionFormulasAndLists(t *testing.T) {
	for _, tc := range []struct {
		name, action string
		err          string // "" when the file loads
		check        func(t *testing.T, a *rules.Action)
	}{
		{"ids formula", `batch_cancel: {symbol: TSLAUSDT, orders: '=map(filter(orders("TSLAUSDT"), .age_seconds > 600), .id)'}`, "", func(t *testing.T, a *rules.Action) {
			if v := a.Params["orders"]; v == nil || !v.IsFormula() || v.Formula.Kind != rules.TextList {
				t.Errorf("orders is %+v, want a TextList formula", v)
			}
		}},
		{"client ids formula over all orders", `batch_cancel: {symbol: TSLAUSDT, client_oids: '=map(filter(all_orders, .symbol == "TSLAUSDT"), .client_oid)'}`, "", nil},
		{"ids formula giving a number", `batch_cancel: {symbol: TSLAUSDT, orders: '=orders_count("TSLAUSDT")'}`, "this formula gives a number, but a list of texts is needed here", nil},
		{"product type formula", `cancel_order: {symbol: TSLAUSDT, order_id: "1", product_type: '=position("TSLAUSDT", "long").product_type'}`, "", func(t *testing.T, a *rules.Action) {
			if v := a.Params["product_type"]; v == nil || !v.IsFormula() {
				t.Errorf("product_type is %+v, want a formula", v)
			}
		}},
		{"product type formula giving a number", `cancel_all: {product_type: '=1 + 1'}`, "this formula gives a number, but text is needed here", nil},
		{"cancel_all over two product types", `cancel_all: {product_type: [USDT-FUTURES, USDC-FUTURES]}`, "", func(t *testing.T, a *rules.Action) {
			if got, _ := a.Params["product_type"].Literal.([]string); !slices.Equal(got, []string{"USDT-FUTURES", "USDC-FUTURES"}) {
				t.Errorf("product_type %v", got)
			}
		}},
		{"cancel_all list with a typo", `cancel_all: {product_type: [USDT-FUTURES, USDC-FUTRES]}`, "got 'USDC-FUTRES'", nil},
		{"cancel_all list twice the same", `cancel_all: {product_type: [USDT-FUTURES, USDT-FUTURES]}`, "product_type lists USDT-FUTURES twice", nil},
		{"cancel_all empty list", `cancel_all: {product_type: []}`, "product_type is an empty list", nil},
		{"cancel_all list and margin coin", `cancel_all: {product_type: [USDT-FUTURES, USDC-FUTURES], margin_coin: USDT}`, "margin_coin applies to one product type, but product_type lists 2", nil},
		{"a list where one product type is allowed", `cancel_order: {symbol: TSLAUSDT, order_id: "1", product_type: [USDT-FUTURES]}`, "product_type must be one of", nil},
		{"a choice that is not a formula", `reverse_position: {symbol: TSLAUSDT, side: '=weekday'}`, "side must be one of long, short", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "rules:\n  - name: r\n    when: market.is_open\n    actions:\n      - " + tc.action + "\n"
			rs, errs := rules.LoadBytes(context.Background(), "r.yaml", []byte(src), testOptions())
			if tc.err != "" {
				if len(errs) == 0 || !strings.Contains(errs.Error(), tc.err) {
					t.Fatalf("errors %v, want one saying %q", errs, tc.err)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if tc.check != nil {
				tc.check(t, rs.Rules[0].Actions[0])
			}
		})
	}
}
