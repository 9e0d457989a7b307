package engine

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
)

// TestJournalBeforeTypedRequests: a journal written before requests were
// typed (testdata/intents-before-typed-requests.json, planned by that
// version's executor from one rule with every action kind) reads with each
// request decoded once into the type its operation takes, and is written
// back the same, so a trader who upgrades with firings on disk loses none.
func TestJournalBeforeTypedRequests(t *testing.T) {
	t.Parallel()
	old, err := os.ReadFile("testdata/intents-before-typed-requests.json")
	if err != nil {
		t.Fatal(err)
	}
	intents, err := DecodeJournal(old)
	if err != nil {
		t.Fatal(err)
	}
	wantType := map[exchange.Op]reflect.Type{
		exchange.OpPlaceOrder:        reflect.TypeFor[exchange.PlaceOrderRequest](),
		exchange.OpBatchPlaceOrder:   reflect.TypeFor[exchange.BatchPlaceOrderRequest](),
		exchange.OpModifyOrder:       reflect.TypeFor[exchange.ModifyOrderRequest](),
		exchange.OpCancelOrder:       reflect.TypeFor[exchange.CancelOrderRequest](),
		exchange.OpBatchCancelOrders: reflect.TypeFor[exchange.BatchCancelOrdersRequest](),
		exchange.OpClickBackhand:     reflect.TypeFor[exchange.ClickBackhandRequest](),
		exchange.OpClosePositions:    reflect.TypeFor[exchange.ClosePositionsRequest](),
		exchange.OpCancelAllOrders:   reflect.TypeFor[exchange.CancelAllOrdersRequest](),
	}
	seen := map[exchange.Op]bool{}
	check := func(what string, op exchange.Op, req actions.Request) {
		t.Helper()
		if op == "" {
			if req != nil {
				t.Errorf("%s without an operation holds a request %T", what, req)
			}
			return
		}
		seen[op] = true
		if got := reflect.TypeOf(req); got != wantType[op] {
			t.Errorf("%s of %s holds a %v, want %v", what, op, got, wantType[op])
		}
	}
	for _, in := range intents {
		for _, l := range in.Legs {
			check("plan", l.Plan.Op, l.Plan.Request)
			for _, leg := range l.Legs {
				check("leg", leg.Op, leg.Request)
			}
		}
	}
	for op := range wantType {
		if !seen[op] {
			t.Errorf("the fixture has no request of %s", op)
		}
	}
	if p := intents[0].Legs[0].Plan; p.Request.(exchange.PlaceOrderRequest).PresetStopSurplusPrice != "30000" {
		t.Errorf("place order decoded as %+v", p.Request)
	}
	again, err := json.Marshal(journalDisk{Version: 1, Intents: intents})
	if err != nil {
		t.Fatal(err)
	}
	var before, after any
	if err := json.Unmarshal(old, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &after); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("written back differently:\n%s", again)
	}
}

// TestJournalBadRequest: a recorded request that does not read as the type
// its operation takes, or a plan field this version does not know, makes
// the journal a bad state file (the engine stops, loudly) rather than a
// firing silently dropped.
func TestJournalBadRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, plan, want string }{
		{"a number where a text belongs", `{"kind":"place_order","op":"place-order","request":{"symbol":5}}`, "request of place-order"},
		{"an operation no action sends", `{"kind":"place_order","op":"set-leverage","request":{"symbol":"BTCUSDT"}}`, "not an operation an action sends"},
		{"an unknown plan field", `{"kind":"place_order","op":"place-order","request":{},"extra":1}`, "unknown field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := `{"version":1,"intents":[{"id":"a","rule":"r","legs":[{"plan":` + tt.plan + `}]}]}`
			_, err := DecodeJournal([]byte(file))
			if !errors.Is(err, ErrBadStateFile) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want ErrBadStateFile saying %q", err, tt.want)
			}
		})
	}
}
