package assemble

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/poll/polltest"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// heldRules are a futures rule and a rule that reads TSLA's stock book.
const heldRules = `
rules:
  - name: btc-buy
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
  - name: tsla-spread
    when: stock("TSLA").spread_bps < 1000 && position("TSLAUSDT", "long").size == 0
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}
`

// failingVenue serves engine sim over HTTP on loopback, answering fail for
// the path of op while broken is set: the venue refusing a part to the key
// or being down for it.
type failingVenue struct {
	srv    *httptest.Server
	v      *clock.Virtual
	broken atomic.Bool
}

func newFailingVenue(t *testing.T, op exchange.Op, status int, body string) *failingVenue {
	t.Helper()
	return newFailingVenueOn(t, func(r *http.Request) bool {
		info, ok := exchange.OpForPath(r.Method, r.URL.Path)
		return ok && info.Op == op
	}, status, body)
}

// newFailingVenueOn is newFailingVenue for the requests match picks.
func newFailingVenueOn(t *testing.T, match func(*http.Request) bool, status int, body string) *failingVenue {
	t.Helper()
	sc := sim.Demo()
	f := &failingVenue{v: clock.NewVirtual(sc.Clock.Start.Add(90 * time.Minute))}
	x, err := sim.New(sc, sim.Options{Clock: f.v})
	if err != nil {
		t.Fatal(err)
	}
	h := server.New(server.Options{Backend: server.SimBackend(x), Clock: f.v, DisableRateLimits: true})
	f.broken.Store(true)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) && f.broken.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *failingVenue) client(t *testing.T) *exchange.Client {
	t.Helper()
	c, err := exchange.NewClient(exchange.ClientOptions{BaseURL: f.srv.URL, Clock: f.v, Retry: exchange.RetryPolicy{MaxAttempts: 1},
		Credentials: exchange.Credentials{APIKey: "demo-key", Secret: "demo-secret", Passphrase: "demo-passphrase"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// step polls what is due and runs one tick; a tick that waits on the clock
// (an order's outcome) is woken by moving the clock, a bounded number of
// times. It returns the names of the rules that fired.
func (f *failingVenue) step(t *testing.T, a *Assembly) []string {
	t.Helper()
	ctx := context.Background()
	p := a.Poller
	if a.held != nil {
		p = a.held.poller()
	}
	_ = p.PollDue(ctx)
	var fired []*engine.Firing
	done := make(chan struct{})
	at := f.v.Now()
	go func() {
		defer close(done)
		fired = a.Engine.Step(ctx, at)
	}()
	for i := 0; f.v.WaitForWaiters(1, done); i++ {
		if i == 30 {
			t.Fatal("a tick waited on the clock more than 30 times")
		}
		f.v.Advance(time.Second)
	}
	f.v.Set(at.Add(time.Second))
	var names []string
	for _, x := range fired {
		names = append(names, x.Rule.Name)
	}
	return names
}

// assemble writes body as the rule file and assembles the engine on f's
// venue, logging to log (nil: nowhere).
func (f *failingVenue) assemble(t *testing.T, body string, log *zap.Logger, eng engine.Options) *Assembly {
	t.Helper()
	c := f.client(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), Options{Reader: c, Catalog: c, Accounts: c, Trader: c, Pricer: c, Clock: f.v,
		Logger: log, RuleDirs: []string{dir}}, eng)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return a
}

// TestStockPairsFailingHoldOnlyStockRules starts the engine against engine
// sim whose stock-info path fails (refused to the key, or the venue down
// for it): the futures rule trades, only the rule that reads the stock book
// is held, one warning says what failed, why and which rule waits, and
// once the venue gives the pairs again the held rule runs too.
func TestStockPairsFailingHoldOnlyStockRules(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		cause  string
	}{
		{"refused", http.StatusBadRequest, `{"code":"40014","msg":"Incorrect permissions","requestTime":0,"data":null}`, "40014"},
		{"venue down", http.StatusInternalServerError, `{"code":"45001","msg":"system error","requestTime":0,"data":null}`, "45001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFailingVenue(t, exchange.OpStockInfo, tt.status, tt.body)
			core, logs := observer.New(zapcore.DebugLevel)
			ctx := context.Background()
			a := f.assemble(t, heldRules, zap.New(core), engine.Options{})
			if got := RuleNames(a.HeldRules()); got != "tsla-spread" {
				t.Errorf("held %q, want tsla-spread", got)
			}
			if len(a.Rules.Rules) != 1 || a.Rules.Rules[0].Name != "btc-buy" {
				t.Errorf("running %d rules, want btc-buy only", len(a.Rules.Rules))
			}
			warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
			if len(warns) != 1 {
				t.Fatalf("%d warnings, want 1: %+v", len(warns), warns)
			}
			w := warns[0].ContextMap()
			if !strings.Contains(warns[0].Message, "stock pairs") || w["held_rules"] != "tsla-spread" || !strings.Contains(w["error"].(string), tt.cause) {
				t.Errorf("warning %q %v: want the stock pairs, the cause %s and the held rule", warns[0].Message, w, tt.cause)
			}
			var fired []string
			for range 3 {
				fired = append(fired, f.step(t, a)...)
			}
			if strings.Join(fired, ",") != "btc-buy" {
				t.Errorf("fired %v while the stock pairs fail, want btc-buy once", fired)
			}

			if a.releaseOnce(ctx) {
				t.Fatal("released while the stock pairs still fail")
			}
			f.broken.Store(false)
			if !a.releaseOnce(ctx) {
				t.Fatal("not released once the stock pairs are given")
			}
			if h := a.HeldRules(); len(h) != 0 {
				t.Errorf("still held: %s", RuleNames(h))
			}
			fired = nil
			for range 3 {
				fired = append(fired, f.step(t, a)...)
			}
			if strings.Join(fired, ",") != "tsla-spread" {
				t.Errorf("fired %v after the release, want tsla-spread once", fired)
			}
			if n := logs.FilterMessageSnippet("run now").Len(); n != 1 {
				t.Errorf("%d release lines, want 1", n)
			}
		})
	}
}

// TestContractsFailingBlock shows that contracts the venue does not give
// stop the start, with an error that says why nothing may trade.
func TestContractsFailingBlock(t *testing.T) {
	f := newFailingVenue(t, exchange.OpContracts, http.StatusInternalServerError, `{"code":"45001","msg":"system error","requestTime":0,"data":null}`)
	c := f.client(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(heldRules), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), Options{Reader: c, Catalog: c, Accounts: c, Trader: c, Pricer: c, Clock: f.v,
		RuleDirs: []string{dir}}, engine.Options{})
	if !errors.Is(err, rules.ErrNoContracts) || !strings.Contains(err.Error(), "contracts") || !strings.Contains(err.Error(), "nothing was started") {
		t.Fatalf("assemble: %v, want ErrNoContracts saying nothing was started", err)
	}
}

