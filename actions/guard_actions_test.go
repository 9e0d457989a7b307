package actions_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// guardCase is one way of writing an action, and whether it can open or grow
// exposure (and so must meet the kill switch and the limits) or not (and so
// must reach the venue even with the kill switch on).
type guardCase struct {
	name   string
	action string // one item of a rule's actions list, YAML flow style
	opens  bool
}

// guardCases covers every action kind of actions.Kinds(); a kind added there
// without cases here fails TestEveryActionMeetsTheGuard, and so does a kind
// whose cases contradict its declaration (Kind.Opens).
var guardCases = map[rules.ActionKind][]guardCase{
	actions.PlaceOrder: {
		{"open", "place_order: {symbol: BTCUSDT, open: long, type: limit, size: 5, price: 20000}", true},
		{"raw side", "place_order: {symbol: BTCUSDT, side: buy, type: market, size: 5}", true},
		{"close", "place_order: {symbol: BTCUSDT, close: long, type: market, size: 0.5}", false},
		{"raw reduce-only", "place_order: {symbol: BTCUSDT, side: sell, reduce_only: true, type: market, size: 0.5}", false},
	},
	actions.BatchPlace: {
		{"open", "batch_place: {symbol: BTCUSDT, orders: [{open: long, type: limit, size: 0.06, price: 20000}, {open: short, type: market, size: 5}]}", true},
		{"close", "batch_place: {symbol: BTCUSDT, orders: [{close: long, type: market, size: 0.2}, {close: long, type: market, size: 0.3}]}", false},
	},
	actions.ModifyOrder: {
		// The case: a modify grew an order to size 5 past
		// max_order_size 0.05 and the kill switch.
		{"size and price", "modify_order: {symbol: BTCUSDT, client_oid: target-1, new_size: 5, new_price: 20000}", true},
		{"presets only", "modify_order: {symbol: BTCUSDT, client_oid: target-1, new_take_profit: 0}", false},
	},
	actions.CancelOrder:     {{"cancel", "cancel_order: {symbol: BTCUSDT, client_oid: target-1}", false}},
	actions.BatchCancel:     {{"cancel", "batch_cancel: {symbol: BTCUSDT, client_oids: [target-1]}", false}},
	actions.ReversePosition: {{"reverse", "reverse_position: {symbol: BTCUSDT}", true}},
	actions.ClosePositions:  {{"close", "close_positions: {symbol: BTCUSDT}", false}},
	actions.CancelAll: {
		{"cancel", "cancel_all: {}", false},
		{"with strategy orders", "cancel_all: {include: [strategy]}", false},
	},
	// Protections only close: the trailing stop's size (the whole 1 BTC
	// position) is past max_order_size, and it must still go out.
	actions.Protect: {
		{"stop-loss", "protect: {symbol: BTCUSDT, position: long, stop_loss: 10000}", false},
		{"trailing stop", "protect: {symbol: BTCUSDT, position: long, trailing_ratio: 2}", false},
	},
	// A trigger that opens is an order that opens.
	actions.PlaceTrigger: {
		{"open", "place_trigger: {symbol: BTCUSDT, open: long, type: market, size: 5, trigger_price: 90000}", true},
		{"close", "place_trigger: {symbol: BTCUSDT, close: long, type: market, size: 0.5, trigger_price: 10000}", false},
	},
	actions.CancelStrategyOrders: {{"cancel", "cancel_strategy_orders: {symbol: BTCUSDT}", false}},
	actions.Log:                  {{"log", `log: {message: "hello"}`, false}},
	actions.Notify:               {{"notify", `notify: {message: "hello"}`, false}},
	// A halt itself opens nothing: it stops the entries that follow it
	// (TestHaltStopsEntriesOfEveryRule).
	actions.HaltAction: {{"halt", `halt: {until: end_of_day, reason: "lost enough today"}`, false}},
}

