package assemble

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// switchRig is engine sim over HTTP on loopback, on a virtual clock, whose
// account's position mode the test switches as a trader does in the
// venue's app (sim.Account.SetPositionMode: refused while positions or
// orders are open). It counts the requests of every operation.
type switchRig struct {
	rig *simtest.Rig
	key string

	mu    sync.Mutex
	count map[string]int // "op productType" -> requests
}

func newSwitchRig(t *testing.T, key string) *switchRig {
	t.Helper()
	s := &switchRig{key: key, count: map[string]int{}}
	s.rig = simtest.NewRig(t, simtest.RigOptions{After: 90 * time.Minute, HTTP: true, Server: server.Options{DisableRateLimits: true},
		Front: func(_ *simtest.Rig, served http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if info, ok := exchange.OpForPath(r.Method, r.URL.Path); ok {
					s.mu.Lock()
					s.count[string(info.Op)+" "+r.URL.Query().Get("productType")]++
					s.mu.Unlock()
				}
				served.ServeHTTP(w, r)
			})
		}})
	return s
}

// requests is how many requests of op (and productType, for a GET that
// names one; "" for a POST) the venue got.
func (s *switchRig) requests(op exchange.Op, pt exchange.ProductType) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[string(op)+" "+string(pt)]
}

// setMode switches the account's mode of USDT-FUTURES in the venue.
func (s *switchRig) setMode(t *testing.T, m exchange.PosMode) {
	t.Helper()
	_, err := s.rig.Account(t, s.key).SetPositionMode(context.Background(),
		exchange.SetPositionModeRequest{ProductType: exchange.USDTFutures, PosMode: m})
	if err != nil {
		t.Fatalf("switch to %s: %v", m, err)
	}
}

func (s *switchRig) assemble(t *testing.T, body string, log *zap.Logger, eng engine.Options) *Assembly {
	t.Helper()
	c := s.rig.Client(t, s.key, exchange.ClientOptions{Retry: exchange.RetryPolicy{MaxAttempts: 1}})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), Options{Reader: c, Catalog: c, Accounts: c, Trader: c, Pricer: c, Clock: s.rig.Virtual,
		Logger: log, RuleDirs: []string{dir}}, eng)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return a
}

// step polls what is due and runs one tick, a second after the last; a
// tick that waits on the clock (an order's outcome) is woken by moving the
// clock, a bounded number of times.
func (s *switchRig) step(t *testing.T, a *Assembly) {
	t.Helper()
	v := s.rig.Virtual
	ctx := context.Background()
	_ = a.Poller.PollDue(ctx)
	base := v.Waiters() // timers set before the tick (none, or a finished loop's)
	done := make(chan struct{})
	at := v.Now()
	go func() {
		defer close(done)
		a.Engine.Step(ctx, at)
	}()
	for i := 0; v.WaitForWaiters(base+1, done); i++ {
		if i == 30 {
			t.Fatal("a tick waited on the clock more than 30 times")
		}
		v.Advance(time.Second)
	}
	v.Set(at.Add(time.Second))
}

