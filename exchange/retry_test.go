package exchange

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
)

// hijackClose drops the connection without an answer: a network error.
func hijackClose(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// runAdvancing runs fn and, whenever it waits on the virtual clock, moves
// the clock forward by step until the wait is over. It gives up after a
// bounded number of steps.
func runAdvancing(t *testing.T, clk *clock.Virtual, fn func() error) error {
	return runAdvancingBy(t, clk, time.Minute, fn)
}

func runAdvancingBy(t *testing.T, clk *clock.Virtual, step time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = fn()
	}()
	for range 10000 {
		if !clk.WaitForWaiters(1, done) {
			return err
		}
		clk.Advance(step)
	}
	t.Fatal("call still waiting on the clock after 10000 steps")
	return nil
}

// answer is one scripted server response.
type answer func(w http.ResponseWriter)

func status(code int, body string) answer {
	return func(w http.ResponseWriter) {
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

var (
	ok200      = status(200, `{"code":"00000","msg":"success","requestTime":1,"data":[{"marginCoin":"USDT","available":"1"}]}`)
	ack200     = status(200, `{"code":"00000","msg":"success","requestTime":1,"data":{"orderId":"1","clientOid":"c"}}`)
	html500    = status(500, "<html><body>Internal Server Error</body></html>")
	html502    = status(502, "<html>Bad Gateway</html>")
	limited429 = status(429, `{"code":"429","msg":"Too Many Requests","requestTime":1,"data":null}`)
	transient  = status(400, `{"code":"45001","msg":"Unknown error","requestTime":1,"data":null}`)
	badSign    = status(400, `{"code":"40009","msg":"sign signature error","requestTime":1,"data":null}`)
	noBalance  = status(400, `{"code":"43012","msg":"Insufficient balance","requestTime":1,"data":null}`)
	garbage200 = status(200, "garbage")
	dropConn   = answer(hijackClose)
)

func script(answers ...answer) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		if n > len(answers) {
			http.Error(w, "script exhausted", http.StatusTeapot)
			return
		}
		answers[n-1](w)
	}
}

// fakeLimiter records what the client asks of a limiter.
type fakeLimiter struct {
	fail      error // returned by Wait when set
	mu        sync.Mutex
	waits     []Op
	penalties []string
	notes     []Op
}

func (f *fakeLimiter) Wait(ctx context.Context, op Op) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, op)
	if f.fail != nil {
		return f.fail
	}
	return ctx.Err()
}

func (f *fakeLimiter) Penalize(op Op, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.penalties = append(f.penalties, fmt.Sprintf("%s %s", op, d))
}

func (f *fakeLimiter) Note429(op Op) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, op)
}

// noKeepAlive keeps Go's transport from silently resending an idempotent
// request on a dropped reused connection, which would hide our own retries.
func noKeepAlive(o *ClientOptions) {
	o.HTTPClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

func TestRetryGET(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answer
		wantReqs  int
		wantErr   func(error) bool // nil: success
		want429   int64
		penalties []string
	}{
		{name: "500 then ok", answers: []answer{html500, html502, ok200}, wantReqs: 3},
		{name: "429 then ok", answers: []answer{limited429, ok200}, wantReqs: 2, want429: 1, penalties: []string{"accounts 1s"}},
		{name: "network error then ok", answers: []answer{dropConn, ok200}, wantReqs: 2},
		{name: "transient code then ok", answers: []answer{transient, ok200}, wantReqs: 2},
		{name: "gives up after MaxAttempts", answers: []answer{html500, html500, html500, html500, ok200}, wantReqs: 4,
			wantErr: func(err error) bool {
				var a *APIError
				return errors.As(err, &a) && a.HTTPStatus == 500 && errors.Is(err, ErrRetryable) && !errors.Is(err, ErrOutcomeUnknown) &&
					strings.Contains(err.Error(), "gave up after 4 attempts")
			}},
		{name: "429 four times", answers: []answer{limited429, limited429, limited429, limited429}, wantReqs: 4, want429: 4,
			penalties: []string{"accounts 1s", "accounts 1s", "accounts 1s", "accounts 1s"},
			wantErr:   func(err error) bool { return errors.Is(err, ErrRateLimited) }},
		{name: "business error not retried", answers: []answer{badSign, ok200}, wantReqs: 1,
			wantErr: func(err error) bool { return errors.Is(err, ErrAuth) }},
		{name: "malformed 200 not retried", answers: []answer{garbage200, ok200}, wantReqs: 1,
			wantErr: func(err error) bool { return errors.Is(err, ErrBadResponse) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			ts.setRespond(script(tt.answers...))
			lim := &fakeLimiter{}
			c, clk := newTestClient(t, ts.URL, func(o *ClientOptions) { noKeepAlive(o); o.Limiter = lim })
			var got []Account
			err := runAdvancing(t, clk, func() error {
				var err error
				got, err = c.Accounts(context.Background(), AccountsRequest{ProductType: USDTFutures})
				return err
			})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				want(t, got, []Account{{MarginCoin: "USDT", Available: "1"}})
			} else if err == nil || !tt.wantErr(err) {
				t.Fatalf("unexpected error %v", err)
			}
			want(t, len(ts.requests()), tt.wantReqs)
			want(t, len(lim.waits), tt.wantReqs) // the limiter is asked before every attempt
			want(t, c.RateLimitedResponses(), tt.want429)
			want(t, lim.penalties, tt.penalties)
			want(t, len(lim.notes), int(tt.want429))
		})
	}
}

