package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Messages of the envelopes the server itself produces (the venue's errors
// bring their own).
const (
	msgSuccess      = "success"
	msgNotFound     = "Request URL NOT FOUND"
	msgTooMany      = "Too Many Requests"
	msgInternal     = "Internal error, please retry"
	msgInjectedFail = "Service temporarily unavailable (injected fault)"
)

// reply is one response: the HTTP status and the envelope fields. Every
// response of the server goes through it, so the request log sees them all.
type reply struct {
	status int
	code   string
	msg    string
	data   any
}

func success(data any) reply {
	return reply{status: http.StatusOK, code: exchange.CodeSuccess, msg: msgSuccess, data: data}
}

func failure(status int, code, msg string) reply {
	return reply{status: status, code: code, msg: msg}
}

// errorReply maps an error of the venue or of decoding to its envelope.
// HTTP statuses follow the exchange notes: business and validation errors are
// 400 with the exchange code; anything else is an internal error (500, the
// retryable 45001) because it means the simulator itself failed.
func errorReply(err error) reply {
	var apiErr *exchange.APIError
	if errors.As(err, &apiErr) {
		status := apiErr.HTTPStatus
		if status == 0 {
			status = http.StatusBadRequest
		}
		return failure(status, apiErr.Code, apiErr.Msg)
	}
	var vErr *exchange.ValidationError
	if errors.As(err, &vErr) {
		code := vErr.Code
		if code == "" {
			code = exchange.CodeParamVerify
		}
		return failure(http.StatusBadRequest, code, vErr.Error())
	}
	return failure(http.StatusInternalServerError, exchange.CodeTransient45001, msgInternal)
}

// encode returns the envelope of r with requestTime now. A response whose
// data cannot be encoded is a simulator bug; it becomes an internal error so
// that the client still gets a well-formed envelope, and the returned reply
// says so.
func (r reply) encode(now time.Time) (reply, []byte) {
	var data json.RawMessage
	if r.data != nil {
		b, err := json.Marshal(r.data)
		if err != nil {
			r = failure(http.StatusInternalServerError, exchange.CodeTransient45001, msgInternal)
		} else {
			data = b
		}
	}
	body, err := json.Marshal(exchange.Envelope{
		Code:        r.code,
		Msg:         r.msg,
		RequestTime: exchange.MillisOf(now),
		Data:        data,
	})
	if err != nil {
		// Only strings and a number are left to encode; this cannot fail,
		// and if it ever did the client must still get an envelope.
		r = failure(http.StatusInternalServerError, exchange.CodeTransient45001, msgInternal)
		body = []byte(`{"code":"45001","msg":"` + msgInternal + `","requestTime":` + strconv.FormatInt(now.UnixMilli(), 10) + `,"data":null}`)
	}
	return r, body
}
