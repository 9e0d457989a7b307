package actions

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// timeoutVenue is a simulator account whose first cancel or close loses its
// answer to a timeout: applied at the venue, or (lose) never arrived. It
// counts the cancels and closes that reach the venue.
type timeoutVenue struct {
	*sim.Account
	lose bool

	mu      sync.Mutex
	faulted bool
	reached map[exchange.Op]int
}

// fault runs apply as the venue would, unless this is the first request
// and it is lost; the first request's answer is a timeout.
func (v *timeoutVenue) fault(op exchange.Op, apply func() error) error {
	v.mu.Lock()
	first := !v.faulted
	v.faulted = true
	if !first || !v.lose {
		v.reached[op]++
	}
	v.mu.Unlock()
	if first && v.lose {
		return fmt.Errorf("%s: %w", op, context.DeadlineExceeded)
	}
	err := apply()
	if first {
		return fmt.Errorf("%s: %w", op, context.DeadlineExceeded)
	}
	return err
}

func (v *timeoutVenue) ClosePositions(ctx context.Context, req exchange.ClosePositionsRequest) (res exchange.ClosePositionsResult, err error) {
	err = v.fault(exchange.OpClosePositions, func() (err error) { res, err = v.Account.ClosePositions(ctx, req); return err })
	return res, err
}

func (v *timeoutVenue) CancelAllOrders(ctx context.Context, req exchange.CancelAllOrdersRequest) (res exchange.BatchResult, err error) {
	err = v.fault(exchange.OpCancelAllOrders, func() (err error) { res, err = v.Account.CancelAllOrders(ctx, req); return err })
	return res, err
}

func (v *timeoutVenue) BatchCancelOrders(ctx context.Context, req exchange.BatchCancelOrdersRequest) (res exchange.BatchResult, err error) {
	err = v.fault(exchange.OpBatchCancelOrders, func() (err error) { res, err = v.Account.BatchCancelOrders(ctx, req); return err })
	return res, err
}

func (v *timeoutVenue) CancelOrder(ctx context.Context, req exchange.CancelOrderRequest) (ack exchange.OrderAck, err error) {
	err = v.fault(exchange.OpCancelOrder, func() (err error) { ack, err = v.Account.CancelOrder(ctx, req); return err })
	return ack, err
}

func (v *timeoutVenue) sent(op exchange.Op) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.reached[op]
}

