package engine

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tickrules/tickrules/backtest/reuse"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// TestSkipQuietRecordsWhatStepsWould: on data that does not change, an
// engine that steps one tick and then records as many as SkipQuiet allows
// ends where one that steps every tick does: the same firings at the same
// times, counters, states and traces, through quiet ticks, a cooldown, a
// for: holding and a failure that repeats. SkipQuiet stops before each
// cooldown or for: ends, so the ticks where a state machine moves on time
// alone are stepped.
func TestSkipQuietRecordsWhatStepsWould(t *testing.T) {
	rs := ruleSet(t,
		rules.Rule{Name: "quiet", When: "1 > 2", Enabled: true},
		rules.Rule{Name: "cool", When: "1 < 2", Cooldown: 30 * time.Second, Enabled: true},
		rules.Rule{Name: "hold", When: "2 > 1", For: 20 * time.Second, Enabled: true},
		rules.Rule{Name: "missing", When: `position("TSLAUSDT", "long").size > 0`, Enabled: true},
	)
	const ticks = 120
	type run struct {
		e       *Engine
		rec     *recorder
		stepped int
	}
	start := func() run {
		rec := &recorder{}
		e, err := New(Options{Rules: rs, Source: &swapSource{st: newData(t)}, Executor: rec, Clock: stubClock{}, TraceDepth: 8, Reuse: reuse.Results{}})
		if err != nil {
			t.Fatal(err)
		}
		return run{e: e, rec: rec}
	}
	every, skipping := start(), start()
	var firedAt []int
	for k := range ticks {
		if f := every.e.Step(context.Background(), t0.Add(time.Duration(k)*time.Second)); len(f) > 0 {
			firedAt = append(firedAt, k)
		}
	}
	var skippedFiredAt []int
	for k := 0; k < ticks; k++ {
		at := t0.Add(time.Duration(k) * time.Second)
		if f := skipping.e.Step(context.Background(), at); len(f) > 0 {
			skippedFiredAt = append(skippedFiredAt, k)
		}
		skipping.stepped++
		k += int(skipping.e.SkipQuiet(at, time.Second, int64(ticks-1-k)))
	}
	if !reflect.DeepEqual(firedAt, skippedFiredAt) || !reflect.DeepEqual(every.rec.firings, skipping.rec.firings) {
		t.Errorf("fired at %v %v stepping every tick, at %v %v skipping", firedAt, every.rec.firings, skippedFiredAt, skipping.rec.firings)
	}
	es, et, _ := every.e.Stats()
	ss, st, _ := skipping.e.Stats()
	if et != st || !reflect.DeepEqual(es, ss) {
		t.Errorf("counters: every tick %d %+v, skipping %d %+v", et, es, st, ss)
	}
	if !reflect.DeepEqual(every.e.States(), skipping.e.States()) {
		t.Errorf("states: every tick %+v, skipping %+v", every.e.States(), skipping.e.States())
	}
	for _, r := range rs.Rules {
		if a, b := every.e.Traces(r.Name), skipping.e.Traces(r.Name); !reflect.DeepEqual(a, b) {
			t.Errorf("rule %s traces:\nevery tick %+v\nskipping   %+v", r.Name, a, b)
		}
	}
	if len(firedAt) < 3 || skipping.stepped > ticks/4 {
		t.Errorf("%d firings, %d of %d ticks stepped: want firings on both sides of cooldowns and most ticks skipped", len(firedAt), skipping.stepped, ticks)
	}
	t.Logf("fired at %v; stepped %d of %d ticks", firedAt, skipping.stepped, ticks)
}

