package notify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/clock"
)

// Clock is the time the notifier waits on: the rate limit's minute and the
// retries' backoff. Tests pass a virtual clock.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Doer sends one HTTP request; *http.Client is one.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// BaseURLs are the addresses of the chat services. Only tests change them,
// to a loopback receiver: a notify file cannot send a token elsewhere.
type BaseURLs struct {
	Telegram string // default https://api.telegram.org
	Discord  string // default https://discord.com
	Slack    string // default https://hooks.slack.com
}

// The services' public addresses, and the URL prefixes a Discord or Slack
// webhook URL must start with.
const (
	telegramBase  = "https://api.telegram.org"
	discordBase   = "https://discord.com"
	slackBase     = "https://hooks.slack.com"
	discordPrefix = "/api/webhooks/"
	slackPrefix   = "/services/"
)

// Options configure a Notifier. Config is required; the rest have defaults.
type Options struct {
	Config *Config
	// Secret returns the value of a variable a target names (url_env,
	// token_env): the environment, then the credentials file. "" is unset.
	Secret func(name string) string
	Client Doer  // default: an http.Client with a 10s timeout
	Clock  Clock // default: the wall clock
	Logger *zap.Logger
	// MaxAttempts bounds the tries of one message (default 5).
	MaxAttempts int
	// Backoff is the wait before the first retry, doubled for each next one
	// up to MaxBackoff (defaults 1s and 1m). A Retry-After answer wins, up
	// to MaxBackoff.
	Backoff    time.Duration
	MaxBackoff time.Duration
	BaseURLs   BaseURLs
}

// Stats counts what the notifier did, over all targets.
type Stats struct {
	Sent       int64 // messages delivered
	Failed     int64 // messages given up after their tries
	Dropped    int64 // messages dropped because a queue was full
	Suppressed int64 // messages held back by a rate limit
}

// Notifier delivers events to the configured targets, off the caller's
// goroutine. Notify never blocks; Run sends until its context ends.
type Notifier struct {
	opts    Options
	targets []*target
	stats   struct{ sent, failed, dropped, suppressed atomic.Int64 }
}

// New checks opts and resolves every target's URL and secret. An error
// names the variable that is missing, never a value.
func New(opts Options) (*Notifier, error) {
	if opts.Config == nil {
		return nil, errors.New("notify: no config")
	}
	if opts.Secret == nil {
		opts.Secret = func(string) string { return "" }
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = time.Minute
	}
	b := &opts.BaseURLs
	b.Telegram = orDefault(b.Telegram, telegramBase)
	b.Discord = orDefault(b.Discord, discordBase)
	b.Slack = orDefault(b.Slack, slackBase)
	n := &Notifier{opts: opts}
	queue := opts.Config.QueueSize
	if queue <= 0 {
		queue = DefaultQueueSize
	}
	var problems []error
	for _, tc := range opts.Config.Targets {
		t, err := n.resolve(tc, queue)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		n.targets = append(n.targets, t)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return n, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return strings.TrimSuffix(s, "/")
}

// resolve builds the target's URL from the file and the secrets.
func (n *Notifier) resolve(tc TargetConfig, queue int) (*target, error) {
	t := &target{name: tc.Name, kind: tc.Kind, chatID: tc.ChatID, max: tc.MaxPerMinute, events: map[EventKind]bool{},
		queue: make([]Event, 0, queue), size: queue, wake: make(chan struct{}, 1)}
	if t.max <= 0 {
		t.max = DefaultMaxPerMinute
	}
	events := tc.Events
	if len(events) == 0 {
		events = EventKinds()
	}
	for _, e := range events {
		t.events[e] = true
	}
	b := n.opts.BaseURLs
	switch tc.Kind {
	case Telegram:
		name := orDefault(tc.TokenEnv, DefaultTelegramTokenEnv)
		token := n.opts.Secret(name)
		if token == "" {
			return nil, fmt.Errorf("notify target %s: %s is not set (the bot token from @BotFather; set it in the environment or the credentials file)", tc.Name, name)
		}
		t.url = b.Telegram + "/bot" + token + "/sendMessage"
		t.secrets = []string{token}
	case Discord, Slack:
		raw := n.opts.Secret(tc.URLEnv)
		if raw == "" {
			return nil, fmt.Errorf("notify target %s: %s is not set (the %s webhook URL; set it in the environment or the credentials file)", tc.Name, tc.URLEnv, tc.Kind)
		}
		base, prefix, hosts := b.Discord, discordPrefix, []string{discordBase, "https://discordapp.com", "https://ptb.discord.com", "https://canary.discord.com"}
		if tc.Kind == Slack {
			base, prefix, hosts = b.Slack, slackPrefix, []string{slackBase}
		}
		path := ""
		for _, h := range hosts {
			if strings.HasPrefix(raw, h+prefix) {
				path = strings.TrimPrefix(raw, h)
			}
		}
		if path == "" || len(path) == len(prefix) {
			return nil, fmt.Errorf("notify target %s: %s does not hold a %s webhook URL (it must start with %s%s)", tc.Name, tc.URLEnv, tc.Kind, hosts[0], prefix)
		}
		t.url = base + path
		t.secrets = []string{raw, path, strings.TrimPrefix(path, prefix)}
	case Webhook:
		t.url = tc.URL
		if tc.URLEnv != "" {
			t.url = n.opts.Secret(tc.URLEnv)
			if t.url == "" {
				return nil, fmt.Errorf("notify target %s: %s is not set (the webhook URL)", tc.Name, tc.URLEnv)
			}
			if !validURL(t.url) {
				return nil, fmt.Errorf("notify target %s: %s must hold an http:// or https:// URL", tc.Name, tc.URLEnv)
			}
			t.secrets = []string{t.url}
		}
	default:
		return nil, fmt.Errorf("notify target %s: unknown kind %q", tc.Name, tc.Kind)
	}
	return t, nil
}

// Targets returns the names of the targets, for the start-up log line.
func (n *Notifier) Targets() []string {
	out := make([]string, len(n.targets))
	for i, t := range n.targets {
		out[i] = t.name + " (" + string(t.kind) + ")"
	}
	return out
}

// Stats returns the counters.
func (n *Notifier) Stats() Stats {
	return Stats{Sent: n.stats.sent.Load(), Failed: n.stats.failed.Load(), Dropped: n.stats.dropped.Load(), Suppressed: n.stats.suppressed.Load()}
}

// Notify queues ev for every target that gets its kind, or, when ev.To
// names targets, for those only. It never blocks
// and never does I/O beyond a log line: when a target's queue is full its
// oldest message is dropped, counted and logged.
func (n *Notifier) Notify(ev Event) {
	if ev.At.IsZero() {
		ev.At = n.opts.Clock.Now()
	}
	now := n.opts.Clock.Now()
	for _, t := range n.targets {
		if len(ev.To) > 0 && !slices.Contains(ev.To, t.name) || len(ev.To) == 0 && !t.events[ev.Kind] {
			continue
		}
		admitted, dropped := t.add(now, ev)
		if !admitted {
			n.stats.suppressed.Add(1)
		}
		if dropped > 0 {
			n.stats.dropped.Add(int64(dropped))
			n.opts.Logger.Warn("notification queue full: dropped the oldest message", zap.String("target", t.name),
				zap.Int64("dropped_total", t.droppedTotal()))
		}
	}
}

// Run sends the queued messages until ctx ends, one goroutine per target so
// that a slow target does not hold back the others.
func (n *Notifier) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, t := range n.targets {
		wg.Go(func() { n.runTarget(ctx, t) })
	}
	wg.Wait()
}

