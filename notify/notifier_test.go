package notify

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
)

var update = flag.Bool("update", false, "rewrite the golden payloads in testdata/")

func oneTarget(tc TargetConfig) *Config {
	if tc.Name == "" {
		tc.Name = string(tc.Kind)
	}
	return &Config{QueueSize: 10, Targets: []TargetConfig{tc}}
}

var testEvent = Event{Kind: Message, At: testStart, Rule: "tsla-stop", Text: "stop fired on TSLAUSDT at 241.5 <sell> & done"}

func TestPayloadFormats(t *testing.T) {
	tests := []struct {
		name     string
		target   TargetConfig
		wantPath string
	}{
		{"webhook", TargetConfig{Kind: Webhook}, "/hook"},
		{"telegram", TargetConfig{Kind: Telegram, ChatID: "-1001234567", TokenEnv: DefaultTelegramTokenEnv}, "/bot" + testTelegramToken + "/sendMessage"},
		{"discord", TargetConfig{Kind: Discord, URLEnv: "TICKRULES_DISCORD_URL"}, "/api/webhooks/4455/" + testDiscordToken},
		{"slack", TargetConfig{Kind: Slack, URLEnv: "TICKRULES_SLACK_URL"}, "/services/" + testSlackToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t)
			if tt.target.Kind == Webhook {
				tt.target.URL = r.srv.URL + "/hook"
			}
			n, vc, _ := newTestNotifier(t, oneTarget(tt.target), r, testSecrets)
			n.Notify(testEvent)
			flushWithClock(t, n, vc)
			got := r.requests()
			if len(got) != 1 {
				t.Fatalf("got %d requests, want 1", len(got))
			}
			if got[0].path != tt.wantPath {
				t.Errorf("path %q, want %q", got[0].path, tt.wantPath)
			}
			golden := filepath.Join("testdata", tt.name+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(got[0].body+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got[0].body+"\n" != string(want) {
				t.Errorf("payload\n%s\nwant\n%s", got[0].body, want)
			}
			if s := n.Stats(); s.Sent != 1 || s.Failed != 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answer
		wantWaits []time.Duration
		wantSent  int64
		wantTries int
	}{
		{"500 then success: backoff doubles",
			[]answer{{status: 500}, {status: 502}}, []time.Duration{time.Second, 2 * time.Second}, 1, 3},
		{"429 with Retry-After seconds",
			[]answer{{status: 429, retryAfter: "7"}}, []time.Duration{7 * time.Second}, 1, 2},
		{"429 with Retry-After as a date",
			[]answer{{status: 429, retryAfter: testStart.Add(30 * time.Second).Format(http.TimeFormat)}}, []time.Duration{30 * time.Second}, 1, 2},
		{"429 with Telegram's retry_after in the body",
			[]answer{{status: 429, body: `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 12","parameters":{"retry_after":12}}`}},
			[]time.Duration{12 * time.Second}, 1, 2},
		{"Retry-After longer than the longest backoff waits the longest backoff",
			[]answer{{status: 503, retryAfter: "3600"}}, []time.Duration{time.Minute}, 1, 2},
		{"400 is not retried",
			[]answer{{status: 400, body: `{"ok":false,"description":"Bad Request: chat not found"}`}}, nil, 0, 1},
		{"gives up after five tries",
			[]answer{{status: 500}, {status: 500}, {status: 500}, {status: 500}, {status: 500}},
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, 0, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, tt.answers...)
			n, vc, logs := newTestNotifier(t, oneTarget(TargetConfig{Kind: Telegram, ChatID: "42"}), r, testSecrets)
			n.Notify(testEvent)
			flushWithClock(t, n, vc, tt.wantWaits...)
			if got := len(r.requests()); got != tt.wantTries {
				t.Errorf("%d tries, want %d", got, tt.wantTries)
			}
			if s := n.Stats(); s.Sent != tt.wantSent || s.Failed != 1-tt.wantSent {
				t.Errorf("stats %+v, want sent %d", s, tt.wantSent)
			}
			assertNoSecret(t, "log", logs.String(), testTelegramToken)
		})
	}
}

