package status

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
)

// TestOrderRecords: each request of a firing is described as a trader
// reads it, by the action kind that sends its operation; messages are not
// orders, and a leg whose request could not be built still shows its
// error.
func TestOrderRecords(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		leg  actions.Leg
		want []OrderRecord
	}{
		{"one-way close", actions.Leg{Kind: "place_order", Op: exchange.OpPlaceOrder, Outcome: actions.OK, OrderIDs: []string{"9"}, ClientOIDs: []string{"tr-1"},
			Request: exchange.PlaceOrderRequest{Symbol: "BTCUSDT", Side: exchange.Sell, ReduceOnly: exchange.Yes, OrderType: exchange.Market, Size: "0.5", Price: "1"}},
			[]OrderRecord{{Kind: "place_order", Symbol: "BTCUSDT", Side: "sell", Intent: "close long", Type: "market", Size: "0.5", ClientOID: "tr-1", OrderID: "9", Outcome: actions.OK}}},
		{"hedge batch", actions.Leg{Kind: "batch_place", Op: exchange.OpBatchPlaceOrder, Outcome: actions.OK, OrderIDs: []string{"1", "2"},
			Request: exchange.BatchPlaceOrderRequest{Symbol: "ETHUSDT", OrderList: []exchange.BatchOrder{
				{Side: exchange.Buy, TradeSide: exchange.Open, OrderType: exchange.Limit, Size: "1", Price: "2000", ClientOID: "a"},
				{Side: exchange.Sell, TradeSide: exchange.Close, OrderType: exchange.Limit, Size: "2", Price: "2100", ClientOID: "b"}}}},
			[]OrderRecord{
				{Kind: "batch_place", Symbol: "ETHUSDT", Side: "buy", Intent: "open long", Type: "limit", Size: "1", Price: "2000", ClientOID: "a", OrderID: "1", Outcome: actions.OK},
				{Kind: "batch_place", Symbol: "ETHUSDT", Side: "sell", Intent: "close short", Type: "limit", Size: "2", Price: "2100", ClientOID: "b", OrderID: "2", Outcome: actions.OK}}},
		{"reverse", actions.Leg{Kind: "reverse_position", Op: exchange.OpClickBackhand, Outcome: actions.OK, Request: exchange.ClickBackhandRequest{Symbol: "BTCUSDT", Side: exchange.Sell}},
			[]OrderRecord{{Kind: "reverse_position", Symbol: "BTCUSDT", Side: "sell", Intent: "reverse short", Type: "market", Outcome: actions.OK}}},
		{"close a product type", actions.Leg{Kind: "close_positions", Op: exchange.OpClosePositions, Outcome: actions.OK, Request: exchange.ClosePositionsRequest{ProductType: exchange.USDCFutures}},
			[]OrderRecord{{Kind: "close_positions", Symbol: "USDC-FUTURES", Intent: "close all", Type: "market", Outcome: actions.OK}}},
		{"modify", actions.Leg{Kind: "modify_order", Op: exchange.OpModifyOrder, Outcome: actions.OK, Request: exchange.ModifyOrderRequest{Symbol: "BTCUSDT", NewSize: "2", NewPrice: "3"}},
			[]OrderRecord{{Kind: "modify_order", Symbol: "BTCUSDT", Intent: "modify", Size: "2", Price: "3", Outcome: actions.OK}}},
		{"cancel all", actions.Leg{Kind: "cancel_all", Op: exchange.OpCancelAllOrders, Outcome: actions.OK, Request: exchange.CancelAllOrdersRequest{ProductType: exchange.USDTFutures}},
			[]OrderRecord{{Kind: "cancel_all", Symbol: "USDT-FUTURES", Intent: "cancel all", Outcome: actions.OK}}},
		{"cancel all sent again as a batch cancel", actions.Leg{Kind: "cancel_all", Op: exchange.OpBatchCancelOrders, Outcome: actions.OK,
			Request: exchange.BatchCancelOrdersRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"}},
			[]OrderRecord{{Kind: "cancel_all", Symbol: "BTCUSDT", Intent: "cancel", Outcome: actions.OK}}},
		{"not built", actions.Leg{Kind: "place_order", Op: exchange.OpPlaceOrder, Outcome: actions.Failed, Error: "size: rounds to 0"},
			[]OrderRecord{{Kind: "place_order", Outcome: actions.Failed, Error: "size: rounds to 0"}}},
		{"log", actions.Leg{Kind: "log", Outcome: actions.OK, Note: "hi"}, nil},
		{"notify", actions.Leg{Kind: "notify", Outcome: actions.OK, Note: "hi"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := OrderRecords("r", at, []actions.Leg{tt.leg})
			if len(got) != len(tt.want) {
				t.Fatalf("got %d records %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				want := tt.want[i]
				want.At, want.Rule = at, "r"
				if got[i] != want {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], want)
				}
			}
		})
	}
}
