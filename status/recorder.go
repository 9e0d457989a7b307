package status

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
)

// FiringRecord is one firing of a rule and how its requests ended.
type FiringRecord struct {
	At   time.Time `json:"time"`
	Rule string    `json:"rule"`
	Seq  int64     `json:"seq"`
	// Legs counts the requests by outcome; a log action is not a request.
	OK      int `json:"ok"`
	Failed  int `json:"failed"`
	Blocked int `json:"blocked"`
	// Messages are what the rule's log actions wrote.
	Messages []string `json:"messages,omitempty"`
}

// FillRecord is one fill of an order on the account.
type FillRecord struct {
	At     time.Time `json:"time"`
	Rule   string    `json:"rule,omitempty"` // the rule whose order filled; empty for orders placed elsewhere
	Symbol string    `json:"symbol"`
	Side   string    `json:"side"`
	Intent string    `json:"intent"`
	Size   string    `json:"size"`
	Price  string    `json:"price"`
	Fee    string    `json:"fee"`
	// Profit is the realised P&L the venue booked for this fill (closing
	// fills), in the margin coin.
	Profit     string `json:"profit"`
	MarginCoin string `json:"margin_coin,omitempty"`
	OrderID    string `json:"order_id"`
	TradeID    string `json:"trade_id"`
}

// Totals count what the engine did since it started.
type Totals struct {
	Firings       int64 `json:"firings"`
	Orders        int64 `json:"orders"` // requests sent that ended ok
	OrdersFailed  int64 `json:"orders_failed"`
	OrdersBlocked int64 `json:"orders_blocked"` // stopped by a risk guard
	Fills         int64 `json:"fills"`
}

// accountKey names one futures account: a product type and margin coin.
type accountKey struct {
	pt   string
	coin string
}

// accountBook is what the recorder keeps of one account: its balance now,
// its equity when first read and what its fills booked.
type accountBook struct {
	now      exchange.Account
	seen     bool // now was read
	start    decimal.Decimal
	realized decimal.Decimal
	fees     decimal.Decimal
}

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// Keep is how many firings, orders and fills are kept (default 50).
	Keep int
}

// Recorder keeps the last firings, orders and fills and the totals since
// start. It is safe for concurrent use: the engine's firing hook, the fill
// watcher and HTTP requests call it.
type Recorder struct {
	keep int

	mu      sync.Mutex
	firings []FiringRecord
	orders  []OrderRecord
	fills   []FillRecord
	totals  Totals
	// ruleOf maps client order ids and order ids to the rule that sent them.
	ruleOf map[string]string
	// blocked is the last guard refusal of each rule, by rule.
	blocked map[string]string
	seen    map[string]bool // trade ids already recorded
	books   map[accountKey]*accountBook
}

// NewRecorder returns an empty Recorder.
func NewRecorder(opts RecorderOptions) *Recorder {
	if opts.Keep <= 0 {
		opts.Keep = 50
	}
	return &Recorder{keep: opts.Keep, ruleOf: map[string]string{}, blocked: map[string]string{},
		seen: map[string]bool{}, books: map[accountKey]*accountBook{}}
}

// keepLast appends v to list and drops the oldest beyond n.
func keepLast[T any](list []T, n int, v ...T) []T {
	list = append(list, v...)
	if len(list) > n {
		list = slices.Delete(list, 0, len(list)-n)
	}
	return list
}

