package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// maxAnswer bounds how much of a target's answer is read: only its error
// description matters.
const maxAnswer = 4096

// post sends body to t once. On failure retryAfter says what to do: -1 do
// not retry (the target refused the message), 0 retry after the backoff, >0
// retry after that long (the target's Retry-After). Errors hold no secret.
func (n *Notifier) post(ctx context.Context, t *target, body []byte) (retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return -1, redactError(err, t.url, t.secrets)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tickrules-notify")
	resp, err := n.opts.Client.Do(req)
	if err != nil {
		return 0, redactError(err, t.url, t.secrets) // network errors are worth a retry
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return 0, nil
	}
	err = fmt.Errorf("%s answered %d%s", t.name, resp.StatusCode, scrub(describeAnswer(answer), t.secrets))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return retryAfterOf(resp.Header.Get("Retry-After"), answer, n.opts.Clock.Now()), err
	default:
		return -1, err
	}
}

// serviceAnswer holds the fields of the services' error answers: Telegram's
// description and parameters.retry_after, Discord's message and retry_after.
type serviceAnswer struct {
	Description string  `json:"description"`
	Message     string  `json:"message"`
	RetryAfter  float64 `json:"retry_after"`
	Parameters  struct {
		RetryAfter float64 `json:"retry_after"`
	} `json:"parameters"`
}

// describeAnswer returns the reason a service gave, when it gave one in
// JSON; ": " is prefixed.
func describeAnswer(b []byte) string {
	var a serviceAnswer
	if json.Unmarshal(b, &a) != nil {
		return ""
	}
	switch {
	case a.Description != "":
		return ": " + cut(a.Description, 200)
	case a.Message != "":
		return ": " + cut(a.Message, 200)
	}
	return ""
}

// retryAfterOf reads the wait a 429 or 5xx answer asks for: the
// Retry-After header in seconds or as an HTTP date, else Telegram's
// parameters.retry_after or Discord's retry_after in the body. 0: none.
func retryAfterOf(header string, body []byte, now time.Time) time.Duration {
	if header != "" {
		if s, err := strconv.ParseFloat(header, 64); err == nil && s >= 0 {
			return max(time.Duration(s*float64(time.Second)), time.Millisecond)
		}
		if t, err := http.ParseTime(header); err == nil {
			return max(t.Sub(now), time.Millisecond)
		}
	}
	var a serviceAnswer
	if json.Unmarshal(body, &a) == nil {
		if s := a.Parameters.RetryAfter; s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		if s := a.RetryAfter; s > 0 {
			return time.Duration(s * float64(time.Second))
		}
	}
	return 0
}
