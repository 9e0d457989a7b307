package sim_test

import (
	"path/filepath"
	"testing"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestScenarioFiles loads every scenario of testdata/scenarios, builds it
// and checks what the scenario is about.
func TestScenarioFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, key, symbol, price, size string
		wantCode                       string // "" when a new order is accepted
		daylight                       exchange.DaylightType
	}{
		{"dst-march.yaml", "dst-key", "TSLAUSDT", "400", "1", "", exchange.DST},
		{"holiday.yaml", "holiday-key", "NVDAUSDT", "180", "1", sim.CodeMarketClosed, exchange.Standard},
		{"holiday.yaml", "holiday-key", "BTCUSDT", "90000", "0.01", "", exchange.Standard},
		{"weekend.yaml", "weekend-key", "AAPLUSDT", "220", "1", sim.CodeMarketClosed, exchange.DST},
		{"weekend.yaml", "weekend-key", "BTCUSDT", "80000", "0.01", "", exchange.DST},
		{"one-way.yaml", "one-way-key", "BTCUSDT", "81000", "0.01", "", exchange.DST},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.symbol, func(t *testing.T) {
			sc, err := sim.LoadScenario(filepath.Join("..", "testdata", "scenarios", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			x := simtest.NewRig(t, simtest.RigOptions{Scenario: sc}).Exchange
			a := account(t, x, tt.key)
			_, err = a.PlaceOrder(ctx, simtest.Order(tt.symbol, exchange.Buy, exchange.Limit, tt.size, tt.price))
			if tt.wantCode == "" {
				simtest.Must(t, err)
			} else {
				simtest.WantCode(t, err, tt.wantCode)
			}
			st, err := a.MarketStates(ctx)
			simtest.Must(t, err)
			if len(st) != 1 || st[0].DaylightType != tt.daylight {
				t.Fatalf("states = %+v, want daylightType %s", st, tt.daylight)
			}
		})
	}
}

func TestOneWayScenarioRule2(t *testing.T) {
	t.Parallel()
	sc, err := sim.LoadScenario(filepath.Join("..", "testdata", "scenarios", "one-way.yaml"))
	simtest.Must(t, err)
	x := simtest.NewRig(t, simtest.RigOptions{Scenario: sc}).Exchange
	a := account(t, x, "one-way-key")
	req := simtest.Order("BTCUSDT", exchange.Sell, exchange.Limit, "0.05", "90000")
	req.ReduceOnly, req.ClientOID = exchange.Yes, "tp-3"
	ack, err := a.PlaceOrder(ctx, req)
	simtest.Must(t, err)
	if ack.OrderID != "" {
		t.Fatalf("ack = %+v, want no orderId", ack)
	}
	d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: "tp-1"})
	simtest.Must(t, err)
	if d.State != exchange.StateCanceled {
		t.Fatalf("tp-1 = %s, want canceled (oldest reduce-only order)", d.State)
	}
	ps, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	simtest.Must(t, err)
	if len(ps) != 1 || ps[0].Leverage != "5" || ps[0].Locked != "0.15" {
		t.Fatalf("positions = %+v", ps)
	}
}

func TestHedgeScenario(t *testing.T) {
	t.Parallel()
	sc, err := sim.LoadScenario(filepath.Join("..", "testdata", "scenarios", "hedge.yaml"))
	simtest.Must(t, err)
	x := simtest.NewRig(t, simtest.RigOptions{Scenario: sc}).Exchange
	a := account(t, x, "hedge-key")
	ps, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	simtest.Must(t, err)
	if len(ps) != 2 || ps[0].HoldSide != exchange.Long || ps[0].Available != "2" || ps[1].HoldSide != exchange.Short || ps[1].MarginMode != exchange.Isolated {
		t.Fatalf("positions = %+v", ps)
	}
	p, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
	simtest.Must(t, err)
	if len(p.EntrustedList) != 2 || p.EntrustedList[0].PosMode != exchange.HedgeMode {
		t.Fatalf("pending = %+v", p.EntrustedList)
	}
}
