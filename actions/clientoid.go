package actions

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Firing identifies one firing of one rule: the rule's name and the tick time
// at which it fired. The engine persists it before dispatching, so a restart
// that replays the same firing derives the same client order ids and the
// exchange (or reconciliation) recognises the orders it already has.
type Firing struct {
	Rule string
	At   time.Time
}

// ClientOID derives the client order id of one leg of a firing: the same
// (rule, firing time, leg) always gives the same id, and different ones give
// different ids with overwhelming probability. The form is
// "tr-<12 hex of sha256(rule)>-<firing ms, base 36>-<leg, base 36>": only
// characters of [0-9a-zA-Z-] and at most 3+12+1+9+1+4 = 30 characters, well
// under the exchange's limit of 50. The rule name is hashed so that any name a
// user writes is safe, and the prefix keeps our orders recognisable.
func ClientOID(f Firing, leg int) string {
	sum := sha256.Sum256([]byte(f.Rule))
	b := make([]byte, 0, 32)
	b = append(b, "tr-"...)
	b = append(b, hex.EncodeToString(sum[:6])...)
	b = append(b, '-')
	b = strconv.AppendInt(b, f.At.UnixMilli(), 36)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(leg), 36)
	return string(b)
}
