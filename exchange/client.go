// Package exchange is the REST client of the exchange interface in
// spec/exchange-api.md and everything the client and the simulator share:
// wire types and enumerations, the operation table, signing, query encoding,
// envelope decoding with typed errors, client-side validation, rate limiting
// and pagination. Reader, Trader and Venue are the interfaces the engine
// uses; *Client satisfies them against a base URL, the simulator in-process.
package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/clock"
)

// Credentials are the API key, secret and passphrase of one account. They
// never print: every fmt verb, JSON, zap and slog show only which of the
// three are set. fmt cannot call methods on a value in an unexported struct
// field, so a struct must not hold Credentials in an unexported field
// without its own Format, as Client has.
type Credentials struct {
	APIKey     string
	Secret     string
	Passphrase string
}

// IsZero reports whether none of the three is set (a public-data client).
func (c Credentials) IsZero() bool { return c == Credentials{} }

// missing names the first unset field, or "" when all three are set.
func (c Credentials) missing() string {
	switch {
	case c.APIKey == "":
		return "APIKey"
	case c.Secret == "":
		return "Secret"
	case c.Passphrase == "":
		return "Passphrase"
	}
	return ""
}

func redacted(s string) string {
	if s == "" {
		return "[empty]"
	}
	return "[redacted]"
}

// String shows which fields are set, never their values.
func (c Credentials) String() string {
	return "Credentials{APIKey:" + redacted(c.APIKey) + ", Secret:" + redacted(c.Secret) +
		", Passphrase:" + redacted(c.Passphrase) + "}"
}

// GoString is String for %#v.
func (c Credentials) GoString() string { return "exchange." + c.String() }

// Format makes every fmt verb (%v, %+v, %#v, %s, %q, %x, ...) print the
// redacted form.
func (c Credentials) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		io.WriteString(f, c.GoString())
		return
	}
	io.WriteString(f, c.String())
}

// MarshalJSON writes the redacted form, so that zap.Any, json.Marshal of a
// struct holding Credentials, and similar reflection never leak them.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{
		"apiKey": redacted(c.APIKey), "secret": redacted(c.Secret), "passphrase": redacted(c.Passphrase),
	})
}

// MarshalLogObject writes the redacted form as a zap object (zap.Object).
func (c Credentials) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("apiKey", redacted(c.APIKey))
	enc.AddString("secret", redacted(c.Secret))
	enc.AddString("passphrase", redacted(c.Passphrase))
	return nil
}

// LogValue writes the redacted form for log/slog.
func (c Credentials) LogValue() slog.Value { return slog.StringValue(c.String()) }

// RateLimiter is what the client needs from a rate limiter: wait for the
// budget of op (honouring ctx), and back off after the server answered 429.
// *Limiter satisfies it; a limiter that also has Note429(Op) is told about
// every 429 as well.
type RateLimiter interface {
	Wait(ctx context.Context, op Op) error
	Penalize(op Op, d time.Duration)
}

// ClientOptions configure NewClient. Zero values mean the defaults given per field.
type ClientOptions struct {
	// BaseURL is scheme and host, for example https://api.example.com or the
	// simulator's http://127.0.0.1:8080. Required; it must not have a path.
	BaseURL string
	// Credentials sign private operations. A client without them can call
	// the public operations only.
	Credentials Credentials
	// Locale is sent in the locale header. Default en-US.
	Locale Locale
	// ChannelAPICode, when set, is sent as X-CHANNEL-API-CODE on the four
	// operations that accept it (OpInfo.Channel).
	ChannelAPICode string
	// Demo sends paptrading: 1 on every signed request, for a demo-trading
	// key; public requests go without it.
	Demo bool
	// HTTPClient sends the requests. Default: a client with a 15s timeout.
	HTTPClient *http.Client
	// Clock stamps ACCESS-TIMESTAMP and times retry backoff. Default clock.Real{}.
	Clock Clock
	// Limiter, when set, is waited on before every attempt of every request;
	// nil (also a nil *Limiter) means no client-side limiting.
	Limiter RateLimiter
	// Logger receives request and retry logs (never credentials). Default zap.NewNop().
	Logger *zap.Logger
	// Retry is the backoff of GET retries; POSTs are never retried.
	Retry RetryPolicy
	// Rand jitters the backoff; seed it for reproducible runs. Default: randomly seeded.
	Rand *rand.Rand
	// ClockSync is how often the offset to the venue's clock is measured
	// (GET /api/v2/public/time) before a signed request: the first signed
	// request measures it, and one is measured again once this much time has
	// passed. Signed requests carry the local time corrected by it. Zero
	// means DefaultClockSync; negative turns measuring off (the local clock
	// is signed as it is, unless SyncClock is called).
	ClockSync time.Duration
	// StockPaths, when set, is the path family of the stock-pair operations
	// and the venue is not asked (StockPathFamily). Empty: ask once.
	StockPaths PathFamily
}

