package actions_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// TestNotifyActionSendsNothing: a notify action renders its message onto
// the leg and never reaches the venue (the Dispatcher has none).
func TestNotifyActionSendsNothing(t *testing.T) {
	ctx := context.Background()
	rs, errs := rules.LoadBytes(ctx, "r.yaml", []byte(`
rules:
  - name: tell
    when: now_ms > 0
    actions:
      - notify: { message: "the clock is {{ now_ms > 0 ? \"running\" : \"stopped\" }}" }
`), rules.LoadOptions{Actions: actions.Defs()})
	if rs == nil {
		t.Fatal(errs)
	}
	v := clock.NewVirtual(time.UnixMilli(1773066600000))
	st, err := marketdata.NewState(marketdata.BuildInput{Now: v.Now()}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := actions.NewExecutor(actions.ExecutorOptions{Dispatcher: actions.NewDispatcher(actions.DispatcherOptions{Clock: v})})
	legs := x.Run(ctx, rs.Rules[0], v.Now(), rules.NewEnv(st), rules.NewVM(), st)
	want := actions.Leg{Kind: "notify", Outcome: actions.OK, Note: "the clock is running"}
	if len(legs) != 1 || legs[0].Kind != want.Kind || legs[0].Outcome != want.Outcome || legs[0].Note != want.Note || legs[0].Request != nil {
		t.Fatalf("legs %+v, want %+v", legs, want)
	}
}