// TestSettleCancelOrCloseTouchesOnlyWhatExistedAtTheFiring settles a close
// or cancel in doubt, after an unclear answer (in session) or from the
// journal of a crashed run (restart), while the trader opens a position or
// places an order by hand after the firing. What existed at the firing is
// closed or cancelled; what came after is left alone, with a warning.
func TestSettleCancelOrCloseTouchesOnlyWhatExistedAtTheFiring(t *testing.T) {
	const btc = "BTCUSDT"
	tests := []struct {
		name  string
		hedge bool
		plan  func() (exchange.Op, any)
		// before sets up what exists at the firing; after is the trader's
		// doing once the firing has happened.
		before, after func(t *testing.T, acct *sim.Account, hedge bool)
		restart       bool // Settle from the journal: no answer was recorded
		sentBefore    bool // restart: the request had reached the venue before the crash
		lose          bool // in session: the first request never arrived
		want          accountView
		wantLeftAlone bool // a warning names what was left alone
		wantReached   int  // requests of the plan's op that reached the venue, -1: not checked
	}{
		{
			name: "in session: close applied, answer lost; the trader's new position stays",
			plan: closeAll(btc, ""), before: openPos(btc, exchange.Long), after: openPos(btc, exchange.Long),
			want: accountView{positions: map[string]bool{"long": false}}, wantLeftAlone: true, wantReached: 1,
		},
		{
			name: "in session: close lost; the position of the firing is closed",
			plan: closeAll(btc, ""), before: openPos(btc, exchange.Long), lose: true,
			want: accountView{}, wantReached: 1,
		},
		{
			name: "restart: the close went through before the crash; the trader's new position stays",
			plan: closeAll(btc, ""), before: openPos(btc, exchange.Long), after: openPos(btc, exchange.Long),
			restart: true, sentBefore: true,
			want: accountView{positions: map[string]bool{"long": false}}, wantLeftAlone: true, wantReached: 1,
		},
		{
			name: "restart: already flat, nothing is sent",
			plan: closeAll(btc, ""), before: openPos(btc, exchange.Long), restart: true, sentBefore: true,
			want: accountView{}, wantReached: 1,
		},
		{
			name:  "restart, hedge: the close never left; the long of the firing is closed, the trader's new short stays",
			hedge: true, plan: closeAll(btc, ""), before: openPos(btc, exchange.Long), after: openPos(btc, exchange.Short),
			restart: true,
			want:    accountView{positions: map[string]bool{"short": false}}, wantLeftAlone: true, wantReached: -1,
		},
		{
			name: "in session: cancel-all applied, answer lost; the order placed after stays",
			plan: cancelAll, before: restOrder(btc, "old-bid"), after: restOrder(btc, "new-bid"),
			want: accountView{orders: map[string]bool{"new-bid": false}}, wantLeftAlone: true, wantReached: 1,
		},
		{
			name: "restart: cancel-all never left; the old order is cancelled by id, the new one stays",
			plan: cancelAll, before: restOrder(btc, "old-bid"), after: restOrder(btc, "new-bid"),
			restart: true,
			want:    accountView{orders: map[string]bool{"new-bid": false}}, wantLeftAlone: true, wantReached: 0,
		},
		{
			name: "restart: batch cancel of a symbol went through; the order placed after stays",
			plan: cancelSymbol(btc), before: restOrder(btc, "old-bid"), after: restOrder(btc, "new-bid"),
			restart: true, sentBefore: true,
			want: accountView{orders: map[string]bool{"new-bid": false}}, wantLeftAlone: true, wantReached: 1,
		},
		{
			name: "restart: the cancel went through before the crash; the order is gone, nothing is sent again",
			plan: cancelByClientOID(btc, "old-bid"), before: restOrder(btc, "old-bid"),
			restart: true, sentBefore: true,
			want: accountView{}, wantReached: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig, acct, at := beforeFiring(t, tt.hedge, tt.before)
			ctx := context.Background()

			fv := &timeoutVenue{Account: acct, lose: tt.lose, reached: map[exchange.Op]int{}}
			core, logs := observer.New(zapcore.WarnLevel)
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: rig.Virtual, Defer: true, Logger: zap.New(core)})
			x := NewExecutor(ExecutorOptions{Dispatcher: d, Logger: zap.New(core)})
			op, req := tt.plan()
			p := testPlan("rule-action", op, req, "", exchange.USDTFutures, nil)
			p.At = at

			var prior []Leg
			switch {
			case !tt.restart:
				prior = x.Send(ctx, p)
				if len(prior) != 1 || prior[0].Outcome != Unsettled {
					t.Fatalf("Send: %+v, want one Unsettled leg", prior)
				}
			case tt.sentBefore:
				// The crashed run's request reached the venue; its answer was lost with the run.
				sendPlan(ctx, NewDispatcher(DispatcherOptions{Venue: acct, Clock: rig.Virtual}), p)
				fv.reached[op]++
			}
			rig.Virtual.Advance(30 * time.Second)
			if tt.after != nil {
				tt.after(t, acct, tt.hedge)
			}
			var legs []Leg
			drive(t, rig.Virtual, func() { legs = x.Settle(ctx, p, prior) })

			for _, l := range legs {
				if l.Outcome != OK {
					t.Errorf("leg %+v, want ok", l)
				}
			}
			if got := worldOf(t, acct, at); fmt.Sprint(got.positions, got.orders) != fmt.Sprint(tt.want.positions, tt.want.orders) {
				t.Errorf("after Settle: positions %v, orders %v (true: existed at the firing); want %v, %v",
					got.positions, got.orders, tt.want.positions, tt.want.orders)
			}
			warned := logs.FilterMessageSnippet("left alone: created after the firing").Len()
			if (warned > 0) != tt.wantLeftAlone {
				t.Errorf("%d left-alone warnings, want some: %v", warned, tt.wantLeftAlone)
			}
			if n := fv.sent(op); tt.wantReached >= 0 && n != tt.wantReached {
				t.Errorf("%d %s requests reached the venue, want %d", n, op, tt.wantReached)
			}
		})
	}
}

