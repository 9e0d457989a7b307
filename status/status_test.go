package status_test

import (
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
	"github.com/tickrules/tickrules/status"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// brokenBook is the demo account whose stock order books stop answering
// once broken is set: the rules that read them go stale.
type brokenBook struct {
	exchange.Venue // hides the simulator's shortcuts, so books are read through StockOrderBook
	broken         atomic.Bool
}

// AccountPositionMode forwards to the simulator's account: the accounts
// list carries no posMode, as on the live venue.
func (b *brokenBook) AccountPositionMode(ctx context.Context, pt exchange.ProductType, symbol, marginCoin string) (exchange.PosMode, error) {
	return b.Venue.(exchange.ModeSource).AccountPositionMode(ctx, pt, symbol, marginCoin)
}

func (b *brokenBook) StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	if b.broken.Load() {
		return exchange.StockOrderBook{}, errors.New("book feed down (test)")
	}
	return b.Venue.StockOrderBook(ctx, req)
}

// One rule per phase and reason the status page explains. The demo's clock
// starts at 10:30 EDT, an hour into the regular session.
const phaseRules = `
rules:
  - name: never
    description: A condition that is false all day.
    when: market.session == "closed"
    actions:
      - log: {message: "never"}
  - name: holding
    when: market.session == "regular"
    for: 1h
    actions:
      - log: {message: "held an hour"}
  - name: cooling
    when: market.session == "regular"
    cooldown: 1h
    actions:
      - log: {message: "cooling fired"}
  - name: once-a-session
    when: int(market.minutes_since_open) % 2 == 0
    once: per_session
    actions:
      - log: {message: "even minute"}
  - name: book-watch
    when: stock("TSLA").spread_bps < 0
    actions:
      - log: {message: "crossed book"}
  - name: fired
    when: market.session == "regular"
    actions:
      - log: {message: "regular session"}
  - name: buy-btc
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
  - name: buy-eth
    when: position("ETHUSDT", "long").size == 0
    cooldown: 1h
    actions:
      - place_order: {symbol: ETHUSDT, open: long, type: market, size: 0.5}
`

type rig struct {
	v     *clock.Virtual
	asm   *assemble.Assembly
	rec   *status.Recorder
	board *status.Board
	watch *status.Watcher
	acct  *brokenBook
	fills []status.FillRecord
	dir   string // of the rule file
}

func newRig(t *testing.T) *rig {
	t.Helper()
	sc := sim.Demo()
	start := sc.Clock.Start.Add(90 * time.Minute)
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, Start: start})
	x, v := simRig.Exchange, simRig.Virtual
	a, _ := x.Account("demo-key")
	acct := &brokenBook{Venue: a}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(phaseRules), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &rig{v: v, rec: status.NewRecorder(status.RecorderOptions{}), acct: acct, dir: dir}
	safety := &actions.Safety{AllowedSymbols: []string{"BTCUSDT"}}
	var err error
	r.asm, err = assemble.New(context.Background(), assemble.Options{Reader: acct, Catalog: acct, Accounts: acct,
		Trader: acct, Clock: v, RuleDirs: []string{dir}, Safety: safety},
		engine.Options{OnFiring: func(f *engine.Firing) { r.rec.ObserveFiring(f.Rule.Name, f.Seq, f.At, f.Legs) }})
	if err != nil {
		t.Fatal(err)
	}
	r.board = status.NewBoard(status.BoardOptions{Engine: r.asm.Engine, Guard: r.asm.Guard, Parts: r.asm.Poller,
		Recorder: r.rec, Clock: v, Venue: "embedded demo", Started: start})
	r.watch = status.NewWatcher(status.WatcherOptions{Fills: acct, Products: []exchange.ProductType{exchange.USDTFutures},
		Accounts: acct, Recorder: r.rec, Clock: v, Since: start.Add(-time.Second),
		OnFill: func(f status.FillRecord) { r.fills = append(r.fills, f) }})
	// As engine run does: the balances at start are read before the first tick.
	if err := r.watch.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// run polls, steps and watches n ticks of one second.
func (r *rig) run(t *testing.T, n int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if err := r.asm.Poller.PollDue(ctx); err != nil && !r.acct.broken.Load() {
			t.Fatalf("poll: %v", err)
		}
		r.asm.Engine.Step(ctx, r.v.Now())
		if err := r.watch.Poll(ctx); err != nil {
			t.Fatalf("watch: %v", err)
		}
		r.v.Advance(time.Second)
	}
}

