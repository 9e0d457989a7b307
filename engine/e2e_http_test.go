package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// demoKeys are the demo scenario's two accounts: one in one-way mode, one in
// hedge mode on every product type.
var demoKeys = map[exchange.PosMode]exchange.Credentials{
	exchange.OneWayMode: {APIKey: "demo-key", Secret: "demo-secret", Passphrase: "demo-passphrase"},
	exchange.HedgeMode:  {APIKey: "demo-hedge-key", Secret: "demo-hedge-secret", Passphrase: "demo-hedge-passphrase"},
}

// wireRequest is one mutating request as it reached the simulator's server.
type wireRequest struct {
	path string
	body string
}

// httpRig is engine run over HTTP: the demo simulator served by sim/server on
// a loopback httptest server, exchange.Client talking to it, pollers,
// engine and actions, all on one virtual clock (the server checks
// ACCESS-TIMESTAMP against the same clock the client stamps with).
type httpRig struct {
	t    *testing.T
	v    *clock.Virtual
	x    *sim.Exchange
	acct *sim.Account // the same account, in process, to set up and to check
	mode exchange.PosMode

	mu       sync.Mutex
	requests []wireRequest // mutating requests, in arrival order
	legs     []actions.Leg

	poller *poll.Poller
	eng    *engine.Engine
}

// rigOptions tune newHTTPRig.
type rigOptions struct {
	// scenario, when set, replaces the demo scenario (with faults of its
	// own, for example).
	scenario *sim.Scenario
	// route, when set, picks the handler of each request: the fault tests
	// send some requests to a server with injected faults on the same
	// simulator.
	route func(sim *simtest.Rig, r *http.Request, clean http.Handler) http.Handler
}

