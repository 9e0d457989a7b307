package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// staticSource serves one State, polled once from the demo simulator, at
// every tick: the benchmarks measure the engine, not the pollers.
type staticSource struct {
	st     *marketdata.State
	poller *poll.Poller
}

func (s *staticSource) State(time.Time) (*marketdata.State, error) { return s.st, nil }
func (s *staticSource) FullyPolled() bool                          { return true }
func (s *staticSource) Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	return s.poller.Stale(st, parts)
}

// nopExecutor must not be reached: the benchmark's rules never fire.
type nopExecutor struct{ fired int }

func (n *nopExecutor) Execute(context.Context, *engine.Firing) []actions.Leg {
	n.fired++
	return nil
}

// benchConditions are the shapes of the benchmark's conditions, each false
// on the demo State, so that every tick evaluates every rule and none fires.
var benchConditions = []string{
	`stock("TSLA").spread_bps > %d`,
	`position("BTCUSDT", "long").size > %d`,
	`market.session == "regular" && market.minutes_since_open > %d`,
	`orders_count("ETHUSDT") > %d && stock("NVDA").bid > 0`,
	`stock("AAPL").ask < 0 || position("ETHUSDT", "short").size > %d`,
}

// demoWorld is the demo simulator on a virtual clock at 10:30 New York with
// a rule set loaded against its contracts.
func demoWorld(b testing.TB, ruleYAML string) (*sim.Exchange, *sim.Account, *clock.Virtual, *rules.Catalog, *rules.RuleSet) {
	b.Helper()
	simRig := simtest.NewRig(b, simtest.RigOptions{After: 90 * time.Minute})
	x, v := simRig.Exchange, simRig.Virtual
	acct, _ := x.Account("demo-key")
	cat, rs := loadRules(b, acct, ruleYAML)
	return x, acct, v, cat, rs
}

// polledSource polls the demo once for what rs reads and serves that State.
func polledSource(b testing.TB, acct *sim.Account, v *clock.Virtual, cat *rules.Catalog, rs *rules.RuleSet) *staticSource {
	b.Helper()
	p, err := poll.New(poll.Options{Reader: acct, Clock: v, Demand: assemble.Demand(rs, cat), Contracts: cat.Contracts})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.PollDue(context.Background()); err != nil {
		b.Fatal(err)
	}
	st, err := p.State(v.Now())
	if err != nil {
		b.Fatal(err)
	}
	return &staticSource{st: st, poller: p}
}

// quietRules is n rules that read the demo State and are all false.
func quietRules(n int) string {
	var y strings.Builder
	y.WriteString("rules:\n")
	for i := range n {
		cond := benchConditions[i%len(benchConditions)]
		fmt.Fprintf(&y, "  - name: r%04d\n    when: '%s'\n    actions: [log: {message: x}]\n", i, fmt.Sprintf(cond, 1000+i))
	}
	return y.String()
}

