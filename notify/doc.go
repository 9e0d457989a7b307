// Package notify tells the trader when something matters: a rule's notify
// action, a rule firing, an order failing or blocked by a guard, stale data
// and the engine stopping. Messages go to webhooks: a generic JSON webhook
// and ready formats for Telegram, Discord and Slack.
//
// Sending never runs on the engine's tick loop: Notify only puts the event
// in a bounded queue per target (dropping the oldest when full) and a sender
// goroutine per target delivers it, with retries and backoff, honouring
// Retry-After, and a per-target rate limit so that a flapping rule cannot
// flood a phone. Tokens and webhook URLs are secrets: they are read from the
// environment or the credentials file, and never appear in a log line or an
// error; the only place they go is the request to the target itself.
package notify
