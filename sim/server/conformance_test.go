package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// newSimClient serves a fresh demo simulator with opts (Backend and Clock
// filled in) and returns a client of demo-key that retries nothing.
func newSimClient(t *testing.T, configure func(*server.Options)) (*exchange.Client, *simtest.Rig) {
	t.Helper()
	var opts server.Options
	if configure != nil {
		configure(&opts)
	}
	r := simtest.NewRig(t, simtest.RigOptions{HTTP: true, Server: opts})
	c := r.Client(t, "demo-key", exchange.ClientOptions{
		HTTPClient: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		Retry:      exchange.RetryPolicy{MaxAttempts: 1},
	})
	return c, r
}

func demoLimitOrder(clientOID string) exchange.PlaceOrderRequest {
	return exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed,
		MarginCoin: "USDT", Size: "0.01", Price: "20000", Side: exchange.Buy, OrderType: exchange.Limit, ClientOID: clientOID}
}

// TestClientSeesServerFailures checks that what the server answers under
// load and faults is what exchange.Client turns into the errors callers
// branch on: 429 into ErrRateLimited, an injected 500 into ErrRetryable, a
// dropped place-order into ErrOutcomeUnknown, after which the order is
// found by clientOid.
func TestClientSeesServerFailures(t *testing.T) {
	ctx := context.Background()
	t.Run("rate limit", func(t *testing.T) {
		c, _ := newSimClient(t, nil)
		for i := range 10 {
			if _, err := c.PlaceOrder(ctx, demoLimitOrder("rl-"+strconv.Itoa(i))); err != nil {
				t.Fatalf("place-order %d of 10 in one virtual second: %v", i+1, err)
			}
		}
		_, err := c.PlaceOrder(ctx, demoLimitOrder("rl-10"))
		if !errors.Is(err, exchange.ErrRateLimited) {
			t.Fatalf("11th place-order in one virtual second: %v, want ErrRateLimited", err)
		}
	})
	t.Run("injected error", func(t *testing.T) {
		c, _ := newSimClient(t, func(o *server.Options) { o.Faults = server.Faults{Seed: 1, ErrorRate: 1} })
		_, err := c.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
		if !errors.Is(err, exchange.ErrRetryable) {
			t.Fatalf("ticker under ErrorRate 1: %v, want ErrRetryable", err)
		}
	})
	t.Run("drop after processing", func(t *testing.T) {
		c, r := newSimClient(t, func(o *server.Options) {
			o.Faults = server.Faults{Seed: 1, DropRate: 1, DropAfterProcessing: true}
		})
		_, err := c.PlaceOrder(ctx, demoLimitOrder("amb-1"))
		if !errors.Is(err, exchange.ErrOutcomeUnknown) {
			t.Fatalf("dropped place-order: %v, want ErrOutcomeUnknown", err)
		}
		// The same simulator without faults: the order exists.
		clean := httptest.NewServer(server.New(server.Options{Backend: server.SimBackend(r.Exchange), Clock: r.Clock}))
		t.Cleanup(clean.Close)
		c2, err := exchange.NewClient(exchange.ClientOptions{BaseURL: clean.URL, Clock: r.Clock, Credentials: r.Credentials(t, "demo-key")})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c2.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: "amb-1"})
		if err != nil || d.State != exchange.StateLive {
			t.Fatalf("order amb-1 after the drop: %+v, %v", d, err)
		}
	})
}

// TestConformanceOverHTTP runs the spec's conformance suite through
// exchange.Client against this server on loopback, so that the client, the
// server and the simulator prove each other. The server's rate limits are off
// and the client retries nothing: the suite issues calls faster than the
// published limits allow, on a virtual clock that only the suite advances.
func TestConformanceOverHTTP(t *testing.T) {
	simtest.RunConformance(t, func(t *testing.T, sc *sim.Scenario) simtest.Harness {
		r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, HTTP: true, Server: server.Options{DisableRateLimits: true}})
		httpClient := &http.Client{Timeout: 10 * time.Second}
		return simtest.Harness{
			Venue: func(apiKey string) exchange.Venue {
				return r.Client(t, apiKey, exchange.ClientOptions{HTTPClient: httpClient, Retry: exchange.RetryPolicy{MaxAttempts: 1}})
			},
			Advance: r.Virtual.Advance,
		}
	})
}