func TestStatusAPIShowsEveryPhase(t *testing.T) {
	r := newRig(t)
	r.run(t, 100)
	r.acct.broken.Store(true) // from 10:31:40 the books stop answering
	r.run(t, 30)              // to 10:32:10: the once rule is true again in the same session

	srv := httptest.NewServer(status.Handler(r.board))
	defer srv.Close()
	ctx := context.Background()
	snap, err := status.FetchSnapshot(ctx, srv.Client(), srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]status.Rule{}
	for _, rule := range snap.Rules {
		rules[rule.Name] = rule
	}
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04:05", s, status.NewYork())
		if err != nil {
			t.Fatal(err)
		}
		return tm.UTC()
	}
	day := r.v.Now().In(status.NewYork()).Format("2006-01-02")
	tests := []struct {
		rule   string
		phase  engine.Phase
		reason engine.Reason
		why    string
		until  time.Time
	}{
		{"never", engine.PhaseInactive, engine.ReasonFalse, "condition false", time.Time{}},
		{"holding", engine.PhasePending, engine.ReasonHolding, "condition true, holding for 1h0m0s until 11:30:00 EDT", at(day + " 11:30:00")},
		{"cooling", engine.PhaseFiring, engine.ReasonCooldown, "cooldown until 11:30:00 EDT", at(day + " 11:30:00")},
		{"once-a-session", engine.PhasePending, engine.ReasonOnce, "already fired once in this session", at(day + " 16:00:00")},
		{"book-watch", engine.PhaseInactive, engine.ReasonStale, "stale or missing data: stock_book", time.Time{}},
		{"fired", engine.PhaseFiring, engine.ReasonStillTrue, "fired at 10:30:00 EDT; waits for the condition to turn false", time.Time{}},
		{"buy-btc", engine.PhaseInactive, engine.ReasonFalse, "condition false", time.Time{}},
		{"buy-eth", engine.PhaseFiring, engine.ReasonCooldown, "fired, but a risk guard blocked its order: ETHUSDT: symbol is not in allowed_symbols of the safety file", at(day + " 11:30:00")},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			got, ok := rules[tc.rule]
			if !ok {
				t.Fatalf("rule missing from /api/status")
			}
			if got.Phase != tc.phase || got.Reason != tc.reason || got.Why != tc.why || !got.Until.Equal(tc.until) {
				t.Errorf("phase %q reason %q why %q until %v\nwant %q %q %q %v", got.Phase, got.Reason, got.Why, got.Until, tc.phase, tc.reason, tc.why, tc.until)
			}
			if got.LastEvaluated.IsZero() || got.Next == "" {
				t.Errorf("last evaluated %v, next %q", got.LastEvaluated, got.Next)
			}
		})
	}
	if v := rules["never"].Values[`market.session`]; v != "regular" {
		t.Errorf("values of never: %v", rules["never"].Values)
	}
	if rules["once-a-session"].Firings != 1 || rules["fired"].Firings != 1 || rules["buy-btc"].Firings != 1 {
		t.Errorf("firings: once %d, fired %d, buy-btc %d", rules["once-a-session"].Firings, rules["fired"].Firings, rules["buy-btc"].Firings)
	}

	// The account side: the filled order, its fill, the position, the P&L.
	if len(snap.Positions) != 1 || snap.Positions[0].Symbol != "BTCUSDT" || snap.Positions[0].Side != "long" || snap.Positions[0].Size != 0.01 {
		t.Errorf("positions %+v", snap.Positions)
	}
	var btc *status.OrderRecord
	for i, o := range snap.Sent {
		if o.Rule == "buy-btc" {
			btc = &snap.Sent[i]
		}
	}
	if btc == nil || btc.Symbol != "BTCUSDT" || btc.Intent != "open long" || btc.Side != "buy" || btc.Size != "0.01" ||
		btc.Price != "" || btc.Outcome != actions.OK || btc.ClientOID == "" || btc.OrderID == "" {
		t.Errorf("recent order of buy-btc: %+v", btc)
	}
	if len(snap.Fills) != 1 || snap.Fills[0].Rule != "buy-btc" || snap.Fills[0].Size != "0.01" || snap.Fills[0].OrderID != btc.OrderID {
		t.Errorf("fills %+v", snap.Fills)
	}
	if len(r.fills) != 1 {
		t.Errorf("OnFill called %d times, want 1", len(r.fills))
	}
	want := status.Totals{Firings: 5, Orders: 1, OrdersBlocked: 1, Fills: 1}
	if snap.Totals != want {
		t.Errorf("totals %+v, want %+v", snap.Totals, want)
	}
	var usdt *status.Account
	for i, a := range snap.Accounts {
		if a.ProductType == "USDT-FUTURES" && a.MarginCoin == "USDT" {
			usdt = &snap.Accounts[i]
		}
	}
	fee := decimal.RequireFromString(snap.Fills[0].Fee)
	if usdt == nil || !usdt.StartEquity.IsPositive() || !usdt.Change.Equal(usdt.Equity.Sub(usdt.StartEquity)) || !usdt.Fees.Equal(fee) || !fee.IsPositive() {
		t.Errorf("USDT account %+v", usdt)
	}
	stale := map[string]bool{}
	for _, p := range snap.Polls {
		stale[p.Part] = p.Stale
	}
	if !stale["stock_book"] || stale["market"] || stale["positions"] {
		t.Errorf("poll health %+v", snap.Polls)
	}
	if !snap.Engine.Ready || snap.Engine.Ticks != 130 || snap.KillSwitch.On {
		t.Errorf("engine %+v, kill switch %+v", snap.Engine, snap.KillSwitch)
	}

	r.asm.Guard.Kill("SIGUSR1")
	if snap, err = status.FetchSnapshot(ctx, srv.Client(), srv.URL); err != nil || !snap.KillSwitch.On || snap.KillSwitch.Reason != "SIGUSR1" {
		t.Errorf("kill switch after Kill: %+v, %v", snap.KillSwitch, err)
	}

	d, err := status.FetchRule(ctx, srv.Client(), srv.URL, "once-a-session")
	if err != nil || d.Name != "once-a-session" || len(d.Traces) != 32 || d.Traces[len(d.Traces)-1].Reason != engine.ReasonOnce {
		t.Errorf("rule detail: %v, %d traces", err, len(d.Traces))
	}
	if _, err := status.FetchRule(ctx, srv.Client(), srv.URL, "no-such-rule"); !errors.Is(err, status.ErrNoRule) {
		t.Errorf("unknown rule: %v", err)
	}
}

