// Package server serves the simulated exchange over HTTP on the spec's exact
// paths: the response envelope, signature and timestamp verification,
// permissions, per-operation rate limits, and fault injection (latency,
// errors, 429 bursts, dropped connections). What an operation does is the
// Backend's business; this package is only the wire.
//
// Choices where the spec says "not shown" (exchange notes):
//   - Unknown paths, and known paths with the wrong method, answer HTTP 404
//     with code 40404: the route table has no method-only entry to tell them
//     apart, and the real exchange answers both the same way.
//   - Authentication and business errors answer HTTP 400 with their code
//     (40001..40014, 40037 and the venue's codes), as the real exchange does.
//   - Rate limiting answers HTTP 429 with code "429" msg "Too Many Requests".
//   - Internal failures (a panic, an injected error) answer HTTP 500 with the
//     retryable code 45001.
package server

import (
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
	// Logger receives one line per request. Default: no logging.
	Logger *zap.Logger
	Faults Faults
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

// outcome is what one request came to, for the request log.
type outcome struct {
	op      exchange.Op
	uid     string
	reply   reply
	dropped bool
	err     error // of the venue, logged when it was not a business error
}

// ServeHTTP answers one request. Nothing a client sends can take the server
// down: a panic below is logged and answered with a 500 envelope.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Clock.Now()
	began := time.Now()
	var out outcome
	written := false
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p) // our own drop; net/http closes the connection
			}
			s.opts.Logger.Error("panic serving request",
				zap.String("method", r.Method), zap.String("path", r.URL.Path),
				zap.String("op", string(out.op)), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			out.reply = failure(http.StatusInternalServerError, exchange.CodeTransient45001, msgInternal)
			if !written {
				_ = out.reply.write(w, now)
			}
		}
		s.logRequest(r, out, time.Since(began))
	}()

	s.serve(r, now, &out)
	if out.dropped {
		dropConnection(w)
		return
	}
	written = true
	if err := out.reply.write(w, now); err != nil {
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

	t := target{reader: s.opts.Backend.Public()}
	ip := remoteIP(r)
	subject := ip
	if !info.Public {
		venue, acct, err := s.authenticate(r, body, info, now)
		if err != nil {
			out.reply = errorReply(err)
			return
		}
		t = target{reader: venue, trader: venue}
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
// POST (unknown fields ignored, as the exchange does), the query of a GET.
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

// logRequest writes the one line of a request. It never logs a header: the
// ACCESS-* values are credentials.
func (s *Server) logRequest(r *http.Request, out outcome, d time.Duration) {
	status := out.reply.status
	if out.dropped {
		status = 0
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
	s.opts.Logger.Info("request", fields...)
}