// TestNotifyNeverBlocks proves that a receiver that never answers cannot
// hold up the caller: a thousand events go into a queue of ten while the
// virtual clock stands still, so no timeout or backoff can be what freed
// them; the oldest are dropped and counted.
func TestNotifyNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	stall := newReceiver(t)
	stall.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
	})
	defer close(release)
	cfg := oneTarget(TargetConfig{Kind: Webhook, URL: stall.srv.URL, MaxPerMinute: 5000}) // no rate limit here
	n, vc, logs := newTestNotifier(t, cfg, stall, testSecrets)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { n.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()
	n.Notify(testEvent)
	<-arrived // the sender is now stuck in the stalled request

	const events = 1000
	done := make(chan struct{})
	go func() {
		for range events {
			n.Notify(testEvent)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Notify blocked behind a receiver that never answers")
	}
	if !vc.Now().Equal(testStart) {
		t.Fatal("the clock moved")
	}
	if q := n.targets[0].queued(); q != cfg.QueueSize {
		t.Errorf("queue holds %d, want its bound %d", q, cfg.QueueSize)
	}
	// The first event is in flight; of the other 1000, all but 10 are dropped.
	if s := n.Stats(); s.Dropped != events-int64(cfg.QueueSize) {
		t.Errorf("dropped %d, want %d", s.Dropped, events-cfg.QueueSize)
	}
	if !strings.Contains(logs.String(), `"dropped_total":990`) {
		t.Errorf("the drops are not logged with their count:\n%.500s", logs.String())
	}
}

func TestRateLimitCollapses(t *testing.T) {
	r := newReceiver(t)
	n, vc, _ := newTestNotifier(t, oneTarget(TargetConfig{Kind: Slack, URLEnv: "TICKRULES_SLACK_URL", MaxPerMinute: 3}), r, testSecrets)
	for range 10 { // a flapping rule
		n.Notify(testEvent)
	}
	if s := n.Stats(); s.Suppressed != 7 {
		t.Errorf("suppressed %d, want 7", s.Suppressed)
	}
	if q := n.targets[0].queued(); q != 3 {
		t.Fatalf("queued %d in the first minute, want 3", q)
	}
	// The sender sends the three, then waits for the end of the minute to
	// report the held-back count, even with nothing new to send.
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { n.Run(ctx); close(ran) }()
	if !vc.WaitForWaiters(1, ran) {
		t.Fatal("the sender does not wait for the end of the minute")
	}
	if got := len(r.requests()); got != 3 {
		t.Fatalf("sent %d in the first minute, want 3", got)
	}
	vc.Advance(time.Minute)
	cancel()
	<-ran
	flushWithClock(t, n, vc)
	got := r.requests()
	if len(got) != 4 || !strings.Contains(got[3].body, "7 more messages suppressed (at most 3 a minute to slack)") {
		t.Fatalf("want the suppressed count as the 4th message, got %v", got)
	}
	// A new minute lets messages through again.
	n.Notify(testEvent)
	flushWithClock(t, n, vc)
	if got := len(r.requests()); got != 5 {
		t.Errorf("sent %d, want 5", got)
	}
}

// TestFlushAndFilter: at the stop, Flush reports the messages a rate limit
// held back at once; a target gets only the events it lists.
func TestFlushAndFilter(t *testing.T) {
	stopped := Event{Kind: EngineStopped, Text: "stopped"}
	tests := []struct {
		name   string
		target TargetConfig
		events []Event
		want   []string // a part of each body received, in order
	}{
		{"suppressed count at stop", TargetConfig{Kind: Discord, URLEnv: "TICKRULES_DISCORD_URL", MaxPerMinute: 1},
			[]Event{testEvent, testEvent, stopped}, []string{"stop fired on TSLAUSDT", "2 more messages suppressed"}},
		{"events filter", TargetConfig{Kind: Telegram, ChatID: "1", Events: []EventKind{EngineStopped}},
			[]Event{testEvent, stopped}, []string{"engine_stopped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t)
			n, vc, _ := newTestNotifier(t, oneTarget(tt.target), r, testSecrets)
			for _, ev := range tt.events {
				n.Notify(ev)
			}
			flushWithClock(t, n, vc)
			got := r.requests()
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %d messages", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].body, w) {
					t.Errorf("message %d %s lacks %q", i, got[i].body, w)
				}
			}
		})
	}
}

