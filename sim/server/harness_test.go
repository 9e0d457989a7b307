package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim"
)

// testStart is the virtual time every test starts at.
var testStart = time.Date(2026, 3, 10, 14, 30, 0, 0, time.UTC)

// harness is a Server on a loopback httptest server with a virtual clock, a
// fake backend and an in-memory log.
type harness struct {
	t       *testing.T
	clk     *clock.Virtual
	backend *fakeBackend // nil when serving the simulator
	served  Backend
	srv     *httptest.Server
	logs    *observer.ObservedLogs
	client  *http.Client
}

// newHarness serves the fake backend.
func newHarness(t *testing.T, configure func(*Options)) *harness {
	t.Helper()
	fake := newFakeBackend()
	h := startHarness(t, clock.NewVirtual(testStart), fake, configure)
	h.backend = fake
	return h
}

// newSimHarness serves the simulator on testdata/sim.yaml (same keys as the
// fake backend) on a virtual clock. It builds the simulator itself rather
// than with simtest.NewRig, as this package's other internal tests do:
// simtest serves through this package, and a test inside a package cannot
// import a package that imports it.
func newSimHarness(t *testing.T, configure func(*Options)) *harness {
	t.Helper()
	sc, err := sim.LoadScenario("testdata/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewVirtual(testStart)
	x, err := sim.New(sc, sim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return startHarness(t, clk, SimBackend(x), configure)
}

func startHarness(t *testing.T, clk *clock.Virtual, backend Backend, configure func(*Options)) *harness {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	h := &harness{t: t, clk: clk, logs: logs, served: backend}
	opts := Options{Backend: backend, Clock: h.clk, Logger: zap.New(core)}
	if configure != nil {
		configure(&opts)
	}
	h.srv = httptest.NewServer(New(opts)) // httptest listens on 127.0.0.1
	t.Cleanup(h.srv.Close)
	// No keep-alive: a dropped connection must surface as an error of the
	// request that caused it, not as a silent retry on a fresh connection.
	h.client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	return h
}

// withoutFaults serves the same backend and clock on a second server with
// default options, to look at the state a faulty request left behind.
func (h *harness) withoutFaults() *harness {
	h.t.Helper()
	return startHarness(h.t, h.clk, h.served, nil)
}

// handSign computes ACCESS-SIGN exactly as the exchange notes describe,
// written out with crypto/hmac so that the server is checked against the
// notes and not against exchange.Sign: base64(HMAC-SHA256(secret, timestamp
// + METHOD + requestPath + ["?" + query] + body)).
func handSign(secret, ts, method, pathAndQuery, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	io.WriteString(m, ts+method+pathAndQuery+body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// call is one request of a test. By default it is signed with the trader
// account's credentials at the current virtual time.
type call struct {
	method string
	target string // path and raw query, e.g. /api/v2/mix/order/detail?symbol=X
	body   string

	unsigned   bool   // send no ACCESS-* headers
	key        string // default testKey
	secret     string // default testSecret
	passphrase string // default testPassphrase
	ts         string // default the virtual clock's now in ms
	signTarget string // path and query to sign, default target
	sign       string // overrides the computed signature
	headers    map[string]string
}

// response is what came back.
type response struct {
	status int
	raw    []byte
	env    struct {
		Code        string          `json:"code"`
		Msg         string          `json:"msg"`
		RequestTime json.RawMessage `json:"requestTime"`
		Data        json.RawMessage `json:"data"`
	}
}

func (h *harness) request(c call) *http.Request {
	h.t.Helper()
	req, err := http.NewRequest(c.method, h.srv.URL+c.target, bytes.NewBufferString(c.body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("locale", "en-US")
	if !c.unsigned {
		key, secret, pass, ts := c.key, c.secret, c.passphrase, c.ts
		if key == "" {
			key, secret, pass = testKey, testSecret, testPassphrase
		}
		if ts == "" {
			ts = strconv.FormatInt(h.clk.Now().UnixMilli(), 10)
		}
		signTarget := c.signTarget
		if signTarget == "" {
			signTarget = c.target
		}
		sign := c.sign
		if sign == "" {
			sign = handSign(secret, ts, c.method, signTarget, c.body)
		}
		req.Header.Set(headerKey, key)
		req.Header.Set(headerSign, sign)
		req.Header.Set(headerPassphrase, pass)
		req.Header.Set(headerTimestamp, ts)
	}
	for k, v := range c.headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return req
}

// do sends c and decodes the envelope; it fails the test on a transport
// error or a body that is not an envelope.
func (h *harness) do(c call) response {
	h.t.Helper()
	resp, err := h.client.Do(h.request(c))
	if err != nil {
		h.t.Fatalf("%s %s: %v", c.method, c.target, err)
	}
	defer resp.Body.Close()
	var r response
	r.status = resp.StatusCode
	if r.raw, err = io.ReadAll(resp.Body); err != nil {
		h.t.Fatalf("%s %s: read body: %v", c.method, c.target, err)
	}
	if err := json.Unmarshal(r.raw, &r.env); err != nil {
		h.t.Fatalf("%s %s: body is not an envelope: %v\n%s", c.method, c.target, err, r.raw)
	}
	return r
}

// expect checks status and code.
func (r response) expect(t *testing.T, status int, code string) {
	t.Helper()
	if r.status != status || r.env.Code != code {
		t.Fatalf("got HTTP %d code %q, want HTTP %d code %q; body %s", r.status, r.env.Code, status, code, r.raw)
	}
}

const (
	pathPlace  = "/api/v2/mix/order/place-order"
	pathCancel = "/api/v2/mix/order/cancel-order"
	pathDetail = "/api/v2/mix/order/detail"
	pathInfo   = "/api/v3/stock/market/stock-info"
	pathBook   = "/api/v3/account/stock-orderbook"
)

const placeBody = `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit","price":"60000","clientOid":"c-1"}`

func placeCall() call { return call{method: "POST", target: pathPlace, body: placeBody} }

// logDropped matches the request lines of dropped connections.
func logDropped() zap.Field { return zap.Bool("dropped", true) }
