package status

import (
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
)

// OrderRecord is one order (or one other request) an action sent, as a
// trader reads it.
type OrderRecord struct {
	At     time.Time `json:"time"`
	Rule   string    `json:"rule"`
	Kind   string    `json:"kind"` // the action as written: place_order, cancel_all...
	Symbol string    `json:"symbol,omitempty"`
	Side   string    `json:"side,omitempty"`
	// Intent is the order in a trader's words: open long, close short,
	// reverse long, close all, cancel.
	Intent    string          `json:"intent"`
	Type      string          `json:"type,omitempty"`
	Size      string          `json:"size,omitempty"`
	Price     string          `json:"price,omitempty"` // empty for a market order
	ClientOID string          `json:"client_oid,omitempty"`
	OrderID   string          `json:"order_id,omitempty"`
	Outcome   actions.Outcome `json:"outcome"`
	Error     string          `json:"error,omitempty"`
}

// OrderRecords describes the legs of one firing of rule at at: one record
// per order of a batch, one per other request, as each action kind shows
// it (actions.Show); messages (log, notify) are not requests.
func OrderRecords(rule string, at time.Time, legs []actions.Leg) []OrderRecord {
	var out []OrderRecord
	for _, l := range legs {
		for _, s := range actions.Show(l) {
			out = append(out, OrderRecord{At: at, Rule: rule, Kind: l.Kind, Symbol: s.Symbol, Side: s.Side, Intent: s.Intent,
				Type: s.Type, Size: s.Size, Price: s.Price, ClientOID: s.ClientOID, OrderID: s.OrderID, Outcome: l.Outcome, Error: l.Error})
		}
	}
	return out
}

// Intent names an order's effect on the position from the fields sent
// (actions.OrderIntent).
func Intent(side exchange.Side, ts exchange.TradeSide, reduceOnly exchange.YesNo) string {
	return actions.OrderIntent(side, ts, reduceOnly)
}
