package actions

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// Kind declares one action kind in one place: its parameters and the
// load-time checks between them (Def, which the loader, the JSON Schema and
// the reference read), the requests it plans, how its recorded requests are
// read back, whether it can open or grow exposure, and how a trader is
// shown its requests. Each kind is one file of this package
// (place_order.go, log.go...) and one line of Kinds; the loader, the
// executor, the journal, the engine's busy-symbol wait, the status page and
// the guard test read this declaration instead of keeping their own lists
// of kinds.
type Kind struct {
	// Def declares the kind to the rule loader: its name (the action's key
	// in a rule file), its parameters, its exchange operation ("" for a
	// kind that sends nothing) and its load-time checks.
	Def *rules.ActionDef
	// Opens is true when the action can open or grow exposure (an order
	// that is not reducing): the kill switch and the safety file's limits
	// apply to it. An action that cannot (a cancel, a close) goes through
	// them, so that getting out stays possible.
	Opens bool
	// plan builds the requests of one action of a firing, without sending.
	plan func(ctx context.Context, f *firing, a *rules.Action) []Plan
	// decode decodes the JSON of a recorded request of the kind's
	// operation (the journal file); nil for a kind that sends nothing.
	decode func(b []byte) (Request, error)
	// show describes one leg that sends the kind's operation as a trader
	// reads it: one line per order of a batch, one per other request; nil
	// for a kind that sends nothing.
	show func(l Leg) []Shown
}

// Kinds returns every action kind, in the order the reference lists them.
// Adding an action kind: its file, and one line here. The list is built on
// each call, so no caller can change another's.
func Kinds() []Kind {
	return []Kind{
		placeOrderKind(),
		batchPlaceKind(),
		modifyOrderKind(),
		cancelOrderKind(),
		batchCancelKind(),
		reversePositionKind(),
		closePositionsKind(),
		cancelAllKind(),
		protectKind(),
		placeTriggerKind(),
		cancelStrategyOrdersKind(),
		logMessageKind(),
		notifyMessageKind(),
		haltKind(),
	}
}

// declared is every kind, built once and only read: KindOf, Sends, Show and
// the journal's decodeRequest ask it for every leg recorded or shown, and
// building the declarations afresh cost 28 µs and 33 KB per question. It is
// set by init, not by its declaration: the kinds' plans themselves look
// kinds up.
var declared []Kind

func init() { declared = Kinds() }

// Defs returns the declaration of every action kind, in Kinds' order: what
// rules.LoadOptions.Actions, rules.Schema and rules.Reference take.
func Defs() []*rules.ActionDef {
	kinds := Kinds()
	out := make([]*rules.ActionDef, len(kinds))
	for i, k := range kinds {
		out[i] = k.Def
	}
	return out
}

// Name returns the action's key in a rule file.
func (k Kind) Name() rules.ActionKind { return k.Def.Kind }

// KindOf returns the declaration of the action kind named name.
func KindOf(name string) (Kind, bool) {
	for _, k := range declared {
		if string(k.Def.Kind) == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Sends reports whether an action of kind name sends anything to the
// exchange (Kind.Sends); an unknown kind counts as sending, the careful
// answer (a rule that might trade waits for unsettled orders).
func Sends(name string) bool {
	k, ok := KindOf(name)
	return !ok || k.Sends()
}

// Sends reports whether the kind sends anything to the exchange: whether
// its definition names an exchange operation. One that does not (log,
// notify) never waits for another firing's unsettled orders, needs no
// intent on disk and shows as a message, not an order.
func (k Kind) Sends() bool { return k.Op() != "" }

// Op returns the exchange operation the kind's requests use ("" for a kind
// that sends nothing).
func (k Kind) Op() exchange.Op { return k.Def.Op }

// Request is the typed body of one request an action sends: one of the
// exchange package's request structs, the one its operation takes
// (exchange.PlaceOrderRequest for place-order...). It stays typed from
// planning through sending, the journal and the status page; it is JSON
// only on the wire and in the journal file, where Plan and Leg decode it
// once, by operation (decodeRequest).
type Request any

// decodeAs decodes b as the request type R.
func decodeAs[R any](b []byte) (Request, error) {
	var r R
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return r, nil
}

// decodeRequest decodes the recorded JSON body of a request of op, by the
// kind that sends op. An empty body or null is no request.
func decodeRequest(op exchange.Op, b []byte) (Request, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	for _, k := range declared {
		if k.decode != nil && k.Op() == op {
			r, err := k.decode(b)
			if err != nil {
				return nil, fmt.Errorf("request of %s: %w", op, err)
			}
			return r, nil
		}
	}
	return nil, fmt.Errorf("request of %q: not an operation an action sends", op)
}

// RequestJSON returns the exact JSON body of req as it is sent ("null" for
// no request).
func RequestJSON(req Request) []byte { return mustJSON(req) }

// Shown is one request of a leg as a trader reads it (the status page, the
// engine's log).
type Shown struct {
	Symbol string // the contract, or the product type of a request on all of them
	Side   string
	// Intent is the order in a trader's words: open long, close short,
	// reverse long, close all, cancel.
	Intent    string
	Type      string
	Size      string
	Price     string // empty for a market order
	ClientOID string
	OrderID   string
}

// Show describes l as a trader reads it: one Shown per order of a batch,
// one per other request (a leg whose request could not be built shows its
// kind and error with the fields left empty), none for a message (log,
// notify). A request is shown by the kind that sends its operation: a
// cancel_all sent again after a restart as a batch cancel of the orders
// that existed at the firing shows as that batch cancel.
func Show(l Leg) []Shown {
	if !Sends(l.Kind) {
		return nil
	}
	for _, k := range declared {
		if k.show != nil && k.Op() == l.Op {
			return k.show(l)
		}
	}
	return nil
}

// firstIDs is the first order id and client order id of l, for a leg of
// one request.
func firstIDs(l Leg) Shown {
	var s Shown
	if len(l.OrderIDs) > 0 {
		s.OrderID = l.OrderIDs[0]
	}
	if len(l.ClientOIDs) > 0 {
		s.ClientOID = l.ClientOIDs[0]
	}
	return s
}

// OrderIntent names an order's effect on the position from the fields
// sent: hedge mode carries tradeSide (the side names the position), one-way
// mode marks a close with reduceOnly (the side is the opposite of the
// position).
func OrderIntent(side exchange.Side, ts exchange.TradeSide, reduceOnly exchange.YesNo) string {
	switch {
	case ts == exchange.Open:
		return "open " + holdOf(side)
	case ts == exchange.Close:
		return "close " + holdOf(side)
	case reduceOnly == exchange.Yes:
		return "close " + holdOf(side.Opposite())
	case side == "":
		return ""
	}
	return "open " + holdOf(side)
}

func holdOf(s exchange.Side) string {
	if s == exchange.Sell {
		return "short"
	}
	return "long"
}

// symbolOr is symbol, or the product type of a request on all of them.
func symbolOr(symbol string, pt exchange.ProductType) string {
	if symbol == "" {
		return string(pt)
	}
	return symbol
}

// shownOrder describes one order of a place or batch place.
func shownOrder(s Shown, symbol string, side exchange.Side, ts exchange.TradeSide, ro exchange.YesNo, typ exchange.OrderType, size, price exchange.Num) Shown {
	s.Symbol, s.Side, s.Type, s.Size = symbol, string(side), string(typ), string(size)
	if typ != exchange.Market {
		s.Price = string(price)
	}
	s.Intent = OrderIntent(side, ts, ro)
	return s
}
