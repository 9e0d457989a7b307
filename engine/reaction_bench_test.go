package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// This file is the reaction benchmark: the demo simulator served over
// loopback HTTP with its rate limits on, the engine wired as engine run
// wires it (assemble.New, the client's rate limiter, the poller and the
// engine's Run loops), and a probe that places an order resting at the
// venue and times how long the engine takes to cancel it. It runs on the
// wall clock, as reaction time is wall time; run it with
//
//	go test -run '^$' -bench Reaction -benchtime 1x ./engine/

// probeRule cancels any order it sees resting on BTCUSDT.
const probeRule = `
rules:
  - name: probe
    when: orders_count("BTCUSDT") > 0
    actions:
      - cancel_order: {symbol: BTCUSDT, order_id: '=orders("BTCUSDT")[0].id'}
`

// venueWatch wraps the simulator's server: it tells when a cancel arrives
// and counts the requests per path and the answers of 429.
type venueWatch struct {
	h        http.Handler
	cancels  chan time.Time
	tooMany  atomic.Int64
	requests atomic.Int64

	mu      sync.Mutex
	perPath map[string]int
}

// paths lists the requests per path, sorted.
func (w *venueWatch) paths() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s []string
	for p, n := range w.perPath {
		s = append(s, fmt.Sprintf("%s %d", p, n))
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

func (w *venueWatch) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	if info, ok := exchange.OpForPath(req.Method, req.URL.Path); ok && info.Op == exchange.OpCancelOrder {
		select {
		case w.cancels <- time.Now():
		default:
		}
	}
	w.requests.Add(1)
	w.mu.Lock()
	if w.perPath == nil {
		w.perPath = map[string]int{}
	}
	w.perPath[req.URL.Path]++
	w.mu.Unlock()
	sw := &sniffer{ResponseWriter: rw} // soak_test.go's
	w.h.ServeHTTP(sw, req)
	if sw.status == http.StatusTooManyRequests {
		w.tooMany.Add(1)
	}
}

// reactionRig is one engine against one simulator, on the wall clock.
type reactionRig struct {
	acct  *sim.Account
	watch *venueWatch
	eng   *engine.Engine
	stop  func()
}

// newReactionRig starts an engine against a fresh simulator, wired as
// engine run wires it.
func newReactionRig(b *testing.B) *reactionRig {
	b.Helper()
	clk, err := server.NewWallClock(sim.Demo().Clock.Start.Add(90*time.Minute), 1) // 10:30 New York
	if err != nil {
		b.Fatal(err)
	}
	x, err := sim.New(sim.Demo(), sim.Options{Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	creds := demoKeys[exchange.OneWayMode]
	acct, _ := x.Account(creds.APIKey)
	watch := &venueWatch{h: server.New(server.Options{Backend: server.SimBackend(x), Clock: clk}), cancels: make(chan time.Time, 1)}
	srv := httptest.NewServer(watch)
	client, err := exchange.NewClient(exchange.ClientOptions{BaseURL: srv.URL, Credentials: creds, Clock: clk,
		Limiter: exchange.NewLimiter(exchange.LimiterOptions{Clock: clk})})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(dir+"/probe.yaml", []byte(probeRule), 0o600); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	asm, err := assemble.New(ctx, assemble.Options{Reader: client, Catalog: client, Accounts: client, Trader: client, Pricer: client,
		Clock: clk, RuleDirs: []string{dir}}, engine.Options{SettleOffLoop: true})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = asm.Poller.Run(ctx) }()
	go func() { defer wg.Done(); _ = asm.Engine.Run(ctx) }()
	r := &reactionRig{acct: acct, watch: watch, eng: asm.Engine, stop: func() { cancel(); wg.Wait(); srv.Close() }}
	r.waitInactive(b)
	return r
}

// waitInactive waits until the probe has evaluated its condition false:
// the engine has started and seen no order resting.
func (r *reactionRig) waitInactive(b *testing.B) {
	b.Helper()
	for range 500 {
		if tr := r.eng.Traces("probe"); len(tr) > 0 && tr[len(tr)-1].Reason == engine.ReasonFalse {
			return
		}
		time.Sleep(10 * time.Millisecond) // a wall-clock benchmark: the engine runs on the wall clock
	}
	b.Fatal("the probe rule never saw the book empty")
}

// trial places an order resting at the venue and returns how long its
// cancel took to arrive.
func (r *reactionRig) trial(b *testing.B, id int) time.Duration {
	b.Helper()
	select { // a cancel of an earlier trial sent twice is not this trial's
	case <-r.watch.cancels:
	default:
	}
	created := time.Now()
	if _, err := r.acct.PlaceOrder(context.Background(), exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures,
		MarginMode: exchange.Crossed, MarginCoin: "USDT", Mode: exchange.OneWayMode, Side: exchange.Buy, OrderType: exchange.Limit,
		Size: "0.01", Price: "50000", ClientOID: fmt.Sprintf("probe-%d", id)}); err != nil {
		b.Fatal(err)
	}
	select {
	case at := <-r.watch.cancels:
		return at.Sub(created)
	case <-time.After(10 * time.Second):
		b.Fatal("no cancel within 10s")
	}
	return 0
}

// BenchmarkReaction times how long an order resting at the venue takes to
// be cancelled by a rule that cancels what it sees resting: from the
// order's creation to the cancel's arrival at the simulator, with polls of
// 1s. Each order is placed at a random point of the poll interval (a
// seeded generator: the same points every run). The engine before it
// evaluated on arrival is measured by the same benchmark on its own build
// (BENCHMARKS.md, "Reaction time"), so that no switch for the old
// behaviour stays in the code that trades.
func BenchmarkReaction(b *testing.B) {
	const rounds, perRound = 4, 10
	modes := []string{"on arrival"}
	rng := rand.New(rand.NewPCG(19, 1))
	got := make([][]time.Duration, len(modes))
	var tooMany, requests int64
	load := loadAverage()
	for range b.N {
		for round := range rounds {
			for m := range modes {
				r := newReactionRig(b)
				for i := range perRound {
					time.Sleep(time.Duration(rng.Int64N(int64(time.Second)))) // a random point of the interval
					got[m] = append(got[m], r.trial(b, round*1000+i))
					r.waitInactive(b)
				}
				r.stop()
				tooMany += r.watch.tooMany.Load()
				requests += r.watch.requests.Load()
			}
		}
	}
	b.StopTimer()
	var out strings.Builder
	fmt.Fprintf(&out, "load average before: %s, after: %s\n", load, loadAverage())
	for m, mode := range modes {
		med, p90 := percentile(got[m], 50), percentile(got[m], 90)
		fmt.Fprintf(&out, "%-10s  trials %3d  median %4d ms  p90 %4d ms  min %4d ms  max %4d ms\n", mode, len(got[m]),
			med.Milliseconds(), p90.Milliseconds(), slices.Min(got[m]).Milliseconds(), slices.Max(got[m]).Milliseconds())
		unit := strings.ReplaceAll(mode, " ", "-")
		b.ReportMetric(float64(med.Milliseconds()), unit+"-median-ms")
		b.ReportMetric(float64(p90.Milliseconds()), unit+"-p90-ms")
	}
	fmt.Fprintf(&out, "answers of 429: %d of %d requests\n", tooMany, requests)
	b.ReportMetric(float64(tooMany), "429s")
	b.Log("\n" + out.String())
}

// percentile is the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100 // ceil(n*p/100), 1-based
	return s[max(i, 1)-1]
}

// loadAverage is the machine's one-minute load average, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}
