package backtest_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/internal/racetest"
	"github.com/tickrules/tickrules/sim"
)

// protectionRules are the example rules that reduce or close a position
// because it has no stop-loss: they must never act on a position that has
// one, or they undo the rule that protected it.
var protectionRules = map[string]bool{
	"restore-stop-loss-tsla":       true,
	"close-small-unprotected-tsla": true,
}

// TestExampleRulesDoNotUndoEachOther runs all the example rules on the demo
// scenario for a day and for three days and checks, from the report alone, that
// no protection rule reduces a position while it has a stop-loss: a
// position has one from the fill of an order carrying presetStopLossPrice
// (the venue, and the simulator, then give the position a stop-loss
// strategy order) until it is flat again. Regression test of issue 15
// ("The example rules fight each other"): the simulator kept the preset
// but created no strategy order, and restore-stop-loss-tsla halved the
// protected TSLA long five times in a day.
func TestExampleRulesDoNotUndoEachOther(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs days of the demo")
	}
	if racetest.Enabled {
		t.Skip("days of backtest, minutes under -race: run without it (as .ci/run does)")
	}
	start := sim.Demo().Clock.Start
	// A week: the position carried over night after night is what the
	// longer run adds. It skips itself under -race (minutes there); .ci/run
	// also runs it without -race, so the week is checked on every run.
	long := struct {
		name string
		span time.Duration
	}{"one week", 7 * 24 * time.Hour}
	for _, tt := range []struct {
		name string
		span time.Duration
		step time.Duration
	}{
		{"one day", 24 * time.Hour, time.Second},
		{long.name, long.span, 5 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := backtest.Run(context.Background(), backtest.Options{
				Scenario: sim.Demo(), RuleDirs: []string{"../examples/rules"}, From: start, To: start.Add(tt.span), Step: tt.step,
				Getenv: func(k string) string { return map[string]string{"TSLA_DIP_SIZE": "2"}[k] },
			})
			if err != nil {
				t.Fatal(err)
			}
			checkNoProtectionUndone(t, rep)
		})
	}
}

// placeRequest is what the check reads of a place_order request.
type placeRequest struct {
	PresetStopLossPrice string `json:"presetStopLossPrice"`
}

func checkNoProtectionUndone(t *testing.T, rep *backtest.Report) {
	t.Helper()
	// Which orders carried a stop-loss preset, and which firing placed
	// each order.
	stopLoss := map[string]bool{}
	firedBy := map[string]int{}
	for i, f := range rep.Firings {
		for _, a := range f.Actions {
			for _, id := range a.OrderIDs {
				firedBy[id] = i
			}
			if a.Kind != "place_order" || len(a.Request) == 0 {
				continue
			}
			var req placeRequest
			if err := json.Unmarshal(a.Request, &req); err != nil {
				t.Fatalf("firing %s %s: request %s: %v", f.Time, f.Rule, a.Request, err)
			}
			for _, id := range a.OrderIDs {
				stopLoss[id] = req.PresetStopLossPrice != ""
			}
		}
	}
	// Walk the fills in time order; one-way mode nets each symbol.
	net := map[string]decimal.Decimal{}
	protected := map[string]bool{} // symbol → the open position has a stop-loss
	protectedSpells, fill := 0, 0
	apply := func(upTo string, skip func(orderID string) bool) {
		for ; fill < len(rep.Fills) && rep.Fills[fill].Time <= upTo; fill++ {
			f := rep.Fills[fill]
			if skip(f.OrderID) {
				return
			}
			size, err := decimal.NewFromString(f.Size)
			if err != nil {
				t.Fatalf("fill %s: size %q: %v", f.TradeID, f.Size, err)
			}
			before := net[f.Symbol]
			if f.Side == "sell" {
				size = size.Neg()
			}
			after := before.Add(size)
			net[f.Symbol] = after
			if after.IsZero() || before.Sign()*after.Sign() < 0 {
				protected[f.Symbol] = false // flat, or reversed by an order without presets
			}
			grows := before.IsZero() || before.Sign() == size.Sign()
			if stopLoss[f.OrderID] && !after.IsZero() && grows {
				if !protected[f.Symbol] {
					protectedSpells++
				}
				protected[f.Symbol] = true
			}
		}
	}
	for i, f := range rep.Firings {
		// Fills up to the firing, except those of its own orders.
		apply(f.Time, func(id string) bool { j, ok := firedBy[id]; return ok && j >= i })
		if !protectionRules[f.Rule] {
			continue
		}
		for sym, on := range protected {
			if on && !net[sym].IsZero() {
				t.Errorf("%s: %s reduced %s (position %v) while it had a stop-loss", f.Time, f.Rule, sym, net[sym])
			}
		}
	}
	apply("9999", func(string) bool { return false })
	// The check means something only if a position was protected at all.
	if protectedSpells == 0 {
		t.Fatalf("no position was opened with a stop-loss: the check exercised nothing (%d firings, %d fills)", len(rep.Firings), len(rep.Fills))
	}
	t.Logf("%d firings, %d fills, %d positions opened with a stop-loss", len(rep.Firings), len(rep.Fills), protectedSpells)
}
