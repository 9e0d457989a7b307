package notify

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Length limits of the chat services: a longer text is cut, not refused.
const (
	telegramMaxText = 4096
	discordMaxText  = 2000
	slackMaxText    = 3000
)

// webhookPayload is the generic JSON a webhook target receives.
type webhookPayload struct {
	Event EventKind `json:"event"`
	At    string    `json:"at"`
	Rule  string    `json:"rule,omitempty"`
	Text  string    `json:"text"`
}

// telegramPayload is the body of the Bot API's sendMessage: plain text,
// no parse mode, so that a rule's message cannot break the markup.
type telegramPayload struct {
	ChatID string `json:"chat_id"`
	Text   string `json:"text"`
}

// discordPayload is the body of a Discord webhook execution. Mentions are
// switched off: a message quoting "@everyone" must not ping a channel.
type discordPayload struct {
	Content         string          `json:"content"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

type allowedMentions struct {
	Parse []string `json:"parse"`
}

// slackPayload is the body of a Slack incoming webhook.
type slackPayload struct {
	Text string `json:"text"`
}

// payload returns the JSON body for ev in kind's format. Nothing of the
// target's token is in it: Telegram's token is in the URL, Discord's and
// Slack's are the URL.
func payload(kind TargetKind, chatID string, ev Event) ([]byte, error) {
	var v any
	switch kind {
	case Telegram:
		v = telegramPayload{ChatID: chatID, Text: cut(ev.line(), telegramMaxText)}
	case Discord:
		v = discordPayload{Content: cut(ev.line(), discordMaxText), AllowedMentions: allowedMentions{Parse: []string{}}}
	case Slack:
		v = slackPayload{Text: cut(slackEscape(ev.line()), slackMaxText)}
	default:
		v = webhookPayload{Event: ev.Kind, At: ev.At.UTC().Format(time.RFC3339), Rule: ev.Rule, Text: ev.Text}
	}
	// Plain < > & read better in a receiver's log than \u003c escapes.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// slackEscape escapes the three characters Slack reads as markup, so a
// rule's text shows as written.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// cut shortens s to at most n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}