// beforeFiring builds a simulator with the demo's one-way account (hedge:
// its hedge account), lets before set it up and moves the clock on a
// minute to the firing's tick, whose time it returns.
func beforeFiring(t *testing.T, hedge bool, before func(t *testing.T, acct *sim.Account, hedge bool)) (*simtest.Rig, *sim.Account, time.Time) {
	t.Helper()
	rig := simtest.NewRig(t, simtest.RigOptions{})
	key := "demo-key"
	if hedge {
		key = "demo-hedge-key"
	}
	acct := rig.Account(t, key)
	before(t, acct, hedge)
	rig.Virtual.Advance(time.Minute)
	return rig, acct, rig.Virtual.Now()
}

func closeAll(symbol string, side exchange.HoldSide) func() (exchange.Op, any) {
	return func() (exchange.Op, any) {
		return exchange.OpClosePositions, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: symbol, HoldSide: side}
	}
}

func cancelAll() (exchange.Op, any) {
	return exchange.OpCancelAllOrders, exchange.CancelAllOrdersRequest{ProductType: exchange.USDTFutures}
}

func cancelSymbol(symbol string) func() (exchange.Op, any) {
	return func() (exchange.Op, any) {
		return exchange.OpBatchCancelOrders, exchange.BatchCancelOrdersRequest{ProductType: exchange.USDTFutures, Symbol: symbol}
	}
}

func cancelByClientOID(symbol, oid string) func() (exchange.Op, any) {
	return func() (exchange.Op, any) {
		return exchange.OpCancelOrder, exchange.CancelOrderRequest{ProductType: exchange.USDTFutures, Symbol: symbol, ClientOID: oid}
	}
}

// openPos opens a position at market, as the trader would by hand.
func openPos(symbol string, side exchange.HoldSide) func(t *testing.T, acct *sim.Account, hedge bool) {
	return func(t *testing.T, acct *sim.Account, hedge bool) {
		t.Helper()
		req := simtest.Order(symbol, exchange.Buy, exchange.Market, "0.01", "")
		if side == exchange.Short {
			req.Side = exchange.Sell
		}
		place(t, acct, hedge, req)
	}
}

// restOrder places a limit bid far below the market, which rests.
func restOrder(symbol, oid string) func(t *testing.T, acct *sim.Account, hedge bool) {
	return func(t *testing.T, acct *sim.Account, hedge bool) {
		t.Helper()
		req := simtest.Order(symbol, exchange.Buy, exchange.Limit, "0.01", "30000")
		req.ClientOID = oid
		place(t, acct, hedge, req)
	}
}

func place(t *testing.T, acct *sim.Account, hedge bool, req exchange.PlaceOrderRequest) {
	t.Helper()
	req.Mode = exchange.OneWayMode
	if hedge {
		req.Mode, req.TradeSide = exchange.HedgeMode, exchange.Open
	}
	if _, err := acct.PlaceOrder(context.Background(), req); err != nil {
		t.Fatal(err)
	}
}

// accountView is what an account holds, each item marked whether it
// existed at the firing.
type accountView struct {
	positions map[string]bool // holdSide -> existed at the firing
	orders    map[string]bool // clientOid -> existed at the firing
}

// worldOf reads the open positions and pending orders of the account.
func worldOf(t *testing.T, acct *sim.Account, at time.Time) (w accountView) {
	t.Helper()
	ctx := context.Background()
	ps, err := acct.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if w.positions == nil {
			w.positions = map[string]bool{}
		}
		w.positions[string(p.HoldSide)] = p.CTime.Int() <= at.UnixMilli()
	}
	page, err := acct.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures, Limit: exchange.MaxPageLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range page.EntrustedList {
		if w.orders == nil {
			w.orders = map[string]bool{}
		}
		w.orders[o.ClientOID] = o.CTime.Int() <= at.UnixMilli()
	}
	return w
}

func (v *timeoutVenue) ModifyOrder(ctx context.Context, req exchange.ModifyOrderRequest) (ack exchange.OrderAck, err error) {
	err = v.fault(exchange.OpModifyOrder, func() (err error) { ack, err = v.Account.ModifyOrder(ctx, req); return err })
	return ack, err
}