// TestEveryActionMeetsTheGuard runs every action kind against the simulator
// with an open long of 1 BTC and a pending order target-1, once with the kill
// switch on and max_order_size 0.05, once with the limit alone. An action
// that can open or grow exposure must be blocked by each, and send nothing;
// cancels, closes and logs must go through both.
func TestEveryActionMeetsTheGuard(t *testing.T) {
	t.Parallel()
	for _, kind := range actions.Kinds() {
		def := kind.Def
		cases := guardCases[def.Kind]
		if len(cases) == 0 {
			t.Errorf("action kind %s has no guard case: add one to guardCases", def.Kind)
		}
		opening := slices.ContainsFunc(cases, func(c guardCase) bool { return c.opens })
		if opening != kind.Opens {
			t.Errorf("action kind %s declares Opens %v, but its guard cases say %v", def.Kind, kind.Opens, opening)
		}
		for _, c := range cases {
			for _, killed := range []bool{true, false} {
				want := actions.ErrOrderTooLarge
				name := string(def.Kind) + "/" + c.name + "/limit"
				if killed {
					want, name = actions.ErrKillSwitch, string(def.Kind)+"/"+c.name+"/kill switch"
				}
				t.Run(name, func(t *testing.T) {
					legs, sent := runGuarded(t, c.action, killed)
					if len(legs) == 0 {
						t.Fatal("no leg")
					}
					for _, leg := range legs {
						if !c.opens {
							if leg.Outcome == actions.Blocked {
								t.Errorf("a %s was blocked: %+v", def.Kind, leg)
							}
							continue
						}
						blocked := leg.Outcome == actions.Blocked || len(leg.Failures) > 0
						if !blocked || !strings.Contains(leg.Error+fmt.Sprint(leg.Failures), want.Error()) {
							t.Errorf("leg not blocked by %q: %+v", want, leg)
						}
						for _, f := range leg.Failures {
							if !strings.Contains(f.ErrorMsg, want.Error()) {
								t.Errorf("batch item %s not blocked by %q: %s", f.ClientOID, want, f.ErrorMsg)
							}
						}
					}
					switch {
					case c.opens && len(sent) > 0:
						t.Errorf("blocked action sent %v", sent)
					case !c.opens && def.Op != "" && !containsOp(sent, def.Op):
						t.Errorf("%s did not reach the venue (sent %v)", def.Op, sent)
					case def.Op == "" && len(sent) > 0:
						t.Errorf("%s sent %v", c.action, sent)
					}
				})
			}
		}
	}
}

func containsOp(ops []exchange.Op, op exchange.Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// runGuarded runs one rule with action on a fresh simulator account holding
// a 1 BTC long and a pending 0.01 BTC buy (clientOid target-1), and returns
// the legs and the mutating operations the venue received.
func runGuarded(t *testing.T, action string, killed bool) ([]actions.Leg, []exchange.Op) {
	t.Helper()
	ctx := context.Background()
	sc := sim.Demo()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 90 * time.Minute})
	x, v := simRig.Exchange, simRig.Virtual
	acct, _ := x.Account("demo-key")
	cat, err := rules.FetchCatalog(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	tick, err := acct.Ticker(ctx, exchange.TickerRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures})
	if err != nil || len(tick) == 0 {
		t.Fatalf("ticker: %v", err)
	}
	last, _ := tick[0].LastPr.Decimal()
	base := exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT", Side: exchange.Buy}
	seed := base
	seed.Size, seed.OrderType, seed.ClientOID = "1", exchange.Market, "seed-1"
	pending := base
	pending.Size, pending.OrderType, pending.ClientOID = "0.01", exchange.Limit, "target-1"
	pending.Price = exchange.NumOf(last.Mul(decimal.RequireFromString("0.9")).Round(0))
	for _, req := range []exchange.PlaceOrderRequest{seed, pending} {
		if _, err := acct.PlaceOrder(ctx, req); err != nil {
			t.Fatalf("seed %s: %v", req.ClientOID, err)
		}
	}
	st := stateOf(ctx, t, acct, cat, v.Now())

	rs, errs := rules.LoadBytes(ctx, "r.yaml", []byte("rules:\n  - name: r\n    when: now_ms > 0\n    actions:\n      - "+action+"\n"), rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
	if rs == nil {
		t.Fatal(errs)
	}
	safety := &actions.Safety{Default: actions.Limits{MaxOrderSize: decimal.RequireFromString("0.05")}}
	g := actions.NewGuard(actions.GuardOptions{Safety: safety, Now: v.Now, FileExists: func(string) bool { return false }})
	if killed {
		g.Kill("test")
	}
	rec := &recordingVenue{Venue: acct}
	d := actions.NewDispatcher(actions.DispatcherOptions{Venue: rec, Clock: promptClock{v}, Guard: g})
	modes := map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: exchange.OneWayMode}
	ex := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: cat, Modes: modes, Pricer: acct})
	legs := ex.Run(ctx, rs.Rules[0], v.Now(), rules.NewEnv(st), rules.NewVM(), st)
	return legs, rec.ops()
}

