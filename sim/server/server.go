// Package server serves the simulated exchange over HTTP on the spec's exact
// paths: the response envelope, signature and timestamp verification,
// permissions, per-operation rate limits, and fault injection (latency,
// errors, 429 bursts, dropped connections). What an operation does is the
// Backend's business; this package is only the wire.
//
// Choices where the spec says "not shown" (exchange notes):
//   - Unknown paths, and known paths with the wrong method, answer HTTP 404
//     with code 40404 (not 405): the spec knows no other answer for a
//     request that names no operation.
//   - Authentication and business errors answer HTTP 400 with their code
//     (40001..40014 and the venue's codes), as the real exchange does for
//     40009; clients branch on the code, not on the status.
//   - Auth checks run in this order, the first failure answering: ACCESS-KEY
//     missing 40001, ACCESS-SIGN missing 40002, ACCESS-PASSPHRASE missing
//     40011, ACCESS-TIMESTAMP missing or not ms 40005, more than
//     TimestampWindow from the server clock 40008, unknown key 40006, wrong
//     passphrase 40012, signature 40009, permission 40014. A signature is
//     accepted over the query exactly as received or over the decoded query
//     with keys sorted and values unencoded; a POST signs its exact body.
//   - Public operations (stock-info, states, calendar, contracts, ticker)
//     ignore any credentials sent. locale, paptrading and X-CHANNEL-API-CODE
//     are accepted and ignored; none of them is signed.
//   - Rate limits are token buckets per operation from exchange.Ops (per uid
//     or per remote IP) plus the overall 6000 per minute per IP, on the
//     server clock; they run after authentication, so an unauthenticated
//     flood is answered with auth errors, not 429.
//   - Rate limiting answers HTTP 429 with code "429" msg "Too Many Requests".
//   - Internal failures (a panic, an injected error) answer HTTP 500 with the
//     retryable code 45001.
//
// Where the live venue differs from the spec (exchange notes, "Live venue
// differences"), the server accepts both:
//   - The stock-pair operations answer on the spec's paths and on the live
//     venue's (/api/v3/reality/market/..., /api/v3/account/reality-...),
//     sharing one rate limit per operation.
//   - GET /api/v2/public/time answers AuthClock's time, the clock
//     ACCESS-TIMESTAMP is checked against, so a client that corrects its
//     signing clock by it passes the check; GET /api/v2/mix/account/account
//     answers the single account with its posMode, which the accounts list
//     does not carry.
//   - force is read in either case (GTC as gtc), category of the v3
//     strategy orders in either case; clientOids with '#' and '+' arrive
//     percent-encoded and are signed decoded, or as received.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// Defaults of Options.
const (
	DefaultTimestampWindow = 30 * time.Second
	DefaultMaxBodyBytes    = 1 << 20
)

// Options configures a Server. Only Backend is required.
type Options struct {
	Backend Backend
	// Clock is the server clock: requestTime, the timestamp window, rate
	// limits, latency and burst windows all read it. Default: the wall clock.
	Clock exchange.Clock
	// AuthClock is what ACCESS-TIMESTAMP is checked against. Default: Clock.
	// engine sim sets the wall clock: real clients stamp requests with real
	// time, while the simulated clock may run elsewhere (a scenario in the
	// past, or --speed).
	AuthClock exchange.Clock
	// Logger receives one line per request at debug level, and the
	// server's own troubles (a panic) above it. Default: no logging.
	Logger *zap.Logger
	// OnRequest, when set, is told what every request came to before it is
	// answered: engine sim counts them for its summary lines. It runs on
	// the request's goroutine and must return quickly.
	OnRequest func(RequestOutcome)
	Faults    Faults
	// DisableRateLimits turns the per-operation and per-IP limits off; they
	// are on by default, as on the exchange.
	DisableRateLimits bool
	// TimestampWindow is how far ACCESS-TIMESTAMP may be from the server
	// clock. Default 30 s.
	TimestampWindow time.Duration
	// MaxBodyBytes bounds a POST body. Default 1 MiB.
	MaxBodyBytes int64
}

// Server is the HTTP handler of the simulated exchange.
type Server struct {
	opts   Options
	limits *limiter
	faults *injector
}

