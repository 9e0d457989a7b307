package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// ladderRules is the rule of the soak's double ladder: two resting buys
// far under the market whenever BTCUSDT has no order, with a 5 s cooldown.
// It reads the orders, so it must not fire on orders data older than its
// own last orders.
const ladderRules = `
rules:
  - name: ladder
    when: orders_count("BTCUSDT") == 0
    cooldown: 5s
    actions:
      - batch_place:
          symbol: BTCUSDT
          orders:
            - {open: long, type: limit, size: 0.001, price: 30000}
            - {open: long, type: limit, size: 0.001, price: 29990}
`

// errKilled is the panic of a run killed on the tick loop (SIGKILL, in
// process).
var errKilled = errors.New("killed")

// ladderRig is engine run, started again after every kill on one state
// directory, over the demo simulator on a virtual clock: the pollers, the
// engine (settling off the tick loop), the actions, the journal and the
// rule-state file, wired by Assemble as engine run wires them.
type ladderRig struct {
	t     *testing.T
	v     *clock.Virtual
	acct  *sim.Account
	rules string     // the rule directory
	state string     // the state directory
	run   *ladderRun // the run started last
}

// ladderRun is one engine process. Killing it stops it where it is, as
// SIGKILL would: its state directory refuses its writes from then on, and
// an order lookup it makes blocks until the test ends.
type ladderRun struct {
	asm    *assemble.Assembly
	ctx    context.Context
	cancel context.CancelFunc
	dead   atomic.Bool
	killed chan struct{} // closed when the run is killed
	// killAtSend kills the run at its first order request, before the
	// venue gets it: the intent and the rule state are on disk, no order
	// went out (the crash point state-saved of TICKRULES_CRASH_AT).
	killAtSend bool
	// killAtLookup is the order lookup by clientOid at which the run is
	// killed (0: never); lookups counts them.
	killAtLookup int32
	lookups      atomic.Int32
	// unclear makes the first batch of orders fail with an answer that says
	// nothing of its outcome, before the venue acted on it.
	unclear atomic.Bool
	batches atomic.Int32 // batch requests that reached the venue
}

func newLadderRig(t *testing.T) *ladderRig {
	t.Helper()
	sr := simtest.NewRig(t, simtest.RigOptions{After: 90 * time.Minute}) // 10:30 New York
	acct, ok := sr.Exchange.Account("demo-key")
	if !ok {
		t.Fatal("no demo account")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ladder.yaml"), []byte(ladderRules), 0o600); err != nil {
		t.Fatal(err)
	}
	return &ladderRig{t: t, v: sr.Virtual, acct: acct, rules: dir, state: t.TempDir()}
}

// kill stops the run where it is (see ladderRun).
func (r *ladderRun) kill() {
	if r.dead.CompareAndSwap(false, true) {
		close(r.killed)
	}
}

// start starts a run on the rig's state directory (see ladderRun for
// killAtSend and killAtLookup).
func (g *ladderRig) start(killAtSend bool, killAtLookup int32) *ladderRun {
	g.t.Helper()
	run := &ladderRun{killed: make(chan struct{}), killAtSend: killAtSend, killAtLookup: killAtLookup}
	run.ctx, run.cancel = context.WithCancel(context.Background())
	g.t.Cleanup(run.cancel) // ends the lookups of killed runs
	writes := engine.StateOptions{Fault: func(string) error {
		if run.dead.Load() {
			return errKilled
		}
		return nil
	}}
	store, err := engine.OpenStore(g.state, writes)
	if err != nil {
		g.t.Fatal(err)
	}
	journal, err := engine.OpenJournal(g.state, writes)
	if err != nil {
		g.t.Fatal(err)
	}
	venue := &ladderVenue{Venue: g.acct, run: run}
	run.asm, err = assemble.New(run.ctx, assemble.Options{Reader: g.acct, Catalog: g.acct, Accounts: g.acct, Trader: venue, Clock: g.v,
		RuleDirs: []string{g.rules}, Store: store, Journal: journal}, engine.Options{SettleOffLoop: true})
	if err != nil {
		g.t.Fatal(err)
	}
	g.run = run
	return run
}

// second is one second of engine run: the engine's tick, then the polls
// that are due (the two run apart, and here the tick comes first), then
// the clock moves on; the settling off the tick loop catches up before
// and after the clock moves, so every run takes the same course. It
// returns whether the rule fired on the tick.
func (g *ladderRig) second() bool {
	g.t.Helper()
	run := g.run
	fired := g.step(run)
	if !run.dead.Load() {
		_ = run.asm.Poller.PollDue(run.ctx)
	}
	g.catchUp(run)
	g.v.Advance(time.Second)
	g.catchUp(run)
	return fired
}