// BenchmarkStep compares one engine tick over n rules with running the same
// compiled programs directly on one reused expr VM over the same State.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{10, 1000} {
		_, acct, v, cat, rs := demoWorld(b, quietRules(n))
		src := polledSource(b, acct, v, cat, rs)
		for _, depth := range []int{1, 32} {
			b.Run(fmt.Sprintf("rules=%d/engine-depth%d", n, depth), func(b *testing.B) {
				x := &nopExecutor{}
				// The plain path (no Options.Reuse): the same State every iteration would
				// otherwise let pure conditions reuse their result, and this
				// measures the cost of running them.
				eng, err := engine.New(engine.Options{Rules: rs, Source: src, Executor: x, Clock: v, TraceDepth: depth})
				if err != nil {
					b.Fatal(err)
				}
				ctx, now := context.Background(), v.Now()
				eng.Step(ctx, now) // warm: the trace ring and the per-tick cache
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					eng.Step(ctx, now)
				}
				b.StopTimer()
				if x.fired != 0 {
					b.Fatalf("%d rules fired; the benchmark's rules must all be false", x.fired)
				}
				states := eng.States()
				for name, s := range states {
					if s.Phase != engine.PhaseInactive {
						b.Fatalf("rule %s is %s: its condition was not evaluated to false", name, s.Phase)
					}
				}
				for _, r := range rs.Rules[:1] {
					if tr := eng.Traces(r.Name); len(tr) == 0 || tr[len(tr)-1].Reason != engine.ReasonFalse {
						b.Fatalf("rule %s: trace %+v, want condition false", r.Name, tr)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("rules=%d/direct", n), func(b *testing.B) {
			env := rules.NewEnv(src.st)
			var m vm.VM
			progs := make([]*vm.Program, 0, len(rs.Rules))
			for _, r := range rs.Rules {
				progs = append(progs, r.Condition.VMProgram())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for _, prog := range progs {
					out, err := m.Run(prog, env.Value())
					if err != nil || out != false {
						b.Fatalf("%v, %v", out, err)
					}
				}
			}
		})
	}
}

// BenchmarkStepRatio runs one engine tick and the same programs directly,
// alternately in each iteration, and reports the ratio of their times: on a
// shared, noisy machine the two sides then see the same load.
func BenchmarkStepRatio(b *testing.B) {
	const n = 1000
	_, acct, v, cat, rs := demoWorld(b, quietRules(n))
	src := polledSource(b, acct, v, cat, rs)
	st := src.st
	eng, err := engine.New(engine.Options{Rules: rs, Source: src, Executor: &nopExecutor{}, Clock: v})
	if err != nil {
		b.Fatal(err)
	}
	env := rules.NewEnv(st)
	var m vm.VM
	progs := make([]*vm.Program, 0, len(rs.Rules))
	for _, r := range rs.Rules {
		progs = append(progs, r.Condition.VMProgram())
	}
	ctx, now := context.Background(), v.Now()
	eng.Step(ctx, now)
	var engineTime, directTime time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		eng.Step(ctx, now)
		t1 := time.Now()
		for _, prog := range progs {
			if out, err := m.Run(prog, env.Value()); err != nil || out != false {
				b.Fatalf("%v, %v", out, err)
			}
		}
		t2 := time.Now()
		engineTime += t1.Sub(t0)
		directTime += t2.Sub(t1)
	}
	b.ReportMetric(float64(engineTime.Nanoseconds())/float64(b.N), "engine-ns/tick")
	b.ReportMetric(float64(directTime.Nanoseconds())/float64(b.N), "direct-ns/tick")
	b.ReportMetric(float64(engineTime)/float64(directTime), "engine/direct")
}

// timedVenue is an in-process venue that notes when each order request
// reaches it. Only PlaceOrder is used; the other operations are not
// implemented (the embedded nil Trader would panic).
type timedVenue struct {
	exchange.Trader
	at []time.Time
}

func (t *timedVenue) PlaceOrder(_ context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	t.at = append(t.at, time.Now())
	return exchange.OrderAck{OrderID: "1", ClientOID: req.ClientOID}, nil
}

func (t *timedVenue) OrderDetail(context.Context, exchange.OrderDetailRequest) (exchange.OrderDetail, error) {
	panic("OrderDetail: not reached in the latency benchmark")
}

func (t *timedVenue) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	panic("AllPositions: not reached in the latency benchmark")
}

func (t *timedVenue) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	panic("PendingOrders: not reached in the latency benchmark")
}

func (t *timedVenue) PlanOrders(context.Context, exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	panic("PlanOrders: not reached in the latency benchmark")
}

func (t *timedVenue) PlanHistory(context.Context, exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error) {
	panic("PlanHistory: not reached in the latency benchmark")
}

// BenchmarkStateToOrder measures the in-process latency from a new State
// whose condition is true (the tick starts) to the order request reaching
// the venue, through the engine, the executor (formulas, rounding, mode
// mapping, clientOid) and the dispatcher. It reports p50 and p99.
func BenchmarkStateToOrder(b *testing.B) {
	_, acct, v, cat, rs := demoWorld(b, `
rules:
  - name: bid-under-tsla
    when: stock("TSLA").spread_bps < 100 && position("TSLAUSDT", "long").size == 0
    cooldown: 1ms      # re-armed on every tick of the benchmark
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: limit, size: 1.234, price: '=stock("TSLA").bid * 0.999'}
`)
	src := polledSource(b, acct, v, cat, rs)
	venue := &timedVenue{}
	d := actions.NewDispatcher(actions.DispatcherOptions{Venue: venue, Clock: v})
	x := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: d, Catalog: cat, Modes: map[exchange.ProductType]exchange.PosMode{exchange.USDTFutures: exchange.OneWayMode}})
	// The plain path: the condition runs on every tick, as on a new State.
	eng, err := engine.New(engine.Options{Rules: rs, Source: src, Executor: engine.ActionsExecutor{X: x}, Clock: v})
	if err != nil {
		b.Fatal(err)
	}
	ctx, now := context.Background(), v.Now()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		eng.Step(ctx, now.Add(time.Duration(i)*time.Second))
		if len(venue.at) != i+1 {
			b.Fatalf("tick %d: %d orders reached the venue, want %d", i, len(venue.at), i+1)
		}
		lat = append(lat, venue.at[i].Sub(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Nanoseconds()), "p99-ns")
}
