package notify

import (
	"errors"
	"net/url"
	"strings"
)

// redactURL returns what of a target's URL may be logged: the scheme and
// host. Paths and queries of webhook URLs carry tokens.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(url hidden)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// redactError returns err's message with every secret replaced, as an
// error. An *url.Error (which quotes the whole URL) is rebuilt from its
// parts with the redacted URL; the secrets are then scrubbed from what is
// left in case a lower layer quoted them too.
func redactError(err error, rawURL string, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Op + " " + redactURL(rawURL) + ": " + ue.Err.Error()
	}
	return redactedError{msg: scrub(msg, secrets), timeout: isTimeout(err)}
}

// scrub replaces every occurrence of a secret in s.
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "<redacted>")
		}
	}
	return s
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// redactedError is an error whose text holds no secret; it keeps no
// reference to the original error, whose text may.
type redactedError struct {
	msg     string
	timeout bool
}

func (e redactedError) Error() string { return e.msg }

// Timeout reports whether the original error was a timeout.
func (e redactedError) Timeout() bool { return e.timeout }
