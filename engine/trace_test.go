package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// answersSource serves the States of marketdata.Answers, as the poller
// does: the ticks between two answers share their data, and only the time
// fields the engine names follow the clock.
type answersSource struct {
	fakeSource
	answers *marketdata.Answers
}

func (s *answersSource) State(now time.Time) (*marketdata.State, error) {
	return s.answers.State(now, &marketdata.PartTimes{})
}

func (s *answersSource) SetTimedFields(f marketdata.TimeFieldSet) { s.answers.SetTimedFields(f) }

// fetchedOnce is an account fetched once at t0 whose positions, orders,
// strategy orders and spot records were all created one minute before.
func fetchedOnce() *marketdata.Answers {
	born := exchange.MillisOf(t0.Add(-time.Minute))
	a := marketdata.NewAnswers([]marketdata.ProductContract{
		{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}},
	}, marketdata.BuildOptions{}, false)
	a.Store(func(*marketdata.BuildInput) bool { return false }, func(in *marketdata.BuildInput) {
		in.Positions = []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, At: t0, Positions: []exchange.Position{{
			Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, Total: "2", Available: "2", CTime: born,
		}}}}
		in.Orders = []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, At: t0, Orders: []exchange.PendingOrder{
			{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", OrderID: "o1", Size: "1", Price: "240", CTime: born}},
		}}}
		in.StrategyOrders = []marketdata.StrategyOrdersInput{{Category: exchange.CategoryUSDTFutures, At: t0, Orders: []exchange.StrategyOrder{
			{OrderID: "s1", Symbol: "TSLAUSDT", Qty: "2", PosSide: exchange.Long, StopLoss: "230", CreatedTime: born},
		}}}
		in.SpotRecords = &marketdata.SpotRecordsInput{At: t0, Records: []exchange.SpotRecord{
			{ID: "r1", Coin: "USDT", SpotTaxType: "Deposit", Amount: "500", TS: born},
		}}
	})
	return a
}

// agesShown returns the ages of the objects a trace value shows whole.
func agesShown(v any) []float64 {
	var out []float64
	switch v := v.(type) {
	case []*marketdata.Order:
		for _, o := range v {
			out = append(out, o.AgeSeconds)
		}
	case *marketdata.Order:
		out = append(out, v.AgeSeconds)
	case []*marketdata.Position:
		for _, p := range v {
			out = append(out, p.AgeSeconds)
		}
	case []*marketdata.StrategyOrder:
		for _, o := range v {
			out = append(out, o.AgeSeconds)
		}
	case []*marketdata.SpotRecord:
		for _, r := range v {
			out = append(out, r.AgeSeconds)
		}
	}
	return out
}

// TestTraceShowsAgesAtItsTick: the trace of a firing, and the values
// `engine why` shows, give the objects a condition takes whole (a list of
// orders, positions, strategy orders, spot records, one order) with their
// ages at the tick, not at the fetch, also when the condition reads no age
// and the ticks after the fetch share its data (the backtest's reuse).
func TestTraceShowsAgesAtItsTick(t *testing.T) {
	for _, tc := range []struct {
		name, when, term string
		readsAge         bool
	}{
		{"orders", `len(orders("TSLAUSDT")) > 0`, `orders("TSLAUSDT")`, false},
		{"one order", `orders("TSLAUSDT")[0] != nil`, `orders("TSLAUSDT")[0]`, false},
		{"all orders", `len(all_orders) > 0`, `all_orders`, false},
		{"positions", `len(positions) > 0`, `positions`, false},
		{"strategy orders", `len(strategy_orders("TSLAUSDT")) > 0`, `strategy_orders("TSLAUSDT")`, false},
		{"spot records", `len(spot_records) > 0`, `spot_records`, false},
		{"an age read as well", `any(orders("TSLAUSDT"), .age_seconds > 0)`, `orders("TSLAUSDT")`, true},
	} {
		for _, reuse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/reuse=%v", tc.name, reuse), func(t *testing.T) {
				e, fired := fireOnFetchedOnce(t, tc.when, nil, reuse)
				const want = 90.0 // created a minute before the fetch, fired 30s after it
				if got := agesShown(fired.Values[tc.term]); len(got) != 1 || got[0] != want {
					t.Errorf("the firing's trace shows %s with ages %v, want [%v] (values %v)", tc.term, got, want, fired.Values)
				}
				st, _, _ := e.RuleStatus("r")
				if got := agesShown(st.Values[tc.term]); len(got) != 1 || got[0] != want {
					t.Errorf("engine why shows %s with ages %v, want [%v]", tc.term, got, want)
				}
				// The trace ages what it shows itself: with the backtest's
				// reuse, a condition that reads no age still runs once per
				// fetch, not on every tick; without it, on every tick.
				wantReused := int64(3)
				if tc.readsAge || !reuse {
					wantReused = 0
				}
				if stats, _, _ := e.Stats(); stats["r"].Reused != wantReused {
					t.Errorf("reused %d results, want %d", stats["r"].Reused, wantReused)
				}
			})
		}
	}
}