// ObserveFiring records one firing and its requests, and returns the order
// records (for the log).
func (r *Recorder) ObserveFiring(rule string, seq int64, at time.Time, legs []actions.Leg) []OrderRecord {
	recs := OrderRecords(rule, at, legs)
	fr := FiringRecord{At: at, Rule: rule, Seq: seq}
	for _, l := range legs {
		if !actions.Sends(l.Kind) { // a message: log, notify
			fr.Messages = append(fr.Messages, l.Note)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.totals.Firings++
	delete(r.blocked, rule)
	for _, o := range recs {
		switch o.Outcome {
		case actions.OK:
			fr.OK++
			r.totals.Orders++
		case actions.Blocked:
			fr.Blocked++
			r.totals.OrdersBlocked++
			r.blocked[rule] = o.Error
		default:
			fr.Failed++
			r.totals.OrdersFailed++
		}
		for _, id := range []string{o.ClientOID, o.OrderID} {
			if id != "" {
				r.ruleOf[id] = rule
			}
		}
	}
	r.firings = keepLast(r.firings, r.keep, fr)
	r.orders = keepLast(r.orders, r.keep, recs...)
	return recs
}

// ObserveFills records the fills of product type pt not seen before and
// returns them, oldest first.
func (r *Recorder) ObserveFills(pt exchange.ProductType, fills []exchange.Fill) []FillRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []FillRecord
	for _, f := range fills {
		if f.TradeID == "" || r.seen[f.TradeID] {
			continue
		}
		r.seen[f.TradeID] = true
		fee := decimal.Zero
		for _, d := range f.FeeDetail {
			fee = fee.Add(d.TotalFee.MustDecimal().Abs())
		}
		profit := f.Profit.MustDecimal()
		rec := FillRecord{At: f.CTime.Time().UTC(), Rule: r.ruleOf[f.OrderID], Symbol: f.Symbol, Side: string(f.Side),
			Intent: Intent(f.Side, f.TradeSide, ""), Size: string(f.BaseVolume), Price: string(f.Price),
			Fee: fee.String(), Profit: profit.String(), MarginCoin: f.MarginCoin, OrderID: f.OrderID, TradeID: f.TradeID}
		if f.PosMode == exchange.OneWayMode {
			// One-way fills report buy_single / sell_single; the side says it.
			rec.Intent = ""
		}
		b := r.book(accountKey{string(pt), f.MarginCoin})
		b.realized, b.fees = b.realized.Add(profit), b.fees.Add(fee)
		out = append(out, rec)
	}
	slices.SortStableFunc(out, func(a, b FillRecord) int { return a.At.Compare(b.At) })
	r.totals.Fills += int64(len(out))
	r.fills = keepLast(r.fills, r.keep, out...)
	return out
}

// book returns the account's book, creating it; r.mu is held.
func (r *Recorder) book(k accountKey) *accountBook {
	b, ok := r.books[k]
	if !ok {
		b = &accountBook{start: decimal.NewFromInt(-1)}
		r.books[k] = b
	}
	return b
}

// ObserveAccounts records the balances of product type pt; the first
// equity seen of each account is the start the P&L is measured from.
func (r *Recorder) ObserveAccounts(pt exchange.ProductType, accts []exchange.Account) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range accts {
		bk := r.book(accountKey{string(pt), a.MarginCoin})
		bk.now = a
		bk.seen = true
		if bk.start.IsNegative() {
			bk.start = a.AccountEquity.MustDecimal()
		}
	}
}

// Account is one futures account: its balance now and its P&L since the
// engine started.
type Account struct {
	ProductType   string          `json:"product_type"`
	MarginCoin    string          `json:"margin_coin"`
	Equity        decimal.Decimal `json:"equity"`
	Available     decimal.Decimal `json:"available"`
	UnrealizedPnL decimal.Decimal `json:"unrealized_pnl"`
	// StartEquity is the equity when the engine first read the account;
	// Change is Equity minus StartEquity: the P&L since start, fees and
	// open positions included.
	StartEquity decimal.Decimal `json:"start_equity"`
	Change      decimal.Decimal `json:"change"`
	// Realized and Fees are summed from the fills seen since start.
	Realized decimal.Decimal `json:"realized_pnl"`
	Fees     decimal.Decimal `json:"fees"`
}

// Accounts returns every account read so far with its P&L since start,
// sorted by product type and coin.
func (r *Recorder) Accounts() []Account {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []Account{}
	for k, b := range r.books {
		if !b.seen {
			continue
		}
		eq := b.now.AccountEquity.MustDecimal()
		out = append(out, Account{ProductType: k.pt, MarginCoin: k.coin, Equity: eq,
			Available: b.now.Available.MustDecimal(), UnrealizedPnL: b.now.UnrealizedPL.MustDecimal(),
			StartEquity: b.start, Change: eq.Sub(b.start), Realized: b.realized, Fees: b.fees})
	}
	slices.SortFunc(out, func(a, b Account) int {
		return cmp.Or(cmp.Compare(a.ProductType, b.ProductType), cmp.Compare(a.MarginCoin, b.MarginCoin))
	})
	return out
}

// Recent returns copies of the kept firings, orders and fills (oldest
// first) and the totals.
func (r *Recorder) Recent() ([]FiringRecord, []OrderRecord, []FillRecord, Totals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.firings), slices.Clone(r.orders), slices.Clone(r.fills), r.totals
}

// Blocked returns the last guard refusal of rule's last firing, if any.
func (r *Recorder) Blocked(rule string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blocked[rule]
}
