package engine

import (
	"context"
	"testing"
	"time"

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
// and the ticks after the fetch share its data.
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
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewVirtual(t0)
			body := "rules:\n  - name: r\n    when: '" + tc.when + "'\n    for: 30s\n    actions:\n      - cancel_all: {}\n"
			rs, errs := rules.LoadBytes(context.Background(), "r.yaml", []byte(body), rules.LoadOptions{})
			if rs == nil {
				t.Fatalf("rules: %v", errs)
			}
			rec := &recorder{}
			e, err := New(Options{Rules: rs, Source: &answersSource{answers: fetchedOnce()}, Executor: rec, Clock: clk})
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
			const want = 90.0 // created a minute before the fetch, fired 30s after it
			if got := agesShown(fired.Values[tc.term]); len(got) != 1 || got[0] != want {
				t.Errorf("the firing's trace shows %s with ages %v, want [%v] (values %v)", tc.term, got, want, fired.Values)
			}
			st, _, _ := e.RuleStatus("r")
			if got := agesShown(st.Values[tc.term]); len(got) != 1 || got[0] != want {
				t.Errorf("engine why shows %s with ages %v, want [%v]", tc.term, got, want)
			}
			// The trace ages what it shows itself: a condition that reads
			// no age still runs once per fetch, not on every tick.
			wantReused := int64(3)
			if tc.readsAge {
				wantReused = 0
			}
			if stats, _, _ := e.Stats(); stats["r"].Reused != wantReused {
				t.Errorf("reused %d results, want %d", stats["r"].Reused, wantReused)
			}
		})
	}
}
