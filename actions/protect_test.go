package actions_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// protectRig is a rule's action run through the executor on the
// conformance scenario's one-way or hedge account (BTCUSDT 50000 until
// 15:00, 49000 at 16:00, 51000 at 17:00; the clock starts at 14:00), after
// a 0.01 BTC position in direction side was opened at market.
type protectRig struct {
	rig   *simtest.Rig
	acct  *sim.Account
	rules *int // rules run so far: each firing is of its own rule, so its client order ids are its own
}

func newProtectRig(t *testing.T, key string, side exchange.Side) protectRig {
	t.Helper()
	sc := simtest.Scenario()
	sc.StrategyOrders = nil
	for i := range sc.Accounts {
		sc.Accounts[i].StrategyOrders = nil
	}
	r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	acct, ok := r.Exchange.Account(key)
	if !ok {
		t.Fatalf("no account %s", key)
	}
	if side != "" {
		req := simtest.Order("BTCUSDT", side, exchange.Market, "0.01", "")
		if key == simtest.HedgeKey {
			req.TradeSide = exchange.Open
		}
		if _, err := acct.PlaceOrder(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	return protectRig{rig: r, acct: acct, rules: new(int)}
}

// run fires one rule whose only action is action, and returns its legs.
func (p protectRig) run(t *testing.T, action string, mode exchange.PosMode) []actions.Leg {
	t.Helper()
	ctx := context.Background()
	cat, err := rules.FetchCatalog(ctx, p.acct)
	if err != nil {
		t.Fatal(err)
	}
	now := p.rig.Virtual.Now()
	st := stateOf(ctx, t, p.acct, cat, now)
	*p.rules++
	rs, errs := rules.LoadBytes(ctx, "r.yaml", []byte("rules:\n  - name: r"+strconv.Itoa(*p.rules)+"\n    when: now_ms > 0\n    actions:\n      - "+action+"\n"), rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
	if rs == nil {
		t.Fatal(errs)
	}
	d := actions.NewDispatcher(actions.DispatcherOptions{Venue: p.acct, Clock: promptClock{p.rig.Virtual}})
	ex := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: cat, Modes: map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: mode}, Pricer: p.acct})
	legs := ex.Run(ctx, rs.Rules[0], now, rules.NewEnv(st), rules.NewVM(), st)
	for _, l := range legs {
		if l.Outcome != actions.OK {
			t.Fatalf("%s: leg %+v", action, l)
		}
	}
	return legs
}

