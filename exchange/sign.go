package exchange

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Prehash builds the string that ACCESS-SIGN signs: timestamp (Unix ms) +
// METHOD (upper case) + requestPath + ("?" + query when query is not empty) +
// body. GET requests have no body; POST requests sign the exact JSON bytes
// sent. The simulator verifies signatures with the same function, so the two
// cannot drift apart.
func Prehash(timestamp, method, requestPath, query, body string) string {
	var b strings.Builder
	b.Grow(len(timestamp) + len(method) + len(requestPath) + 1 + len(query) + len(body))
	b.WriteString(timestamp)
	b.WriteString(strings.ToUpper(method))
	b.WriteString(requestPath)
	if query != "" {
		b.WriteByte('?')
		b.WriteString(query)
	}
	b.WriteString(body)
	return b.String()
}

// Sign returns base64(HMAC-SHA256(secret, prehash)), the value of the
// ACCESS-SIGN header.
func Sign(secret, prehash string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(prehash))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
