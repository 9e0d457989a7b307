package exchange

import (
	"errors"
	"fmt"
	"net/http"
)

// Error codes the exchange answers with (exchange notes). The simulator
// answers with the same codes, so callers can branch on them for both.
const (
	CodeSuccess = "00000"

	CodeKeyMissing        = "40001"
	CodeSignMissing       = "40002"
	CodeTimestampInvalid  = "40005"
	CodeKeyInvalid        = "40006"
	CodeTimestampExpired  = "40008"
	CodeSignature         = "40009"
	CodePassphraseMissing = "40011"
	CodeKeyOrPassphrase   = "40012"
	CodePermission        = "40014"
	// CodeNoPermission is the live venue's "The user does not have this
	// permission" (HTTP 400), answered to keys not allowed the reality
	// order book and fills (exchange notes, "Stock data refused").
	CodeNoPermission = "40025"
	CodeKeyUnknown   = "40037"

	CodeParamVerify   = "40017"
	CodeParamEmpty    = "40019"
	CodeParamWrong    = "40020"
	CodeParamNotExist = "40034"
	CodeSymbolInvalid = "40072"
	CodeURLNotFound   = "40404"

	CodeSizeAboveMaxOpen = "40762"
	CodeBalance40754     = "40754"
	CodeBalanceNotEnough = "43012"

	CodeTradeSideOneWay = "40774"
	// CodeParamCheck is the live venue's "parameter verification failed"
	// (400172). Public client code meets it where a hedge-mode field is
	// missing and handles it with 40774 as a position-mode mismatch
	// (WrongPositionMode).
	CodeParamCheck = "400172"

	CodePrecisionSize  = "40808"
	CodePrecisionPrice = "41103"

	CodeSizeBelowMin   = "43006"
	CodeSizeAboveMax   = "43007"
	CodeValueBelowMin  = "45110"
	CodePriceStep      = "45115"
	CodeNoOrderCancel  = "22001"
	CodeOrderNotExist  = "43001"
	CodeOrderNotExist2 = "40768"
	// CodeOrderNotFound is the live venue's answer to a detail lookup of an
	// absent order: "The data of the order cannot be found, please confirm
	// the order number" (exchange notes; ccxt maps it to OrderNotFound, the
	// bitget-api npm SDK names it FUTURES_ORDER_GET_NOT_FOUND).
	CodeOrderNotFound  = "40109"
	CodeNoPosition     = "22002"
	CodeModifyNoNewOID = "22003"

	CodeModifyOnlyUnfilled = "40922"
	CodeModifyUnchanged    = "40923"
	CodeOrderIDOrClientOID = "40924"
	CodeSizePriceTogether  = "40925"
	CodeBatchTooLarge      = "40912"
	CodePosModeLocked      = "40920"

	CodeSpanTooLarge   = "00001"
	CodeOnly90Days     = "40704"
	CodeSpanOver90Days = "40705"

	CodeTransient45001 = "45001"
	CodeTransient40725 = "40725"
	CodeTransient40015 = "40015"

	CodeTooManyRequests = "429"
)

// Sentinel errors for the families callers branch on. An *APIError matches
// them with errors.Is.
var (
	ErrAuth         = errors.New("authentication failed")
	ErrRateLimited  = errors.New("rate limit exceeded")
	ErrNotFound     = errors.New("not found")
	ErrInsufficient = errors.New("insufficient balance or size")
	ErrPrecision    = errors.New("price or size precision")
	ErrRetryable    = errors.New("transient error")
	ErrInvalid      = errors.New("invalid request")
	// ErrForbidden is a refusal of an operation the key may not use: a
	// missing permission (40014, 40025, HTTP 403) anywhere, and on the stock
	// order book and fills, which are whitelist-only on the live venue, also
	// 40006.
	// A caller holds what needs the operation and goes on with the rest.
	ErrForbidden = errors.New("not permitted for this key")
	// ErrUnavailable is an operation the venue does not serve at all: an
	// answer of 40404 or HTTP 404 for its path. eligible-discount-rate is
	// absent from the live venue's current public clients, for example
	// (exchange notes). A caller treats that part as missing ("no tiers")
	// and goes on with the rest.
	ErrUnavailable = errors.New("not served by this venue")
)

// APIError is a response whose code is not 00000, or a non-200 HTTP status.
type APIError struct {
	Op         Op     // operation that failed
	HTTPStatus int    // HTTP status of the response
	Code       string // exchange code, "429" for rate limiting
	Msg        string // exchange message
}

// Error reads like "place-order: 40774 the order type for unilateral position... (HTTP 400)".
func (e *APIError) Error() string {
	return fmt.Sprintf("%s: exchange error %s: %s (HTTP %d)", e.Op, e.Code, e.Msg, e.HTTPStatus)
}