// TestSkipQuietNeedsASteadyStep: nothing is skipped before a first step,
// after a reload (the new rules have not run), when a rule reads the clock
// or is disabled, or on stale data.
func TestSkipQuietNeedsASteadyStep(t *testing.T) {
	quiet := ruleSet(t, rules.Rule{Name: "quiet", When: "1 > 2", Enabled: true})
	e, err := New(Options{Rules: quiet, Source: &swapSource{st: newData(t)}, Executor: &recorder{}, Clock: stubClock{}, Reuse: reuse.Results{}})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.SkipQuiet(t0, time.Second, 5); n != 0 {
		t.Errorf("skipped %d ticks before any step", n)
	}
	e.Step(context.Background(), t0)
	if n := e.SkipQuiet(t0, time.Second, 5); n != 5 {
		t.Errorf("skipped %d ticks after a quiet step, want 5", n)
	}
	e.Reload(quiet)
	if n := e.SkipQuiet(t0.Add(6*time.Second), time.Second, 5); n != 0 {
		t.Errorf("skipped %d ticks after a reload", n)
	}
	for _, other := range []rules.Rule{
		{Name: "clock", When: "now_ms < 0", Enabled: true},
		{Name: "disabled", When: "1 > 2"},
	} {
		e.Reload(ruleSet(t, rules.Rule{Name: "quiet", When: "1 > 2", Enabled: true}, other))
		e.Step(context.Background(), t0.Add(6*time.Second))
		if n := e.SkipQuiet(t0.Add(6*time.Second), time.Second, 5); n != 0 {
			t.Errorf("skipped %d ticks with a rule %s", n, other.Name)
		}
	}
	stale := &swapSource{st: newData(t)}
	stale.stale = true
	e, err = New(Options{Rules: quiet, Source: stale, Executor: &recorder{}, Clock: stubClock{}, Reuse: reuse.Results{}})
	if err != nil {
		t.Fatal(err)
	}
	e.Step(context.Background(), t0)
	if n := e.SkipQuiet(t0, time.Second, 5); n != 0 {
		t.Errorf("skipped %d ticks on stale data", n)
	}
}

// TestSkipQuietThroughAFailingCooldown: a rule that fired and whose
// condition then fails (its data gone) repeats its cooldown ticks with the
// failure's text and error count, and SkipQuiet records exactly those; one
// whose condition turned false repeats its cooldown from the tick after it
// entered it; a rule that reads the clock in its cooldown is stepped tick
// by tick.
func TestSkipQuietThroughAFailingCooldown(t *testing.T) {
	withMarket, err := marketdata.NewState(marketdata.BuildInput{Now: t0,
		Market: &marketdata.MarketFetch{At: t0, Session: marketdata.SessionInfo{Session: marketdata.SessionClosed}}}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	open, err := marketdata.NewState(marketdata.BuildInput{Now: t0,
		Market: &marketdata.MarketFetch{At: t0, Session: marketdata.SessionInfo{Session: "regular", IsOpen: true}}}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, when string
		then       *marketdata.State // the data from the second tick on
		skips      bool
	}{
		{"data gone", "market.is_open == false", newData(t), true},
		{"false since", "market.is_open == false", open, true},
		{"reads the clock", "now_ms < " + itoa(t0.Add(15*time.Second).UnixMilli()), newData(t), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := ruleSet(t, rules.Rule{Name: "r", When: tc.when, Cooldown: 30 * time.Second, Enabled: true})
			engines := [2]*Engine{}
			srcs := [2]*swapSource{}
			for i := range engines {
				srcs[i] = &swapSource{st: withMarket}
				if engines[i], err = New(Options{Rules: rs, Source: srcs[i], Executor: &recorder{}, Clock: stubClock{}, TraceDepth: 64, Reuse: reuse.Results{}}); err != nil {
					t.Fatal(err)
				}
			}
			skipped := int64(0)
			for k := 0; k < 40; k++ {
				at := t0.Add(time.Duration(k) * time.Second)
				if k == 1 {
					srcs[0].st, srcs[1].st = tc.then, tc.then
				}
				engines[0].Step(context.Background(), at)
				engines[1].Step(context.Background(), at)
				if n := engines[1].SkipQuiet(at, time.Second, int64(39-k)); n > 0 {
					skipped += n
					for j := int64(1); j <= n; j++ {
						engines[0].Step(context.Background(), at.Add(time.Duration(j)*time.Second))
					}
					k += int(n)
				}
			}
			a, _, _ := engines[0].Stats()
			b, _, _ := engines[1].Stats()
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(engines[0].Traces("r"), engines[1].Traces("r")) {
				t.Errorf("stepping %+v\n%+v\nskipping %+v\n%+v", a, engines[0].Traces("r"), b, engines[1].Traces("r"))
			}
			if (skipped > 0) != tc.skips {
				t.Errorf("skipped %d ticks, want skips %v", skipped, tc.skips)
			}
		})
	}
}