// Flush delivers what is still queued, including the count of suppressed
// messages, until every queue is empty or ctx ends. The engine calls it
// after it stopped, once Run has returned (a message Run was sending is
// then back in its queue), with a short deadline.
func (n *Notifier) Flush(ctx context.Context) {
	now := n.opts.Clock.Now()
	var wg sync.WaitGroup
	for _, t := range n.targets {
		t.summarize(now, true)
		wg.Go(func() {
			for ctx.Err() == nil {
				ev, ok := t.pop()
				if !ok {
					return
				}
				n.deliver(ctx, t, ev)
			}
		})
	}
	wg.Wait()
}

func (n *Notifier) runTarget(ctx context.Context, t *target) {
	for ctx.Err() == nil {
		ev, ok := t.pop()
		if ok {
			n.deliver(ctx, t, ev)
			continue
		}
		// Suppressed messages are reported when the minute is over, even
		// if nothing else comes.
		var roll <-chan time.Time
		if d, pending := t.untilRoll(n.opts.Clock.Now()); pending {
			roll = n.opts.Clock.After(d)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.wake:
		case now := <-roll:
			t.summarize(now, false)
		}
	}
}

// deliver sends ev to t, retrying network errors, 5xx and 429 answers.
func (n *Notifier) deliver(ctx context.Context, t *target, ev Event) {
	log := n.opts.Logger.With(zap.String("target", t.name), zap.String("event", string(ev.Kind)))
	body, err := payload(t.kind, t.chatID, ev)
	if err != nil {
		n.stats.failed.Add(1)
		log.Error("notification not sent", zap.Error(err))
		return
	}
	wait := n.opts.Backoff
	for attempt := 1; ; attempt++ {
		retryAfter, err := n.post(ctx, t, body)
		if err == nil {
			n.stats.sent.Add(1)
			return
		}
		if ctx.Err() != nil {
			t.requeue(ev) // the engine is stopping: Flush may still send it
			return
		}
		if retryAfter < 0 || attempt >= n.opts.MaxAttempts {
			n.stats.failed.Add(1)
			log.Error("notification not sent", zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		d = min(d, n.opts.MaxBackoff)
		log.Warn("notification failed; retrying", zap.Int("attempt", attempt), zap.Duration("in", d), zap.Error(err))
		select {
		case <-ctx.Done():
			t.requeue(ev)
			return
		case <-n.opts.Clock.After(d):
		}
		wait = min(2*wait, n.opts.MaxBackoff)
	}
}
