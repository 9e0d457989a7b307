package server

import (
	"encoding/json"
	"errors"
	"net/http"
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

// write encodes r in the envelope with requestTime now and sends it.
func (r reply) write(w http.ResponseWriter, now time.Time) error {
	var data json.RawMessage
	if r.data != nil {
		b, err := json.Marshal(r.data)
		if err != nil {
			// A response type that cannot be encoded is a simulator bug; the
			// client still gets a well-formed envelope.
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
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, err = w.Write(body)
	return err
}
