package server

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

func TestAuthErrors(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	now := h.clk.Now()
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	tests := []struct {
		name string
		c    call
		code string
	}{
		{"missing key", call{headers: map[string]string{headerKey: ""}}, exchange.CodeKeyMissing},
		{"missing sign", call{headers: map[string]string{headerSign: ""}}, exchange.CodeSignMissing},
		{"missing passphrase", call{headers: map[string]string{headerPassphrase: ""}}, exchange.CodePassphraseMissing},
		{"missing timestamp", call{headers: map[string]string{headerTimestamp: ""}}, exchange.CodeTimestampInvalid},
		{"timestamp not a number", call{ts: "yesterday"}, exchange.CodeTimestampInvalid},
		{"timestamp in seconds instead of ms", call{ts: strconv.FormatInt(now.Unix(), 10)}, exchange.CodeTimestampExpired},
		{"timestamp 31 s old", call{ts: ms(now.Add(-31 * time.Second))}, exchange.CodeTimestampExpired},
		{"timestamp 31 s ahead", call{ts: ms(now.Add(31 * time.Second))}, exchange.CodeTimestampExpired},
		{"unknown key", call{key: "nobody", secret: testSecret, passphrase: testPassphrase}, exchange.CodeKeyInvalid},
		{"wrong passphrase", call{key: testKey, secret: testSecret, passphrase: "guess"}, exchange.CodeKeyOrPassphrase},
		{"wrong secret", call{key: testKey, secret: "not-the-secret", passphrase: testPassphrase}, exchange.CodeSignature},
		{"signature of another body", call{sign: handSign(testSecret, ms(now), "POST", pathPlace, "{}")}, exchange.CodeSignature},
		{"signature with lower-case method", call{sign: handSign(testSecret, ms(now), "post", pathPlace, placeBody)}, exchange.CodeSignature},
		{"missing permission", call{key: readKey, secret: readSecret, passphrase: readPassphrase}, exchange.CodePermission},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := placeCall()
			c.key, c.secret, c.passphrase, c.ts, c.sign, c.headers = tt.c.key, tt.c.secret, tt.c.passphrase, tt.c.ts, tt.c.sign, tt.c.headers
			h.do(c).expect(t, http.StatusBadRequest, tt.code)
		})
	}
	if n := h.backend.accounts[testKey].venue.callCount(); n != 0 {
		t.Errorf("venue was called %d times by rejected requests", n)
	}
}

func TestTimestampWindowEdges(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	for _, off := range []time.Duration{-30 * time.Second, 30 * time.Second, 0} {
		c := call{method: "GET", target: pathDetail + "?orderId=1&productType=USDT-FUTURES&symbol=BTCUSDT",
			ts: strconv.FormatInt(h.clk.Now().Add(off).UnixMilli(), 10)}
		// The order does not exist: 43001 proves the request got past auth.
		h.do(c).expect(t, http.StatusBadRequest, exchange.CodeOrderNotExist)
	}
}

// TestHandSignedRequests checks requests signed exactly as the exchange notes
// describe: a POST over its exact body bytes, a GET over the sorted unencoded
// query; changing any signed byte gets 40009.
func TestHandSignedRequests(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	r := h.do(placeCall())
	r.expect(t, http.StatusOK, exchange.CodeSuccess)
	if string(r.env.Data) != `{"orderId":"1000","clientOid":"c-1"}` {
		t.Fatalf("data = %s", r.env.Data)
	}

	// The same body with one extra space is a different byte string: its
	// signature does not cover what is sent.
	spaced := call{method: "POST", target: pathPlace, body: placeBody + " ", sign: handSign(testSecret, strconv.FormatInt(h.clk.Now().UnixMilli(), 10), "POST", pathPlace, placeBody)}
	h.do(spaced).expect(t, http.StatusBadRequest, exchange.CodeSignature)

	get := call{method: "GET", target: pathDetail + "?orderId=1000&productType=USDT-FUTURES&symbol=BTCUSDT"}
	h.do(get).expect(t, http.StatusOK, exchange.CodeSuccess)
	get.signTarget = pathDetail + "?orderId=1001&productType=USDT-FUTURES&symbol=BTCUSDT"
	h.do(get).expect(t, http.StatusBadRequest, exchange.CodeSignature)
	get.signTarget = pathDetail // query left out of the signature
	h.do(get).expect(t, http.StatusBadRequest, exchange.CodeSignature)
}

