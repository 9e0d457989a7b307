package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// recoverVenue records what recovery asks of it.
type recoverVenue struct {
	slowVenue
	settledPlans []string
}

func (r *recoverVenue) Settle(_ context.Context, p actions.Plan, prior []actions.Leg) []actions.Leg {
	if prior != nil {
		panic("recovery of a leg never answered passes no prior legs")
	}
	r.settledPlans = append(r.settledPlans, p.ClientOIDs[0])
	return []actions.Leg{{Op: p.Op, Outcome: actions.OK, ClientOIDs: p.ClientOIDs, Reconciled: true}}
}

// TestRecoverOrAbandon: at start, an unfinished firing in the journal is
// settled by clientOid when its window is still open and abandoned, with
// the reason in the log, when it is not; either way it leaves the journal
// and its rule's state is the one recorded with the intent.
func TestRecoverOrAbandon(t *testing.T) {
	now := t0 // 10:00 New York, Monday 9 March 2026
	tests := []struct {
		name    string
		once    Once
		period  string
		at      time.Time
		abandon string // "" when the firing must be finished
	}{
		{"same day", OncePerDay, "2026-03-09", now.Add(-time.Hour), ""},
		{"day over", OncePerDay, "2026-03-08", now.Add(-20 * time.Hour), "once per_day: it fired in 2026-03-08, and that is over (now 2026-03-09)"},
		{"recent, no once", "", "", now.Add(-time.Minute), ""},
		{"old, no once", "", "", now.Add(-10 * time.Minute), "it fired 10m0s ago, more than 5m0s"},
		{"rule gone", "", "", now, "is no longer in the rule files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := "btc"
			if tt.name == "rule gone" {
				rule = "removed"
			}
			st := RuleState{Phase: PhaseFiring, Since: tt.at, LastFired: tt.at, Firings: 3, OncePeriod: tt.period}
			in := &Intent{ID: "x", Rule: rule, At: tt.at, Seq: 3, Once: tt.once, Period: tt.period, State: st,
				Legs: []IntentLeg{{Plan: actions.Plan{Kind: "place_order", Op: exchange.OpPlaceOrder, Symbol: "BTCUSDT", Request: json.RawMessage(`{}`), ClientOIDs: []string{"tr-x-0"}}}}}
			j := journalOf(t, now, in)
			r := orderRule("btc", "now_ms < 0", "BTCUSDT", 0)
			r.Once = rules.Once(tt.once)
			core, logs := observer.New(zap.InfoLevel)
			v := &recoverVenue{}
			e, err := New(Options{Rules: ruleSet(t, r), Source: &fakeSource{}, Executor: v, Clock: stubClock{}, Journal: j, Logger: zap.New(core)})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.States()["btc"]; rule == "btc" && got != st {
				t.Errorf("rule state %+v, want the intent's %+v", got, st)
			}
			e.Step(context.Background(), now)
			if open := j.Open(); len(open) != 0 {
				t.Errorf("journal still holds %+v", open)
			}
			abandoned := logs.FilterMessage("unfinished firing abandoned: its orders not yet at the venue are not sent").All()
			if tt.abandon == "" {
				if len(abandoned) != 0 || len(v.settledPlans) != 1 || v.settledPlans[0] != "tr-x-0" {
					t.Fatalf("want the leg settled by clientOid: settled %v, abandoned %v", v.settledPlans, abandoned)
				}
				return
			}
			if len(v.settledPlans) != 0 || len(abandoned) != 1 {
				t.Fatalf("want abandoned: settled %v, log %v", v.settledPlans, logs.All())
			}
			if why := abandoned[0].ContextMap()["reason"].(string); !strings.Contains(why, tt.abandon) {
				t.Errorf("reason %q, want %q", why, tt.abandon)
			}
		})
	}
}

// atVenue records the firing time of the plans recovery settles.
type atVenue struct {
	recoverVenue
	at []time.Time
}

func (a *atVenue) Settle(ctx context.Context, p actions.Plan, prior []actions.Leg) []actions.Leg {
	a.at = append(a.at, p.At)
	return a.recoverVenue.Settle(ctx, p, prior)
}

// TestRecoverGivesPlansTheFiringTime: an intent written before plans
// carried their firing's time is settled with the intent's time, so that a
// cancel or close in it is narrowed to what existed then rather than
// refused; a plan's own time is kept.
func TestRecoverGivesPlansTheFiringTime(t *testing.T) {
	now := t0
	fired := now.Add(-time.Minute)
	tests := []struct {
		name   string
		planAt time.Time
		want   time.Time
	}{
		{"recorded without a time", time.Time{}, fired},
		{"recorded with its time", fired.Add(-time.Second), fired.Add(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Intent{ID: "x", Rule: "btc", At: fired, Seq: 1, State: RuleState{Phase: PhaseFiring, Since: fired, LastFired: fired, Firings: 1},
				Legs: []IntentLeg{{Plan: actions.Plan{Kind: "close_positions", Op: exchange.OpClosePositions, Symbol: "BTCUSDT",
					Request: json.RawMessage(`{"productType":"USDT-FUTURES","symbol":"BTCUSDT"}`), ClientOIDs: []string{"none"}, At: tt.planAt}}}}
			j := journalOf(t, now, in)
			v := &atVenue{}
			e, err := New(Options{Rules: ruleSet(t, orderRule("btc", "now_ms < 0", "BTCUSDT", 0)), Source: &fakeSource{}, Executor: v, Clock: stubClock{}, Journal: j})
			if err != nil {
				t.Fatal(err)
			}
			e.Step(context.Background(), now)
			if len(v.at) != 1 || !v.at[0].Equal(tt.want) {
				t.Fatalf("settled with firing times %v, want [%v]", v.at, tt.want)
			}
		})
	}
}

// journalOf is the journal a crashed run left with in open: written, then
// opened again as the next start does.
func journalOf(t *testing.T, now time.Time, in *Intent) *Journal {
	t.Helper()
	dir := t.TempDir()
	j, err := OpenJournal(dir, StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Add(now, in); err != nil {
		t.Fatal(err)
	}
	if j, err = OpenJournal(dir, StateOptions{}); err != nil {
		t.Fatal(err)
	}
	return j
}
