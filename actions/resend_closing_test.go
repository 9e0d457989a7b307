package actions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// closingVenue is a timeoutVenue whose first new order or reversal loses
// its answer too, whose order lookups fail lookupFails times (the venue
// is down while Settle looks the order up), which drops the creation time
// of positions (noCTime) or fails every positions read (readFails).
type closingVenue struct {
	*timeoutVenue
	lookupFails int
	noCTime     bool
	readFails   bool
}

func (v *closingVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (ack exchange.OrderAck, err error) {
	err = v.fault(exchange.OpPlaceOrder, func() (err error) { ack, err = v.Account.PlaceOrder(ctx, req); return err })
	return ack, err
}

func (v *closingVenue) ClickBackhand(ctx context.Context, req exchange.ClickBackhandRequest) (ack exchange.OrderAck, err error) {
	err = v.fault(exchange.OpClickBackhand, func() (err error) { ack, err = v.Account.ClickBackhand(ctx, req); return err })
	return ack, err
}

func (v *closingVenue) OrderDetail(ctx context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	v.mu.Lock()
	fail := v.lookupFails > 0
	v.lookupFails--
	v.mu.Unlock()
	if fail {
		return exchange.OrderDetail{}, errors.New("502 bad gateway")
	}
	return v.Account.OrderDetail(ctx, req)
}

func (v *closingVenue) AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error) {
	if v.readFails {
		return nil, errors.New("502 bad gateway")
	}
	ps, err := v.Account.AllPositions(ctx, req)
	if !v.noCTime {
		return ps, err
	}
	// A copy: the simulator may hand out the slice it keeps.
	ps = slices.Clone(ps)
	for i := range ps {
		ps[i].CTime = ""
	}
	return ps, err
}

// closeLong is the request of "close: long" of 0.01 BTCUSDT, as Map builds
// it for the account's mode: a reduce-only sell (one-way) or a buy with
// tradeSide close (hedge).
func closeLong(hedge bool) (exchange.Op, any) {
	req := simtest.Order("BTCUSDT", exchange.Sell, exchange.Market, "0.01", "")
	req.ClientOID, req.Mode, req.ReduceOnly = "tr-rule-1-0", exchange.OneWayMode, exchange.Yes
	if hedge {
		req.Side, req.TradeSide, req.Mode, req.ReduceOnly = exchange.Buy, exchange.Close, exchange.HedgeMode, ""
	}
	return exchange.OpPlaceOrder, req
}

// reverseLong is the click-backhand of the BTCUSDT long.
func reverseLong(hedge bool) (exchange.Op, any) {
	req := exchange.ClickBackhandRequest{Symbol: "BTCUSDT", MarginCoin: "USDT", ProductType: exchange.USDTFutures,
		Side: exchange.Buy, ClientOID: "tr-rule-1-0", Mode: exchange.OneWayMode}
	if hedge {
		req.TradeSide, req.Mode = exchange.Open, exchange.HedgeMode
	}
	return exchange.OpClickBackhand, req
}

// openLong opens a long of 0.01 BTCUSDT at market, as the rule's own
// opening order would.
func openLong(hedge bool) (exchange.Op, any) {
	req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Market, "0.01", "")
	req.ClientOID = "tr-rule-1-0"
	return exchange.OpPlaceOrder, req
}

// closeByHand closes every position of the account, as the trader would.
func closeByHand(t *testing.T, acct *sim.Account, _ bool) {
	t.Helper()
	if _, err := acct.ClosePositions(context.Background(), exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures}); err != nil {
		t.Fatal(err)
	}
}

// then runs each step in turn.
func then(steps ...func(*testing.T, *sim.Account, bool)) func(*testing.T, *sim.Account, bool) {
	return func(t *testing.T, acct *sim.Account, hedge bool) {
		for _, s := range steps {
			s(t, acct, hedge)
		}
	}
}

