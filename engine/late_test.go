package engine

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// TestBeforeOrders: a rule whose last orders went out late waits while a
// part it reads that those orders change (orders, positions, balances,
// strategy orders) was fetched at or before they went out; parts the
// orders cannot change (market data) never make it wait, and neither does
// a rule without late orders.
func TestBeforeOrders(t *testing.T) {
	sent := t0.Add(24 * time.Second)
	st, err := marketdata.NewState(marketdata.BuildInput{Now: sent.Add(2 * time.Second),
		Orders:    []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, At: sent.Add(time.Second)}},
		Positions: []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, At: sent}},
		Books:     []marketdata.BookInput{{Symbol: "TSLAUSDT", At: t0}},
	}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set := func(parts ...marketdata.Part) marketdata.PartSet {
		var s marketdata.PartSet
		for _, p := range parts {
			s = s.Add(p)
		}
		return s
	}
	late := RuleState{Phase: PhaseFiring, LastFired: t0, Firings: 1, OrdersAt: sent}
	tests := []struct {
		name  string
		state RuleState
		reads marketdata.PartSet
		want  marketdata.Part
		wait  bool
	}{
		{"no late orders", RuleState{Phase: PhaseFiring, LastFired: t0, Firings: 1}, set(marketdata.PartPositions), 0, false},
		{"orders fetched after them", late, set(marketdata.PartOrders), 0, false},
		{"positions fetched as they went out", late, set(marketdata.PartOrders, marketdata.PartPositions), marketdata.PartPositions, true},
		{"old market data only", late, set(marketdata.PartStockBook), 0, false},
		{"old book and fresh orders", late, set(marketdata.PartStockBook, marketdata.PartOrders), 0, false},
		{"balances never fetched", late, set(marketdata.PartBalances), marketdata.PartBalances, true},
		{"orders fetched before them", RuleState{Phase: PhaseFiring, LastFired: t0, Firings: 1, OrdersAt: sent.Add(2 * time.Second)},
			set(marketdata.PartOrders), marketdata.PartOrders, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, wait := beforeOrders(tt.state, st, tt.reads)
			if wait != tt.wait || (wait && p != tt.want) {
				t.Fatalf("beforeOrders = %s, %v; want %s, %v", p, wait, tt.want, tt.wait)
			}
		})
	}
}

// TestOrdersLate: a firing finished late sets its rule's OrdersAt and saves
// it, only when it is the rule's latest firing, the rule is still loaded
// and the time moves forward.
func TestOrdersLate(t *testing.T) {
	fired := RuleState{Phase: PhaseFiring, Since: t0, LastFired: t0, Firings: 2}
	now := t0.Add(24 * time.Second)
	tests := []struct {
		name  string
		rule  string
		seq   int64
		prior time.Time // the rule's OrdersAt before
		want  time.Time
	}{
		{"the latest firing", "btc", 2, time.Time{}, now},
		{"an earlier firing", "btc", 1, time.Time{}, time.Time{}},
		{"a removed rule", "gone", 2, time.Time{}, time.Time{}},
		{"a later OrdersAt stays", "btc", 2, now.Add(time.Second), now.Add(time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, err := NewStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			st := fired
			st.OrdersAt = tt.prior
			if err := store.Save(map[string]RuleState{"btc": st}); err != nil {
				t.Fatal(err)
			}
			e, err := New(Options{Rules: ruleSet(t, orderRule("btc", "now_ms < 0", "BTCUSDT", 0)), Source: &fakeSource{}, Executor: &okVenue{},
				Clock: &steppedClock{now: now}, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			e.ordersLate(&Intent{ID: "x", Rule: tt.rule, Seq: tt.seq}, false)
			if got := e.States()["btc"].OrdersAt; !got.Equal(tt.want) {
				t.Errorf("OrdersAt %v, want %v", got, tt.want)
			}
			saved, err := store.Load()
			if err != nil {
				t.Fatal(err)
			}
			if got := saved["btc"].OrdersAt; !got.Equal(tt.want) {
				t.Errorf("saved OrdersAt %v, want %v", got, tt.want)
			}
		})
	}
}