func TestPOSTNeverRetried(t *testing.T) {
	tests := []struct {
		name    string
		answer  answer
		unknown bool // ErrOutcomeUnknown: the order may exist
		check   func(error) bool
	}{
		{"500", html500, true, func(err error) bool { return errors.Is(err, ErrRetryable) }},
		{"network error", dropConn, true, func(err error) bool { return !errors.Is(err, ErrBadResponse) }},
		{"malformed 200", garbage200, true, func(err error) bool { return errors.Is(err, ErrBadResponse) }},
		{"429", limited429, false, func(err error) bool { return errors.Is(err, ErrRateLimited) }},
		{"transient code", transient, false, func(err error) bool { return errors.Is(err, ErrRetryable) }},
		{"insufficient balance", noBalance, false, func(err error) bool { return errors.Is(err, ErrInsufficient) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			ts.setRespond(script(tt.answer, ack200, ack200))
			lim := &fakeLimiter{}
			c, clk := newTestClient(t, ts.URL, func(o *ClientOptions) { noKeepAlive(o); o.Limiter = lim })
			err := runAdvancing(t, clk, func() error {
				_, err := c.PlaceOrder(context.Background(), PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures,
					MarginMode: "crossed", MarginCoin: "USDT", Size: "1", Side: Buy, OrderType: "market", ClientOID: "tr-1"})
				return err
			})
			if err == nil || !tt.check(err) {
				t.Fatalf("unexpected error %v", err)
			}
			if got := errors.Is(err, ErrOutcomeUnknown); got != tt.unknown {
				t.Errorf("ErrOutcomeUnknown = %v, want %v (%v)", got, tt.unknown, err)
			}
			want(t, len(ts.requests()), 1)
			want(t, clk.Now(), testNow) // never waited to retry
		})
	}
}

// TestRetryBackoffTiming reads the waits off the ACCESS-TIMESTAMP of each
// attempt while the virtual clock moves in 10ms steps: each wait is within
// the jittered range [d/2, d] of the policy (plus one step).
func TestRetryBackoffTiming(t *testing.T) {
	ts := newTestServer(t)
	ts.setRespond(script(html500, html500, html500, html500))
	c, clk := newTestClient(t, ts.URL, func(o *ClientOptions) {
		o.Retry = RetryPolicy{MaxAttempts: 4, Base: 200 * time.Millisecond, Max: 500 * time.Millisecond}
	})
	const step = 10 * time.Millisecond
	err := runAdvancingBy(t, clk, step, func() error {
		_, err := c.Accounts(context.Background(), AccountsRequest{ProductType: USDTFutures})
		return err
	})
	if err == nil {
		t.Fatal("no error")
	}
	reqs := ts.requests()
	want(t, len(reqs), 4)
	steps := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond} // the last one capped
	for i, d := range steps {
		t0, _ := strconv.ParseInt(reqs[i].header.Get("ACCESS-TIMESTAMP"), 10, 64)
		t1, _ := strconv.ParseInt(reqs[i+1].header.Get("ACCESS-TIMESTAMP"), 10, 64)
		gap := time.Duration(t1-t0) * time.Millisecond
		if gap < d/2 || gap > d+step {
			t.Errorf("wait before attempt %d = %s, want within [%s, %s]", i+2, gap, d/2, d+step)
		}
	}
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{Base: 100 * time.Millisecond, Max: time.Second}.withDefaults()
	tests := []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, 50 * time.Millisecond},
		{1, 1, 100 * time.Millisecond},
		{2, 0.5, 150 * time.Millisecond},
		{3, 1, 400 * time.Millisecond},
		{4, 1, 800 * time.Millisecond},
		{5, 1, time.Second},
		{5, 0, 500 * time.Millisecond},
		{60, 1, time.Second}, // no overflow far past the cap
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n%d_j%g", tt.n, tt.jitter), func(t *testing.T) {
			want(t, p.backoff(tt.n, func() float64 { return tt.jitter }), tt.want)
		})
	}
	want(t, RetryPolicy{}.withDefaults(), RetryPolicy{MaxAttempts: 4, Base: 200 * time.Millisecond, Max: 5 * time.Second})
}

