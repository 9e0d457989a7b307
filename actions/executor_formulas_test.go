package actions_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// TestPlanFormulasAndProductLists plans the actions whose ids or product
// types are formulas or lists: cancel_all sends one request per product
// type, ids come from the State, and ids formulas that find nothing send
// nothing (a batch cancel without ids would cancel every order).
func TestPlanFormulasAndProductLists(t *testing.T) {
	ctx := context.Background()
	v, _, cat := demoVenue(t)
	now := v.Now()
	old := exchange.MillisOf(now.Add(-20 * time.Minute))
	st, err := marketdata.NewState(marketdata.BuildInput{Now: now, Contracts: cat.Contracts,
		Orders: []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, At: now, Orders: []exchange.PendingOrder{
			{ListOrder: exchange.ListOrder{Symbol: "BTCUSDT", OrderID: "o1", ClientOID: "c1", Size: "1", Price: "100", Side: exchange.Buy, Status: exchange.StateLive, OrderType: exchange.Limit, CTime: old}},
			{ListOrder: exchange.ListOrder{Symbol: "BTCUSDT", OrderID: "o2", ClientOID: "c2", Size: "1", Price: "99", Side: exchange.Buy, Status: exchange.StateLive, OrderType: exchange.Limit, CTime: exchange.MillisOf(now)}},
		}}},
	}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: exchange.OneWayMode, exchange.USDCFutures: exchange.OneWayMode}
	x := actions.NewExecutor(actions.ExecutorOptions{Catalog: cat, Modes: modes})
	for _, tc := range []struct {
		name, action string
		want         []string // the requests, as JSON
		done         string   // the note or error of a plan that sends nothing
	}{
		{"cancel_all over two product types", `cancel_all: {product_type: [USDT-FUTURES, USDC-FUTURES]}`,
			[]string{`{"productType":"USDT-FUTURES"}`, `{"productType":"USDC-FUTURES"}`}, ""},
		{"cancel_all with one product type", `cancel_all: {product_type: USDC-FUTURES, margin_coin: USDC}`,
			[]string{`{"productType":"USDC-FUTURES","marginCoin":"USDC"}`}, ""},
		{"cancel_all with a product type formula", `cancel_all: {product_type: '=all_orders[0].product_type'}`,
			[]string{`{"productType":"USDT-FUTURES"}`}, ""},
		{"product type formula giving no product type", `cancel_all: {product_type: '=weekday'}`, nil, "is not a product type"},
		{"ids from a formula", `batch_cancel: {symbol: BTCUSDT, orders: '=map(filter(all_orders, .age_seconds > 600), .id)'}`,
			[]string{`{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginCoin":"USDT","orderIdList":[{"orderId":"o1"}]}`}, ""},
		{"client ids from a formula", `batch_cancel: {symbol: BTCUSDT, client_oids: '=map(orders("BTCUSDT"), .client_oid)'}`,
			[]string{`{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginCoin":"USDT","orderIdList":[{"clientOid":"c1"},{"clientOid":"c2"}]}`}, ""},
		{"ids formula finding nothing", `batch_cancel: {symbol: BTCUSDT, orders: '=map(filter(all_orders, .age_seconds > 86400), .id)'}`, nil, "nothing sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "rules:\n  - name: r\n    when: now_ms > 0\n    actions:\n      - " + tc.action + "\n"
			rs, errs := rules.LoadBytes(ctx, "r.yaml", []byte(src), rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
			if rs == nil || len(errs) > 0 {
				t.Fatal(errs)
			}
			plans := x.Plan(ctx, rs.Rules[0], now, rules.NewEnv(st), rules.NewVM(), st)
			if tc.done != "" {
				if len(plans) != 1 || plans[0].Done == nil || !strings.Contains(plans[0].Done.Note+plans[0].Done.Error, tc.done) {
					t.Fatalf("plans %+v, want one done saying %q", plans, tc.done)
				}
				return
			}
			var got []string
			for _, p := range plans {
				if p.Done != nil {
					t.Fatalf("plan not sent: %+v", p.Done)
				}
				got = append(got, string(actions.RequestJSON(p.Request)))
			}
			if g, w := strings.Join(got, "\n"), strings.Join(tc.want, "\n"); !jsonEqualLines(t, g, w) {
				t.Errorf("requests\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// jsonEqualLines compares two lists of JSON documents, one a line, by value.
func jsonEqualLines(t *testing.T, got, want string) bool {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		var a, b any
		if json.Unmarshal([]byte(g[i]), &a) != nil || json.Unmarshal([]byte(w[i]), &b) != nil {
			return false
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			return false
		}
	}
	return true
}