// step runs one tick of run; a kill on the tick loop ends the tick.
func (g *ladderRig) step(run *ladderRun) (fired bool) {
	if run.dead.Load() {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			if p != errKilled {
				panic(p)
			}
			fired = false
		}
	}()
	return len(run.asm.Engine.Step(run.ctx, g.v.Now())) > 0
}

// catchUp waits until every firing that run settles off the tick loop
// waits on the clock (its next lookup) or is done, or the run was killed.
func (g *ladderRig) catchUp(run *ladderRun) {
	g.t.Helper()
	for range 100 {
		n, changed := run.asm.Engine.Settling()
		if n == 0 || run.dead.Load() || g.v.Waiters() >= n {
			return
		}
		wake, stop := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(wake)
			select {
			case <-changed:
			case <-run.killed:
			case <-stop:
			}
		}()
		g.v.WaitForWaiters(n, wake)
		close(stop)
		<-wake
	}
	g.t.Fatal("the settling did not catch up with the clock")
}

// pending returns the client order ids of the BTCUSDT orders the venue holds.
func (g *ladderRig) pending() []string {
	g.t.Helper()
	p, err := g.acct.PendingOrders(context.Background(), exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT", Limit: 100})
	if err != nil {
		g.t.Fatal(err)
	}
	var out []string
	for _, o := range p.EntrustedList {
		out = append(out, o.ClientOID)
	}
	return out
}

// ladderVenue is the venue of one run: it kills the run at its first
// batch of orders or at its killAtLookup-th order lookup, and answers the
// first batch of orders unclearly, as the run says.
type ladderVenue struct {
	actions.Venue
	run *ladderRun
}

func (l *ladderVenue) OrderDetail(ctx context.Context, req exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	if n := l.run.lookups.Add(1); l.run.dead.Load() || n == l.run.killAtLookup {
		l.run.kill()
		<-ctx.Done()
		return exchange.OrderDetail{}, ctx.Err()
	}
	return l.Venue.OrderDetail(ctx, req)
}

func (l *ladderVenue) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	if l.run.killAtSend {
		l.run.kill()
		panic(errKilled)
	}
	if l.run.dead.Load() {
		return exchange.BatchPlaceOrderResult{}, errKilled
	}
	l.run.batches.Add(1)
	if l.run.unclear.CompareAndSwap(true, false) {
		return exchange.BatchPlaceOrderResult{}, &exchange.APIError{HTTPStatus: 502, Msg: "bad gateway"}
	}
	return l.Venue.BatchPlaceOrder(ctx, req)
}

// cancelLadder cancels the orders the venue holds for BTCUSDT, as a
// trader would by hand.
func (g *ladderRig) cancelLadder() {
	g.t.Helper()
	for _, oid := range g.pending() {
		if _, err := g.acct.CancelOrder(context.Background(), exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: oid}); err != nil {
			g.t.Fatal(err)
		}
	}
}

// saved returns the ladder's state in the rule-state file.
func (g *ladderRig) saved() engine.RuleState {
	g.t.Helper()
	s, err := engine.NewStore(g.state)
	if err != nil {
		g.t.Fatal(err)
	}
	states, err := s.Load()
	if err != nil {
		g.t.Fatal(err)
	}
	return states["ladder"]
}

