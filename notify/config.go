package notify

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/rulefmt"
)

// TargetKind is the format a target is sent in.
type TargetKind string

// The target kinds.
const (
	Webhook  TargetKind = "webhook"  // generic JSON POSTed to a URL
	Telegram TargetKind = "telegram" // the Bot API's sendMessage
	Discord  TargetKind = "discord"  // a Discord channel webhook
	Slack    TargetKind = "slack"    // a Slack incoming webhook
)

func targetKinds() []string {
	return []string{string(Webhook), string(Telegram), string(Discord), string(Slack)}
}

// DefaultTelegramTokenEnv is where a telegram target's bot token is read
// when the target does not name another variable.
const DefaultTelegramTokenEnv = "TICKRULES_TELEGRAM_TOKEN"

// Defaults of a notify file.
const (
	DefaultQueueSize    = 100
	DefaultMaxPerMinute = 10
	maxQueueSize        = 10000
	maxPerMinuteLimit   = 600
)

// ErrBadConfig is wrapped by every error of a notify file, so that callers
// can tell a wrong file from a failing target.
var ErrBadConfig = errors.New("notify file")

// Config is the notify section of a notify file.
type Config struct {
	Targets []TargetConfig `yaml:"targets"`
	// QueueSize bounds the messages waiting per target; when full the oldest
	// is dropped (and counted) so the engine never waits for a slow target.
	QueueSize int `yaml:"queue_size"`
}

// TargetConfig is one target as written in the file. Secrets are never
// written here: the file names the environment variable (or credentials
// file line) that holds them.
type TargetConfig struct {
	Name string     `yaml:"name"` // default: the kind
	Kind TargetKind `yaml:"kind"`
	// URL is a webhook target's address when it holds no secret.
	URL string `yaml:"url"`
	// URLEnv names the variable holding the URL of a webhook, discord or
	// slack target: those URLs carry their token.
	URLEnv string `yaml:"url_env"`
	// ChatID is the telegram chat the bot writes to.
	ChatID string `yaml:"chat_id"`
	// TokenEnv names the variable holding a telegram bot token; default
	// TICKRULES_TELEGRAM_TOKEN.
	TokenEnv string `yaml:"token_env"`
	// Events are the kinds the target gets; default all.
	Events []EventKind `yaml:"events"`
	// MaxPerMinute bounds the messages sent to the target in a minute; the
	// rest are counted and reported in one message.
	MaxPerMinute int `yaml:"max_per_minute"`
}

// file is the top level of a notify file.
type file struct {
	Notify *Config `yaml:"notify"`
}

// keys allowed at each level, for the unknown-key check.
var (
	fileKeys   = []string{"notify"}
	configKeys = []string{"targets", "queue_size"}
	targetKeys = []string{"name", "kind", "url", "url_env", "chat_id", "token_env", "events", "max_per_minute"}
)

// LoadConfig reads and checks the notify file at path.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	return DecodeConfig(path, b)
}

// DecodeConfig decodes a notify file strictly: every problem is reported
// with path:line:column, and an unknown key with the key probably meant.
// It fills the defaults and checks each target's fields against its kind.
func DecodeConfig(path string, b []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrBadConfig, path, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%w %s: empty; it needs a notify: section with targets", ErrBadConfig, path)
	}
	d := &decoder{path: path}
	d.keys(root.Content[0], fileKeys, "")
	if n := child(root.Content[0], "notify"); n != nil {
		d.keys(n, configKeys, "notify")
		if ts := child(n, "targets"); ts != nil && ts.Kind == yaml.SequenceNode {
			for i, t := range ts.Content {
				d.keys(t, targetKeys, fmt.Sprintf("notify.targets[%d]", i))
			}
		}
	}
	if len(d.problems) > 0 {
		return nil, errors.Join(d.problems...)
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrBadConfig, path, err)
	}
	if f.Notify == nil {
		return nil, fmt.Errorf("%w %s: no notify: section", ErrBadConfig, path)
	}
	d.check(f.Notify, child(root.Content[0], "notify"))
	if len(d.problems) > 0 {
		return nil, errors.Join(d.problems...)
	}
	return f.Notify, nil
}

// decoder collects the problems of one file.
type decoder struct {
	path     string
	problems []error
}

func (d *decoder) errorf(n *yaml.Node, hint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if hint != "" {
		msg += "; " + hint
	}
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	d.problems = append(d.problems, fmt.Errorf("%w %s:%d:%d: %s", ErrBadConfig, d.path, line, col, msg))
}

// keys reports every key of the mapping n that is not in allowed.
func (d *decoder) keys(n *yaml.Node, allowed []string, where string) {
	if n.Kind != yaml.MappingNode {
		return // the typed decode reports the wrong shape
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if slices.Contains(allowed, k.Value) {
			continue
		}
		in := "at the top level"
		if where != "" {
			in = "in " + where
		}
		hint := "allowed keys: " + strings.Join(allowed, ", ")
		if s := rulefmt.Suggest(k.Value, allowed); s != "" {
			hint = "did you mean " + s + "? (" + hint + ")"
		}
		d.errorf(k, hint, "unknown key %q %s", k.Value, in)
	}
}

