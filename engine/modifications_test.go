package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// chaseVenue is a source with one pending TSLAUSDT bid under client order id
// oid, and an executor that moves it: each firing's modify_order goes
// through and the bid takes the new client order id, as at the venue.
type chaseVenue struct {
	oid   string
	moves int
	at    time.Time // when the bid was placed or last moved
}

func (c *chaseVenue) State(now time.Time) (*marketdata.State, error) {
	o := exchange.PendingOrder{ListOrder: exchange.ListOrder{Symbol: "TSLAUSDT", Size: "1", OrderID: "o-" + c.oid, ClientOID: c.oid,
		Price: "250", Status: exchange.StateLive, Side: exchange.Buy, OrderType: exchange.Limit, Force: exchange.GTC,
		CTime: exchange.MillisOf(c.at), UTime: exchange.MillisOf(c.at)}}
	return marketdata.NewState(marketdata.BuildInput{Now: now,
		Contracts: []marketdata.ProductContract{{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures}},
		Orders:    []marketdata.OrdersInput{{ProductType: exchange.USDTFutures, Orders: []exchange.PendingOrder{o}, At: now}}}, marketdata.BuildOptions{})
}
func (c *chaseVenue) FullyPolled() bool { return true }
func (c *chaseVenue) Stale(*marketdata.State, marketdata.PartSet) (marketdata.Part, bool) {
	return 0, false
}

func (c *chaseVenue) Execute(_ context.Context, f *Firing) []actions.Leg {
	c.moves++
	next := "chase-" + string(rune('a'+c.moves))
	req := exchange.ModifyOrderRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, OrderID: "o-" + c.oid, NewClientOID: next, NewPrice: "251"}
	if c.moves%2 == 0 {
		req.OrderID, req.ClientOID = "", c.oid // named by client order id, then by order id
	}
	c.oid, c.at = next, f.At
	return []actions.Leg{{Kind: "modify_order", Op: exchange.OpModifyOrder, Request: req, Outcome: actions.OK}}
}

const chaseRules = `
rules:
  - name: chase
    when: any(orders("TSLAUSDT"), .age_seconds >= 2 && .modifications < 3)
    actions:
      - modify_order: { symbol: TSLAUSDT, order_id: "=orders(\"TSLAUSDT\")[0].id", new_price: 251, new_size: 1 }
`

// TestOrderModificationsFollowTheNewClientOID: each move of the bid gives
// it a new client order id; its modifications count follows, the rule
// stops after the third move, and a restart keeps the count. A moved bid
// is a new order, so its age starts again: the rule, which moves a bid two
// seconds old, fires again two seconds after each move.
func TestOrderModificationsFollowTheNewClientOID(t *testing.T) {
	rs, errs := rules.LoadBytes(context.Background(), "chase.yaml", []byte(chaseRules), rules.LoadOptions{Actions: actions.Defs()})
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	store, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	venue := &chaseVenue{oid: "by-hand", at: t0.Add(-time.Minute)}
	e, err := New(Options{Rules: rs, Source: venue, Executor: venue, Clock: atClock{t0}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 10; s++ {
		e.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
	}
	if venue.moves != 3 {
		t.Errorf("the bid was moved %d times, want 3", venue.moves)
	}
	e2, err := New(Options{Rules: rs, Source: venue, Executor: venue, Clock: atClock{t0.Add(10 * time.Second)}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := venue.State(t0.Add(10 * time.Second))
	e2.modifications.observe(st)
	if os := st.AllOrders(); len(os) != 1 || os[0].Modifications != 3 {
		t.Errorf("after a restart the bid's modifications read %+v, want 3", os)
	}
	for s := 10; s < 15; s++ {
		e2.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
	}
	if venue.moves != 3 {
		t.Errorf("after a restart the rule moved the bid again (%d moves)", venue.moves)
	}
}

func TestDecodeModifications(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"ok", `{"version":1,"orders":{"tr-1":{"count":2,"at":"2026-03-09T14:00:00Z"}}}`, ""},
		{"count 0", `{"version":1,"orders":{"tr-1":{"count":0,"at":"2026-03-09T14:00:00Z"}}}`, "below 1"},
		{"no orders", `{"version":1}`, "not a version 1"},
		{"unknown field", `{"version":1,"orders":{},"x":1}`, "unknown field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeModifications([]byte(tt.file))
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !errors.Is(err, ErrBadStateFile) || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzDecodeModifications: no input panics.
func FuzzDecodeModifications(f *testing.F) {
	f.Add([]byte(`{"version":1,"orders":{"tr-1":{"count":2,"at":"2026-03-09T14:00:00Z"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodeModifications(b) })
}
