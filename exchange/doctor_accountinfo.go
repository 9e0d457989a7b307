package exchange

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// OpAccountInfo is GET /api/v2/spot/account/info: the account and the
// permissions of the API key that signs the request. engine doctor reads
// it; it is outside the spec and the operation table (the engine never
// polls it), so a limiter that must pass it is built with
// LimiterOptions.Ops = append(Ops(), AccountInfoOp()).
const OpAccountInfo Op = "account-info"

// accountInfoOp is documented at
// https://www.bitget.com/api-doc/spot/account/Get-Account-Info: 1 request
// per second per uid, spot read (or read-write) permission needed.
var accountInfoOp = OpInfo{Op: OpAccountInfo, Method: http.MethodGet, Path: "/api/v2/spot/account/info",
	Rate: 1, Per: time.Second, Scope: PerUID, Perms: []Permission{PermSpotRecordsRead}}

// AccountInfoOp describes OpAccountInfo, for a limiter's operation list.
func AccountInfoOp() OpInfo { return accountInfoOp }

// AccountInfo is the answer of OpAccountInfo. Authorities holds the key's
// permission codes as the venue documents them: read-only "coor" (futures
// orders), "cpor" (futures holdings), read-write "coow", "cpow", "wwow"
// (withdrawal) and others; its own example shows the older "readonly" and
// "trade". IPs is the key's IP whitelist, comma-separated, empty when the
// key is not bound to an address.
type AccountInfo struct {
	UserID      string   `json:"userId"`
	IPs         string   `json:"ips"`
	Authorities []string `json:"authorities"`
	TraderType  string   `json:"traderType"`
}

// AccountInfo reads the account and the permissions of the signing key.
func (c *Client) AccountInfo(ctx context.Context) (AccountInfo, error) {
	var out AccountInfo
	p, err := c.prepare(accountInfoOp, nil)
	if err != nil {
		return out, err
	}
	err = c.send(ctx, accountInfoOp, p, func(status int, body []byte) error {
		out = AccountInfo{}
		return decodeResponse(OpAccountInfo, status, body, &out)
	})
	return out, err
}

func (a AccountInfo) has(codes ...string) bool {
	for _, c := range codes {
		if slices.Contains(a.Authorities, c) {
			return true
		}
	}
	return false
}

// FuturesRead reports whether the key may read futures orders and positions.
func (a AccountInfo) FuturesRead() bool {
	return a.has("coor", "cpor", "coow", "cpow", "readonly", "trade")
}

// FuturesTrade reports whether the key may place and cancel futures orders.
func (a AccountInfo) FuturesTrade() bool { return a.has("coow", "trade") }

// Withdraw reports whether the key may withdraw funds.
func (a AccountInfo) Withdraw() bool { return a.has("wwow") }

// BoundIPs returns the addresses the key is bound to; none means any address.
func (a AccountInfo) BoundIPs() []string {
	var out []string
	for _, ip := range strings.Split(a.IPs, ",") {
		if ip = strings.TrimSpace(ip); ip != "" {
			out = append(out, ip)
		}
	}
	return out
}