// Is makes errors.Is(err, ErrAuth) and the other families work.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrAuth:
		return e.IsAuth()
	case ErrRateLimited:
		return e.IsRateLimited()
	case ErrNotFound:
		return e.IsNotFound()
	case ErrInsufficient:
		return e.IsInsufficient()
	case ErrPrecision:
		return e.IsPrecision()
	case ErrRetryable:
		return e.IsRetryable()
	case ErrForbidden:
		return e.IsForbidden()
	case ErrUnavailable:
		return e.Code == CodeURLNotFound || e.HTTPStatus == http.StatusNotFound
	}
	return false
}

func (e *APIError) codeIn(codes ...string) bool {
	for _, c := range codes {
		if e.Code == c {
			return true
		}
	}
	return false
}

// IsAuth reports a missing, invalid or expired credential, signature or permission.
func (e *APIError) IsAuth() bool {
	return e.HTTPStatus == 401 || e.HTTPStatus == 403 || e.codeIn(CodeKeyMissing, CodeSignMissing,
		CodeTimestampInvalid, CodeKeyInvalid, CodeTimestampExpired, CodeSignature,
		CodePassphraseMissing, CodeKeyOrPassphrase, CodePermission, CodeKeyUnknown)
}

// IsRateLimited reports HTTP 429 or code 429.
func (e *APIError) IsRateLimited() bool { return e.HTTPStatus == 429 || e.Code == CodeTooManyRequests }

// IsNotFound reports an unknown order, position or URL: the spec's codes
// and the live venue's 40109 for an order lookup. A bare HTTP 404 without
// a code is not counted: a proxy's error page says nothing about an order,
// and reading it as "absent" could make a caller send an order twice.
func (e *APIError) IsNotFound() bool {
	return e.codeIn(CodeNoOrderCancel, CodeOrderNotExist, CodeOrderNotExist2, CodeNoPosition,
		CodeURLNotFound, CodeOrderNotFound)
}

// IsForbidden reports a refusal for want of a permission or a whitelist
// (ErrForbidden). 40014 and 40025 say "no permission" in words wherever
// they come. 40006 counts only on the stock order book and fills: the live
// venue answers it to keys that are not whitelisted for them, while
// elsewhere it means an invalid key.
func (e *APIError) IsForbidden() bool {
	if e.HTTPStatus == 403 || e.codeIn(CodePermission, CodeNoPermission) {
		return true
	}
	return e.Code == CodeKeyInvalid && (e.Op == OpStockOrderBook || e.Op == OpStockFills)
}

// IsInsufficient reports a balance or size limit.
func (e *APIError) IsInsufficient() bool {
	return e.codeIn(CodeSizeAboveMaxOpen, CodeBalance40754, CodeBalanceNotEnough)
}

// IsPrecision reports a price or size that does not fit the contract.
func (e *APIError) IsPrecision() bool {
	return e.codeIn(CodePrecisionSize, CodePrecisionPrice, CodePriceStep)
}

// IsRetryable reports an error that the same request may not get again:
// transient codes, rate limiting and server errors.
func (e *APIError) IsRetryable() bool {
	return e.IsRateLimited() || e.HTTPStatus >= 500 || e.codeIn(CodeTransient45001, CodeTransient40725, CodeTransient40015)
}

// WrongPositionMode reports whether code, the venue's refusal of an order
// request (place-order, an item of batch-place-order, click-backhand),
// says the order's fields do not fit the account's position mode: the
// mode changed in the venue since it was read. sentTradeSide says whether
// the request carried a tradeSide, that is, was built for hedge mode.
//
// 40774 is the answer to a tradeSide in one-way mode (exchange notes; a
// public report sees it for the reverse too). A hedge-mode account asks
// for a tradeSide: the simulator answers its absence with 40019 (parameter
// empty) and the live venue's answer is not documented (users report
// 400172), so those two count only for a request without tradeSide, where
// that is a likely cause. A caller reads the mode again; a refusal for
// another reason leaves it as it was.
func WrongPositionMode(code string, sentTradeSide bool) bool {
	switch code {
	case CodeTradeSideOneWay:
		return true
	case CodeParamEmpty, CodeParamCheck:
		return !sentTradeSide
	}
	return false
}

// ValidationError is a request rejected by the client before anything was
// sent: Field names the request field and Rule says what the spec requires.
type ValidationError struct {
	Op    Op
	Field string
	Rule  string
	// Code is the exchange code a server answers for the same mistake; the
	// simulator answers with it. Empty means CodeParamVerify.
	Code string
}

// Error reads like "place-order: price: required when orderType is limit".
func (e *ValidationError) Error() string {
	if e.Op == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Rule)
	}
	return fmt.Sprintf("%s: %s: %s", e.Op, e.Field, e.Rule)
}

// Is makes errors.Is(err, ErrInvalid) true for every validation error.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }
