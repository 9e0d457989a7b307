package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

func TestEveryOpHasAHandler(t *testing.T) {
	for _, info := range exchange.Ops() {
		if handlers[info.Op] == nil {
			t.Errorf("operation %s (%s %s) has no handler", info.Op, info.Method, info.Path)
		}
	}
	if len(handlers) != len(exchange.Ops()) {
		t.Errorf("%d handlers for %d operations", len(handlers), len(exchange.Ops()))
	}
}

func TestRouting(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	tests := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"unknown path", call{method: "GET", target: "/api/v2/mix/order/nope"}, http.StatusNotFound, exchange.CodeURLNotFound},
		{"root", call{method: "GET", target: "/", unsigned: true}, http.StatusNotFound, exchange.CodeURLNotFound},
		{"wrong method on a known path", call{method: "GET", target: pathPlace}, http.StatusNotFound, exchange.CodeURLNotFound},
		{"POST to a query", call{method: "POST", target: pathDetail, body: "{}"}, http.StatusNotFound, exchange.CodeURLNotFound},
		{"trailing slash", call{method: "GET", target: pathInfo + "/", unsigned: true}, http.StatusNotFound, exchange.CodeURLNotFound},
		{"known public path", call{method: "GET", target: pathInfo, unsigned: true}, http.StatusOK, exchange.CodeSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.do(tt.c).expect(t, tt.status, tt.code)
		})
	}
}

// TestEnvelopeShape checks the envelope against the spec's table: code and
// msg strings, requestTime a JSON number (the server clock in ms), data the
// payload or null.
func TestEnvelopeShape(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true })
	ok := h.do(call{method: "GET", target: pathInfo, unsigned: true})
	notFound := h.do(call{method: "GET", target: "/nope", unsigned: true})
	want := map[string]string{
		"ok":        `{"code":"00000","msg":"success","requestTime":1773153000000,"data":[{"symbol":"TSLAUSDT","code":"TSLA","name":"Tesla","tradingPeriod":["regular"],"weekendTradable":"no"}]}`,
		"not found": `{"code":"40404","msg":"Request URL NOT FOUND","requestTime":1773153000000,"data":null}`,
	}
	for name, r := range map[string]response{"ok": ok, "not found": notFound} {
		if got := string(r.raw); got != want[name] {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want[name])
		}
	}
	ok.expect(t, http.StatusOK, exchange.CodeSuccess)
	notFound.expect(t, http.StatusNotFound, exchange.CodeURLNotFound)
}

func TestMalformedRequests(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.DisableRateLimits = true; o.MaxBodyBytes = 1024 })
	tests := []struct {
		name    string
		c       call
		code    string
		msgPart string
	}{
		{"truncated JSON", call{method: "POST", target: pathPlace, body: `{"symbol":"BTC`}, exchange.CodeParamVerify, "malformed JSON"},
		{"empty body", call{method: "POST", target: pathPlace, body: ``}, exchange.CodeParamVerify, "malformed JSON"},
		{"array body", call{method: "POST", target: pathPlace, body: `[]`}, exchange.CodeParamVerify, "malformed JSON"},
		{"wrong field type", call{method: "POST", target: pathPlace, body: `{"orderList":7,"size":{}}`}, exchange.CodeParamVerify, "malformed JSON"},
		{"body over the limit", call{method: "POST", target: pathPlace, body: `{"symbol":"` + strings.Repeat("x", 2000) + `"}`}, exchange.CodeParamVerify, "larger than 1024 bytes"},
		{"limit not an integer", call{method: "GET", target: "/api/v2/mix/order/orders-pending?limit=ten&productType=USDT-FUTURES"}, exchange.CodeParamWrong, "limit"},
		{"validation error of the venue", call{method: "GET", target: "/api/v2/mix/order/orders-pending?limit=101&productType=USDT-FUTURES"}, exchange.CodeParamVerify, "at most 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(tt.c)
			r.expect(t, http.StatusBadRequest, tt.code)
			if !strings.Contains(r.env.Msg, tt.msgPart) {
				t.Errorf("msg %q does not say %q", r.env.Msg, tt.msgPart)
			}
			if string(r.env.Data) != "null" {
				t.Errorf("data = %s, want null", r.env.Data)
			}
		})
	}
	if n := h.backend.accounts[testKey].venue.orderCount(); n != 0 {
		t.Errorf("%d orders placed by malformed requests", n)
	}
}

func TestVenueErrorsPassThrough(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
		msg    string
	}{
		{"business error", &exchange.APIError{HTTPStatus: 400, Code: exchange.CodeTradeSideOneWay, Msg: "unilateral"}, 400, exchange.CodeTradeSideOneWay, "unilateral"},
		{"wrapped business error", errFmt(&exchange.APIError{Code: exchange.CodeBalanceNotEnough, Msg: "balance"}), 400, exchange.CodeBalanceNotEnough, "balance"},
		{"validation error with code", &exchange.ValidationError{Field: "price", Rule: "step", Code: exchange.CodePriceStep}, 400, exchange.CodePriceStep, "price: step"},
		{"validation error without code", &exchange.ValidationError{Field: "size", Rule: "required"}, 400, exchange.CodeParamVerify, "size: required"},
		{"unexpected error", errors.New("disk on fire"), 500, exchange.CodeTransient45001, msgInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.backend.accounts[testKey].venue.err = tt.err
			r := h.do(placeCall())
			r.expect(t, tt.status, tt.code)
			if r.env.Msg != tt.msg {
				t.Errorf("msg = %q, want %q", r.env.Msg, tt.msg)
			}
		})
	}
}

func errFmt(err error) error { return &wrapped{err} }

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "venue: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func TestPanicIsRecovered(t *testing.T) {
	h := newHarness(t, nil)
	h.backend.accounts[testKey].venue.panicOn = "boom"
	h.do(placeCall()).expect(t, http.StatusInternalServerError, exchange.CodeTransient45001)
	// An operation the fake does not implement panics on a nil interface.
	h.do(call{method: "POST", target: "/api/v2/mix/order/cancel-all-orders", body: `{"productType":"USDT-FUTURES"}`}).
		expect(t, http.StatusInternalServerError, exchange.CodeTransient45001)
	h.backend.accounts[testKey].venue.panicOn = nil
	h.do(placeCall()).expect(t, http.StatusOK, exchange.CodeSuccess)
	if n := len(h.logs.FilterMessage("panic serving request").All()); n != 2 {
		t.Errorf("%d panics logged, want 2", n)
	}
}

func TestRateLimits(t *testing.T) {
	h := newHarness(t, nil)
	// place-order: 10 per second per uid.
	for i := range 10 {
		c := placeCall()
		c.body = strings.Replace(placeBody, `"c-1"`, `"c-`+string(rune('a'+i))+`"`, 1)
		h.do(c).expect(t, http.StatusOK, exchange.CodeSuccess)
	}
	r := h.do(placeCall())
	r.expect(t, http.StatusTooManyRequests, exchange.CodeTooManyRequests)
	if r.env.Msg != "Too Many Requests" {
		t.Errorf("msg = %q", r.env.Msg)
	}
	// Another uid has its own bucket (its 40014 proves it got past the limiter).
	h.do(call{method: "POST", target: pathPlace, body: placeBody, key: readKey, secret: readSecret, passphrase: readPassphrase}).
		expect(t, http.StatusBadRequest, exchange.CodePermission)
	// Another operation has its own bucket.
	h.do(call{method: "POST", target: pathCancel, body: `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","clientOid":"c-a"}`}).
		expect(t, http.StatusOK, exchange.CodeSuccess)
	// One token comes back every 100 ms of server time.
	h.clk.Advance(99 * time.Millisecond)
	h.do(placeCall()).expect(t, http.StatusTooManyRequests, exchange.CodeTooManyRequests)
	h.clk.Advance(time.Millisecond)
	h.do(placeCall()).expect(t, http.StatusOK, exchange.CodeSuccess)
	h.do(placeCall()).expect(t, http.StatusTooManyRequests, exchange.CodeTooManyRequests)

	// stock-info: 1 per second per IP, without a key.
	h.do(call{method: "GET", target: pathInfo, unsigned: true}).expect(t, http.StatusOK, exchange.CodeSuccess)
	h.do(call{method: "GET", target: pathInfo, unsigned: true}).expect(t, http.StatusTooManyRequests, exchange.CodeTooManyRequests)
	h.clk.Advance(time.Second)
	h.do(call{method: "GET", target: pathInfo, unsigned: true}).expect(t, http.StatusOK, exchange.CodeSuccess)
}