func TestRuleNamesCapped(t *testing.T) {
	var rs []*rules.Rule
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		rs = append(rs, &rules.Rule{Name: n})
	}
	tests := []struct {
		n    int
		want string
	}{{0, ""}, {1, "a"}, {5, "a, b, c, d, e"}, {7, "a, b, c, d, e and 2 more"}}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := RuleNames(rs[:tt.n]); got != tt.want {
				t.Errorf("RuleNames(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

// TestHeldPollsPassOnArrivals: while rules are held, the engine's source is
// heldPolls; it passes on the current poller's arrivals, before and after
// the swap, so the engine still ticks on new data (Run ticks on the timer
// alone for a source without arrivals).
func TestHeldPollsPassOnArrivals(t *testing.T) {
	v := clock.NewVirtual(polltest.Start)
	newPoller := func() *poll.Poller {
		p, err := poll.New(poll.Options{Reader: polltest.NewReader(), Clock: v,
			Demand: poll.Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartMarket)}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := &heldPolls{cur: newPoller(), swapped: make(chan struct{}), arrived: make(chan struct{}, 1)}
	var src engine.StateSource = h
	// The engine's arrivalSource: it ticks at once on new data.
	if _, ok := src.(interface{ Arrived() <-chan struct{} }); !ok {
		t.Fatal("heldPolls does not say when data arrives")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	// Each poller fetches the market at once when it starts: its first
	// answer is new data. The timeout only bounds a failure.
	waitArrival := func(which string) {
		t.Helper()
		select {
		case <-h.Arrived():
		case <-time.After(10 * time.Second):
			t.Fatalf("no arrival passed on from the %s poller", which)
		}
	}
	waitArrival("first")
	h.swap(newPoller())
	waitArrival("replacing")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}
