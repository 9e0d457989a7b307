package poll

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
)

// WithSpareBudget returns opts with the spare rate budget given out: a
// part the rules read that moves with trading (its table interval is under
// a minute: books, trades, positions, orders, strategy orders, balances)
// is polled as often as MinInterval allows wherever its operation's share
// of the rate limit (Headroom) has room for it. Each part has operations
// of its own, and the limits of all of them together stay under the
// venue's overall limit per IP, so no part's budget is taken from
// another: every moving part the rules read gets its spare. Parts that
// change rarely (the market's calendar, stock info, discount tiers, spot
// records) keep their interval, and so do intervals set by the user and
// the futures ticker and book (partSource.ownInterval), polled every second
// within their operations' share of the limit. The live poller plans with
// it (New), and so do the polling budget `engine check` shows and the
// backtest's source.
func WithSpareBudget(opts PlanOptions) PlanOptions {
	minIv := opts.MinInterval
	if minIv <= 0 {
		minIv = time.Second
	}
	wanted := make(map[marketdata.Part]time.Duration, marketdata.NumParts)
	for part, iv := range opts.Intervals {
		wanted[part] = iv
	}
	for _, part := range opts.Demand.Parts.Parts() {
		if _, set := wanted[part]; !set && parts[part].every < time.Minute && !parts[part].ownInterval {
			wanted[part] = minIv // raised to the rate limit's minimum by interval
		}
	}
	opts.Intervals = wanted
	return opts
}
