package rules

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

func TestTermSources(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`market.session == "regular" && market.minutes_to_close <= 5`, []string{"market.session", "market.minutes_to_close"}},
		{`stock("TSLA").spread_bps < 8 && position("TSLAUSDT", "long").size == 0`, []string{`stock("TSLA").spread_bps`, `position("TSLAUSDT", "long").size`}},
		{`minutes_until("15:55") < 3 || weekday == "Friday"`, []string{`minutes_until("15:55")`, "weekday"}},
		{`position(symbol, "long").size > 0 and position(symbol, "long").size > 0`, []string{`position(symbol, "long").size`}},
		{`1 < 2`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			if got := termSources(tt.src); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("termSources = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	c := NewCompiler(CompilerOptions{})
	p, errs := c.Condition(`now_ms > 0 && stock("TSLA").spread_bps < 8`)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	now := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	st, err := marketdata.NewState(marketdata.BuildInput{Now: now}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := NewEnv(st)
	got := p.Explain(NewVM(), env)
	if got["now_ms"] != float64(now.UnixMilli()) {
		t.Errorf("now_ms = %v", got["now_ms"])
	}
	if s, _ := got[`stock("TSLA").spread_bps`].(string); !strings.HasPrefix(s, "error: ") || !strings.Contains(s, "TSLA") {
		t.Errorf("missing book explained as %v; want the missing-data error", got[`stock("TSLA").spread_bps`])
	}
	_ = exchange.USDTFutures
}

// TestExplainShowsAgesAtTheTick: the objects a term gives whole carry their
// ages at the State's time, also in a State that kept the objects of the
// one before (no rule read their ages), while the condition's value is
// the same.
func TestExplainShowsAgesAtTheTick(t *testing.T) {
	c := NewCompiler(CompilerOptions{})
	t0 := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	in := marketdata.BuildInput{Now: t0, Orders: []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, At: t0, Orders: []exchange.PendingOrder{
		{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", OrderID: "o1", Size: "1", Price: "240", CTime: exchange.MillisOf(t0.Add(-time.Minute))}},
	}}}}
	first, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in.Now, in.Prev, in.KeepAges = t0.Add(30*time.Second), first, marketdata.AllTimeFields
	later, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ src, term string }{
		{`len(orders("TSLAUSDT")) > 0`, `orders("TSLAUSDT")`},
		{`orders("TSLAUSDT")[0] != nil`, `orders("TSLAUSDT")[0]`},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			env := NewEnv(later)
			if ok, err := p.EvalBool(NewVM(), env); !ok || err != nil {
				t.Fatalf("condition %v %v, want true", ok, err)
			}
			var age float64
			switch v := p.Explain(NewVM(), env)[tc.term].(type) {
			case []*marketdata.Order:
				age = v[0].AgeSeconds
			case *marketdata.Order:
				age = v.AgeSeconds
			default:
				t.Fatalf("%s explained as %T", tc.term, v)
			}
			if age != 90 {
				t.Errorf("%s shows age %v, want 90 (the age at the tick, not at the fetch)", tc.term, age)
			}
			if kept, _ := later.Orders("TSLAUSDT"); kept[0].AgeSeconds != 60 {
				t.Errorf("Explain changed the State's order: age %v", kept[0].AgeSeconds)
			}
		})
	}
}