// TestSettleFailsClosed settles, after a restart, requests that cannot be
// narrowed to what existed at the firing, or a preset-only modify whose
// order changed after it: they are not sent, and the leg fails with an
// error log saying what was left undone.
func TestSettleFailsClosed(t *testing.T) {
	const btc = "BTCUSDT"
	// The rule names the bid by its order id (filled in by withID), which a
	// preset-only modify keeps; its clientOid becomes the newClientOid.
	modifySL := func(sl string) exchange.ModifyOrderRequest {
		return exchange.ModifyOrderRequest{Symbol: btc, ProductType: exchange.USDTFutures, OrderID: "bid-id", NewClientOID: "bid-2", NewPresetStopLossPrice: exchange.Num(sl)}
	}
	tests := []struct {
		name    string
		op      exchange.Op
		req     any
		noAt    bool   // recorded without the firing's time
		byHand  string // the trader sets this stop-loss after the firing
		wantSL  string // the order's stop-loss at the end
		want    Outcome
		errLike string
		reached int // modify or close requests that reached the venue
	}{
		{name: "close recorded without the firing's time: not sent", op: exchange.OpClosePositions, noAt: true,
			req: exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: btc}, want: Failed, errLike: "firing's time is not recorded"},
		{name: "preset-only modify, stop-loss changed by hand after the firing: not sent", op: exchange.OpModifyOrder, req: modifySL("29000"),
			byHand: "28000", wantSL: "28000", want: Failed, errLike: "a re-send could overwrite a change made by hand"},
		{name: "preset-only modify, order untouched since the firing: sent", op: exchange.OpModifyOrder, req: modifySL("29000"),
			wantSL: "29000", want: OK, reached: 1},
		{name: "preset-only modify, stop-loss already as asked: not sent again", op: exchange.OpModifyOrder, req: modifySL("28000"),
			byHand: "28000", wantSL: "28000", want: OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := simtest.NewRig(t, simtest.RigOptions{})
			acct := rig.Account(t, "demo-key")
			ctx := context.Background()
			openPos(btc, exchange.Long)(t, acct, false)
			restOrder(btc, "bid")(t, acct, false)
			bid, err := acct.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: btc, ProductType: exchange.USDTFutures, ClientOID: "bid"})
			if err != nil {
				t.Fatal(err)
			}
			withID := func(req any) any {
				if m, ok := req.(exchange.ModifyOrderRequest); ok {
					m.OrderID = bid.OrderID
					return m
				}
				return req
			}
			rig.Virtual.Advance(time.Minute)
			p := testPlan("rule-action", tt.op, withID(tt.req), btc, exchange.USDTFutures, nil)
			if !tt.noAt {
				p.At = rig.Virtual.Now()
			}
			rig.Virtual.Advance(30 * time.Second)
			if tt.byHand != "" {
				req := withID(modifySL(tt.byHand)).(exchange.ModifyOrderRequest)
				req.NewClientOID = "by-hand"
				if _, err := acct.ModifyOrder(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
			fv := &timeoutVenue{Account: acct, reached: map[exchange.Op]int{}}
			core, logs := observer.New(zapcore.ErrorLevel)
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: rig.Virtual, Defer: true, Logger: zap.New(core)})
			x := NewExecutor(ExecutorOptions{Dispatcher: d, Logger: zap.New(core)})
			var legs []Leg
			drive(t, rig.Virtual, func() { legs = x.Settle(ctx, p, nil) })

			last := legs[len(legs)-1]
			if last.Outcome != tt.want || !strings.Contains(last.Error, tt.errLike) {
				t.Fatalf("legs %+v, want the last %s (%q)", legs, tt.want, tt.errLike)
			}
			if tt.want == Failed && logs.FilterMessage("action failed").Len() == 0 {
				t.Errorf("no error log for what was left undone: %v", logs.All())
			}
			if n := fv.sent(tt.op); n != tt.reached {
				t.Errorf("%d %s requests reached the venue, want %d", n, tt.op, tt.reached)
			}
			if tt.wantSL != "" {
				o, err := acct.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: btc, ProductType: exchange.USDTFutures, OrderID: bid.OrderID})
				if err != nil {
					t.Fatal(err)
				}
				if sl, _ := o.PresetStopLossPrice.Decimal(); sl.String() != tt.wantSL {
					t.Errorf("stop-loss %s, want %s", o.PresetStopLossPrice, tt.wantSL)
				}
			}
		})
	}
}