// DefaultHTTPTimeout bounds one HTTP exchange of the default HTTP client.
const DefaultHTTPTimeout = 15 * time.Second

// maxResponseBytes bounds how much of a response body is read: far above any
// page the spec allows (100 orders, 500 records), far below a memory problem.
const maxResponseBytes = 8 << 20

// ErrNoCredentials is returned, before anything is sent, for a private
// operation on a client built without credentials.
var ErrNoCredentials = errors.New("operation needs API credentials")

// ErrOutcomeUnknown is wrapped by the error of a mutating operation whose
// effect is unknown: the request may have been executed although no clean
// answer came back (network error after sending, 5xx, a malformed success
// response). Resolve it by looking the order up by clientOid, never by
// sending it again blindly.
var ErrOutcomeUnknown = errors.New("outcome unknown: look the order up by clientOid before resending")

// Client is the REST client of the exchange. It is safe for concurrent use;
// every caller of one Client shares its rate limiter.
type Client struct {
	base *url.URL
	// creds is a pointer so that fmt, printing a Client reached through an
	// unexported field (where it cannot call Format), shows an address.
	creds   *Credentials
	locale  Locale
	channel string
	demo    bool
	http    *http.Client
	clock   Clock
	limiter RateLimiter
	log     *zap.Logger
	retry   RetryPolicy
	rand    *lockedRand

	sync *clockSync
	// paths is the stock-pair path family once known; pathsSem serialises
	// finding it.
	paths    atomic.Pointer[PathFamily]
	pathsSem chan struct{}

	rateLimited atomic.Int64
	// readOnly refuses every mutating operation (NewReadOnlyClient).
	readOnly bool
}

var _ Venue = (*Client)(nil)

// NewClient checks opts and returns a client.
func NewClient(opts ClientOptions) (*Client, error) {
	base, err := parseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	if !opts.Credentials.IsZero() {
		if f := opts.Credentials.missing(); f != "" {
			return nil, fmt.Errorf("new client: credentials incomplete: %s is empty", f)
		}
	}
	c := &Client{
		base:     base,
		creds:    &Credentials{APIKey: opts.Credentials.APIKey, Secret: opts.Credentials.Secret, Passphrase: opts.Credentials.Passphrase},
		locale:   opts.Locale,
		channel:  opts.ChannelAPICode,
		demo:     opts.Demo,
		http:     opts.HTTPClient,
		clock:    opts.Clock,
		limiter:  opts.Limiter,
		log:      opts.Logger,
		retry:    opts.Retry.withDefaults(),
		sync:     newClockSync(opts.ClockSync),
		pathsSem: make(chan struct{}, 1),
	}
	if opts.StockPaths != "" {
		if !opts.StockPaths.Valid() {
			return nil, fmt.Errorf("new client: stock paths %q: want %q or %q", opts.StockPaths, PathsSpec, PathsReality)
		}
		f := opts.StockPaths
		c.paths.Store(&f)
	}
	if l, ok := c.limiter.(*Limiter); ok && l == nil {
		c.limiter = nil // a nil *Limiter means no limiting, not a nil-pointer panic
	}
	if c.locale == "" {
		c.locale = EnUS
	}
	if !c.locale.Valid() {
		return nil, fmt.Errorf("new client: locale %q: %w", c.locale, locales.check("locale", c.locale))
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	if c.clock == nil {
		c.clock = clock.Real{}
	}
	if c.log == nil {
		c.log = zap.NewNop()
	}
	r := opts.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	c.rand = &lockedRand{r: r}
	return c, nil
}

func parseBaseURL(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("base URL is required")
	}
	u, err := url.Parse(s)
	if err != nil {
		// url errors quote parts of the input, which could carry user info.
		return nil, errors.New("base URL cannot be parsed")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("base URL: scheme must be http or https, got %q", u.Scheme)
	case u.Host == "":
		return nil, errors.New("base URL: host is missing")
	case u.User != nil:
		return nil, errors.New("base URL: must not contain user info")
	case strings.Trim(u.Path, "/") != "":
		return nil, fmt.Errorf("base URL: must not have a path (got %q): operation paths are signed as the spec gives them", u.Path)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("base URL: must not have a query or fragment")
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host}, nil
}

// BaseURL returns the scheme and host requests go to.
func (c *Client) BaseURL() string { return c.base.String() }

// RateLimitedResponses returns how many 429 answers the client has received.
// The limiter should keep it at zero; anything else is worth an alert.
func (c *Client) RateLimitedResponses() int64 { return c.rateLimited.Load() }

// String describes the client without its credentials.
func (c *Client) String() string {
	return fmt.Sprintf("exchange.Client{BaseURL:%s, Credentials:%s, Locale:%s, Demo:%t}", c.base, c.creds, c.locale, c.demo)
}

// Format keeps every fmt verb on the redacted String: the default struct
// printing would show the unexported credentials field.
func (c *Client) Format(f fmt.State, verb rune) { io.WriteString(f, c.String()) }