// TestRoutedMessages: a message with To goes to the named targets only,
// whatever their events; one without goes to every target that gets its
// kind.
func TestRoutedMessages(t *testing.T) {
	r := newReceiver(t)
	cfg := &Config{QueueSize: 10, Targets: []TargetConfig{
		{Name: "trader", Kind: Webhook, URL: r.srv.URL + "/trader"},
		{Name: "ops", Kind: Webhook, URL: r.srv.URL + "/ops", Events: []EventKind{EngineStopped}},
		{Name: "security", Kind: Webhook, URL: r.srv.URL + "/security"},
	}}
	n, vc, _ := newTestNotifier(t, cfg, r, testSecrets)
	n.Notify(Event{Kind: Message, At: testStart, Rule: "r", Text: "to ops only", To: []string{"ops"}})
	n.Notify(Event{Kind: Message, At: testStart, Rule: "r", Text: "to everyone"})
	flushWithClock(t, n, vc)
	got := map[string][]string{}
	for _, req := range r.requests() {
		for _, text := range []string{"to ops only", "to everyone"} {
			if strings.Contains(req.body, text) {
				got[req.path] = append(got[req.path], text)
			}
		}
	}
	want := map[string][]string{"/ops": {"to ops only"}, "/trader": {"to everyone"}, "/security": {"to everyone"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

// TestNoSecretLeaks sends to every kind of target through a refused
// connection, a 4xx answer that quotes the URL, and a missing variable, and
// checks that no four characters of any token appear in a payload, a log
// line or an error.
func TestNoSecretLeaks(t *testing.T) {
	secrets := []string{testTelegramToken, testDiscordToken, testSlackToken, testWebhookToken}
	echo := newReceiver(t)
	// An answer that quotes the request's path: the token must be scrubbed.
	echo.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"description":"bad request to ` + req.URL.Path + `"}`))
	})
	closed := newReceiver(t)
	closed.srv.Close() // connection refused: *url.Error quotes the whole URL
	secret := func(name string) string {
		if name == "TICKRULES_WEBHOOK_URL" {
			return closed.srv.URL + "/" + testWebhookToken
		}
		return testSecrets(name)
	}
	cfg := &Config{QueueSize: 10, Targets: []TargetConfig{
		{Name: "tg", Kind: Telegram, ChatID: "42"},
		{Name: "dc", Kind: Discord, URLEnv: "TICKRULES_DISCORD_URL"},
		{Name: "sl", Kind: Slack, URLEnv: "TICKRULES_SLACK_URL"},
		{Name: "wh", Kind: Webhook, URLEnv: "TICKRULES_WEBHOOK_URL"},
	}}
	for _, base := range []string{echo.srv.URL, closed.srv.URL} {
		vc := clock.NewVirtual(testStart)
		log, logs := logBuffer()
		n, err := New(Options{Config: cfg, Secret: secret, Clock: vc, Logger: log, MaxAttempts: 1,
			BaseURLs: BaseURLs{Telegram: base, Discord: base, Slack: base}})
		if err != nil {
			t.Fatal(err)
		}
		n.Notify(testEvent)
		flushWithClock(t, n, vc)
		if s := n.Stats(); s.Failed != 4 {
			t.Errorf("failed %d, want 4", s.Failed)
		}
		if !strings.Contains(logs.String(), "notification not sent") {
			t.Fatalf("no failure logged:\n%s", logs.String())
		}
		for _, s := range secrets {
			assertNoSecret(t, "log", logs.String(), s)
		}
		// The errors themselves, as a caller would see them.
		for _, tg := range n.targets {
			_, err := n.post(context.Background(), tg, []byte(`{}`))
			if err == nil {
				t.Fatal("post succeeded")
			}
			for _, s := range secrets {
				assertNoSecret(t, "error", err.Error(), s)
			}
		}
	}
	// A missing variable is named, its neighbours' values never shown.
	_, err := New(Options{Config: oneTarget(TargetConfig{Kind: Slack, URLEnv: "TICKRULES_UNSET_EXAMPLE"}), Secret: secret})
	if err == nil || !strings.Contains(err.Error(), "TICKRULES_UNSET_EXAMPLE is not set") {
		t.Errorf("err = %v", err)
	}
	// A URL of the wrong service is refused without quoting it.
	_, err = New(Options{Config: oneTarget(TargetConfig{Kind: Discord, URLEnv: "TICKRULES_SLACK_URL"}), Secret: secret})
	if err == nil {
		t.Fatal("a slack URL was taken for discord")
	}
	assertNoSecret(t, "error", err.Error(), testSlackToken)
	// Payloads carry no token (Telegram's is only in the URL path).
	r := newReceiver(t)
	n, vc, _ := newTestNotifier(t, &Config{QueueSize: 10, Targets: cfg.Targets[:3]}, r, testSecrets)
	n.Notify(testEvent)
	flushWithClock(t, n, vc)
	for _, req := range r.requests() {
		for _, s := range secrets {
			assertNoSecret(t, "payload", req.body, s)
		}
	}
}

// assertNoSecret fails when any four consecutive characters of secret
// appear in text.
func assertNoSecret(t *testing.T, what, text, secret string) {
	t.Helper()
	for i := 0; i+4 <= len(secret); i++ {
		if part := secret[i : i+4]; strings.Contains(text, part) {
			t.Errorf("%s contains %q, part of a secret:\n%s", what, part, text)
			return
		}
	}
}

func TestRedactErrorKeepsTimeout(t *testing.T) {
	err := redactError(context.DeadlineExceeded, "https://example.test/x", nil)
	var to interface{ Timeout() bool }
	if !errors.As(err, &to) || !to.Timeout() {
		t.Errorf("lost the timeout: %v", err)
	}
}

// flakyClient fails its first requests as a dropped connection would.
type flakyClient struct {
	fails int
	next  Doer
}

func (c *flakyClient) Do(req *http.Request) (*http.Response, error) {
	if c.fails > 0 {
		c.fails--
		return nil, &url.Error{Op: "Post", URL: req.URL.String(), Err: io.ErrUnexpectedEOF}
	}
	return c.next.Do(req)
}

func TestRetriesNetworkError(t *testing.T) {
	r := newReceiver(t)
	vc := clock.NewVirtual(testStart)
	log, logs := logBuffer()
	n, err := New(Options{Config: oneTarget(TargetConfig{Kind: Telegram, ChatID: "42"}), Secret: testSecrets, Clock: vc, Logger: log,
		Client: &flakyClient{fails: 2, next: r.srv.Client()}, BaseURLs: BaseURLs{Telegram: r.srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(testEvent)
	flushWithClock(t, n, vc, time.Second, 2*time.Second)
	if got := len(r.requests()); got != 1 || n.Stats().Sent != 1 {
		t.Errorf("%d requests arrived, stats %+v", got, n.Stats())
	}
	if !strings.Contains(logs.String(), "unexpected EOF") {
		t.Errorf("the network error is not logged:\n%s", logs.String())
	}
	assertNoSecret(t, "log", logs.String(), testTelegramToken)
}
