package server

import (
	"crypto/hmac"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Header names of a signed request (exchange notes). Their values are
// secrets or derived from secrets: the server never logs them.
const (
	headerKey        = "ACCESS-KEY"
	headerSign       = "ACCESS-SIGN"
	headerPassphrase = "ACCESS-PASSPHRASE"
	headerTimestamp  = "ACCESS-TIMESTAMP"
)

// authError is the rejection of a request's credentials. Every auth failure
// is HTTP 400 with its code, which is what the real exchange answers (for
// example 40009 "sign signature error" comes with 400), so clients branch on
// the code rather than on the status.
func authError(code, msg string) error {
	return &exchange.APIError{HTTPStatus: http.StatusBadRequest, Code: code, Msg: msg}
}

// authenticate checks the headers, timestamp, key, passphrase, signature and
// permissions of a private request, in that order, and returns the account.
// body is the exact body received (empty for GET).
func (s *Server) authenticate(r *http.Request, body []byte, op exchange.OpInfo, now time.Time) (exchange.Venue, AccountAuth, error) {
	h := r.Header
	key, sign, pass, ts := h.Get(headerKey), h.Get(headerSign), h.Get(headerPassphrase), h.Get(headerTimestamp)
	switch {
	case key == "":
		return nil, AccountAuth{}, authError(exchange.CodeKeyMissing, "ACCESS_KEY is required")
	case sign == "":
		return nil, AccountAuth{}, authError(exchange.CodeSignMissing, "ACCESS_SIGN is required")
	case pass == "":
		return nil, AccountAuth{}, authError(exchange.CodePassphraseMissing, "ACCESS_PASSPHRASE is required")
	}
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sent <= 0 {
		return nil, AccountAuth{}, authError(exchange.CodeTimestampInvalid, "Invalid ACCESS_TIMESTAMP: want Unix milliseconds")
	}
	if skew := now.Sub(time.UnixMilli(sent)).Abs(); skew > s.opts.TimestampWindow {
		return nil, AccountAuth{}, authError(exchange.CodeTimestampExpired, "Request timestamp expired")
	}
	venue, acct, ok := s.opts.Backend.Account(key)
	if !ok {
		return nil, AccountAuth{}, authError(exchange.CodeKeyInvalid, "Invalid ACCESS_KEY")
	}
	if !hmac.Equal([]byte(pass), []byte(acct.Passphrase)) {
		return nil, AccountAuth{}, authError(exchange.CodeKeyOrPassphrase, "apikey/passphrase is incorrect")
	}
	if !signatureMatches(acct.Secret, sign, ts, r.Method, r.URL, body) {
		return nil, AccountAuth{}, authError(exchange.CodeSignature, "sign signature error")
	}
	if missing, ok := missingPermission(op.Perms, acct.Perms); !ok {
		return nil, AccountAuth{}, &exchange.APIError{HTTPStatus: http.StatusBadRequest, Code: exchange.CodePermission,
			Msg: "Incorrect permissions, need " + string(missing) + " permission"}
	}
	return venue, acct, nil
}

// signatureMatches verifies sign against the two query strings a correct
// client may have signed (exchange notes): the query exactly as received, and
// the decoded query with keys sorted and values unencoded. The second is what
// the notes prescribe; the first accepts clients that sent their signed
// string verbatim, including characters such as '+' that decode differently.
func signatureMatches(secret, sign, ts, method string, u *url.URL, body []byte) bool {
	candidates := []string{u.RawQuery}
	if sorted := sortedQuery(u.Query()); sorted != u.RawQuery {
		candidates = append(candidates, sorted)
	}
	for _, q := range candidates {
		want := exchange.Sign(secret, exchange.Prehash(ts, method, u.Path, q, string(body)))
		if hmac.Equal([]byte(want), []byte(sign)) {
			return true
		}
	}
	return false
}

// sortedQuery renders q with keys sorted ascending and values unencoded;
// repeated keys keep their values in the order received.
func sortedQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(v)
		}
	}
	return b.String()
}

// implied lists, for a permission an operation requires, the other
// permissions that also grant it: the spec's "read-only or read-write".
var implied = map[exchange.Permission][]exchange.Permission{
	exchange.PermFuturesRead:       {exchange.PermFuturesTrade},
	exchange.PermUnifiedTradeRead:  {exchange.PermUnifiedTradeWrite},
	exchange.PermUnifiedManageRead: {exchange.PermUnifiedManageWrite},
}

// missingPermission returns the first of need that have does not grant.
func missingPermission(need, have []exchange.Permission) (exchange.Permission, bool) {
	for _, p := range need {
		if slices.Contains(have, p) {
			continue
		}
		if slices.ContainsFunc(implied[p], func(q exchange.Permission) bool { return slices.Contains(have, q) }) {
			continue
		}
		return p, false
	}
	return "", true
}