func TestStatusPageIsSelfContained(t *testing.T) {
	r := newRig(t)
	r.run(t, 5)
	srv := httptest.NewServer(status.Handler(r.board))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/status")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /status: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{`http-equiv="refresh"`, "never", "book-watch", "condition false", "open long", "BTCUSDT", "stock_book"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("page has %q: it must load nothing from elsewhere", bad)
		}
	}
}

// TestStatusTables compares what engine status and engine why print with
// golden files: the simulator and the clock make the run the same every time.
func TestStatusTables(t *testing.T) {
	r := newRig(t)
	r.run(t, 100)
	r.acct.broken.Store(true)
	r.run(t, 30)
	var table, why strings.Builder
	if err := status.WriteTable(&table, r.board.Snapshot()); err != nil {
		t.Fatal(err)
	}
	d, _ := r.board.Rule("once-a-session")
	d.Traces = d.Traces[len(d.Traces)-3:]
	if err := status.WriteRule(&why, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "status.txt", table.String())
	golden(t, "why.txt", strings.ReplaceAll(why.String(), r.dir, "DIR"))
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

// slowEngine answers Status only when the test lets it: a tick that is
// still sending orders.
type slowEngine struct {
	release chan struct{}
	ticks   atomic.Int64
}

func (e *slowEngine) Status() engine.Status {
	<-e.release
	return engine.Status{Ticks: e.ticks.Add(1)}
}

func (e *slowEngine) RuleStatus(string) (engine.RuleStatus, []engine.Trace, bool) {
	return engine.RuleStatus{}, nil, false
}

func TestBoardDoesNotHangOnABusyEngine(t *testing.T) {
	eng := &slowEngine{release: make(chan struct{})}
	b := status.NewBoard(status.BoardOptions{Engine: eng, Recorder: status.NewRecorder(status.RecorderOptions{}),
		Clock: clock.NewVirtual(time.Unix(0, 0)), Wait: 10 * time.Millisecond})
	if s := b.Snapshot(); !s.Engine.Busy || s.Engine.Ticks != 0 {
		t.Fatalf("a busy engine: %+v", s.Engine)
	}
	eng.release <- struct{}{} // the call of the first Snapshot returns
	close(eng.release)
	// The next Snapshot starts a new call, which now returns at once; it
	// waits up to Wait for it, so it may still see the first call's answer.
	var s status.Snapshot
	for i := 0; i < 1000; i++ {
		if s = b.Snapshot(); !s.Engine.Busy && s.Engine.Ticks == 2 {
			break
		}
	}
	if s.Engine.Busy || s.Engine.Ticks != 2 {
		t.Errorf("after the engine answered: %+v", s.Engine)
	}
}

// oddEngine has a rule whose condition read values JSON cannot carry.
type oddEngine struct{}

func (oddEngine) Status() engine.Status {
	return engine.Status{Rules: []engine.RuleStatus{{Name: "odd", Reason: engine.ReasonFalse,
		Values: map[string]any{"a / 0": math.Inf(1), "b": math.NaN(), "c": 1.5, "d": []float64{math.Inf(-1)}}}}}
}

func (oddEngine) RuleStatus(string) (engine.RuleStatus, []engine.Trace, bool) {
	return engine.RuleStatus{Name: "odd"}, []engine.Trace{{Values: map[string]any{"x": math.NaN()}}}, true
}

func TestStatusCarriesValuesJSONCannot(t *testing.T) {
	b := status.NewBoard(status.BoardOptions{Engine: oddEngine{}, Recorder: status.NewRecorder(status.RecorderOptions{}),
		Clock: clock.NewVirtual(time.Unix(0, 0))})
	srv := httptest.NewServer(status.Handler(b))
	defer srv.Close()
	s, err := status.FetchSnapshot(context.Background(), srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Rules[0].Values
	if v["a / 0"] != "+Inf" || v["b"] != "NaN" || v["c"] != 1.5 || v["d"] != "[-Inf]" {
		t.Errorf("values %v", v)
	}
	d, err := status.FetchRule(context.Background(), srv.Client(), srv.URL, "odd")
	if err != nil || d.Traces[0].Values["x"] != "NaN" {
		t.Errorf("rule detail %+v, %v", d, err)
	}
}
