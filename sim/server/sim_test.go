package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// Field names of records as the spec lists them, written out from
// spec/exchange-api.md so that the simulator's JSON is checked against the
// spec and not only against our own client's structs.
var (
	specOrderRecord = strings.Fields(`symbol size orderId clientOid baseVolume quoteVolume priceAvg fee price
		state side force totalProfits posSide marginCoin presetStopSurplusPrice presetStopLossPrice orderType
		leverage marginMode reduceOnly enterPointSource tradeSide newTradeSide posMode orderSource cancelReason cTime uTime`)
	specPendingRecord = strings.Fields(`symbol size orderId clientOid baseVolume fee price priceAvg status side
		force totalProfits posSide marginCoin quoteVolume leverage marginMode enterPointSource tradeSide posMode
		orderType orderSource cTime uTime presetStopSurplusPrice presetStopLossPrice presetStopSurplusTriggerType
		presetStopSurplusExecutePrice presetStopLossTriggerType presetStopLossExecutePrice`)
	specStockInfo = strings.Fields(`symbol code name tradingPeriod weekendTradable`)
	specAck       = strings.Fields(`orderId clientOid`)
)

// keysOf returns the keys of a JSON object.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not an object: %v: %s", err, raw)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func expectFields(t *testing.T, what string, raw json.RawMessage, want []string) {
	t.Helper()
	got := keysOf(t, raw)
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("%s lacks the spec's field %q; has %v", what, f, got)
		}
	}
}

const simPlace = `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit","price":"55000","force":"gtc","clientOid":"sim-1"}`

