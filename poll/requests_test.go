package poll_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// TestRequestsPerFetchMatchesTheClient fetches every part once through the
// live client against engine sim and counts the requests that reach the
// venue per operation: the polling budget (RequestsPerFetch, Plan.Budget)
// must count what the client really sends, e.g. orders-pending twice.
func TestRequestsPerFetchMatchesTheClient(t *testing.T) {
	sc := sim.Demo()
	clk := clock.NewVirtual(sc.Clock.Start)
	x, err := sim.New(sc, sim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	h := server.New(server.Options{Backend: server.SimBackend(x), Clock: clk, DisableRateLimits: true})
	var mu sync.Mutex
	seen := map[exchange.Op]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The client's clock sync (server time) is not a poll.
		if op, ok := exchange.OpForPath(r.Method, r.URL.Path); ok && op.Op != exchange.OpServerTime {
			mu.Lock()
			seen[op.Op]++
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	client, err := exchange.NewClient(exchange.ClientOptions{BaseURL: srv.URL, Clock: clk,
		Credentials: exchange.Credentials{APIKey: "demo-key", Secret: "demo-secret", Passphrase: "demo-passphrase"}})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"pair": "TSLAUSDT", "product type": string(exchange.USDTFutures), "category": string(exchange.CategoryUSDTFutures),
		"contract": "USDT-FUTURES/BTCUSDT"}
	for part := marketdata.Part(0); int(part) < marketdata.NumParts; part++ {
		t.Run(part.String(), func(t *testing.T) {
			mu.Lock()
			clear(seen)
			mu.Unlock()
			task := poll.Task{Part: part, Key: keys[poll.KeyKind(part)]}
			if err := poll.Fetch(context.Background(), client, task, clk.Now(), 0, marketdata.NewAnswers(nil, marketdata.BuildOptions{}, false), nil); err != nil {
				t.Fatalf("fetch: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) == 0 {
				t.Fatal("no request reached the venue")
			}
			for op, n := range seen {
				if want := poll.RequestsPerFetch(part, op); n != want {
					t.Errorf("%s: the client sent %d requests, the budget counts %d", op, n, want)
				}
			}
		})
	}
	if got := poll.RequestsPerFetch(marketdata.PartOrders, exchange.OpOrdersPending); got != 2 {
		t.Errorf("orders-pending counts %d requests per fetch, want 2", got)
	}
}

// TestPlanCountsEveryRequest shows the plan budgets and spaces the pending
// orders by the two requests each fetch makes: three product types are 6
// requests a fetch, more than half of orders-pending's 10 a second, so they
// are polled less often than every second.
func TestPlanCountsEveryRequest(t *testing.T) {
	tests := []struct {
		name     string
		pts      []exchange.ProductType
		wantRate float64
	}{
		{"one product type", []exchange.ProductType{exchange.USDTFutures}, 2},
		{"three product types", exchange.ProductTypes(), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := poll.NewPlan(poll.PlanOptions{Demand: poll.Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartOrders), ProductTypes: tt.pts}})
			if err != nil {
				t.Fatal(err)
			}
			got := p.Budget()[exchange.OpOrdersPending]
			if got < tt.wantRate-0.001 || got > tt.wantRate+0.001 {
				t.Errorf("orders-pending %.3f req/s, want %.3f (interval %s)", got, tt.wantRate, p.Interval(marketdata.PartOrders))
			}
		})
	}
}

// TestModeBudget shows the engine's reads of the position modes cost what
// one read makes (exchange.PositionModeOps) per product type every
// ModeEvery: for three product types, 0.01 requests per second of each.
func TestModeBudget(t *testing.T) {
	b := poll.ModeBudget(3)
	if len(b) != len(exchange.PositionModeOps()) {
		t.Fatalf("budget %v, want one rate per operation of %v", b, exchange.PositionModeOps())
	}
	for _, op := range exchange.PositionModeOps() {
		if got := b[op]; got < 0.0099 || got > 0.0101 {
			t.Errorf("%s: %g req/s, want 0.01", op, got)
		}
	}
}