// TestSettleClosingOrderActsOnlyOnThePositionOfTheFiring settles a closing
// order (or a reversal) that the venue confirms absent, after a restart or
// an unclear answer while running, when the trader has closed or opened
// positions since the firing. It is sent again only if the position it
// closes existed at the firing; a position opened after the firing is left
// alone, with a warning naming it; a flat account means nothing to close.
func TestSettleClosingOrderActsOnlyOnThePositionOfTheFiring(t *testing.T) {
	const btc = "BTCUSDT"
	long := openPos(btc, exchange.Long)
	tests := []struct {
		name  string
		hedge bool
		plan  func(hedge bool) (exchange.Op, any)
		// before is what exists at the firing; after is the trader's doing
		// once the firing has happened and before the order is re-sent.
		before, after func(t *testing.T, acct *sim.Account, hedge bool)
		restart       bool // Settle from the journal of a crashed run
		lookupFails   int  // in session: lookups that fail before the venue answers
		noCTime       bool
		readFails     bool
		want          accountView
		wantOutcome   Outcome
		wantNote      string // in the note of the closing order's leg
		wantLeftAlone bool
		wantReached   int // requests of the plan's op that reached the venue
	}{
		{
			name: "restart, one-way: closed by hand and a new long opened; not sent, the new long stays",
			plan: closeLong, before: long, after: then(closeByHand, long), restart: true,
			want: accountView{positions: map[string]bool{"long": false}}, wantOutcome: OK, wantNote: "left alone, created after the firing", wantLeftAlone: true,
		},
		{
			name: "restart, one-way: the long of the firing still open; sent once, it closes",
			plan: closeLong, before: long, restart: true,
			want: accountView{}, wantOutcome: OK, wantReached: 1,
		},
		{
			name: "restart, one-way: flat, closed by hand; done, nothing sent",
			plan: closeLong, before: long, after: closeByHand, restart: true,
			want: accountView{}, wantOutcome: OK, wantNote: "nothing to close",
		},
		{
			name:  "restart, hedge: a new short on the other side; the long of the firing is closed, the short stays",
			hedge: true, plan: closeLong, before: long, after: openPos(btc, exchange.Short), restart: true,
			want: accountView{positions: map[string]bool{"short": false}}, wantOutcome: OK, wantReached: 1,
		},
		{
			name:  "restart, hedge: the long closed by hand and a new long opened; not sent, the new long stays",
			hedge: true, plan: closeLong, before: long, after: then(closeByHand, long), restart: true,
			want: accountView{positions: map[string]bool{"long": false}}, wantOutcome: OK, wantNote: "left alone, created after the firing", wantLeftAlone: true,
		},
		{
			name:  "restart, hedge: only a short of the firing, the long closed; nothing to close, the short stays",
			hedge: true, plan: closeLong, before: then(long, openPos(btc, exchange.Short)), after: closeLongByHand, restart: true,
			want: accountView{positions: map[string]bool{"short": true}}, wantOutcome: OK, wantNote: "nothing to close",
		},
		{
			name: "in session: answer lost, lookups failing while the trader closes and opens a new long; not sent again",
			plan: closeLong, before: long, after: then(closeByHand, long), lookupFails: 6,
			want: accountView{positions: map[string]bool{"long": false}}, wantOutcome: OK, wantNote: "left alone, created after the firing", wantLeftAlone: true,
		},
		{
			name: "in session: answer lost, lookups failing; the long of the firing still open, sent again once",
			plan: closeLong, before: long, lookupFails: 6,
			want: accountView{}, wantOutcome: OK, wantReached: 1,
		},
		{
			name: "restart, one-way reversal: closed by hand and a new long opened; not reversed",
			plan: reverseLong, before: long, after: then(closeByHand, long), restart: true,
			want: accountView{positions: map[string]bool{"long": false}}, wantOutcome: OK, wantNote: "left alone, created after the firing", wantLeftAlone: true,
		},
		{
			name:  "restart, hedge reversal: the long of the firing still open; reversed once",
			hedge: true, plan: reverseLong, before: long, restart: true,
			want: accountView{positions: map[string]bool{"short": false}}, wantOutcome: OK, wantReached: 1,
		},
		{
			name: "restart: the venue gives no creation time; not sent, error",
			plan: closeLong, before: long, after: then(closeByHand, long), restart: true, noCTime: true,
			want: accountView{positions: map[string]bool{"long": false}}, wantOutcome: Failed,
		},
		{
			name: "restart: the positions cannot be read; not sent, error",
			plan: closeLong, before: long, after: then(closeByHand, long), restart: true, readFails: true,
			want: accountView{positions: map[string]bool{"long": false}}, wantOutcome: Failed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig, acct, at := beforeFiring(t, tt.hedge, tt.before)
			ctx := context.Background()

			// A restart finds the order never sent (the crash came first):
			// the venue answers every request. In session, the first
			// request never arrives and its answer is a timeout.
			fv := &closingVenue{timeoutVenue: &timeoutVenue{Account: acct, lose: true, faulted: tt.restart, reached: map[exchange.Op]int{}},
				lookupFails: tt.lookupFails, noCTime: tt.noCTime, readFails: tt.readFails}
			core, logs := observer.New(zapcore.WarnLevel)
			d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: rig.Virtual, Defer: true, Logger: zap.New(core)})
			x := NewExecutor(ExecutorOptions{Dispatcher: d, Logger: zap.New(core)})
			op, req := tt.plan(tt.hedge)
			p := testPlan("place_order", op, req, btc, exchange.USDTFutures, []OrderCheck{{Symbol: btc, Reducing: true}}, "tr-rule-1-0")
			p.At = at

			var prior []Leg
			if !tt.restart {
				prior = x.Send(ctx, p)
				if len(prior) != 1 || prior[0].Outcome != Unsettled {
					t.Fatalf("Send: %+v, want one Unsettled leg", prior)
				}
			}
			rig.Virtual.Advance(3 * time.Minute) // within RecoverWithin
			if tt.after != nil {
				tt.after(t, acct, tt.hedge)
			}
			var legs []Leg
			drive(t, rig.Virtual, func() { legs = x.Settle(ctx, p, prior) })

			if len(legs) == 0 {
				t.Fatal("Settle returned no legs")
			}
			last := legs[len(legs)-1]
			if last.Outcome != tt.wantOutcome || !strings.Contains(last.Note, tt.wantNote) {
				t.Errorf("legs %+v, want the last %s with a note %q", legs, tt.wantOutcome, tt.wantNote)
			}
			if tt.wantOutcome == Failed && logs.FilterMessage("action failed").FilterField(zap.Strings("clientOid", []string{"tr-rule-1-0"})).Len() == 0 {
				t.Errorf("no error log naming the order: %v", logs.All())
			}
			if got := worldOf(t, acct, at); fmt.Sprint(got.positions) != fmt.Sprint(tt.want.positions) {
				t.Errorf("after Settle: positions %v (true: existed at the firing); want %v", got.positions, tt.want.positions)
			}
			warned := logs.FilterMessageSnippet("left alone: created after the firing").Len()
			if (warned > 0) != tt.wantLeftAlone {
				t.Errorf("%d left-alone warnings, want some: %v", warned, tt.wantLeftAlone)
			}
			if n := fv.sent(op); n != tt.wantReached {
				t.Errorf("%d %s requests reached the venue, want %d", n, op, tt.wantReached)
			}
		})
	}
}

