package notify

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/clock"
)

// request is one request a receiver got.
type request struct {
	path string
	body string
}

// receiver is a loopback webhook receiver: it records every request and
// answers with the next of its scripted answers (200 when they run out).
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []request
	// answers are served in order: status, Retry-After header and body.
	answers []answer
}

type answer struct {
	status     int
	retryAfter string
	body       string
}

func newReceiver(t *testing.T, answers ...answer) *receiver {
	t.Helper()
	r := &receiver{answers: answers}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, request{path: req.URL.Path, body: string(b)})
		a := answer{status: http.StatusOK, body: `{"ok":true}`}
		if len(r.answers) > 0 {
			a, r.answers = r.answers[0], r.answers[1:]
		}
		r.mu.Unlock()
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.got...)
}

// testStart is the virtual clock's start in every test.
var testStart = time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)

// Secrets the tests use. They share no four characters with each other or
// with the messages, so a leak of any part of them is found.
const (
	testTelegramToken = "7321:QxZvKwPjRtYzMnBv"
	testDiscordToken  = "WqGhUeLsXcDfTgHj"
	testSlackToken    = "Bd4Kq/Vn8Rm/Hs2Wy"
	testWebhookToken  = "JkOiPuYtReWq"
)

// env holds the secret variables a test's notify file names; the URLs
// point at the official services, which New rewrites to the receiver.
func testSecrets(name string) string {
	return map[string]string{
		DefaultTelegramTokenEnv:   testTelegramToken,
		"TICKRULES_DISCORD_URL":   "https://discord.com/api/webhooks/4455/" + testDiscordToken,
		"TICKRULES_SLACK_URL":     "https://hooks.slack.com/services/" + testSlackToken,
		"TICKRULES_WEBHOOK_URL":   "", // set per test: it holds the receiver's address
		"TICKRULES_UNSET_EXAMPLE": "",
	}[name]
}

// logBuffer returns a logger writing JSON lines into the returned buffer.
func logBuffer() (*zap.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	cfg := zap.NewProductionEncoderConfig()
	cfg.TimeKey = "" // wall-clock digits could match a token's by chance
	enc := zapcore.NewJSONEncoder(cfg)
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(buf), zapcore.DebugLevel)), buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newTestNotifier builds a notifier over cfg whose services all point at r,
// on a virtual clock.
func newTestNotifier(t *testing.T, cfg *Config, r *receiver, secret func(string) string) (*Notifier, *clock.Virtual, *syncBuffer) {
	t.Helper()
	vc := clock.NewVirtual(testStart)
	log, buf := logBuffer()
	n, err := New(Options{Config: cfg, Secret: secret, Clock: vc, Logger: log, Client: r.srv.Client(),
		BaseURLs: BaseURLs{Telegram: r.srv.URL, Discord: r.srv.URL, Slack: r.srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	return n, vc, buf
}

// flushWithClock runs Flush and expects it to wait exactly the durations
// of want on the virtual clock, in order: each wait must not end one
// millisecond early and must end on time.
func flushWithClock(t *testing.T, n *Notifier, vc *clock.Virtual, want ...time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { n.Flush(ctx); close(done) }()
	for i, w := range want {
		if !vc.WaitForWaiters(1, done) {
			t.Fatalf("wait %d (%v): Flush returned without waiting", i, w)
		}
		vc.Advance(w - time.Millisecond)
		if vc.Waiters() != 1 {
			t.Fatalf("wait %d ended before %v", i, w)
		}
		vc.Advance(time.Millisecond)
		if vc.Waiters() != 0 {
			t.Fatalf("wait %d did not end at %v", i, w)
		}
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Flush still waiting after the expected waits")
	}
}
