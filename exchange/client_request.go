package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"
)

// requestValidator is implemented by every request type: the client-side
// check of the spec's rules, run before anything is sent. do finds it by type
// assertion, so that the operations without a request share the one path;
// the assertions in client_ops.go keep any request type from lacking it.
type requestValidator interface{ Validate(now time.Time) error }

// payload is a request encoded once and sent by every attempt.
type payload struct {
	query string // GET: the sorted, unencoded query string
	body  []byte // POST: the exact JSON bytes sent and signed
}

// do runs one operation: validate, encode, then per attempt wait for the rate
// limiter, sign, send and decode into T. GETs are retried under the retry
// policy; POSTs are sent once. Every Reader and Trader method is one call of it.
func do[T any](ctx context.Context, c *Client, op Op, req any) (T, error) {
	var out T
	info, ok := LookupOp(op)
	if !ok {
		return out, fmt.Errorf("%s: unknown operation", op)
	}
	if info.RealityPath != "" {
		return doStock[T](ctx, c, info, req)
	}
	return doInfo[T](ctx, c, info, req)
}

// doInfo is do for an operation whose path is already chosen.
func doInfo[T any](ctx context.Context, c *Client, info OpInfo, req any) (T, error) {
	var out T
	op := info.Op
	p, err := c.prepare(info, req)
	if err != nil {
		return out, err
	}
	err = c.send(ctx, info, p, func(status int, body []byte) error {
		out = *new(T) // an earlier attempt may have filled part of it
		return decodeResponse(op, status, body, &out)
	})
	return out, err
}

// prepare validates req and encodes it for info's method.
func (c *Client) prepare(info OpInfo, req any) (payload, error) {
	if err := c.refuseMutating(info); err != nil {
		return payload{}, err
	}
	if !info.Public && c.creds.IsZero() {
		return payload{}, fmt.Errorf("%s: %w", info.Op, ErrNoCredentials)
	}
	if v, ok := req.(requestValidator); ok {
		if err := v.Validate(c.clock.Now()); err != nil {
			return payload{}, withOp(info.Op, err)
		}
	}
	var p payload
	var err error
	switch info.Method {
	case http.MethodGet:
		p.query, err = EncodeQuery(req)
	case http.MethodPost:
		p.body, err = json.Marshal(req)
	default:
		err = fmt.Errorf("method %s not supported", info.Method)
	}
	if err != nil {
		return payload{}, withOp(info.Op, err)
	}
	return p, nil
}

// withOp names op in err. Errors that already name it (the validators set
// Op on every *ValidationError) are returned as they are, joined problems
// included; a lone *ValidationError without Op gets it on a copy; anything
// else is wrapped.
func withOp(op Op, err error) error {
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Op != "" {
		return err
	}
	if ve, ok := err.(*ValidationError); ok {
		named := *ve
		named.Op = op
		return &named
	}
	return fmt.Errorf("%s: %w", op, err)
}

// send runs the attempts of one request. decode turns one HTTP answer into
// the result or an error.
func (c *Client) send(ctx context.Context, info OpInfo, p payload, decode func(status int, body []byte) error) error {
	attempts := 1
	// A clock reading is not retried: a retried answer measures the backoff,
	// not the clock, and the signed request waiting behind it goes on with
	// the last offset anyway.
	if info.Method == http.MethodGet && info.Op != OpServerTime {
		attempts = c.retry.MaxAttempts
	}
	if !info.Public {
		c.syncIfDue(ctx)
	}
	for n := 1; ; n++ {
		err := c.attempt(ctx, info, p, decode)
		if err == nil {
			return nil
		}
		if n >= attempts || !retryable(ctx, err) {
			return c.final(info, err, n)
		}
		d := c.retry.backoff(n, c.rand.Float64)
		c.log.Warn("exchange request failed, retrying",
			zap.String("op", string(info.Op)), zap.Int("attempt", n), zap.Duration("backoff", d), zap.Error(err))
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting to retry after %w: %w", info.Op, err, ctx.Err())
		case <-c.clock.After(d):
		}
	}
}

