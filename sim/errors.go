package sim

import (
	"errors"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Codes the simulator answers where neither the spec nor the notes give one.
// docs/scenarios.md lists them.
const (
	// CodeMarketClosed rejects a new order on a stock future (isRwa YES)
	// while its market is closed, and any order on a contract whose status
	// is not normal.
	CodeMarketClosed = "45135"
	// CodeInsufficientPosition rejects a close or reduce-only order larger
	// than the position it may still close.
	CodeInsufficientPosition = "40757"
	// CodeDuplicateClientOID rejects a clientOid the account already used.
	CodeDuplicateClientOID = "40786"
)

// apiErr is a business error as the exchange answers it: HTTP 400 with code.
func apiErr(op exchange.Op, code, msg string) *exchange.APIError {
	return &exchange.APIError{Op: op, HTTPStatus: 400, Code: code, Msg: msg}
}

// validator is the stateless rule check every exchange request has.
type validator interface{ Validate(now time.Time) error }

// validate runs r's stateless rules and answers the first problem with its
// code, as the exchange would.
// validate is generic so that a request is not boxed into an interface (an
// allocation on every call, most of which are valid).
func validate[R validator](op exchange.Op, r R, now time.Time) error {
	return asAPIError(op, r.Validate(now))
}

func asAPIError(op exchange.Op, err error) error {
	if err == nil {
		return nil
	}
	var ve *exchange.ValidationError
	if errors.As(err, &ve) {
		code := ve.Code
		if code == "" {
			code = exchange.CodeParamVerify
		}
		return apiErr(op, code, ve.Error())
	}
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return apiErr(op, exchange.CodeParamVerify, err.Error())
}

// failure turns an error into a batch failure item.
func failure(err error, ref exchange.OrderAck, symbol string) exchange.BatchFailure {
	f := exchange.BatchFailure{OrderID: ref.OrderID, ClientOID: ref.ClientOID, Symbol: symbol, ErrorMsg: err.Error(), ErrorCode: exchange.CodeParamVerify}
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		f.ErrorMsg, f.ErrorCode = ae.Msg, ae.Code
	}
	return f
}