// New returns the handler for opts. It panics when opts.Backend is nil, a
// programming error that no request could recover from.
func New(opts Options) *Server {
	if opts.Backend == nil {
		panic("server.New: Options.Backend is nil")
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.AuthClock == nil {
		opts.AuthClock = opts.Clock
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.TimestampWindow <= 0 {
		opts.TimestampWindow = DefaultTimestampWindow
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return &Server{opts: opts, limits: newLimiter(), faults: newInjector(opts.Faults)}
}

// RequestOutcome is what one request came to, for Options.OnRequest.
type RequestOutcome struct {
	Op      exchange.Op // the operation; empty for a path the server does not serve
	Status  int         // HTTP status of the answer; 0 when the connection was dropped
	Code    string      // the envelope's code
	Dropped bool        // the connection was closed without an answer (an injected fault)
}

// outcome is what one request came to, for the request log.
type outcome struct {
	op      exchange.Op
	uid     string
	reply   reply
	dropped bool
	err     error // of the venue, logged when it was not a business error
}

// ServeHTTP answers one request. Nothing a client sends can take the server
// down: a panic below is logged and answered with a 500 envelope. The log
// line is written before the answer, so it exists once the client has it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Clock.Now()
	began := time.Now()
	var out outcome
	var body []byte
	func() {
		defer func() {
			if p := recover(); p != nil {
				s.opts.Logger.Error("panic serving request",
					zap.String("method", r.Method), zap.String("path", r.URL.Path),
					zap.String("op", string(out.op)), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
				out.reply, out.dropped = failure(http.StatusInternalServerError, exchange.CodeTransient45001, msgInternal), false
				out.reply, body = out.reply.encode(now)
			}
		}()
		s.serve(r, now, &out)
		if !out.dropped {
			out.reply, body = out.reply.encode(now)
		}
	}()
	s.logRequest(r, out, time.Since(began))
	if out.dropped {
		dropConnection(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(out.reply.status)
	if _, err := w.Write(body); err != nil {
		s.opts.Logger.Debug("write response", zap.Error(err))
	}
}

// serve routes, authenticates, limits, injects faults and calls the venue,
// recording the result in out.
func (s *Server) serve(r *http.Request, now time.Time, out *outcome) {
	info, ok := exchange.OpForPath(r.Method, r.URL.Path)
	if !ok {
		out.reply = failure(http.StatusNotFound, exchange.CodeURLNotFound, msgNotFound)
		return
	}
	out.op = info.Op
	if s.faults.inBurst(now) {
		out.reply = tooMany()
		return
	}
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		if body, err = readBody(r, s.opts.MaxBodyBytes); err != nil {
			out.reply = errorReply(err)
			return
		}
	}

	t := target{reader: s.opts.Backend.Public(), authNow: s.opts.AuthClock.Now()}
	ip := remoteIP(r)
	subject := ip
	if !info.Public {
		venue, acct, err := s.authenticate(r, body, info, s.opts.AuthClock.Now())
		if err != nil {
			out.reply = errorReply(err)
			return
		}
		t.reader, t.trader = venue, venue
		out.uid = acct.UID
		if info.Scope == exchange.PerUID {
			subject = acct.UID
		}
	}
	if !s.opts.DisableRateLimits && !s.allow(info, subject, ip, now) {
		out.reply = tooMany()
		return
	}

	plan := s.faults.plan()
	if err := s.faults.delay(r.Context(), s.opts.Clock); err != nil {
		// The client has gone; nobody reads the answer, the log does.
		out.reply = failure(http.StatusInternalServerError, exchange.CodeTransient45001, "client went away during injected latency")
		return
	}
	if plan.fail {
		out.reply = failure(http.StatusInternalServerError, exchange.CodeTransient45001, msgInjectedFail)
		return
	}
	if plan.drop && !s.opts.Faults.DropAfterProcessing {
		out.dropped = true
		return
	}

	data, err := handlers[info.Op](r.Context(), t, decoder(r, body))
	if err != nil {
		out.reply, out.err = errorReply(err), err
	} else {
		out.reply = success(data)
	}
	out.dropped = plan.drop
}

// allow takes a token from the overall per-IP bucket and from the
// operation's own bucket (per uid or per IP).
func (s *Server) allow(info exchange.OpInfo, subject, ip string, now time.Time) bool {
	if !s.limits.allow(bucketKey{subject: ip}, exchange.IPLimitPerMinute, time.Minute, now) {
		return false
	}
	return s.limits.allow(bucketKey{op: string(info.Op), subject: subject}, info.Rate, info.Per, now)
}

func tooMany() reply {
	return failure(http.StatusTooManyRequests, exchange.CodeTooManyRequests, msgTooMany)
}

// readBody reads at most limit bytes of the body.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, &exchange.ValidationError{Field: "body", Rule: "could not be read: " + err.Error(), Code: exchange.CodeParamVerify}
	}
	if int64(len(body)) > limit {
		return nil, &exchange.ValidationError{Field: "body", Rule: fmt.Sprintf("larger than %d bytes", limit), Code: exchange.CodeParamVerify}
	}
	return body, nil
}

// decoder returns how the operation's request is read: the JSON body of a
// POST (unknown fields ignored, so that clients sending extra fields work),
// the query of a GET.
func decoder(r *http.Request, body []byte) decodeFunc {
	if r.Method == http.MethodPost {
		return func(dst any) error {
			if err := json.Unmarshal(body, dst); err != nil {
				return &exchange.ValidationError{Field: "body", Rule: "malformed JSON: " + err.Error(), Code: exchange.CodeParamVerify}
			}
			return nil
		}
	}
	q := r.URL.Query()
	return func(dst any) error { return exchange.DecodeQuery(q, dst) }
}

// remoteIP is the host part of the client's address, the subject of per-IP limits.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// dropConnection closes the client's connection without a response.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	// HTTP/2 or a wrapped writer: net/http aborts the stream for us.
	panic(http.ErrAbortHandler)
}

// logRequest writes the one line of a request, at debug level: a client
// polling a few operations a second would otherwise bury everything else
// (engine sim prints a summary instead). It never logs a header: the
// ACCESS-* values are credentials.
func (s *Server) logRequest(r *http.Request, out outcome, d time.Duration) {
	status := out.reply.status
	if out.dropped {
		status = 0
	}
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(RequestOutcome{Op: out.op, Status: status, Code: out.reply.code, Dropped: out.dropped})
	}
	fields := []zap.Field{
		zap.String("method", r.Method),
		zap.String("path", r.URL.Path),
		zap.String("op", string(out.op)),
		zap.Int("status", status),
		zap.String("code", out.reply.code),
		zap.Duration("duration", d),
		zap.String("uid", out.uid),
		zap.Bool("dropped", out.dropped),
	}
	if out.reply.status >= http.StatusInternalServerError && out.err != nil {
		fields = append(fields, zap.Error(out.err))
	}
	s.opts.Logger.Debug("request", fields...)
}