// final shapes the error of the last of n attempts: transport errors get
// the op and method; a mutating request whose effect cannot be known is
// marked with ErrOutcomeUnknown.
func (c *Client) final(info OpInfo, err error, n int) error {
	var te *transportError
	isTransport := errors.As(err, &te)
	if isTransport {
		err = fmt.Errorf("%s: %s %s: %w", info.Op, info.Method, info.Path, err)
	}
	if n > 1 {
		err = fmt.Errorf("%w (gave up after %d attempts)", err, n)
	}
	if info.Mutating && outcomeUnknown(err, isTransport) {
		err = fmt.Errorf("%w (%w)", err, ErrOutcomeUnknown)
	}
	return err
}

// outcomeUnknown reports whether a failed mutating request may nevertheless
// have been executed: no answer at all, a server error, or a success status
// with a body that cannot be read. A 4xx business error or a 429 means the
// request was refused.
func outcomeUnknown(err error, isTransport bool) bool {
	if isTransport {
		return true
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatus >= 500
	}
	return errors.Is(err, ErrBadResponse)
}

// attempt sends the request once and decodes the answer.
func (c *Client) attempt(ctx context.Context, info OpInfo, p payload, decode func(int, []byte) error) error {
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx, info.Op); err != nil {
			return fmt.Errorf("%s: rate limiter: %w", info.Op, err)
		}
	}
	req, err := c.newRequest(ctx, info, p)
	if err != nil {
		return fmt.Errorf("%s: build request: %w", info.Op, err)
	}
	start := c.clock.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return &transportError{err}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	resp.Body.Close()
	if err != nil {
		return &transportError{fmt.Errorf("read body (HTTP %d): %w", resp.StatusCode, err)}
	}
	c.log.Debug("exchange request",
		zap.String("op", string(info.Op)), zap.Int("status", resp.StatusCode),
		zap.Int("bytes", len(body)), zap.Duration("took", c.clock.Now().Sub(start)))
	if len(body) > maxResponseBytes {
		return badResponse(info.Op, resp.StatusCode, body, fmt.Sprintf("body larger than %d bytes", maxResponseBytes))
	}
	err = decode(resp.StatusCode, body)
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.IsRateLimited() {
		c.noteRateLimited(info)
	}
	return err
}

// noteRateLimited counts a 429 and tells the limiter to hold off for one
// full window of the operation's limit, so that every caller sharing it
// backs off, not only the one whose request failed.
func (c *Client) noteRateLimited(info OpInfo) {
	c.rateLimited.Add(1)
	if c.limiter == nil {
		return
	}
	c.limiter.Penalize(info.Op, info.Per)
	if n, ok := c.limiter.(interface{ Note429(Op) }); ok {
		n.Note429(info.Op)
	}
}

// newRequest builds the signed HTTP request of one attempt. The timestamp is
// taken per attempt, since the exchange rejects one older than 30 s.
func (c *Client) newRequest(ctx context.Context, info OpInfo, p payload) (*http.Request, error) {
	var body io.Reader = http.NoBody
	if info.Method == http.MethodPost {
		body = bytes.NewReader(p.body)
	}
	u := *c.base
	u.Path = info.Path
	// The query is sent as the signing rule gives it (unencoded) except for
	// the characters a URL cannot carry literally ('#', '+'), which are
	// percent-encoded on the wire; the venue decodes them before checking
	// the signature (exchange notes: "Venue's own clientOids").
	u.RawQuery = wireQuery(p.query)
	req, err := http.NewRequestWithContext(ctx, info.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	// Header names are set as the exchange documents them, not canonicalised.
	h := req.Header
	h["Content-Type"] = []string{"application/json"}
	h["locale"] = []string{string(c.locale)}
	// Demo trading marks signed requests only: users report public market
	// data requests with the header refused, and demo market data is the
	// live one (exchange notes, "Demo trading").
	if c.demo && !info.Public {
		h["paptrading"] = []string{"1"}
	}
	if info.Channel && c.channel != "" {
		h["X-CHANNEL-API-CODE"] = []string{c.channel}
	}
	if info.Public {
		return req, nil
	}
	ts := strconv.FormatInt(c.venueNow().UnixMilli(), 10)
	h["ACCESS-KEY"] = []string{c.creds.APIKey}
	h["ACCESS-SIGN"] = []string{Sign(c.creds.Secret, Prehash(ts, info.Method, info.Path, p.query, string(p.body)))}
	h["ACCESS-TIMESTAMP"] = []string{ts}
	h["ACCESS-PASSPHRASE"] = []string{c.creds.Passphrase}
	return req, nil
}
