package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/tickrules/tickrules/exchange"
)

// Outcome is how one request of an action ended.
type Outcome string

// Outcomes of a request.
const (
	OK      Outcome = "ok"
	Failed  Outcome = "error"
	Blocked Outcome = "blocked" // stopped by a risk guard before sending
	// Unsettled: the venue's answer left it unknown whether the order was
	// placed; Executor.Settle finds out by client order id, off the tick loop.
	Unsettled Outcome = "unsettled"
)

// Leg is the record of one request an action sent: what was sent, how it
// ended, and the order ids it produced. Reports and traces are built from
// legs, so a user can always see the exact request behind an order.
type Leg struct {
	Kind       string      `json:"kind"` // the action as written in the rule file
	Op         exchange.Op `json:"op"`
	Request    Request     `json:"request"` // the typed body sent; its JSON is the exact body
	Outcome    Outcome     `json:"outcome"`
	OrderIDs   []string    `json:"orderIds,omitempty"`
	ClientOIDs []string    `json:"clientOids,omitempty"`
	// Failures lists the failed items of a batch operation.
	Failures []exchange.BatchFailure `json:"failures,omitempty"`
	// Reconciled is true when the outcome was ambiguous and was settled by
	// looking the order up by client order id.
	Reconciled bool `json:"reconciled,omitempty"`
	// Unsettled lists the client order ids of an Unsettled leg whose outcome
	// is unknown (empty for a cancel or close, which has none).
	Unsettled []string `json:"unsettled,omitempty"`
	// Accepted is set on an Unsettled leg the venue answered with success
	// but without an order id: if the lookup does not find the order, it is
	// not sent again (it may have been placed and cancelled at once).
	Accepted bool `json:"accepted,omitempty"`
	// Refused is set on an Unsettled leg the venue refused unread (429): it
	// is sent again, within the executor's retry budget, without a lookup.
	Refused bool `json:"refused,omitempty"`
	// Note explains an ok outcome that did less than asked (nothing to cancel).
	Note  string `json:"note,omitempty"`
	Error string `json:"error,omitempty"`
	// To are the notification targets a notify action names (none: every
	// target that gets its messages).
	To []string `json:"to,omitempty"`
}

// UnmarshalJSON reads a Leg from the journal file, like Plan.UnmarshalJSON:
// strictly, with its request decoded once by operation.
func (l *Leg) UnmarshalJSON(b []byte) error {
	type plain Leg // without this method
	var raw struct {
		plain
		Request json.RawMessage `json:"request"`
	}
	if err := strictUnmarshal(b, &raw); err != nil {
		return fmt.Errorf("leg: %w", err)
	}
	req, err := decodeRequest(raw.Op, raw.Request)
	if err != nil {
		return fmt.Errorf("leg of %s: %w", raw.Kind, err)
	}
	*l = Leg(raw.plain)
	l.Request = req
	return nil
}

// Ambiguous reports whether err leaves it unknown if the exchange applied the
// request: a timeout, a dropped connection or a server error. A definite
// rejection (a 4xx business error, a validation error, a 429, which the
// exchange answers before processing) is not ambiguous.
func Ambiguous(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	if ctx.Err() != nil {
		// Our own cancellation: the request may or may not have left.
		return true
	}
	var ve *exchange.ValidationError
	if errors.As(err, &ve) {
		return false
	}
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatus >= 500 || ae.Code == exchange.CodeTransient45001 || ae.Code == exchange.CodeTransient40725 || ae.Code == exchange.CodeTransient40015
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	// Anything we cannot classify is treated as ambiguous: looking the order
	// up costs one request, a duplicate order costs money.
	return true
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Request types are plain structs of strings; this cannot fail.
		panic(err)
	}
	return b
}