// afterLateOrders checks what follows a ladder whose orders went out late,
// at sent: the next tick waits for orders data fetched after them, the
// rule does not fire again while the venue holds them, its state on disk
// says when they went out and, once the trader cancels them, the ladder
// is placed again only 5 s (its cooldown) after they went out. restart
// kills the engine first and starts it again, which must remember.
func afterLateOrders(t *testing.T, g *ladderRig, sent time.Time, restart bool) {
	t.Helper()
	if n := len(g.pending()); n != 2 {
		t.Fatalf("the venue holds %d orders, want the ladder's 2", n)
	}
	if g.second() {
		t.Fatalf("the rule fired again 1s after its late orders went out: %d orders at the venue", len(g.pending()))
	}
	if tr := g.run.asm.Engine.Traces("ladder"); tr[len(tr)-1].Reason != engine.ReasonBeforeOrders {
		t.Errorf("the tick after the orders went out: %+v, want %q", tr[len(tr)-1], engine.ReasonBeforeOrders)
	}
	if got := g.saved(); !got.OrdersAt.Equal(sent) || got.Firings != 1 {
		t.Fatalf("saved state %+v, want one firing whose orders went out at %s", got, sent)
	}
	for range 2 {
		if g.second() {
			t.Fatalf("the rule fired again %s after its late orders went out: %d orders at the venue", g.v.Now().Sub(sent), len(g.pending()))
		}
	}
	if restart {
		g.run.kill()
		g.start(false, 0)
	}
	g.cancelLadder()
	for i := 0; ; i++ {
		if i == 10 {
			t.Fatal("the rule did not place the ladder again within 10 s of the cancel")
		}
		at := g.v.Now()
		if g.second() {
			if want := sent.Add(5 * time.Second); !at.Equal(want) {
				t.Fatalf("the ladder was placed again at %s after its late orders, want at the end of its 5 s cooldown from them", at.Sub(sent))
			}
			break
		}
	}
	if n := len(g.pending()); n != 2 {
		t.Fatalf("after the second firing the venue holds %d orders, want 2", n)
	}
}

// TestNoDoubleLadderAfterRecovery is the soak's double ladder: a batch
// firing killed before its orders went out (state-saved) is recovered
// over four restarts, the first three killed during the 6 s of order
// lookups, and goes out about half a minute late. The rule must not fire
// again on the orders data polled before those orders went out, and its
// 5 s cooldown runs from when they went out, across a restart too.
func TestNoDoubleLadderAfterRecovery(t *testing.T) {
	g := newLadderRig(t)
	first := g.start(true, 0)
	_ = first.asm.Poller.PollDue(first.ctx)
	for i := 0; !first.dead.Load(); i++ {
		if i == 5 {
			t.Fatal("the first run did not fire and die at its first order request")
		}
		g.second()
	}
	fired := g.v.Now().Add(-time.Second)
	for restart := range 4 {
		killAt := int32(6) // the last of 2 orders x 3 lookups, 1 s apart
		if restart == 3 {
			killAt = 0
		}
		run := g.start(false, killAt)
		for i := 0; ; i++ {
			if i == 30 {
				t.Fatalf("restart %d: neither killed nor recovered in 30 s", restart+1)
			}
			if g.second() {
				t.Fatalf("restart %d: the rule fired again %s after its firing, before its orders went out", restart+1, g.v.Now().Sub(fired))
			}
			if run.dead.Load() || len(g.pending()) > 0 {
				break
			}
		}
	}
	sent := g.v.Now()
	if late := sent.Sub(fired); late < 20*time.Second {
		t.Fatalf("the orders went out %s after the firing; the test wants the soak's delay of more than 20 s", late)
	}
	t.Logf("the recovered orders went out %s after the firing", sent.Sub(fired))
	afterLateOrders(t, g, sent, true)
}

// TestNoDoubleLadderAfterUnclearAnswer: the ladder's batch gets an answer
// that says nothing of its outcome (a 502 before the venue acted), so it
// is settled off the tick loop while the engine goes on: 6 s of lookups by
// clientOid find neither order and the batch goes out again, past the
// rule's 5 s cooldown. The rule must not fire again on the orders data
// polled before the orders went out, and its cooldown runs from them.
func TestNoDoubleLadderAfterUnclearAnswer(t *testing.T) {
	g := newLadderRig(t)
	run := g.start(false, 0)
	run.unclear.Store(true)
	_ = run.asm.Poller.PollDue(run.ctx)
	if !g.second() {
		t.Fatal("the rule did not fire")
	}
	fired := g.v.Now().Add(-time.Second)
	for i := 0; len(g.pending()) == 0; i++ {
		if i == 30 {
			t.Fatal("the unclear batch was not settled in 30 s")
		}
		if g.second() {
			t.Fatalf("the rule fired again %s after its firing, while its orders were being settled", g.v.Now().Sub(fired))
		}
	}
	sent := g.v.Now()
	if late := sent.Sub(fired); late <= 5*time.Second {
		t.Fatalf("the orders went out %s after the firing, within the cooldown: the test shows nothing", late)
	}
	t.Logf("the settled orders went out %s after the firing", sent.Sub(fired))
	afterLateOrders(t, g, sent, false)
	if b := run.batches.Load(); b != 3 {
		t.Errorf("%d batch requests reached the venue, want 3: the unclear one, the one settling sent, the one after the cancel", b)
	}
}