func TestRetryWaitHonoursContext(t *testing.T) {
	ts := newTestServer(t)
	ts.setRespond(script(html500, ok200))
	c, clk := newTestClient(t, ts.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Accounts(ctx, AccountsRequest{ProductType: USDTFutures})
		errc <- err
	}()
	if !clk.WaitForWaiters(1, nil) {
		t.Fatal("client never waited")
	}
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrRetryable) {
		t.Fatalf("err = %v, want context.Canceled and the 500 that caused the wait", err)
	}
	want(t, len(ts.requests()), 1)
}

// TestRetryWithLimiter uses the real Limiter: a 429 penalizes the operation
// for a full window, counted by the limiter and the client.
func TestRetryWithLimiter(t *testing.T) {
	ts := newTestServer(t)
	ts.setRespond(script(limited429, ok200))
	clk := clock.NewVirtual(testNow)
	lim := NewLimiter(LimiterOptions{Clock: clk})
	c, err := NewClient(ClientOptions{BaseURL: ts.URL, Credentials: testCreds, Clock: clk, Limiter: lim, ClockSync: -1})
	if err != nil {
		t.Fatal(err)
	}
	err = runAdvancingBy(t, clk, 50*time.Millisecond, func() error {
		_, err := c.Accounts(context.Background(), AccountsRequest{ProductType: USDTFutures})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := ts.requests()
	want(t, len(reqs), 2)
	t0, _ := strconv.ParseInt(reqs[0].header.Get("ACCESS-TIMESTAMP"), 10, 64)
	t1, _ := strconv.ParseInt(reqs[1].header.Get("ACCESS-TIMESTAMP"), 10, 64)
	if gap := time.Duration(t1-t0) * time.Millisecond; gap < time.Second {
		t.Errorf("retry after %s; the 429 penalty is one window (1s)", gap)
	}
	want(t, lim.Stats().Ops[OpAccounts].Throttled, int64(1))
	want(t, c.RateLimitedResponses(), int64(1))
}

var _ RateLimiter = (*Limiter)(nil)

// TestClientConcurrentUse shares one client between goroutines whose
// requests fail and are retried at the same time (run it with -race).
func TestClientConcurrentUse(t *testing.T) {
	ts := newTestServer(t)
	ts.setRespond(func(n int, w http.ResponseWriter, r *http.Request) {
		if n%2 == 1 {
			html500(w)
			return
		}
		ok200(w)
	})
	c, clk := newTestClient(t, ts.URL, func(o *ClientOptions) { o.Limiter = &fakeLimiter{} })
	const callers = 16
	errs := make(chan error, callers)
	err := runAdvancing(t, clk, func() error {
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				_, err := c.Accounts(context.Background(), AccountsRequest{ProductType: USDTFutures})
				errs <- err
			})
		}
		wg.Wait()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			t.Log(err)
		}
	}
	// Odd-numbered requests fail and even ones succeed, so successes S =
	// floor(N/2) for N requests, while each of the F failed callers used four
	// odd numbers: ceil(N/2) >= 4F, hence 16-F >= 4F-1 and F <= 3, whatever
	// the interleaving.
	if failed > 3 {
		t.Errorf("%d of %d callers failed", failed, callers)
	}
	if n := len(ts.requests()); n < callers+1 {
		t.Errorf("%d requests for %d callers with failures: no retries happened", n, callers)
	}
}

func TestLimiterErrorStopsTheRequest(t *testing.T) {
	ts := newTestServer(t)
	stop := errors.New("budget closed")
	c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.Limiter = &fakeLimiter{fail: stop} })
	_, err := c.PlaceOrder(context.Background(), PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures,
		MarginMode: "crossed", MarginCoin: "USDT", Size: "1", Side: Buy, OrderType: "market"})
	if !errors.Is(err, stop) || errors.Is(err, ErrOutcomeUnknown) || !strings.HasPrefix(err.Error(), "place-order: rate limiter: ") {
		t.Fatalf("err = %v", err)
	}
	want(t, len(ts.requests()), 0)
}