func TestSimulatorOverHTTP(t *testing.T) {
	h := newSimHarness(t, nil)

	place := h.do(call{method: "POST", target: pathPlace, body: simPlace, headers: map[string]string{"X-CHANNEL-API-CODE": "abc123", "paptrading": "1"}})
	place.expect(t, http.StatusOK, exchange.CodeSuccess)
	expectFields(t, "place-order data", place.env.Data, specAck)
	var ack exchange.OrderAck
	if err := json.Unmarshal(place.env.Data, &ack); err != nil || ack.OrderID == "" || ack.ClientOID != "sim-1" {
		t.Fatalf("ack %+v (%v)", ack, err)
	}

	detail := h.do(call{method: "GET", target: pathDetail + "?clientOid=sim-1&productType=USDT-FUTURES&symbol=BTCUSDT"})
	detail.expect(t, http.StatusOK, exchange.CodeSuccess)
	expectFields(t, "order detail", detail.env.Data, specOrderRecord)
	var d exchange.OrderDetail
	if err := json.Unmarshal(detail.env.Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.OrderID != ack.OrderID || d.State != "live" || d.Price.MustDecimal().String() != "55000" {
		t.Errorf("detail = %+v", d)
	}

	pending := h.do(call{method: "GET", target: "/api/v2/mix/order/orders-pending?productType=USDT-FUTURES"})
	pending.expect(t, http.StatusOK, exchange.CodeSuccess)
	var page struct {
		EntrustedList []json.RawMessage `json:"entrustedList"`
		EndID         *string           `json:"endId"`
	}
	if err := json.Unmarshal(pending.env.Data, &page); err != nil || len(page.EntrustedList) != 1 || page.EndID == nil {
		t.Fatalf("orders-pending data %s (%v)", pending.env.Data, err)
	}
	expectFields(t, "pending order", page.EntrustedList[0], specPendingRecord)

	info := h.do(call{method: "GET", target: pathInfo, unsigned: true})
	info.expect(t, http.StatusOK, exchange.CodeSuccess)
	var infos []json.RawMessage
	if err := json.Unmarshal(info.env.Data, &infos); err != nil || len(infos) != 1 {
		t.Fatalf("stock-info data %s (%v)", info.env.Data, err)
	}
	expectFields(t, "stock info", infos[0], specStockInfo)

	// One-way account: tradeSide is rejected with 40774 (the default setting).
	withTradeSide := strings.Replace(simPlace, `"force":"gtc"`, `"tradeSide":"open"`, 1)
	h.do(call{method: "POST", target: pathPlace, body: withTradeSide}).expect(t, http.StatusBadRequest, exchange.CodeTradeSideOneWay)

	cancel := h.do(call{method: "POST", target: pathCancel, body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","orderId":"` + ack.OrderID + `"}`})
	cancel.expect(t, http.StatusOK, exchange.CodeSuccess)
	h.do(call{method: "POST", target: pathCancel, body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","orderId":"` + ack.OrderID + `"}`}).
		expect(t, http.StatusBadRequest, cancelAgainCode(t, h, ack.OrderID))
}

// cancelAgainCode is whatever code the simulator gives for cancelling a
// cancelled order; it must be one of the notes' "no order" codes.
func cancelAgainCode(t *testing.T, h *harness, id string) string {
	t.Helper()
	r := h.do(call{method: "POST", target: pathCancel, body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","orderId":"` + id + `"}`})
	switch r.env.Code {
	case exchange.CodeNoOrderCancel, exchange.CodeOrderNotExist, exchange.CodeOrderNotExist2:
		return r.env.Code
	}
	t.Fatalf("cancelling a cancelled order: code %s, want a no-order code; %s", r.env.Code, r.raw)
	return ""
}

func TestSimulatorDropAfterProcessing(t *testing.T) {
	h := newSimHarness(t, func(o *Options) { o.Faults = Faults{Seed: 3, DropRate: 1, DropAfterProcessing: true} })
	err := h.sendRaw(call{method: "POST", target: pathPlace, body: simPlace})
	if !errors.Is(err, io.EOF) {
		t.Fatalf("error = %v, want EOF", err)
	}
	// Look the order up by clientOid without faults: it exists.
	h2 := h.withoutFaults()
	r := h2.do(call{method: "GET", target: pathDetail + "?clientOid=sim-1&productType=USDT-FUTURES&symbol=BTCUSDT"})
	r.expect(t, http.StatusOK, exchange.CodeSuccess)
}

// TestSimulatorRejectionsOverHTTP sends, raw and hand-signed, the requests
// that exchange.Client refuses before sending (so the conformance suite over
// HTTP never gets them to the server) and checks that the simulator answers
// them over HTTP with the code the client would have reported.
func TestSimulatorRejectionsOverHTTP(t *testing.T) {
	h := newSimHarness(t, func(o *Options) { o.DisableRateLimits = true })
	var batch strings.Builder
	for i := range 51 {
		if i > 0 {
			batch.WriteByte(',')
		}
		batch.WriteString(`{"size":"0.01","price":"50000","side":"buy","orderType":"limit"}`)
	}
	day := int64(24 * 60 * 60 * 1000)
	start := testStart.UnixMilli() - 40*day
	ms := func(v int64) string { return strconv.FormatInt(v, 10) }
	tests := []struct {
		name string
		c    call
		code string
	}{
		{"limit order without price", call{method: "POST", target: pathPlace,
			body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit"}`}, exchange.CodeParamEmpty},
		{"batch of 51", call{method: "POST", target: "/api/v2/mix/order/batch-place-order",
			body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","orderList":[` + batch.String() + `]}`}, exchange.CodeBatchTooLarge},
		{"newPrice without newSize", call{method: "POST", target: "/api/v2/mix/order/modify-order",
			body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","orderId":"1","newClientOid":"n-1","newPrice":"50000"}`}, exchange.CodeSizePriceTogether},
		{"fill-history over a week", call{method: "GET",
			target: "/api/v2/mix/order/fill-history?endTime=" + ms(start+8*day) + "&productType=USDT-FUTURES&startTime=" + ms(start)}, exchange.CodeSpanTooLarge},
		{"spot-record over 30 days", call{method: "GET",
			target: "/api/v2/tax/spot-record?endTime=" + ms(start+31*day) + "&startTime=" + ms(start)}, exchange.CodeSpanTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.do(tt.c).expect(t, http.StatusBadRequest, tt.code)
		})
	}
}