// fireOnFetchedOnce runs rule r, `when` held for 30s, over fetchedOnce on a
// virtual clock until it fires 30s after the fetch, and returns the engine
// and the firing's trace. logger may be nil; reuse turns on the backtest's
// speed-ups (Options.Reuse).
func fireOnFetchedOnce(t *testing.T, when string, logger *zap.Logger, reuse bool) (*Engine, Trace) {
	t.Helper()
	clk := clock.NewVirtual(t0)
	body := "rules:\n  - name: r\n    when: '" + when + "'\n    for: 30s\n    actions:\n      - cancel_all: {}\n"
	rs, errs := rules.LoadBytes(context.Background(), "r.yaml", []byte(body), rules.LoadOptions{Actions: actions.Defs()})
	if rs == nil {
		t.Fatalf("rules: %v", errs)
	}
	rec := &recorder{}
	e, err := New(Options{Rules: rs, Source: &answersSource{answers: fetchedOnce()}, Executor: rec, Clock: clk, Logger: logger, Reuse: reuserIf(reuse)})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 { // t0, +10s, +20s, +30s: the rule fires at the last
		e.Step(context.Background(), clk.Now())
		clk.Advance(10 * time.Second)
	}
	if len(rec.firings) != 1 {
		t.Fatalf("firings %v, want one", rec.firings)
	}
	traces := e.Traces("r")
	fired := traces[len(traces)-1]
	if fired.Reason != ReasonFired {
		t.Fatalf("last trace %+v, want the firing", fired)
	}
	return e, fired
}

// TestTraceJSONUsesRuleNames: an object a term gives whole is written to
// JSON - the firing's trace, the firing's log line and the values of engine
// why - with the field names of the rule language (age_seconds, client_oid),
// not the Go names (AgeSeconds, ClientOID), so a trader can read why a rule
// fired in the words of the rule.
func TestTraceJSONUsesRuleNames(t *testing.T) {
	for _, tc := range []struct {
		name, when, term, object string
		one                      bool // the term gives one object, not a list
	}{
		{"orders", `len(orders("TSLAUSDT")) > 0`, `orders("TSLAUSDT")`, "order", false},
		{"one order", `orders("TSLAUSDT")[0] != nil`, `orders("TSLAUSDT")[0]`, "order", true},
		{"all orders", `len(all_orders) > 0`, `all_orders`, "order", false},
		{"positions", `len(positions) > 0`, `positions`, "position", false},
		{"strategy orders", `len(strategy_orders("TSLAUSDT")) > 0`, `strategy_orders("TSLAUSDT")`, "strategy_order", false},
		{"spot records", `len(spot_records) > 0`, `spot_records`, "spot_record", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logged bytes.Buffer
			logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&logged), zapcore.InfoLevel))
			e, fired := fireOnFetchedOnce(t, tc.when, logger, false)
			want := objectFields(t, tc.object)

			b, err := json.Marshal(fired)
			if err != nil {
				t.Fatal(err)
			}
			var trace struct {
				Values map[string]json.RawMessage `json:"values"`
			}
			if err := json.Unmarshal(b, &trace); err != nil {
				t.Fatal(err)
			}
			checkObjectJSON(t, "the firing's trace", trace.Values[tc.term], tc.one, want)

			st, _, _ := e.RuleStatus("r")
			b, err = json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &trace); err != nil {
				t.Fatal(err)
			}
			checkObjectJSON(t, "engine why", trace.Values[tc.term], tc.one, want)

			var line []byte
			for l := range bytes.Lines(logged.Bytes()) {
				if bytes.Contains(l, []byte(`"rule fired"`)) {
					line = l
				}
			}
			if line == nil {
				t.Fatalf("no rule fired line in the log:\n%s", logged.Bytes())
			}
			if err := json.Unmarshal(line, &trace); err != nil {
				t.Fatalf("log line %s: %v", line, err)
			}
			checkObjectJSON(t, "the log line", trace.Values[tc.term], tc.one, want)
		})
	}
}

// objectFields returns the rule names of the fields of the named object.
func objectFields(t *testing.T, name string) []string {
	t.Helper()
	for _, o := range marketdata.Objects() {
		if o.Name == name {
			names := o.FieldNames()
			slices.Sort(names)
			return names
		}
	}
	t.Fatalf("no object %s", name)
	return nil
}

// checkObjectJSON checks that raw, a list of one object or one object, has
// exactly the fields named want, and the age the object had at the firing.
func checkObjectJSON(t *testing.T, where string, raw json.RawMessage, one bool, want []string) {
	t.Helper()
	var objs []map[string]any
	if one {
		var o map[string]any
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Errorf("%s: %s is not an object: %v", where, raw, err)
			return
		}
		objs = append(objs, o)
	} else if err := json.Unmarshal(raw, &objs); err != nil {
		t.Errorf("%s: %s is not a list of objects: %v", where, raw, err)
		return
	}
	if len(objs) != 1 {
		t.Errorf("%s: %s, want one object", where, raw)
		return
	}
	keys := slices.Sorted(maps.Keys(objs[0]))
	if !slices.Equal(keys, want) {
		t.Errorf("%s shows the fields %v, want the rule names %v", where, keys, want)
	}
	const age = 90.0 // created a minute before the fetch, fired 30s after it
	if got := objs[0]["age_seconds"]; got != age {
		t.Errorf("%s: age_seconds %v, want %v", where, got, age)
	}
}