func newHTTPRig(t *testing.T, mode exchange.PosMode, ruleYAML string, o rigOptions) *httpRig {
	t.Helper()
	r := &httpRig{t: t, mode: mode}
	// Rate limits are off: on a virtual clock that stands still between
	// ticks, a burst of test requests would meet the per-second buckets.
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: o.scenario, After: 90 * time.Minute, // 10:30 New York, regular session
		HTTP: true, Server: server.Options{DisableRateLimits: true},
		Front: func(simRig *simtest.Rig, clean http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if info, ok := exchange.OpForPath(req.Method, req.URL.Path); ok && info.Mutating {
					body, _ := io.ReadAll(req.Body)
					req.Body = io.NopCloser(bytes.NewReader(body))
					r.mu.Lock()
					r.requests = append(r.requests, wireRequest{path: req.URL.Path, body: string(body)})
					r.mu.Unlock()
				}
				h := clean
				if o.route != nil {
					h = o.route(simRig, req, clean)
				}
				h.ServeHTTP(w, req)
			})
		}})
	v := simRig.Virtual
	apiKey := demoKeys[mode].APIKey
	r.v, r.x, r.acct = v, simRig.Exchange, simRig.Account(t, apiKey)
	// No keep-alive: a dropped connection fails the request that caused it.
	client := simRig.Client(t, apiKey, exchange.ClientOptions{HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}})

	ctx := context.Background()
	cat, rs := loadRules(t, client, ruleYAML)
	// The accounts list carries no posMode (as on the live venue); the
	// single account does.
	if got, err := client.AccountPositionMode(ctx, exchange.USDTFutures, "BTCUSDT", "USDT"); err != nil || got != mode {
		t.Fatalf("position mode: %q, %v; want %s", got, err, mode)
	}
	var err error
	r.poller, err = poll.New(poll.Options{Reader: client, Clock: v, Demand: assemble.Demand(rs, cat), Contracts: cat.Contracts})
	if err != nil {
		t.Fatal(err)
	}
	d := actions.NewDispatcher(actions.DispatcherOptions{Venue: client, Clock: v})
	x2 := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: cat, Modes: map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: mode}})
	r.eng, err = engine.New(engine.Options{Rules: rs, Source: r.poller, Executor: engine.ActionsExecutor{X: x2}, Clock: v,
		OnFiring: func(f *engine.Firing) {
			r.mu.Lock()
			r.legs = append(r.legs, f.Legs...)
			r.mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run polls and steps n ticks of one second. A tick runs in its own
// goroutine: whenever it waits on the clock (a lookup by clientOid, the
// pause before repeating a cancel), the clock is moved on to wake it, a
// bounded number of times.
func (r *httpRig) run(n int) {
	r.t.Helper()
	for range n {
		if err := r.poller.PollDue(context.Background()); err != nil {
			r.t.Fatalf("poll: %v", err)
		}
		done := make(chan struct{})
		at := r.v.Now()
		go func() {
			defer close(done)
			r.eng.Step(context.Background(), at)
		}()
		for i := 0; r.v.WaitForWaiters(1, done); i++ {
			if i == 30 {
				r.t.Fatal("a tick waited on the clock more than 30 times")
			}
			r.v.Advance(time.Second)
		}
		r.v.Set(at.Add(time.Second))
	}
}

// sent returns the mutating requests and the legs so far.
func (r *httpRig) sent() ([]wireRequest, []actions.Leg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wireRequest(nil), r.requests...), append([]actions.Leg(nil), r.legs...)
}

// setupOrder places an order straight on the simulator (not over HTTP, so
// it is not among the engine's requests).
func (r *httpRig) setupOrder(req exchange.PlaceOrderRequest) {
	r.t.Helper()
	req.ProductType, req.MarginMode, req.MarginCoin, req.Mode = exchange.USDTFutures, exchange.Crossed, "USDT", r.mode
	if r.mode == exchange.HedgeMode && req.TradeSide == "" {
		req.TradeSide = exchange.Open
	}
	if _, err := r.acct.PlaceOrder(context.Background(), req); err != nil {
		r.t.Fatalf("setup order %+v: %v", req, err)
	}
}

// restingBuy is a limit buy far under the market: it stays pending.
func restingBuy(symbol, clientOID string) exchange.PlaceOrderRequest {
	size, price := exchange.Num("0.01"), exchange.Num("50000")
	if symbol == "ETHUSDT" {
		size, price = "0.1", "1500"
	}
	return exchange.PlaceOrderRequest{Symbol: symbol, Side: exchange.Buy, OrderType: exchange.Limit, Size: size, Price: price, ClientOID: clientOID}
}

func (r *httpRig) pending() []exchange.PendingOrder {
	r.t.Helper()
	res, err := r.acct.PendingOrders(context.Background(), exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures, Limit: 100})
	if err != nil {
		r.t.Fatal(err)
	}
	return res.EntrustedList
}

// positions returns the open positions of symbol as "side total".
func (r *httpRig) positions(symbol string) []string {
	r.t.Helper()
	pos, err := r.acct.AllPositions(context.Background(), exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, p := range pos {
		if p.Symbol == symbol && p.Total != "" && p.Total != "0" {
			out = append(out, string(p.HoldSide)+" "+string(p.Total))
		}
	}
	return out
}

// checkWire asserts that the mutating requests that reached the server are
// exactly the legs' requests, in order, on the legs' paths.
func checkWire(t *testing.T, reqs []wireRequest, legs []actions.Leg) {
	t.Helper()
	var sentLegs []actions.Leg
	for _, l := range legs {
		if l.Op != "" {
			sentLegs = append(sentLegs, l)
		}
	}
	if len(reqs) != len(sentLegs) {
		t.Fatalf("%d mutating requests reached the server, %d legs were sent:\n%v\n%+v", len(reqs), len(sentLegs), reqs, sentLegs)
	}
	for i, l := range sentLegs {
		info, _ := exchange.LookupOp(l.Op)
		if reqs[i].path != info.Path || reqs[i].body != string(actions.RequestJSON(l.Request)) {
			t.Errorf("request %d: %s %s\nthe leg says %s %+v", i, reqs[i].path, reqs[i].body, info.Path, l.Request)
		}
	}
}

// e2eCase is one action kind run end to end in one position mode.
type e2eCase struct {
	name  string
	rules string
	setup func(r *httpRig)
	ticks int
	// wantPaths are the paths of the mutating requests, in order.
	wantPaths []string
	// wantBody holds, per request, fragments its JSON body must contain.
	wantBody map[int][]string
	check    func(t *testing.T, r *httpRig, legs []actions.Leg)
}

const (
	pathPlace       = "/api/v2/mix/order/place-order"
	pathBatchPlace  = "/api/v2/mix/order/batch-place-order"
	pathModify      = "/api/v2/mix/order/modify-order"
	pathCancel      = "/api/v2/mix/order/cancel-order"
	pathBatchCancel = "/api/v2/mix/order/batch-cancel-orders"
	pathReverse     = "/api/v2/mix/order/click-backhand"
	pathClose       = "/api/v2/mix/order/close-positions"
	pathCancelAll   = "/api/v2/mix/order/cancel-all-orders"
)

// ladder is a batch_place rule of n limit buys far under the market.
func ladder(n int) string {
	var b strings.Builder
	b.WriteString("rules:\n  - name: ladder\n    when: orders_count(\"BTCUSDT\") == 0\n    once: per_day\n    actions:\n      - batch_place:\n          symbol: BTCUSDT\n          orders:\n")
	for i := range n {
		fmt.Fprintf(&b, "            - {open: long, type: limit, size: 0.001, price: %d}\n", 50000-i)
	}
	return b.String()
}

func e2eCases(mode exchange.PosMode) []e2eCase {
	hedge := mode == exchange.HedgeMode
	openLong, closeLong := []string{`"side":"buy"`}, []string{`"side":"sell"`, `"reduceOnly":"YES"`}
	if hedge {
		openLong, closeLong = []string{`"side":"buy","tradeSide":"open"`}, []string{`"side":"buy","tradeSide":"close"`}
	}
	openLongPosition := func(r *httpRig) {
		r.setupOrder(exchange.PlaceOrderRequest{Symbol: "BTCUSDT", Side: exchange.Buy, OrderType: exchange.Market, Size: "0.01", ClientOID: "setup-long"})
	}
	return []e2eCase{
		{
			name: "place_order open then close",
			rules: `
rules:
  - name: open
    when: position("BTCUSDT", "long").size == 0
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.0123456}
  - name: close
    when: position("BTCUSDT", "long").size > 0
    actions:
      - place_order: {symbol: BTCUSDT, close: long, type: market, size: 0.0123}
`,
			ticks:     4,
			wantPaths: []string{pathPlace, pathPlace},
			wantBody:  map[int][]string{0: append([]string{`"size":"0.0123"`}, openLong...), 1: closeLong},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if p := r.positions("BTCUSDT"); len(p) != 0 {
					t.Errorf("positions left: %v", p)
				}
				if !hedge && strings.Contains(string(actions.RequestJSON(legs[0].Request)), "tradeSide") {
					t.Errorf("one-way request with a tradeSide: %s", legs[0].Request)
				}
			},
		},
		{
			name:      "batch_place of 60 in chunks of 50",
			rules:     ladder(60),
			ticks:     2,
			wantPaths: []string{pathBatchPlace, pathBatchPlace},
			wantBody:  map[int][]string{0: openLong, 1: openLong},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if len(legs[0].ClientOIDs) != 50 || len(legs[1].ClientOIDs) != 10 {
					t.Errorf("chunks of %d and %d, want 50 and 10", len(legs[0].ClientOIDs), len(legs[1].ClientOIDs))
				}
				want := map[string]bool{}
				for _, l := range legs {
					for _, id := range l.ClientOIDs {
						want[id] = true
					}
				}
				got := r.pending()
				for _, o := range got {
					delete(want, o.ClientOID)
				}
				if len(got) != 60 || len(want) != 0 {
					t.Errorf("%d pending orders; clientOids not found: %v", len(got), want)
				}
			},
		},
		{
			name:  "modify_order size and price",
			setup: func(r *httpRig) { r.setupOrder(restingBuy("BTCUSDT", "rest-1")) },
			rules: `
rules:
  - name: move
    when: orders_count("BTCUSDT") > 0
    actions:
      - modify_order: {symbol: BTCUSDT, client_oid: rest-1, new_size: 0.02, new_price: 50001.04}
`,
			ticks:     3,
			wantPaths: []string{pathModify},
			wantBody:  map[int][]string{0: {`"clientOid":"rest-1"`, `"newSize":"0.02"`, `"newPrice":"50001"`}},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				got := r.pending()
				if len(got) != 1 || got[0].ClientOID == "rest-1" || got[0].Price != "50001" || got[0].Size != "0.02" {
					t.Errorf("pending after modify: %+v", got)
				}
			},
		},
		{
			name:  "cancel_order by clientOid",
			setup: func(r *httpRig) { r.setupOrder(restingBuy("BTCUSDT", "rest-1")) },
			rules: `
rules:
  - name: pull
    when: orders_count("BTCUSDT") > 0
    actions:
      - cancel_order: {symbol: BTCUSDT, client_oid: rest-1}
`,
			ticks:     2,
			wantPaths: []string{pathCancel},
			wantBody:  map[int][]string{0: {`"clientOid":"rest-1"`}},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if got := r.pending(); len(got) != 0 {
					t.Errorf("pending after cancel: %+v", got)
				}
			},
		},
		{
			name: "batch_cancel two of three",
			setup: func(r *httpRig) {
				for _, id := range []string{"rest-1", "rest-2", "rest-3"} {
					r.setupOrder(restingBuy("BTCUSDT", id))
				}
			},
			rules: `
rules:
  - name: pull-two
    when: orders_count("BTCUSDT") == 3
    actions:
      - batch_cancel: {symbol: BTCUSDT, client_oids: [rest-1, rest-2]}
`,
			ticks:     2,
			wantPaths: []string{pathBatchCancel},
			wantBody:  map[int][]string{0: {`{"clientOid":"rest-1"}`, `{"clientOid":"rest-2"}`}},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if got := r.pending(); len(got) != 1 || got[0].ClientOID != "rest-3" {
					t.Errorf("pending after batch cancel: %+v", got)
				}
			},
		},
		{
			name:  "reverse_position long to short",
			setup: openLongPosition,
			rules: `
rules:
  - name: flip
    when: position("BTCUSDT", "long").size > 0
    once: per_day
    actions:
      - reverse_position: {symbol: BTCUSDT, side: long}
`,
			ticks:     3,
			wantPaths: []string{pathReverse},
			wantBody:  map[int][]string{0: openLong},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if p := r.positions("BTCUSDT"); len(p) != 1 || p[0] != "short 0.01" {
					t.Errorf("positions after reverse: %v, want short 0.01", p)
				}
			},
		},
		{
			name:  "close_positions",
			setup: openLongPosition,
			rules: `
rules:
  - name: flat
    when: position("BTCUSDT", "long").size > 0
    actions:
      - close_positions: {symbol: BTCUSDT}
`,
			ticks:     3,
			wantPaths: []string{pathClose},
			wantBody:  map[int][]string{0: {`"symbol":"BTCUSDT"`}},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if p := r.positions("BTCUSDT"); len(p) != 0 {
					t.Errorf("positions after close: %v", p)
				}
			},
		},
		{
			name: "cancel_all",
			setup: func(r *httpRig) {
				r.setupOrder(restingBuy("BTCUSDT", "rest-1"))
				r.setupOrder(restingBuy("ETHUSDT", "rest-2"))
			},
			rules: `
rules:
  - name: pull-all
    when: orders_count("BTCUSDT") > 0
    actions:
      - cancel_all: {product_type: USDT-FUTURES}
`,
			ticks:     2,
			wantPaths: []string{pathCancelAll},
			wantBody:  map[int][]string{0: {`"productType":"USDT-FUTURES"`}},
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if got := r.pending(); len(got) != 0 {
					t.Errorf("pending after cancel all: %+v", got)
				}
			},
		},
		{
			name: "log sends nothing",
			rules: `
rules:
  - name: say
    when: market.session == "regular"
    actions:
      - log: {message: "open for {{ market.minutes_since_open }} minutes"}
`,
			ticks: 2,
			check: func(t *testing.T, r *httpRig, legs []actions.Leg) {
				if len(legs) != 1 || legs[0].Kind != "log" || legs[0].Note != "open for 60 minutes" {
					t.Errorf("legs %+v", legs)
				}
			},
		},
	}
}

