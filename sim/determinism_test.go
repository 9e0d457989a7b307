package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// session runs a fixed sequence of calls at fixed virtual times against a
// fresh exchange and returns every response (or error) as JSON lines.
func session(t *testing.T) []byte {
	t.Helper()
	sc := simtest.Scenario()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	x, vc := simRig.Exchange, simRig.Virtual
	ow, _ := x.Account(simtest.OneWayKey)
	hg, _ := x.Account(simtest.HedgeKey)
	ctx := context.Background()
	var out bytes.Buffer
	record := func(name string, v any, err error) {
		line := map[string]any{"call": name, "at": vc.Now().UTC().Format(time.RFC3339)}
		if err != nil {
			line["error"] = err.Error()
		} else {
			line["data"] = v
		}
		b, merr := json.Marshal(line)
		if merr != nil {
			t.Fatal(merr)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	usdt := exchange.USDTFutures
	place := func(v exchange.Venue, req exchange.PlaceOrderRequest) {
		ack, err := v.PlaceOrder(ctx, req)
		record("place-order", ack, err)
	}
	place(ow, simtest.Order("BTCUSDT", exchange.Buy, exchange.Market, "0.05", ""))
	place(ow, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.02", "49500"))
	place(ow, simtest.Order("BTCUSDT", exchange.Sell, exchange.Limit, "0.01", "50500"))
	place(ow, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000.05"))
	hreq := simtest.Order("BTCUSDT", exchange.Sell, exchange.Market, "0.03", "")
	hreq.TradeSide = exchange.Open
	place(hg, hreq)
	vc.Advance(90 * time.Minute)
	p, err := ow.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: usdt})
	record("orders-pending", p, err)
	vc.Advance(2 * time.Hour)
	h, err := ow.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: usdt})
	record("orders-history", h, err)
	f, err := ow.Fills(ctx, exchange.FillsRequest{ProductType: usdt})
	record("fills", f, err)
	for _, v := range []*sim.Account{ow, hg} {
		ps, err := v.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: usdt})
		record("all-position", ps, err)
		acc, err := v.Accounts(ctx, exchange.AccountsRequest{ProductType: usdt})
		record("accounts", acc, err)
	}
	tk, err := ow.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: usdt})
	record("ticker", tk, err)
	return out.Bytes()
}

// TestDeterministic: the same scenario and the same calls at the same
// virtual times give byte-identical responses, run after run (the golden
// file pins them across runs; go test -run TestDeterministic -update
// rewrites it after an intended change).
func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, b := session(t), session(t)
	if !bytes.Equal(a, b) {
		t.Fatalf("two runs differ:\n%s\n---\n%s", a, b)
	}
	golden := filepath.Join("testdata", "session.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, a, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(a, want) {
		t.Errorf("session differs from %s (run with -update after an intended change):\n%s", golden, a)
	}
}