// closeLongByHand closes the long of BTCUSDT only.
func closeLongByHand(t *testing.T, acct *sim.Account, _ bool) {
	t.Helper()
	req := exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT", HoldSide: exchange.Long}
	if _, err := acct.ClosePositions(context.Background(), req); err != nil {
		t.Fatal(err)
	}
}

// TestSettleOpeningOrderIsSentAgain keeps opening orders as they were: one
// confirmed absent after a restart is sent once, whatever positions were
// opened since, and no positions are read for it.
func TestSettleOpeningOrderIsSentAgain(t *testing.T) {
	rig := simtest.NewRig(t, simtest.RigOptions{})
	acct := rig.Account(t, "demo-key")
	ctx := context.Background()
	at := rig.Virtual.Now()
	rig.Virtual.Advance(time.Minute)
	openPos("BTCUSDT", exchange.Long)(t, acct, false) // opened by hand after the firing
	fv := &closingVenue{timeoutVenue: &timeoutVenue{Account: acct, faulted: true, reached: map[exchange.Op]int{}}, readFails: true}
	d := NewDispatcher(DispatcherOptions{Venue: fv, Clock: rig.Virtual, Defer: true, Logger: zap.NewNop()})
	x := NewExecutor(ExecutorOptions{Dispatcher: d, Logger: zap.NewNop()})
	op, req := openLong(false)
	p := testPlan("place_order", op, req, "BTCUSDT", exchange.USDTFutures, []OrderCheck{{Symbol: "BTCUSDT"}}, "tr-rule-1-0")
	p.At = at
	var legs []Leg
	drive(t, rig.Virtual, func() { legs = x.Settle(ctx, p, nil) })
	if len(legs) != 1 || legs[0].Outcome != OK || fv.sent(op) != 1 {
		t.Fatalf("legs %+v, %d sent; want one ok leg, one order sent", legs, fv.sent(op))
	}
}