// TestEndToEndOverHTTP runs every action kind in both position modes over
// HTTP against the simulator's server, and checks the exact requests that
// reached it and their effect on the simulated account.
func TestEndToEndOverHTTP(t *testing.T) {
	t.Parallel()
	for _, mode := range []exchange.PosMode{exchange.OneWayMode, exchange.HedgeMode} {
		for _, tc := range e2eCases(mode) {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				r := newHTTPRig(t, mode, tc.rules, rigOptions{})
				if tc.setup != nil {
					tc.setup(r)
				}
				r.run(tc.ticks)
				reqs, legs := r.sent()
				for _, l := range legs {
					if l.Outcome != actions.OK || len(l.Failures) > 0 {
						t.Fatalf("leg %+v", l)
					}
				}
				checkWire(t, reqs, legs)
				var paths []string
				for _, q := range reqs {
					paths = append(paths, q.path)
				}
				if fmt.Sprint(paths) != fmt.Sprint(tc.wantPaths) {
					t.Fatalf("requests %v, want %v", paths, tc.wantPaths)
				}
				for i, frags := range tc.wantBody {
					for _, f := range frags {
						if !strings.Contains(reqs[i].body, f) {
							t.Errorf("request %d %s lacks %s", i, reqs[i].body, f)
						}
					}
				}
				tc.check(t, r, legs)
			})
		}
	}
}
