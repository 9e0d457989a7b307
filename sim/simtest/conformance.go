// Package simtest holds what tests need of the simulator. NewRig builds
// the simulator of one test (a scenario, a clock, optionally served on
// loopback with a client), so that every package's tests set it up the
// same way. The conformance suite of the exchange interface is one table
// of the spec's rules that runs against any exchange.Venue built from the
// suite's scenario: sim runs it in-process; the HTTP tests run the same
// suite through exchange.Client against the sim server, so that the client
// and the simulator prove each other.
package simtest

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

//go:embed conformance.yaml
var scenarioYAML []byte

// API keys of the suite's scenario.
const (
	OneWayKey = "ow-key" // one-way mode on every product type
	HedgeKey  = "hg-key" // hedge mode on every product type
)

// Scenario returns a fresh copy of the suite's scenario: accounts OneWayKey
// and HedgeKey with 100,000 USDT and 10 BTC each; BTCUSDT at 50000 until
// 15:00 UTC, 49000 at 16:00, 51000 at 17:00 (2026-03-13, a Friday); ETHUSDT
// with a price step of 0.05; the stock future TSLAUSDT, which closes at
// Saturday 00:00 UTC-4, 14 hours after the start.
func Scenario() *sim.Scenario {
	sc, err := sim.ParseScenario(scenarioYAML, "conformance.yaml", ".")
	if err != nil {
		panic(fmt.Sprintf("simtest: the embedded scenario is invalid: %v", err))
	}
	return sc
}

// Harness is one fresh exchange under test.
type Harness struct {
	// Venue returns the venue of an API key of the scenario.
	Venue func(apiKey string) exchange.Venue
	// Advance moves the exchange's clock forward by d; matching runs up to
	// the new time before the next call returns.
	Advance func(d time.Duration)
}

// NewHarness builds a fresh exchange from sc for one test.
type NewHarness func(t *testing.T, sc *sim.Scenario) Harness

// Case is one rule of the spec, checked against a fresh harness.
type Case struct {
	Name string
	Run  func(t *testing.T, h *Env)
}

// Env is what a case works with: the harness and helpers that fail the test
// with a readable message.
type Env struct {
	Harness
	Ctx    context.Context
	OneWay exchange.Venue
	Hedge  exchange.Venue
}

// RunConformance runs every case of Cases, each on a fresh harness.
func RunConformance(t *testing.T, newHarness NewHarness) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			h := newHarness(t, Scenario())
			env := &Env{Harness: h, Ctx: context.Background(), OneWay: h.Venue(OneWayKey), Hedge: h.Venue(HedgeKey)}
			c.Run(t, env)
		})
	}
}

// WantCode fails unless err carries the exchange code: an *exchange.APIError
// from the exchange, or an *exchange.ValidationError with that Code from a
// client that refused the request before sending it (the same rule, found
// earlier; an empty Code means 40017).
func WantCode(t *testing.T, err error, code string) {
	t.Helper()
	var ae *exchange.APIError
	var ve *exchange.ValidationError
	switch {
	case errors.As(err, &ae):
		if ae.Code != code {
			t.Fatalf("code = %s (%s), want %s", ae.Code, ae.Msg, code)
		}
	case errors.As(err, &ve):
		got := ve.Code
		if got == "" {
			got = exchange.CodeParamVerify
		}
		if got != code {
			t.Fatalf("validation error %v has code %s, want %s", ve, got, code)
		}
	default:
		t.Fatalf("error = %v, want exchange code %s", err, code)
	}
}

// Must fails on err.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// Order returns a place-order request for USDT-FUTURES (crossed, USDT).
func Order(symbol string, side exchange.Side, orderType exchange.OrderType, size, price string) exchange.PlaceOrderRequest {
	return exchange.PlaceOrderRequest{
		Symbol: symbol, ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT",
		Size: exchange.Num(size), Price: exchange.Num(price), Side: side, OrderType: orderType,
	}
}

// Place places req and fails the test on an error.
func (e *Env) Place(t *testing.T, v exchange.Venue, req exchange.PlaceOrderRequest) exchange.OrderAck {
	t.Helper()
	ack, err := v.PlaceOrder(e.Ctx, req)
	Must(t, err)
	return ack
}

// Detail returns the order by id or client id.
func (e *Env) Detail(t *testing.T, v exchange.Venue, symbol, orderID, clientOID string) exchange.OrderDetail {
	t.Helper()
	d, err := v.OrderDetail(e.Ctx, exchange.OrderDetailRequest{Symbol: symbol, ProductType: exchange.USDTFutures, OrderID: orderID, ClientOID: clientOID})
	Must(t, err)
	return d
}

// Position returns the size of the position of symbol in direction side
// ("0" when none).
func (e *Env) Position(t *testing.T, v exchange.Venue, symbol string, side exchange.HoldSide) decimal.Decimal {
	t.Helper()
	ps, err := v.AllPositions(e.Ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	Must(t, err)
	for _, p := range ps {
		if p.Symbol == symbol && p.HoldSide == side {
			return p.Total.MustDecimal()
		}
	}
	return decimal.Zero
}

// WantPosition fails unless the position of symbol in direction side is size.
func (e *Env) WantPosition(t *testing.T, v exchange.Venue, symbol string, side exchange.HoldSide, size string) {
	t.Helper()
	if got := e.Position(t, v, symbol, side); !got.Equal(decimal.RequireFromString(size)) {
		t.Fatalf("%s %s position = %s, want %s", symbol, side, got, size)
	}
}

// WantState fails unless the order's state is want.
func (e *Env) WantState(t *testing.T, v exchange.Venue, symbol, orderID string, want exchange.OrderState) exchange.OrderDetail {
	t.Helper()
	d := e.Detail(t, v, symbol, orderID, "")
	if d.State != want {
		t.Fatalf("order %s state = %s, want %s", orderID, d.State, want)
	}
	return d
}

// Pending returns the pending orders of USDT-FUTURES.
func (e *Env) Pending(t *testing.T, v exchange.Venue, req exchange.PendingOrdersRequest) exchange.PendingOrdersPage {
	t.Helper()
	req.ProductType = exchange.USDTFutures
	p, err := v.PendingOrders(e.Ctx, req)
	Must(t, err)
	return p
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// withTradeSide returns req with tradeSide set (hedge mode).
func withTradeSide(req exchange.PlaceOrderRequest, ts exchange.TradeSide) exchange.PlaceOrderRequest {
	req.TradeSide = ts
	return req
}

func withClientOID(req exchange.PlaceOrderRequest, coid string) exchange.PlaceOrderRequest {
	req.ClientOID = coid
	return req
}

func withForce(req exchange.PlaceOrderRequest, f exchange.Force) exchange.PlaceOrderRequest {
	req.Force = f
	return req
}
