package engine_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// BenchmarkHourOfPolls runs the example rules for a simulated hour of the
// regular session against the demo simulator with its rate limits on, the
// engine wired as engine run wires it (assemble.New, the client's rate
// limiter, the poller's and the engine's Run loops), and counts the
// simulator's answers of 429. Everything runs on one virtual clock, moved
// on by 10 ms whenever the poller and the engine both wait on it: the
// simulator's limiter decides on the clock's time, so an hour takes
// seconds, and requests sent at one instant meet the limiter as one burst,
// the worst case for its buckets. Run it with
//
//	go test -run '^$' -bench HourOfPolls -benchtime 1x ./engine/
func BenchmarkHourOfPolls(b *testing.B) {
	load := loadAverage()
	for range b.N {
		start := sim.Demo().Clock.Start.Add(60 * time.Minute) // 10:00 New York
		v := clock.NewVirtual(start)
		x, err := sim.New(sim.Demo(), sim.Options{Clock: v})
		if err != nil {
			b.Fatal(err)
		}
		creds := demoKeys[exchange.OneWayMode]
		watch := &venueWatch{h: server.New(server.Options{Backend: server.SimBackend(x), Clock: v, AuthClock: v}), cancels: make(chan time.Time, 1)}
		srv := httptest.NewServer(watch)
		client, err := exchange.NewClient(exchange.ClientOptions{BaseURL: srv.URL, Credentials: creds, Clock: v,
			Limiter: exchange.NewLimiter(exchange.LimiterOptions{Clock: v})})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		asm, err := assemble.New(ctx, assemble.Options{Reader: client, Catalog: client, Accounts: client, Trader: client, Pricer: client,
			Clock: v, RuleDirs: []string{"../examples/rules"}, Getenv: func(string) string { return "" }}, engine.Options{SettleOffLoop: true})
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _ = asm.Poller.Run(ctx) }()
		go func() { defer wg.Done(); _ = asm.Engine.Run(ctx) }()
		go func() { wg.Wait(); close(done) }()
		for end := start.Add(time.Hour); v.Now().Before(end); {
			if !v.WaitForWaiters(2, done) {
				b.Fatal("the poller or the engine stopped")
			}
			v.Advance(10 * time.Millisecond)
		}
		cancel()
		<-done
		srv.Close()
		_, ticks, skipped := asm.Engine.Stats()
		b.ReportMetric(float64(watch.tooMany.Load()), "429s")
		b.ReportMetric(float64(watch.requests.Load()), "requests")
		b.Logf("load average before: %s, after: %s\nsimulated hour from %s: %d requests, %d answers of 429, %d ticks (%d skipped)\npolls: %s\nrequests per path: %s",
			load, loadAverage(), start.Format(time.RFC3339), watch.requests.Load(), watch.tooMany.Load(), ticks, skipped,
			strings.Join(asm.Poller.Tasks(), "; "), watch.paths())
	}
}