func TestSignatureQueryForms(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	h.do(placeCall()).expect(t, http.StatusOK, exchange.CodeSuccess)
	sorted := pathDetail + "?clientOid=c-1&productType=USDT-FUTURES&symbol=BTCUSDT"
	tests := []struct {
		name       string
		target     string
		signTarget string
		code       string
	}{
		{"sorted as sent", sorted, sorted, exchange.CodeSuccess},
		{"unsorted, signed as received", pathDetail + "?symbol=BTCUSDT&productType=USDT-FUTURES&clientOid=c-1", "", exchange.CodeSuccess},
		{"unsorted, signed sorted", pathDetail + "?symbol=BTCUSDT&productType=USDT-FUTURES&clientOid=c-1", sorted, exchange.CodeSuccess},
		{"encoded, signed unencoded and sorted", pathDetail + "?symbol=BTCUSDT&productType=USDT%2DFUTURES&clientOid=c%2D1", sorted, exchange.CodeSuccess},
		{"encoded, signed encoded as received", pathDetail + "?clientOid=c%2D1&productType=USDT%2DFUTURES&symbol=BTCUSDT", "", exchange.CodeSuccess},
		{"signed in an order that is neither", pathDetail + "?symbol=BTCUSDT&productType=USDT-FUTURES&clientOid=c-1",
			pathDetail + "?productType=USDT-FUTURES&symbol=BTCUSDT&clientOid=c-1", exchange.CodeSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(call{method: "GET", target: tt.target, signTarget: tt.signTarget})
			status := http.StatusOK
			if tt.code != exchange.CodeSuccess {
				status = http.StatusBadRequest
			}
			r.expect(t, status, tt.code)
		})
	}
}

func TestPublicOpsNeedNoKey(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	h.do(call{method: "GET", target: pathInfo, unsigned: true}).expect(t, http.StatusOK, exchange.CodeSuccess)
	// Headers that would fail every check are ignored on a public operation.
	h.do(call{method: "GET", target: pathInfo + "?symbol=TSLAUSDT", key: "nobody", secret: "x", passphrase: "y", ts: "bad"}).
		expect(t, http.StatusOK, exchange.CodeSuccess)
	// The stock book is not public (spec: API key and whitelist).
	h.do(call{method: "GET", target: pathBook + "?symbol=TSLAUSDT", unsigned: true}).
		expect(t, http.StatusBadRequest, exchange.CodeKeyMissing)
}

func TestPermissions(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	reader := func(target string) call {
		return call{method: "GET", target: target, key: readKey, secret: readSecret, passphrase: readPassphrase}
	}
	// futures_read is enough for a futures query ...
	h.do(reader(pathDetail+"?orderId=1&productType=USDT-FUTURES&symbol=BTCUSDT")).expect(t, http.StatusBadRequest, exchange.CodeOrderNotExist)
	// ... not for the stock book, which needs unified trade read and the whitelist.
	r := h.do(reader(pathBook + "?symbol=TSLAUSDT"))
	r.expect(t, http.StatusBadRequest, exchange.CodePermission)
	// The trader key holds unified_trade_write, which grants unified_trade_read.
	h.do(call{method: "GET", target: pathBook + "?symbol=TSLAUSDT"}).expect(t, http.StatusOK, exchange.CodeSuccess)
}

func TestMissingPermission(t *testing.T) {
	tests := []struct {
		name        string
		need, have  []exchange.Permission
		wantMissing exchange.Permission
	}{
		{"nothing needed", nil, nil, ""},
		{"exact", []exchange.Permission{exchange.PermFuturesRead}, []exchange.Permission{exchange.PermFuturesRead}, ""},
		{"write grants read", []exchange.Permission{exchange.PermFuturesRead}, []exchange.Permission{exchange.PermFuturesTrade}, ""},
		{"read does not grant write", []exchange.Permission{exchange.PermFuturesTrade}, []exchange.Permission{exchange.PermFuturesRead}, exchange.PermFuturesTrade},
		{"all are needed", []exchange.Permission{exchange.PermUnifiedTradeRead, exchange.PermStockWhitelist}, []exchange.Permission{exchange.PermUnifiedTradeRead}, exchange.PermStockWhitelist},
		{"manage write grants manage read", []exchange.Permission{exchange.PermUnifiedManageRead}, []exchange.Permission{exchange.PermUnifiedManageWrite}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := missingPermission(tt.need, tt.have)
			if got != tt.wantMissing || ok != (tt.wantMissing == "") {
				t.Errorf("missingPermission = %q, %v; want %q", got, ok, tt.wantMissing)
			}
		})
	}
}
