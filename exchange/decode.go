package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
)

// ErrBadResponse is wrapped by every error about a response that is not a
// well-formed envelope of the expected shape: an HTML page, an empty body,
// garbage, truncated JSON, or data null where an object is expected.
var ErrBadResponse = errors.New("bad response")

// snippetLen is how much of a bad body an error quotes: enough to recognise
// an HTML error page or a proxy message, short enough for a log line.
const snippetLen = 100

// decodeResponse turns an HTTP status and body into dst (a pointer to the
// operation's data type) or an error:
//   - an envelope with a code other than 00000 is an *APIError;
//   - a non-2xx status without an envelope is an *APIError with Code "" and
//     the status text as Msg, that also matches ErrBadResponse (so a 5xx HTML
//     page is retryable and a 429 without a body is rate limiting);
//   - anything else that is not the expected shape wraps ErrBadResponse.
//
// The market states endpoint has been seen answering one object instead of
// an array; for OpMarketStates both are accepted. unfilled-strategy-orders
// has no documented real answer: the spec gives a bare array, the venue's
// docs give its sibling history query as {"list": [...]}, and public clients
// disagree, so for OpStrategyOrders both are accepted.
func decodeResponse(op Op, status int, body []byte, dst any) error {
	if done, err := decodeFast(op, status, body, dst); done {
		return err
	}
	// The two-step path classifies what the fast path could not decode; it
	// starts from an empty dst.
	reflect.ValueOf(dst).Elem().SetZero()
	return decodeTwoStep(op, status, body, dst)
}

// decodeTwoStep is decodeResponse without the fast path: envelope first,
// then data. It alone defines the semantics; the fuzz tests hold the fast
// path to it.
func decodeTwoStep(op Op, status int, body []byte, dst any) error {
	env, err := parseEnvelope(op, status, body)
	if err != nil {
		return err
	}
	data := bytes.TrimSpace(env.Data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		if isSliceDst(dst) {
			// An empty list is sometimes sent as null; nothing to decode.
			return nil
		}
		return badResponse(op, status, body, "data is null")
	}
	if op == OpMarketStates && data[0] == '{' && isSliceDst(dst) {
		data = append(append([]byte{'['}, data...), ']')
	}
	if op == OpStrategyOrders && data[0] == '{' && isSliceDst(dst) {
		var wrapped struct {
			List json.RawMessage `json:"list"`
		}
		if json.Unmarshal(data, &wrapped) == nil && len(wrapped.List) > 0 {
			data = wrapped.List
			if bytes.Equal(data, []byte("null")) {
				return nil
			}
		}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return badResponse(op, status, body, fmt.Sprintf("data: %v", err))
	}
	return nil
}

// decodeFast decodes a well-formed 2xx answer straight into dst, without
// first copying the data out as json.RawMessage. It reports done = false for
// anything unusual, which the two-step path then explains.
func decodeFast(op Op, status int, body []byte, dst any) (done bool, err error) {
	if status < 200 || status > 299 {
		return false, nil
	}
	env := struct {
		Code        string   `json:"code"`
		Msg         string   `json:"msg"`
		RequestTime Millis   `json:"requestTime"` // decoded only so both paths reject the same inputs
		Data        dataSink `json:"data"`
	}{Data: dataSink{dst: dst}}
	if json.Unmarshal(body, &env) != nil || env.Code == "" {
		return false, nil
	}
	if env.Code != CodeSuccess {
		return true, &APIError{Op: op, HTTPStatus: status, Code: env.Code, Msg: env.Msg}
	}
	if !env.Data.filled && !isSliceDst(dst) {
		return false, nil // data null or missing
	}
	return true, nil
}

// dataSink decodes the data member into dst and notes whether it was there
// and not null.
type dataSink struct {
	dst    any
	filled bool
}

func (d *dataSink) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	d.filled = true
	return json.Unmarshal(b, d.dst)
}

// parseEnvelope decodes the envelope and checks the code. A successful
// envelope is returned with its data still raw.
func parseEnvelope(op Op, status int, body []byte) (Envelope, error) {
	var env Envelope
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil || env.Code == "" {
		reason := "not a JSON envelope"
		if len(trimmed) == 0 {
			reason = "empty body"
		}
		if status < 200 || status > 299 {
			apiErr := &APIError{Op: op, HTTPStatus: status, Msg: statusText(status)}
			if status == http.StatusTooManyRequests {
				apiErr.Code = CodeTooManyRequests
			}
			return env, fmt.Errorf("%w: %w: %s, body %q", apiErr, ErrBadResponse, reason, snippet(body))
		}
		return env, badResponse(op, status, body, reason)
	}
	if env.Code != CodeSuccess {
		return env, &APIError{Op: op, HTTPStatus: status, Code: env.Code, Msg: env.Msg}
	}
	if status < 200 || status > 299 {
		return env, badResponse(op, status, body, "success code with a failure status")
	}
	return env, nil
}

func badResponse(op Op, status int, body []byte, reason string) error {
	return fmt.Errorf("%s: %w: %s (HTTP %d), body %q", op, ErrBadResponse, reason, status, snippet(body))
}

func snippet(body []byte) []byte {
	if len(body) > snippetLen {
		return body[:snippetLen]
	}
	return body
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return fmt.Sprintf("HTTP status %d", status)
}

func isSliceDst(dst any) bool {
	t := reflect.TypeOf(dst)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Slice
}
