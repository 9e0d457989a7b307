package engine_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestReconcileAfterDrop injects a dropped connection into the first
// place-order through the simulator's own faults, served by a second server
// on the same simulator, and checks that the engine ends up with exactly one
// order under the leg's clientOid:
//   - dropped after processing, with the new order invisible to queries for
//     1.5s: the lookups find it on their second try, nothing is re-sent;
//   - dropped before processing (the request was lost): every lookup says
//     absent, and the one re-send with the same clientOid places it.
func TestReconcileAfterDrop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		afterProcess bool
		wantPlaces   int // place-order requests that reached the server
	}{
		{"dropped after processing", true, 1},
		{"lost before processing", false, 2},
	}
	for _, mode := range []exchange.PosMode{exchange.OneWayMode, exchange.HedgeMode} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				sc := sim.Demo()
				sc.Faults.VisibilityDelay = 1500 * time.Millisecond
				var once sync.Once
				route := func(simRig *simtest.Rig, r *http.Request, clean http.Handler) http.Handler {
					h := clean
					if r.URL.Path == pathPlace {
						once.Do(func() {
							h = server.New(server.Options{Backend: server.SimBackend(simRig.Exchange), Clock: simRig.Clock, AuthClock: simRig.Clock, DisableRateLimits: true,
								Faults: server.Faults{DropRate: 1, DropAfterProcessing: tt.afterProcess}})
						})
					}
					return h
				}
				r := newHTTPRig(t, mode, `
rules:
  - name: open
    when: position("BTCUSDT", "long").size == 0
    once: per_day
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: limit, size: 0.01, price: 50000}
`, rigOptions{scenario: sc, route: route})
				r.run(1)
				reqs, legs := r.sent()
				if len(legs) != 1 {
					t.Fatalf("legs %+v", legs)
				}
				leg := legs[0]
				if leg.Outcome != actions.OK || !leg.Reconciled || len(leg.OrderIDs) != 1 {
					t.Fatalf("leg %+v: want ok, reconciled, one order id", leg)
				}
				if len(reqs) != tt.wantPlaces {
					t.Fatalf("%d place-order requests reached the server, want %d: %v", len(reqs), tt.wantPlaces, reqs)
				}
				for _, q := range reqs {
					if q.path != pathPlace || q.body != string(actions.RequestJSON(leg.Request)) {
						t.Errorf("request %s %s; the leg sent %+v", q.path, q.body, leg.Request)
					}
				}
				r.v.Advance(2 * time.Second) // past the visibility delay
				var mine []exchange.PendingOrder
				for _, o := range r.pending() {
					if o.ClientOID == leg.ClientOIDs[0] {
						mine = append(mine, o)
					}
				}
				if len(mine) != 1 || mine[0].OrderID != leg.OrderIDs[0] {
					t.Fatalf("orders with clientOid %s: %+v; want exactly one, id %s", leg.ClientOIDs[0], mine, leg.OrderIDs[0])
				}
			})
		}
	}
}
