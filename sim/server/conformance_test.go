package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestConformanceOverHTTP runs the spec's conformance suite through
// exchange.Client against this server on loopback, so that the client, the
// server and the simulator prove each other. The server's rate limits are off
// and the client retries nothing: the suite issues calls faster than the
// published limits allow, on a virtual clock that only the suite advances.
func TestConformanceOverHTTP(t *testing.T) {
	simtest.RunConformance(t, func(t *testing.T, sc *sim.Scenario) simtest.Harness {
		clk := clock.NewVirtual(sc.Clock.Start)
		x, err := sim.New(sc, sim.Options{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(New(Options{Backend: SimBackend(x), Clock: clk, DisableRateLimits: true}))
		t.Cleanup(srv.Close)
		httpClient := &http.Client{Timeout: 10 * time.Second}
		return simtest.Harness{
			Venue: func(apiKey string) exchange.Venue {
				auth, ok := x.Auth(apiKey)
				if !ok {
					t.Fatalf("scenario has no key %q", apiKey)
				}
				c, err := exchange.NewClient(exchange.ClientOptions{
					BaseURL:     srv.URL,
					Credentials: exchange.Credentials{APIKey: apiKey, Secret: auth.Secret, Passphrase: auth.Passphrase},
					HTTPClient:  httpClient,
					Clock:       clk,
					Retry:       exchange.RetryPolicy{MaxAttempts: 1},
				})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			Advance: clk.Advance,
		}
	})
}