func (p protectRig) position(t *testing.T, hold exchange.HoldSide) string {
	t.Helper()
	ps, err := p.acct.SinglePosition(context.Background(), exchange.SinglePositionRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, MarginCoin: "USDT"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pos := range ps {
		if pos.HoldSide == hold {
			return string(pos.Total)
		}
	}
	return "0"
}

// TestProtectTrailingStopFiresOnTheRetrace writes the trailing stop as a
// trader would, in both position modes: a short is protected by a 2%
// trailing stop that starts at 49500. The price reaches it at 15:30, falls
// to 49000 at 16:00 and rises: the stop, following the low, closes the
// short at 49980, at 16:29.4, and not at 50490 (16:44.7), where a stop
// that did not follow would.
func TestProtectTrailingStopFiresOnTheRetrace(t *testing.T) {
	for _, tt := range []struct {
		key  string
		mode exchange.PosMode
	}{{simtest.OneWayKey, exchange.OneWayMode}, {simtest.HedgeKey, exchange.HedgeMode}} {
		t.Run(string(tt.mode), func(t *testing.T) {
			p := newProtectRig(t, tt.key, exchange.Sell)
			legs := p.run(t, "protect: {symbol: BTCUSDT, position: short, trailing_ratio: 2, activation_price: 49500}", tt.mode)
			req, ok := legs[0].Request.(exchange.PlaceTPSLOrderRequest)
			wantHold := map[exchange.PosMode]string{exchange.OneWayMode: "sell", exchange.HedgeMode: "short"}[tt.mode]
			if !ok || req.PlanType != exchange.PlanMoving || req.HoldSide != wantHold || req.Size != "0.01" || req.RangeRate != "2" {
				t.Fatalf("request %+v: want a moving_plan of the whole 0.01 short, holdSide %s, 2%%", legs[0].Request, wantHold)
			}
			p.rig.Virtual.Advance(149 * time.Minute) // 16:29
			if got := p.position(t, exchange.Short); got != "0.01" {
				t.Fatalf("at 16:29 the short is %s, want it still open", got)
			}
			p.rig.Virtual.Advance(time.Minute) // 16:30
			if got := p.position(t, exchange.Short); got != "0" {
				t.Fatalf("at 16:30 the short is %s, want it closed by the trailing stop", got)
			}
		})
	}
}

// TestCancelAllIncludeStrategyLeavesNothing: a pending order, a stop-loss,
// a take-profit, a trailing stop and a trigger order; cancel_all with
// include: [strategy] leaves none of them, and without it the four that
// rest on the exchange stay.
func TestCancelAllIncludeStrategyLeavesNothing(t *testing.T) {
	for _, tt := range []struct {
		action     string
		strategies int
	}{{"cancel_all: {include: [strategy]}", 0}, {"cancel_all: {}", 4}} {
		t.Run(tt.action, func(t *testing.T) {
			ctx := context.Background()
			p := newProtectRig(t, simtest.OneWayKey, exchange.Buy)
			p.run(t, "protect: {symbol: BTCUSDT, position: long, stop_loss: 45000, take_profit: 55000, trailing_distance: 500, activation_price: 50000}", exchange.OneWayMode)
			p.run(t, "place_trigger: {symbol: BTCUSDT, open: long, type: limit, price: 59000, size: 0.01, trigger_price: 60000}", exchange.OneWayMode)
			if _, err := p.acct.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "40000")); err != nil {
				t.Fatal(err)
			}
			p.run(t, tt.action, exchange.OneWayMode)
			pending, err := p.acct.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
			if err != nil {
				t.Fatal(err)
			}
			so, err := exchange.PendingPlanStrategyOrders(ctx, p.acct, exchange.CategoryUSDTFutures)
			if err != nil {
				t.Fatal(err)
			}
			if len(pending.EntrustedList) != 0 || len(so) != tt.strategies {
				t.Fatalf("left %d pending orders and %d strategy orders %+v, want 0 and %d", len(pending.EntrustedList), len(so), so, tt.strategies)
			}
		})
	}
}

// TestProtectRequests shows what protect sends for the ways it is written:
// the hold side for the position mode, the whole position or a part, the
// trailing distance as a ratio of the activation price.
func TestProtectRequests(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		mode   exchange.PosMode
		side   exchange.Side
		action string
		want   []string // planType holdSide triggerPrice size rangeRate, per request
	}{
		{"one-way long, whole position", simtest.OneWayKey, exchange.OneWayMode, exchange.Buy,
			"protect: {symbol: BTCUSDT, position: long, take_profit: 60000, stop_loss: 45000}",
			[]string{"pos_profit buy 60000  ", "pos_loss buy 45000  "}},
		{"hedge long, part of it", simtest.HedgeKey, exchange.HedgeMode, exchange.Buy,
			"protect: {symbol: BTCUSDT, position: long, stop_loss: 45000, size: 0.005}",
			[]string{"loss_plan long 45000 0.005 "}},
		{"one-way short, trailing by distance", simtest.OneWayKey, exchange.OneWayMode, exchange.Sell,
			"protect: {symbol: BTCUSDT, position: short, trailing_distance: 500, activation_price: 50000, trigger: last}",
			[]string{"moving_plan sell 50000 0.01 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProtectRig(t, tt.key, tt.side)
			var got []string
			for _, l := range p.run(t, tt.action, tt.mode) {
				r := l.Request.(exchange.PlaceTPSLOrderRequest)
				got = append(got, string(r.PlanType)+" "+r.HoldSide+" "+string(r.TriggerPrice)+" "+string(r.Size)+" "+string(r.RangeRate))
				if want := map[bool]exchange.PlanTrigger{true: exchange.TriggerFillPrice, false: exchange.TriggerMarkPrice}[strings.Contains(tt.action, "trigger: last")]; r.TriggerType != want {
					t.Errorf("trigger type %s, want %s", r.TriggerType, want)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("requests\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