// TestModeSwitchedInVenueOrderRefusedReadsItAgain switches the account's
// mode in the venue after the engine read it: the first order, built for
// the old mode, is refused with the venue's code and stays failed (it is
// not sent again); the refusal makes the engine read the mode at once and
// warn once; the next firing's order is built for the new mode and fills.
func TestModeSwitchedInVenueOrderRefusedReadsItAgain(t *testing.T) {
	tests := []struct {
		key      string
		from, to exchange.PosMode
		code     string // the venue's refusal of the order built for from
	}{
		{"demo-key", exchange.OneWayMode, exchange.HedgeMode, exchange.CodeParamEmpty},            // no tradeSide in hedge mode
		{"demo-hedge-key", exchange.HedgeMode, exchange.OneWayMode, exchange.CodeTradeSideOneWay}, // tradeSide in one-way mode
	}
	for _, tt := range tests {
		t.Run(string(tt.from)+" to "+string(tt.to), func(t *testing.T) {
			s := newSwitchRig(t, tt.key)
			core, logs := observer.New(zapcore.InfoLevel)
			var legs []string
			a := s.assemble(t, buyRule, zap.New(core), engine.Options{OnFiring: func(fr *engine.Firing) {
				for _, l := range fr.Legs {
					legs = append(legs, string(l.Outcome)+" "+l.Error)
				}
			}})
			if a.Modes[exchange.USDTFutures] != tt.from {
				t.Fatalf("mode at start %q, want %s", a.Modes[exchange.USDTFutures], tt.from)
			}
			reads := s.requests(exchange.OpSingleAccount, exchange.USDTFutures)
			s.setMode(t, tt.to)

			s.step(t, a)
			if len(legs) != 1 || !strings.HasPrefix(legs[0], string(actions.Failed)) || !strings.Contains(legs[0], tt.code) {
				t.Fatalf("first firing %q, want one failed leg with %s", legs, tt.code)
			}
			if got := s.requests(exchange.OpSingleAccount, exchange.USDTFutures) - reads; got != 1 {
				t.Errorf("the mode was read %d times after the refusal, want once", got)
			}
			want := "position mode of USDT-FUTURES changed from " + string(tt.from) + " to " + string(tt.to) + " in the venue; orders are built for the new mode from now on"
			if w := logs.FilterLevelExact(zapcore.WarnLevel).All(); len(w) != 1 || w[0].Message != want {
				t.Fatalf("warnings %+v, want one: %q", w, want)
			}

			for i := 0; i < 10 && len(legs) < 2; i++ {
				s.step(t, a)
			}
			if len(legs) != 2 || !strings.HasPrefix(legs[1], string(actions.OK)) {
				t.Fatalf("firings %q, want the second one ok", legs)
			}
			if got := s.requests(exchange.OpPlaceOrder, ""); got != 2 {
				t.Errorf("%d place-order requests, want 2: the refused order must not be sent again", got)
			}
			pos, err := s.rig.Account(t, tt.key).AllPositions(context.Background(), exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
			if err != nil || len(pos) != 1 || pos[0].HoldSide != exchange.Long || pos[0].PosMode != tt.to {
				t.Errorf("positions %+v (%v), want one long in %s", pos, err, tt.to)
			}
		})
	}
}

// TestModeSwitchedInVenueSeenWithoutOrder switches the mode in the venue
// while no order is sent: the engine reads it again within poll.ModeEvery,
// warns once, and position_mode() in the rules follows, although the
// accounts answer the State is built from did not change.
func TestModeSwitchedInVenueSeenWithoutOrder(t *testing.T) {
	s := newSwitchRig(t, "demo-key")
	core, logs := observer.New(zapcore.InfoLevel)
	var fired []string
	a := s.assemble(t, `
rules:
  - name: hedge-seen
    when: position_mode("USDT-FUTURES") == "hedge_mode"
    once: per_day
    actions:
      - log: {message: hedge}
`, zap.New(core), engine.Options{OnFiring: func(fr *engine.Firing) { fired = append(fired, fr.Rule.Name) }})
	for range 2 {
		s.step(t, a)
	}
	s.setMode(t, exchange.HedgeMode)
	s.step(t, a)
	if len(fired) != 0 {
		t.Fatalf("fired %v before the engine read the mode again", fired)
	}

	v := s.rig.Virtual
	ctx, cancel := context.WithCancel(context.Background())
	base := v.Waiters()
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.modes.run(ctx)
	}()
	v.WaitForWaiters(base+1, nil)
	v.Advance(poll.ModeEvery)
	v.WaitForWaiters(base+1, nil) // read, and waiting for the next turn
	cancel()
	<-done
	if m := a.PositionModes()[exchange.USDTFutures]; m != exchange.HedgeMode {
		t.Fatalf("mode after %s: %q, want hedge_mode", poll.ModeEvery, m)
	}
	if w := logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("changed from one_way_mode to hedge_mode").All(); len(w) != 1 {
		t.Errorf("%d warnings of the change, want 1", len(w))
	}
	s.step(t, a)
	if strings.Join(fired, ",") != "hedge-seen" {
		t.Errorf("fired %v after the mode was read again, want hedge-seen: position_mode() did not follow", fired)
	}
}

// fakeModes answers the accounts list with mode and counts the requests.
type fakeModes struct {
	mode  exchange.PosMode
	reads int
}

func (f *fakeModes) Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error) {
	f.reads++
	return []exchange.Account{{MarginCoin: "USDT", PosMode: f.mode}}, nil
}

// TestModeRefusedReadsOnlyForModeCodes shows which refusals make the book
// read the mode again, and that refusals in a row read it once per
// modeRecheckGap.
func TestModeRefusedReadsOnlyForModeCodes(t *testing.T) {
	usdt := exchange.USDTFutures
	s := newSwitchRig(t, "demo-key") // for its virtual clock
	v := s.rig.Virtual
	r := &fakeModes{mode: exchange.OneWayMode}
	b := newModeBook(map[exchange.ProductType]exchange.PosMode{usdt: exchange.OneWayMode}, nil, r, v, zap.NewNop())
	ctx := context.Background()
	steps := []struct {
		code  string
		sent  bool // a tradeSide was sent
		after time.Duration
		reads int // reads so far
	}{
		{exchange.CodeBalanceNotEnough, false, 0, 0},
		{exchange.CodeParamVerify, false, 0, 0},
		{exchange.CodeParamEmpty, true, 0, 0}, // hedge-mode order: the tradeSide was there
		{exchange.CodeParamEmpty, false, 0, 1},
		{exchange.CodeTradeSideOneWay, true, time.Second, 1}, // within modeRecheckGap
		{exchange.CodeTradeSideOneWay, true, modeRecheckGap, 2},
		{exchange.CodeParamCheck, false, modeRecheckGap, 3},
	}
	for i, st := range steps {
		v.Advance(st.after)
		b.refused(ctx, usdt, st.code, st.sent)
		if r.reads != st.reads {
			t.Fatalf("step %d (%s, tradeSide sent %v): %d reads, want %d", i, st.code, st.sent, r.reads, st.reads)
		}
	}
}
