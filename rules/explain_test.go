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

// TestExplainShowsNoneForAbsentData: a term whose data was fetched and says
// there is no value (a flat position, a closed market, an item past the end
// of a list) reads "none: ..." in a trace, where a condition written with a
// guard is simply false; data that was not fetched still reads as an error
// (issue 25: the status page showed "error: no data for position" and
// "error: index out of range" for rules that were only false).
func TestExplainShowsNoneForAbsentData(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	in := testInput()
	in.Books = in.Books[:1] // NVDA book not fetched
	in.Market.Session = marketdata.SessionInfo{Session: marketdata.SessionClosed}
	st, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := marketdata.NewState(marketdata.BuildInput{Now: testNow}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src, term string
		state           *marketdata.State
		want            string // the shown value's beginning
	}{
		{"a flat position", `position("TSLAUSDT", "short").size > 0 && position("TSLAUSDT", "short").entry_price < 250`,
			`position("TSLAUSDT", "short").entry_price`, st, "none: the position is flat"},
		{"a closed market", `market.is_open && market.minutes_to_close <= 5`, `market.minutes_to_close`, st, "none: the market is closed"},
		{"past the end of a list", `len(positions) > 50 && positions[50].size > 1`, `positions[50].size`, st, "none: the list has only "},
		{"an empty list", `len(positions) > 0 && positions[0].size > 1`, `positions[0].size`,
			mustState(t, marketdata.BuildInput{Now: testNow, Positions: []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, At: testNow}}}), "none: the list is empty"},
		{"a book not fetched", `stock("NVDA").spread_bps < 8`, `stock("NVDA").spread_bps`, st, "error: no data for stock NVDAUSDT: the order book was not fetched"},
		{"positions not fetched", `position("TSLAUSDT", "long").size == 0`, `position("TSLAUSDT", "long").size`, empty, "error: no data for position TSLAUSDT long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			got, _ := p.Explain(NewVM(), NewEnv(tc.state))[tc.term].(string)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s explained as %q, want %q...", tc.term, got, tc.want)
			}
		})
	}
}

func mustState(t *testing.T, in marketdata.BuildInput) *marketdata.State {
	t.Helper()
	st, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