func TestLimiter(t *testing.T) {
	l := newLimiter()
	k := bucketKey{op: "x", subject: "u"}
	now := testStart
	allowed := 0
	for range 25 {
		if l.allow(k, 5, time.Second, now) {
			allowed++
		}
	}
	if allowed != 5 {
		t.Fatalf("allowed %d of a burst, want 5", allowed)
	}
	// Idle for a long time: the bucket is full again, not fuller.
	now = now.Add(time.Hour)
	allowed = 0
	for range 25 {
		if l.allow(k, 5, time.Second, now) {
			allowed++
		}
	}
	if allowed != 5 {
		t.Fatalf("allowed %d after idling, want 5", allowed)
	}
	// Pruning keeps busy buckets and drops full ones.
	for i := range maxBuckets {
		l.allow(bucketKey{subject: string(rune(i))}, 1, time.Second, testStart)
	}
	l.allow(bucketKey{subject: "new"}, 1, time.Second, now)
	if len(l.buckets) > 3 {
		t.Errorf("%d buckets after pruning, want at most 3", len(l.buckets))
	}
	// Two takes: a bucket reset by the pruning would allow both.
	first := l.allow(k, 5, time.Second, now)
	if second := l.allow(k, 5, time.Second, now); first && second {
		// k was busy at now: it must still be empty.
		t.Error("pruning reset a busy bucket")
	}
}

func TestLogLines(t *testing.T) {
	h := newHarness(t, nil)
	h.do(placeCall()).expect(t, http.StatusOK, exchange.CodeSuccess)
	h.do(call{method: "POST", target: pathPlace, body: placeBody, passphrase: "wrong-" + testPassphrase, key: testKey, secret: testSecret}).
		expect(t, http.StatusBadRequest, exchange.CodeKeyOrPassphrase)
	h.do(call{method: "GET", target: "/x", unsigned: true}).expect(t, http.StatusNotFound, exchange.CodeURLNotFound)

	entries := h.logs.FilterMessage("request").All()
	if len(entries) != 3 {
		t.Fatalf("%d request lines, want 3", len(entries))
	}
	first := entries[0].ContextMap()
	for field, want := range map[string]any{"method": "POST", "path": pathPlace, "op": "place-order", "status": int64(200), "code": "00000", "uid": "1001"} {
		if first[field] != want {
			t.Errorf("log field %s = %v, want %v", field, first[field], want)
		}
	}
	if _, ok := first["duration"]; !ok {
		t.Error("log line has no duration")
	}
	var all bytes.Buffer
	for _, e := range h.logs.All() {
		b, _ := json.Marshal(e.ContextMap())
		all.Write(b)
		all.WriteString(e.Message)
	}
	for _, secret := range []string{testKey, testSecret, testPassphrase, "wrong-" + testPassphrase} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("logs contain credential %q", secret)
		}
	}
}

func TestResponsesAreDeterministic(t *testing.T) {
	run := func() []string {
		h := newHarness(t, nil)
		var out []string
		for i := range 12 {
			c := placeCall()
			if i%3 == 0 {
				c = call{method: "GET", target: pathDetail + "?clientOid=c-1&productType=USDT-FUTURES&symbol=BTCUSDT"}
			}
			out = append(out, string(h.do(c).raw))
			h.clk.Advance(37 * time.Millisecond)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("response %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
}

func TestOverallIPLimit(t *testing.T) {
	s := New(Options{Backend: newFakeBackend()})
	info, _ := exchange.LookupOp(exchange.OpOrderDetail)
	// Many uids behind one IP: each uid stays under detail's 10/s, the IP
	// reaches the overall 6000 per minute.
	for i := range exchange.IPLimitPerMinute {
		if !s.allow(info, "uid-"+strconv.Itoa(i), "127.0.0.1", testStart) {
			t.Fatalf("request %d denied below the overall IP limit", i+1)
		}
	}
	if s.allow(info, "uid-fresh", "127.0.0.1", testStart) {
		t.Fatal("request above 6000 per minute from one IP allowed")
	}
	if !s.allow(info, "uid-fresh", "127.0.0.2", testStart) {
		t.Fatal("another IP was limited")
	}
	if !s.allow(info, "uid-fresh", "127.0.0.1", testStart.Add(10*time.Millisecond)) {
		t.Fatal("the IP bucket did not refill one request per 10 ms")
	}
}
