package status

import (
	"encoding/json"
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
// per order of a batch, one per other request.
func OrderRecords(rule string, at time.Time, legs []actions.Leg) []OrderRecord {
	var out []OrderRecord
	for _, l := range legs {
		if l.Kind == "log" {
			continue
		}
		base := OrderRecord{At: at, Rule: rule, Kind: l.Kind, Outcome: l.Outcome, Error: l.Error}
		if len(l.OrderIDs) > 0 {
			base.OrderID = l.OrderIDs[0]
		}
		if len(l.ClientOIDs) > 0 {
			base.ClientOID = l.ClientOIDs[0]
		}
		switch l.Op {
		case exchange.OpPlaceOrder:
			var r exchange.PlaceOrderRequest
			_ = json.Unmarshal(l.Request, &r)
			out = append(out, placed(base, r.Symbol, r.Side, r.TradeSide, r.ReduceOnly, r.OrderType, r.Size, r.Price))
		case exchange.OpBatchPlaceOrder:
			var r exchange.BatchPlaceOrderRequest
			_ = json.Unmarshal(l.Request, &r)
			for i, o := range r.OrderList {
				one := base
				one.ClientOID, one.OrderID = o.ClientOID, ""
				if len(l.OrderIDs) == len(r.OrderList) {
					one.OrderID = l.OrderIDs[i]
				}
				out = append(out, placed(one, r.Symbol, o.Side, o.TradeSide, o.ReduceOnly, o.OrderType, o.Size, o.Price))
			}
		case exchange.OpClickBackhand:
			var r exchange.ClickBackhandRequest
			_ = json.Unmarshal(l.Request, &r)
			base.Symbol, base.Side, base.Size = r.Symbol, string(r.Side), string(r.Size)
			base.Intent, base.Type = "reverse "+holdOf(r.Side), "market"
			out = append(out, base)
		case exchange.OpClosePositions:
			var r exchange.ClosePositionsRequest
			_ = json.Unmarshal(l.Request, &r)
			base.Symbol, base.Intent, base.Type = r.Symbol, "close all", "market"
			if r.HoldSide != "" {
				base.Intent = "close " + string(r.HoldSide)
			}
			if r.Symbol == "" {
				base.Symbol = string(r.ProductType)
			}
			out = append(out, base)
		default:
			var r struct {
				Symbol      string `json:"symbol"`
				ProductType string `json:"productType"`
				NewSize     string `json:"newSize"`
				NewPrice    string `json:"newPrice"`
			}
			_ = json.Unmarshal(l.Request, &r)
			base.Symbol, base.Intent = r.Symbol, opIntent(l.Op)
			if base.Symbol == "" {
				base.Symbol = r.ProductType
			}
			base.Size, base.Price = r.NewSize, r.NewPrice
			out = append(out, base)
		}
	}
	return out
}

func placed(o OrderRecord, symbol string, side exchange.Side, ts exchange.TradeSide, ro exchange.YesNo, typ exchange.OrderType, size, price exchange.Num) OrderRecord {
	o.Symbol, o.Side, o.Type, o.Size = symbol, string(side), string(typ), string(size)
	if typ != exchange.Market {
		o.Price = string(price)
	}
	o.Intent = Intent(side, ts, ro)
	return o
}

// Intent names an order's effect on the position from the fields sent:
// hedge mode carries tradeSide (the side names the position), one-way mode
// marks a close with reduceOnly (the side is the opposite of the position).
func Intent(side exchange.Side, ts exchange.TradeSide, reduceOnly exchange.YesNo) string {
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

func opIntent(op exchange.Op) string {
	switch op {
	case exchange.OpModifyOrder:
		return "modify"
	case exchange.OpCancelOrder, exchange.OpBatchCancelOrders:
		return "cancel"
	case exchange.OpCancelAllOrders:
		return "cancel all"
	}
	return string(op)
}