// check fills defaults and reports fields that do not fit a target's kind.
func (d *decoder) check(c *Config, n *yaml.Node) {
	if c.QueueSize == 0 {
		c.QueueSize = DefaultQueueSize
	}
	if c.QueueSize < 1 || c.QueueSize > maxQueueSize {
		d.errorf(child(n, "queue_size"), "", "queue_size must be between 1 and %d, got %d", maxQueueSize, c.QueueSize)
	}
	if len(c.Targets) == 0 {
		d.errorf(n, "add a target, e.g. - { kind: telegram, chat_id: \"123456789\" }", "notify has no targets")
	}
	var tnodes []*yaml.Node
	if ts := child(n, "targets"); ts != nil {
		tnodes = ts.Content
	}
	names := map[string]bool{}
	for i := range c.Targets {
		var tn *yaml.Node
		if i < len(tnodes) {
			tn = tnodes[i]
		}
		d.checkTarget(&c.Targets[i], tn)
		t := &c.Targets[i]
		if names[t.Name] {
			d.errorf(child(tn, "name"), "give each target its own name", "two targets are named %q", t.Name)
		}
		names[t.Name] = true
	}
}

func (d *decoder) checkTarget(t *TargetConfig, n *yaml.Node) {
	at := func(key string) *yaml.Node {
		if c := child(n, key); c != nil {
			return c
		}
		return n
	}
	if !slices.Contains(targetKinds(), string(t.Kind)) {
		hint := "kinds are " + strings.Join(targetKinds(), ", ")
		if s := rulefmt.Suggest(string(t.Kind), targetKinds()); s != "" && t.Kind != "" {
			hint = "did you mean " + s + "?"
		}
		d.errorf(at("kind"), hint, "kind must be one of webhook, telegram, discord or slack, got %q", t.Kind)
		return
	}
	if t.Name == "" {
		t.Name = string(t.Kind)
	}
	if t.MaxPerMinute == 0 {
		t.MaxPerMinute = DefaultMaxPerMinute
	}
	if t.MaxPerMinute < 1 || t.MaxPerMinute > maxPerMinuteLimit {
		d.errorf(at("max_per_minute"), "", "max_per_minute must be between 1 and %d, got %d", maxPerMinuteLimit, t.MaxPerMinute)
	}
	if len(t.Events) == 0 {
		t.Events = EventKinds()
	}
	for i, e := range t.Events {
		if knownEvent(e) {
			continue
		}
		en := at("events")
		if en.Kind == yaml.SequenceNode && i < len(en.Content) {
			en = en.Content[i]
		}
		names := make([]string, 0, len(EventKinds()))
		for _, k := range EventKinds() {
			names = append(names, string(k))
		}
		hint := "events are " + strings.Join(names, ", ")
		if s := rulefmt.Suggest(string(e), names); s != "" {
			hint = "did you mean " + s + "?"
		}
		d.errorf(en, hint, "unknown event %q", e)
	}
	if t.URLEnv != "" && !envName(t.URLEnv) {
		d.errorf(at("url_env"), "url_env names the variable that holds the URL, e.g. TICKRULES_SLACK_URL, not the URL itself", "url_env must be a variable name")
	}
	if t.TokenEnv != "" && !envName(t.TokenEnv) {
		d.errorf(at("token_env"), "token_env names the variable that holds the token, e.g. TICKRULES_TELEGRAM_TOKEN, not the token itself", "token_env must be a variable name")
	}
	switch t.Kind {
	case Telegram:
		if t.ChatID == "" {
			d.errorf(n, "the chat id is the number of the chat the bot writes to, e.g. chat_id: \"123456789\"", "a telegram target needs chat_id")
		}
		if t.URL != "" || t.URLEnv != "" {
			d.errorf(at("url"), "the bot token goes in TICKRULES_TELEGRAM_TOKEN (or the variable token_env names)", "a telegram target has no url")
		}
		if t.TokenEnv == "" {
			t.TokenEnv = DefaultTelegramTokenEnv
		}
	case Discord, Slack:
		if t.URL != "" {
			d.errorf(at("url"), "the webhook URL holds its token: put it in an environment variable (or the credentials file) and write url_env: ITS_NAME", "a %s target takes url_env, not url", t.Kind)
		} else if t.URLEnv == "" {
			d.errorf(n, "write url_env: the name of the variable holding the webhook URL", "a %s target needs url_env", t.Kind)
		}
		d.notTelegram(t, at)
	case Webhook:
		if (t.URL == "") == (t.URLEnv == "") {
			d.errorf(n, "url for an address without a secret, url_env for one that holds a token", "a webhook target needs url or url_env (one of them)")
		}
		if t.URL != "" && !validURL(t.URL) {
			d.errorf(at("url"), "", "url must start with http:// or https://")
		}
		d.notTelegram(t, at)
	}
}

func (d *decoder) notTelegram(t *TargetConfig, at func(string) *yaml.Node) {
	if t.ChatID != "" {
		d.errorf(at("chat_id"), "", "chat_id is for telegram targets only")
	}
	if t.TokenEnv != "" {
		d.errorf(at("token_env"), "", "token_env is for telegram targets only")
	}
}

func validURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// envName reports whether s looks like a variable name: upper-case letters,
// digits and underscores.
func envName(s string) bool {
	for i, r := range s {
		if !(r >= 'A' && r <= 'Z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// child returns the value of key in the mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