// stateOf builds the firing's State from the account's positions and
// pending orders, as the engine's poll would.
func stateOf(ctx context.Context, t *testing.T, acct exchange.Venue, cat *rules.Catalog, now time.Time) *marketdata.State {
	t.Helper()
	pos, err := acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		t.Fatal(err)
	}
	page, err := acct.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		t.Fatal(err)
	}
	st, err := marketdata.NewState(marketdata.BuildInput{Now: now, Contracts: cat.Contracts,
		Positions: []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, Positions: pos, At: now}},
		Orders:    []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, Orders: page.EntrustedList, At: now}},
	}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// promptClock answers every wait at once: a lookup after a modify is never
// a test of time here.
type promptClock struct{ *clock.Virtual }

func (c promptClock) After(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// recordingVenue notes every mutating operation before passing it on.
type recordingVenue struct {
	actions.Venue
	mu   sync.Mutex
	sent []exchange.Op
}

func (r *recordingVenue) note(op exchange.Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, op)
}

func (r *recordingVenue) ops() []exchange.Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange.Op(nil), r.sent...)
}

func (r *recordingVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	r.note(exchange.OpPlaceOrder)
	return r.Venue.PlaceOrder(ctx, req)
}

func (r *recordingVenue) ClickBackhand(ctx context.Context, req exchange.ClickBackhandRequest) (exchange.OrderAck, error) {
	r.note(exchange.OpClickBackhand)
	return r.Venue.ClickBackhand(ctx, req)
}

func (r *recordingVenue) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	r.note(exchange.OpBatchPlaceOrder)
	return r.Venue.BatchPlaceOrder(ctx, req)
}

func (r *recordingVenue) ModifyOrder(ctx context.Context, req exchange.ModifyOrderRequest) (exchange.OrderAck, error) {
	r.note(exchange.OpModifyOrder)
	return r.Venue.ModifyOrder(ctx, req)
}

func (r *recordingVenue) CancelOrder(ctx context.Context, req exchange.CancelOrderRequest) (exchange.OrderAck, error) {
	r.note(exchange.OpCancelOrder)
	return r.Venue.CancelOrder(ctx, req)
}

func (r *recordingVenue) BatchCancelOrders(ctx context.Context, req exchange.BatchCancelOrdersRequest) (exchange.BatchResult, error) {
	r.note(exchange.OpBatchCancelOrders)
	return r.Venue.BatchCancelOrders(ctx, req)
}

func (r *recordingVenue) ClosePositions(ctx context.Context, req exchange.ClosePositionsRequest) (exchange.ClosePositionsResult, error) {
	r.note(exchange.OpClosePositions)
	return r.Venue.ClosePositions(ctx, req)
}

func (r *recordingVenue) CancelAllOrders(ctx context.Context, req exchange.CancelAllOrdersRequest) (exchange.BatchResult, error) {
	r.note(exchange.OpCancelAllOrders)
	return r.Venue.CancelAllOrders(ctx, req)
}

func (r *recordingVenue) PlaceTPSLOrder(ctx context.Context, req exchange.PlaceTPSLOrderRequest) (exchange.OrderAck, error) {
	r.note(exchange.OpPlaceTPSLOrder)
	return r.Venue.PlaceTPSLOrder(ctx, req)
}

func (r *recordingVenue) PlacePlanOrder(ctx context.Context, req exchange.PlacePlanOrderRequest) (exchange.OrderAck, error) {
	r.note(exchange.OpPlacePlanOrder)
	return r.Venue.PlacePlanOrder(ctx, req)
}

func (r *recordingVenue) CancelPlanOrder(ctx context.Context, req exchange.CancelPlanOrderRequest) (exchange.BatchResult, error) {
	r.note(exchange.OpCancelPlanOrder)
	return r.Venue.CancelPlanOrder(ctx, req)
}

func (r *recordingVenue) SetPositionMode(ctx context.Context, req exchange.SetPositionModeRequest) (exchange.SetPositionModeResult, error) {
	r.note(exchange.OpSetPositionMode)
	return r.Venue.SetPositionMode(ctx, req)
}