// Timeouts of the HTTP server that NewHTTPServer builds. A client that
// stalls (headers never finished, a body cut off half way, a kept-alive
// connection left open) is cut off after them, so that no client can hold
// the simulator's connections and goroutines forever.
const (
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 10 * time.Second // the whole request, body included
	DefaultWriteTimeout      = 30 * time.Second // from the end of the request to the end of the answer
	DefaultIdleTimeout       = 60 * time.Second // a kept-alive connection between requests
)

// HTTPOptions configure NewHTTPServer. A zero timeout takes its default.
type HTTPOptions struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// WriteTimeout must cover the injected latency (Faults.Latency in wall
	// time) on top of the time the answer takes: engine sim adds it.
	WriteTimeout time.Duration
	IdleTimeout  time.Duration
	// BaseContext is every request's parent context (nil: background).
	BaseContext func(net.Listener) context.Context
	// Logger receives the HTTP server's own errors (nil: none).
	Logger *zap.Logger
}

// NewHTTPServer returns an http.Server for handler with every timeout set.
func NewHTTPServer(handler http.Handler, opts HTTPOptions) *http.Server {
	def := func(d, fallback time.Duration) time.Duration {
		if d <= 0 {
			return fallback
		}
		return d
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: def(opts.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       def(opts.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      def(opts.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       def(opts.IdleTimeout, DefaultIdleTimeout),
		ErrorLog:          zap.NewStdLog(opts.Logger),
		BaseContext:       opts.BaseContext,
	}
}
