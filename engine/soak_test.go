package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

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

// soakRules fire about 210 orders in an hour: one BTC order every 30s, a
// batch of three ETH orders every 2 minutes (all resting far below the
// market, so they stay pending and can be counted), and a rule that only
// logs, which trades nothing and must never wait.
const soakRules = `
rules:
  - name: btc-every-30s
    when: now_ms > 0
    cooldown: 30s
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.01, price: 30000}
  - name: eth-batch-every-2m
    when: now_ms > 0
    cooldown: 2m
    actions:
      - batch_place:
          symbol: ETHUSDT
          orders:
            - {open: long, type: limit, size: 0.1, price: 1000}
            - {open: long, type: limit, size: 0.2, price: 1000}
            - {open: long, type: limit, size: 0.3, price: 1000}
  - name: watch
    when: now_ms > 0
    cooldown: 1s
    actions:
      - log: {message: tick}
`

// TestFaultSoak runs the engine for a simulated hour against engine sim's
// server with its fault injection on every request - 10% answered 500
// before the venue acts, 3% of connections dropped after the venue acted,
// six 20-second 429 bursts, and 50ms of latency - and checks: every order
// the rules fired is at the venue exactly once (by clientOid; the venue
// refuses a clientOid twice, and no such refusal happened), no leg is lost,
// and the tick lag (the simulated time a tick took, the latency of its
// order requests included) stays under two ticks at p99: the lookups after
// unclear outcomes run off the tick loop. The figures are logged for
// BENCHMARKS.md.
func TestFaultSoak(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a simulated hour")
	}
	const tick, latency = time.Second, 50 * time.Millisecond
	sc := sim.Demo()
	start := sc.Clock.Start.Add(90 * time.Minute) // 10:30 New York
	v := clock.NewVirtual(start)
	// Settling waits on its own clock, moved to the tick's time at every
	// tick: a tick that waited on the tick clock would be seen at once.
	settleClock := clock.NewVirtual(start)
	latencyClock := clock.NewVirtual(start)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for latencyClock.WaitForWaiters(1, stop) {
			latencyClock.Advance(latency)
		}
	}()
	faults := server.Faults{Seed: 7, ErrorRate: 0.10, DropRate: 0.03, DropAfterProcessing: true, Latency: latency}
	for i := range 6 {
		at := start.Add(time.Duration(5+i*10) * time.Minute)
		faults.RateLimitBursts = append(faults.RateLimitBursts, server.Window{Start: at, End: at.Add(20 * time.Second)})
	}
	// The server's latency passes on a clock of its own, moved on by the
	// latency as soon as a request waits on it: a tick's latency is then
	// how far that clock moved during the tick, and no wall time passes.
	// Its bursts are windows of that clock, which starts with the ticks and
	// runs ahead of them by the latency of every request so far.
	var mu sync.Mutex
	requests := map[string]int{} // clientOid -> order requests carrying it
	refusedTwice := 0            // answers "clientOid already used"
	answers := map[int]int{}     // order requests by HTTP status (0: dropped)
	front := func(_ *simtest.Rig, faulty http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info, ok := exchange.OpForPath(r.Method, r.URL.Path)
			if !ok || !info.Mutating {
				faulty.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			for _, oid := range orderOIDs(body) {
				requests[oid]++
			}
			mu.Unlock()
			rec := &sniffer{ResponseWriter: w}
			defer func() {
				if p := recover(); p != nil { // a dropped connection (http.ErrAbortHandler)
					mu.Lock()
					answers[0]++
					mu.Unlock()
					panic(p)
				}
			}()
			faulty.ServeHTTP(rec, r)
			mu.Lock()
			answers[rec.status]++
			if bytes.Contains(rec.body.Bytes(), []byte(`"`+sim.CodeDuplicateClientOID+`"`)) {
				refusedTwice++
			}
			mu.Unlock()
		})
	}
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, Clock: v, HTTP: true, Front: front,
		Server: server.Options{Clock: latencyClock, AuthClock: clock.Real{}, DisableRateLimits: true, Faults: faults}})
	x := simRig.Exchange

	creds := demoKeys[exchange.OneWayMode]
	// No retries in the client: the pollers read again on their next turn,
	// and Settle looks orders up again itself.
	newClient := func(c exchange.Clock) *exchange.Client {
		return simRig.Client(t, creds.APIKey, exchange.ClientOptions{Clock: c, Retry: exchange.RetryPolicy{MaxAttempts: 1},
			HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}})
	}
	reads, orders := newClient(clock.Real{}), newClient(clock.Real{})
	acct, _ := x.Account(creds.APIKey)
	cat, rs := loadRules(t, acct, soakRules)
	poller, err := poll.New(poll.Options{Reader: reads, Clock: v, Demand: assemble.Demand(rs, cat), Contracts: cat.Contracts})
	if err != nil {
		t.Fatal(err)
	}
	d := actions.NewDispatcher(actions.DispatcherOptions{Venue: orders, Clock: settleClock, Defer: true})
	ex := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: cat, Modes: map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: exchange.OneWayMode}})
	journal, err := engine.OpenJournal(t.TempDir(), engine.StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var legs []actions.Leg
	eng, err := engine.New(engine.Options{Rules: rs, Source: poller, Executor: engine.ActionsExecutor{X: ex}, Clock: v, Journal: journal,
		SettleOffLoop: true, Logger: zap.NewNop(), OnFiring: func(f *engine.Firing) {
			mu.Lock()
			legs = append(legs, f.Legs...)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	// settlers returns once every settling goroutine waits on its clock
	// (or none is left), so that moving the clock on wakes them in time.
	settlers := func() {
		for {
			n, changed := eng.Settling()
			if n == 0 || settleClock.WaitForWaiters(n, changed) {
				return
			}
		}
	}
	const ticks = 3600
	var stepWall, lags []time.Duration
	for k := range ticks {
		at := start.Add(time.Duration(k) * tick)
		v.Set(at)
		settleClock.Set(at)
		latencyClock.Set(at) // no-op once it runs ahead
		settlers()
		_ = poller.PollDue(ctx) // failed reads are read again on their next turn
		done := make(chan struct{})
		began, lcBegan := time.Now(), latencyClock.Now()
		go func() {
			defer close(done)
			eng.Step(ctx, at)
		}()
		// Nothing moves the tick and settling clocks during the step: a
		// step that waited on one would never end.
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("tick %d did not end: it waits on the clock", k)
		}
		stepWall = append(stepWall, time.Since(began))
		lags = append(lags, latencyClock.Now().Sub(lcBegan))
		settlers()
	}
	// Let the last settlements finish, the clock moving on.
	end := start.Add(ticks * tick)
	for i := 0; ; i++ {
		if n, _ := eng.Settling(); n == 0 {
			break
		}
		if i == 600 {
			t.Fatal("orders still unsettled 10 minutes after the hour")
		}
		end = end.Add(time.Second)
		v.Set(end)
		settleClock.Set(end)
		settlers()
	}

	mu.Lock()
	defer mu.Unlock()
	placed, lost, resent := 0, 0, 0
	seen := map[string]bool{}
	for _, l := range legs {
		if l.Op != exchange.OpPlaceOrder && l.Op != exchange.OpBatchPlaceOrder {
			continue
		}
		if l.Outcome != actions.OK {
			lost++
			t.Errorf("leg not placed: %+v", l)
		}
		for _, oid := range l.ClientOIDs {
			seen[oid] = true
		}
	}
	for oid := range seen {
		placed++
		if requests[oid] > 1 {
			resent++
		}
		if _, err := acct.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: symbolOf(oid, legs), ProductType: exchange.USDTFutures, ClientOID: oid}); err != nil {
			lost++
			t.Errorf("order %s is not at the venue: %v", oid, err)
		}
	}
	if refusedTwice != 0 {
		t.Errorf("%d order requests reused a clientOid the venue already had (a duplicate attempt)", refusedTwice)
	}
	if placed < 200 {
		t.Errorf("only %d orders fired in an hour; the soak did not soak", placed)
	}
	if open := journal.Open(); len(open) != 0 {
		t.Errorf("%d firings left open in the journal", len(open))
	}
	stats, nticks, skipped := eng.Stats()
	if w := stats["watch"]; w.Evaluations != ticks {
		t.Errorf("the rule that trades nothing was evaluated on %d of %d ticks", w.Evaluations, ticks)
	}
	var waits int
	for _, name := range []string{"btc-every-30s", "eth-batch-every-2m"} {
		waits += int(stats[name].Waiting)
	}
	slices.Sort(stepWall)
	slices.Sort(lags)
	q := func(ds []time.Duration, q float64) time.Duration { return ds[int(q*float64(len(ds)-1))] }
	if lag := q(lags, 0.99); lag >= 2*tick {
		t.Errorf("tick lag p99 %s, want under two ticks (%s)", lag, 2*tick)
	}
	t.Logf("order requests by answer (0: dropped): %v", answers)
	t.Logf("simulated hour, %d ticks of %s (%d steps, %d skipped): %d orders fired (%d of them sent more than once: after a 429, or after the venue confirmed it did not have them), %d lost, %d duplicate attempts; "+
		"tick lag (simulated, with %s latency per request) p50 %s p99 %s max %s; wall time per tick p50 %s p99 %s max %s; %d rule-ticks waited for an unsettled order",
		ticks, tick, nticks, skipped, placed, resent, lost, refusedTwice, latency, q(lags, 0.5), q(lags, 0.99), q(lags, 1),
		q(stepWall, 0.5), q(stepWall, 0.99), q(stepWall, 1), waits)
}

// orderOIDs returns the clientOids of an order request's body.
func orderOIDs(body []byte) []string {
	var one struct {
		ClientOID    string `json:"clientOid"`
		NewClientOID string `json:"newClientOid"`
		OrderList    []struct {
			ClientOID string `json:"clientOid"`
		} `json:"orderList"`
	}
	_ = json.Unmarshal(body, &one)
	var out []string
	if one.ClientOID != "" {
		out = append(out, one.ClientOID)
	}
	for _, it := range one.OrderList {
		out = append(out, it.ClientOID)
	}
	return out
}

// symbolOf is the symbol of the leg that carried oid.
func symbolOf(oid string, legs []actions.Leg) string {
	for _, l := range legs {
		if slices.Contains(l.ClientOIDs, oid) {
			var req struct {
				Symbol string `json:"symbol"`
			}
			_ = json.Unmarshal(actions.RequestJSON(l.Request), &req)
			return req.Symbol
		}
	}
	return ""
}

// sniffer keeps a copy of the response's status and body (status 0: none
// was written, the connection was dropped).
type sniffer struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (s *sniffer) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *sniffer) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.body.Write(b)
	return s.ResponseWriter.Write(b)
}
