package notify

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDecodeConfig(t *testing.T) {
	good, err := os.ReadFile("testdata/notify.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeConfig("notify.yaml", good)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Targets) != 4 || c.QueueSize != 50 {
		t.Fatalf("config %+v", c)
	}
	tg := c.Targets[0]
	if tg.Name != "phone" || tg.TokenEnv != DefaultTelegramTokenEnv || tg.MaxPerMinute != DefaultMaxPerMinute || len(tg.Events) != 3 {
		t.Errorf("telegram target %+v", tg)
	}
	if wh := c.Targets[3]; wh.Name != "webhook" || len(wh.Events) != len(EventKinds()) {
		t.Errorf("defaults not filled: %+v", wh)
	}

	tests := []struct {
		name string
		yaml string
		want []string // parts of the error
	}{
		{"unknown key with hint", "notify:\n  targets:\n    - kind: slack\n      url_evn: X\n", []string{"t.yaml:4:7:", `unknown key "url_evn" in notify.targets[0]`, "did you mean url_env?"}},
		{"unknown top key", "notfy:\n  targets: []\n", []string{"t.yaml:1:1:", "did you mean notify?"}},
		{"no section", "{}\n", []string{"no notify: section"}},
		{"no targets", "notify:\n  queue_size: 5\n", []string{"t.yaml:2:3:", "notify has no targets"}},
		{"bad kind", "notify:\n  targets:\n    - kind: telegramm\n      chat_id: \"1\"\n", []string{"t.yaml:3:13:", "did you mean telegram?"}},
		{"telegram needs chat_id", "notify:\n  targets:\n    - kind: telegram\n", []string{"t.yaml:3:7:", "needs chat_id"}},
		{"slack url literal refused", "notify:\n  targets:\n    - kind: slack\n      url: https://hooks.slack.com/services/x\n", []string{"t.yaml:4:12:", "takes url_env, not url"}},
		{"url_env holding a URL", "notify:\n  targets:\n    - kind: discord\n      url_env: https://discord.com/api/webhooks/1/x\n", []string{"url_env must be a variable name"}},
		{"unknown event", "notify:\n  targets:\n    - kind: webhook\n      url: http://127.0.0.1:1/\n      events: [rule_fired, order_failes]\n", []string{"t.yaml:5:28:", "did you mean order_failed?"}},
		{"wrong type", "notify:\n  queue_size: many\n  targets: []\n", []string{"line 2", "many"}},
		{"rate out of range", "notify:\n  targets:\n    - kind: webhook\n      url: http://127.0.0.1:1/\n      max_per_minute: -1\n", []string{"t.yaml:5:23:", "max_per_minute must be between 1 and 600"}},
		{"two names", "notify:\n  targets:\n    - { kind: webhook, url: \"http://127.0.0.1:1/\" }\n    - { kind: webhook, url: \"http://127.0.0.1:2/\" }\n", []string{`two targets are named "webhook"`}},
		{"not yaml", "notify: [\n", []string{"t.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeConfig("t.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrBadConfig) {
				t.Errorf("error does not wrap ErrBadConfig: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzDecodeConfig feeds the decoder arbitrary files: it must return a
// config or an error, never panic, and a config it returns must build a
// notifier when every variable is set.
func FuzzDecodeConfig(f *testing.F) {
	if b, err := os.ReadFile("testdata/notify.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("notify:\n  targets:\n    - kind: telegram\n      chat_id: \"1\"\n"))
	f.Add([]byte("notify:\n  targets:\n    - { kind: slack, url_env: A, events: [x] }\n"))
	f.Add([]byte("notify: {queue_size: 0, targets: [{kind: webhook, url: \"http://x\"}]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeConfig("fuzz.yaml", b)
		if err != nil {
			return
		}
		secret := func(name string) string {
			if strings.Contains(name, "SLACK") {
				return "https://hooks.slack.com/services/T/B/x"
			}
			return "https://discord.com/api/webhooks/1/x"
		}
		if _, err := New(Options{Config: c, Secret: func(n string) string {
			for _, tc := range c.Targets {
				if tc.URLEnv == n && tc.Kind == Slack {
					return secret("SLACK")
				}
			}
			return secret(n)
		}}); err != nil {
			t.Errorf("a decoded config does not build: %v", err)
		}
	})
}
