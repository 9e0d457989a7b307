package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

// FuzzServer sends arbitrary methods, paths, queries, headers and bodies,
// signed or not (with the demo key), to the server in front of the demo
// simulator, and checks that
// every answer is a well-formed envelope with a status the server documents
// and that nothing panicked below it: nothing a client sends may crash the
// server or the simulator.
func FuzzServer(f *testing.F) {
	sc := sim.Demo()
	const key, secret, pass = "demo-key", "demo-secret", "demo-passphrase"
	f.Add("POST", pathPlace, "", placeBody, true, "")
	f.Add("GET", pathDetail, "symbol=BTCUSDT&productType=USDT-FUTURES&orderId=1", "", true, "")
	f.Add("GET", pathInfo, "symbol=%zz", "", false, "")
	f.Add("POST", "/api/v2/mix/order/batch-place-order", "", `{"orderList":[{"size":1e999}]}`, true, "")
	f.Add("POST", "/api/v2/mix/order/cancel-all-orders", "", `{"productType":"USDT-FUTURES"}`, true, "")
	f.Add("GET", "/api/v2/mix/order/orders-pending", "limit=-1&limit=x", "", true, "ACCESS-TIMESTAMP")
	f.Add("GET", "/api/v2/tax/spot-record", "startTime=0&endTime=9223372036854775807&limit=500", "", true, "")
	f.Add("GET", "/api/v2/mix/order/fill-history", "productType=USDT-FUTURES&startTime=-5&endTime=-1", "", true, "")
	f.Add("POST", "/api/v2/mix/order/modify-order", "", `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","orderId":"1","newClientOid":"n","newSize":"-1","newPrice":"1e-40"}`, true, "")
	f.Add("POST", "/api/v2/mix/order/click-backhand", "", `{"symbol":"TSLAUSDT","productType":"USDT-FUTURES","marginCoin":"USDT","side":"sell","size":"99999999999999999999"}`, true, "")
	f.Add("DELETE", "/%00", "", "\x00\xff", false, "ACCESS-KEY")
	f.Add("POST", pathPlace, "", `{"size":"0.01","price":null,"symbol":["x"]}`, true, "ACCESS-SIGN")

	for _, info := range exchange.Ops() {
		f.Add(info.Method, info.Path, "", "{}", true, "")
	}
	f.Fuzz(func(t *testing.T, method, path, query, body string, sign bool, dropHeader string) {
		clk := clock.NewVirtual(sc.Clock.Start)
		x, err := sim.New(sc, sim.Options{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		core, logs := observer.New(zapcore.ErrorLevel)
		srv := New(Options{Backend: SimBackend(x), Clock: clk, Logger: zap.New(core)})
		target := path
		if query != "" {
			target += "?" + query
		}
		req := httptest.NewRequest(http.MethodGet, "/", bytes.NewBufferString(body))
		// Set the fields directly: httptest.NewRequest panics on input a
		// real server would reject before any handler runs.
		req.Method = method
		req.URL.Path, req.URL.RawQuery = path, query
		if sign {
			ts := strconv.FormatInt(clk.Now().UnixMilli(), 10)
			req.Header.Set(headerKey, key)
			req.Header.Set(headerPassphrase, pass)
			req.Header.Set(headerTimestamp, ts)
			req.Header.Set(headerSign, handSign(secret, ts, strings.ToUpper(method), target, body))
		}
		req.Header.Del(dropHeader)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)

		switch rec.Code {
		case 200, 400, 404, 429, 500:
		default:
			t.Fatalf("%s %s: HTTP %d", method, target, rec.Code)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &fields); err != nil {
			t.Fatalf("%s %s: not a JSON object: %v\n%s", method, target, err, rec.Body.Bytes())
		}
		var code, msg string
		var requestTime int64
		for name, dst := range map[string]any{"code": &code, "msg": &msg, "requestTime": &requestTime} {
			if err := json.Unmarshal(fields[name], dst); err != nil {
				t.Fatalf("%s %s: field %s: %v\n%s", method, target, name, err, rec.Body.Bytes())
			}
		}
		if _, ok := fields["data"]; !ok || len(fields) != 4 {
			t.Fatalf("%s %s: want exactly code, msg, requestTime, data: %s", method, target, rec.Body.Bytes())
		}
		if (code == exchange.CodeSuccess) != (rec.Code == 200) {
			t.Fatalf("%s %s: code %s with HTTP %d", method, target, code, rec.Code)
		}
		for _, e := range logs.All() {
			t.Fatalf("%s %s body %q: %s: %v", method, target, body, e.Message, e.ContextMap())
		}
	})
}
