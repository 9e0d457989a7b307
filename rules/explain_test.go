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
