package poll

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// keyKind is what a part is fetched per.
type keyKind uint8

const (
	whole         keyKind = iota // one fetch for the whole part
	byPair                       // one fetch per stock pair
	byProductType                // one fetch per futures product type
	byCategory                   // one fetch per strategy-order category
	byContract                   // one fetch per futures contract
)

// String names the kind of key, as errors and the polling budget say it:
// "pair", "product type", "category"; empty for a part fetched whole.
func (k keyKind) String() string {
	switch k {
	case byPair:
		return "pair"
	case byProductType:
		return "product type"
	case byCategory:
		return "category"
	case byContract:
		return "contract"
	}
	return ""
}

// KeyKind names what part is fetched per: "pair", "product type" or
// "category" or "contract"; empty for a part fetched whole.
func KeyKind(part marketdata.Part) string {
	if int(part) >= marketdata.NumParts {
		return ""
	}
	return parts[part].keyedBy.String()
}

// RequestsPerFetch is how many requests of op one fetch of part makes (for
// one key): 2 for the pending orders, which the client reads once per
// state; 0 when the part does not call op.
func RequestsPerFetch(part marketdata.Part, op exchange.Op) int {
	if int(part) >= marketdata.NumParts {
		return 0
	}
	n := 0
	for _, o := range parts[part].ops {
		if o == op {
			n++
		}
	}
	return n
}

// request is what one fetch is asked for.
type request struct {
	key        string
	now        time.Time
	spotWindow time.Duration // how far back spot records are read
}

// partSource is the row of one part: what it costs, how often it is worth
// fetching, what it is fetched per, and how to fetch it and store it.
type partSource struct {
	// ops are the requests one fetch makes, for the rate budget: an
	// operation called twice per fetch is listed twice.
	ops []exchange.Op
	// every is how often the part is worth polling when the rate limit is
	// not the constraint: sessions, stock info and discount tiers change
	// rarely.
	every   time.Duration
	keyedBy keyKind
	fetch   fetchFunc
	// ownInterval keeps the part at its interval (raised only by its
	// operation's share of the limit) instead of giving it the spare
	// budget: the futures ticker and book, whose operations' limits would
	// otherwise take the spare budgets together over the venue's overall
	// limit per IP (TestOperationSharesStayUnderTheIPLimit).
	ownInterval bool
}

// fetchFunc asks the venue for a part's answer to q and stores it in into,
// holding lock (nil: none) while it writes there: the live poller's lock,
// taken only after the request, so that the engine can take States while a
// poll waits for the venue. It allocates nothing of its own, as it runs for
// every poll.
type fetchFunc func(ctx context.Context, r Reader, q request, into *marketdata.Answers, lock sync.Locker) error

// maxPendingOrders bounds one pending-orders poll: 20 pages of 100.
const maxPendingOrders = 2000

// maxClosedTrades bounds one position-history poll: 5 pages of 100
// closes in the two New York days it reads.
const maxClosedTrades = 500

// parts is the table of every part of a State. A keyed row stores its
// answer as the element of a BuildInput list found by its key; a whole row
// stores it in a BuildInput field.
var parts = [marketdata.NumParts]partSource{
	marketdata.PartMarket: {
		ops: []exchange.Op{exchange.OpMarketStates, exchange.OpMarketCalendar}, every: time.Minute, keyedBy: whole,
		fetch: fetchMarket,
	},
	marketdata.PartStockInfo: {
		ops: []exchange.Op{exchange.OpStockInfo}, every: time.Minute, keyedBy: whole,
		fetch: wholeRow(
			func(ctx context.Context, r Reader, _ request) ([]exchange.StockInfo, error) {
				return r.StockInfo(ctx, exchange.StockInfoRequest{})
			},
			func(in *marketdata.BuildInput) **marketdata.StockInfoInput { return &in.StockInfo },
			func(a []exchange.StockInfo, at time.Time) *marketdata.StockInfoInput {
				return &marketdata.StockInfoInput{Pairs: a, At: at}
			},
			func(in *marketdata.StockInfoInput) []exchange.StockInfo { return in.Pairs },
			sameListDeep[exchange.StockInfo]),
	},
	marketdata.PartStockBook: {
		ops: []exchange.Op{exchange.OpStockOrderBook}, every: time.Second, keyedBy: byPair,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) (exchange.StockOrderBook, error) {
				return r.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: q.key})
			},
			func(in *marketdata.BuildInput) *[]marketdata.BookInput { return &in.Books },
			func(x *marketdata.BookInput) string { return x.Symbol },
			func(key string, a exchange.StockOrderBook, at time.Time) marketdata.BookInput {
				return marketdata.BookInput{Symbol: key, Book: a, At: at}
			},
			func(x *marketdata.BookInput) exchange.StockOrderBook { return x.Book },
			sameBook),
	},
	marketdata.PartStockTrades: {
		ops: []exchange.Op{exchange.OpStockFills}, every: 2 * time.Second, keyedBy: byPair,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) ([]exchange.StockFill, error) {
				return r.StockFills(ctx, exchange.StockFillsRequest{Symbol: q.key, Limit: 100})
			},
			func(in *marketdata.BuildInput) *[]marketdata.FillsInput { return &in.Fills },
			func(x *marketdata.FillsInput) string { return x.Symbol },
			func(key string, a []exchange.StockFill, at time.Time) marketdata.FillsInput {
				return marketdata.FillsInput{Symbol: key, Fills: a, At: at}
			},
			func(x *marketdata.FillsInput) []exchange.StockFill { return x.Fills },
			sameList[exchange.StockFill]),
	},
	marketdata.PartPositions: {
		ops: []exchange.Op{exchange.OpAllPositions}, every: time.Second, keyedBy: byProductType,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) ([]exchange.Position, error) {
				return r.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.ProductType(q.key)})
			},
			func(in *marketdata.BuildInput) *[]marketdata.PositionsInput { return &in.Positions },
			func(x *marketdata.PositionsInput) string { return string(x.ProductType) },
			func(key string, a []exchange.Position, at time.Time) marketdata.PositionsInput {
				return marketdata.PositionsInput{ProductType: exchange.ProductType(key), Positions: a, At: at}
			},
			func(x *marketdata.PositionsInput) []exchange.Position { return x.Positions },
			sameList[exchange.Position]),
	},
	marketdata.PartOrders: {
		// Twice: the client asks once per state, live and partially
		// filled (exchange.Client.PendingOrders).
		ops: []exchange.Op{exchange.OpOrdersPending, exchange.OpOrdersPending}, every: time.Second, keyedBy: byProductType,
		fetch: keyedRow(fetchPending,
			func(in *marketdata.BuildInput) *[]marketdata.OrdersInput { return &in.Orders },
			func(x *marketdata.OrdersInput) string { return string(x.ProductType) },
			func(key string, a []exchange.PendingOrder, at time.Time) marketdata.OrdersInput {
				return marketdata.OrdersInput{ProductType: exchange.ProductType(key), Orders: a, At: at}
			},
			func(x *marketdata.OrdersInput) []exchange.PendingOrder { return x.Orders },
			sameList[exchange.PendingOrder]),
	},
	marketdata.PartStrategyOrders: {
		// The unified account's strategy orders and the classic account's
		// plan orders (protect, place_trigger) are one list for rules: one
		// query of the first, three of the second (take-profit/stop-loss,
		// trigger, trailing trigger; none for spot and margin, counted
		// anyway, the careful side of the budget).
		ops: []exchange.Op{exchange.OpStrategyOrders, exchange.OpPlanOrdersPending, exchange.OpPlanOrdersPending, exchange.OpPlanOrdersPending}, every: 2 * time.Second, keyedBy: byCategory,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) ([]exchange.StrategyOrder, error) {
				out, err := r.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: exchange.Category(q.key)})
				if err != nil {
					return nil, err
				}
				plans, err := exchange.PendingPlanStrategyOrders(ctx, r, exchange.Category(q.key))
				if err != nil || len(plans) == 0 {
					return out, err
				}
				return append(slices.Clip(out), plans...), nil
			},
			func(in *marketdata.BuildInput) *[]marketdata.StrategyOrdersInput { return &in.StrategyOrders },
			func(x *marketdata.StrategyOrdersInput) string { return string(x.Category) },
			func(key string, a []exchange.StrategyOrder, at time.Time) marketdata.StrategyOrdersInput {
				return marketdata.StrategyOrdersInput{Category: exchange.Category(key), Orders: a, At: at}
			},
			func(x *marketdata.StrategyOrdersInput) []exchange.StrategyOrder { return x.Orders },
			sameListDeep[exchange.StrategyOrder]),
	},
	marketdata.PartDiscount: {
		ops: []exchange.Op{exchange.OpDiscountRate}, every: 5 * time.Minute, keyedBy: whole,
		fetch: wholeRow(
			func(ctx context.Context, r Reader, _ request) ([]exchange.DiscountCoin, error) {
				return r.DiscountRates(ctx, exchange.DiscountRateRequest{})
			},
			func(in *marketdata.BuildInput) **marketdata.DiscountInput { return &in.Discount },
			func(a []exchange.DiscountCoin, at time.Time) *marketdata.DiscountInput {
				return &marketdata.DiscountInput{Coins: a, At: at}
			},
			func(in *marketdata.DiscountInput) []exchange.DiscountCoin { return in.Coins },
			sameListDeep[exchange.DiscountCoin]),
	},
	marketdata.PartSpotRecords: {
		ops: []exchange.Op{exchange.OpSpotRecord}, every: time.Minute, keyedBy: whole,
		fetch: wholeRow(
			func(ctx context.Context, r Reader, q request) ([]exchange.SpotRecord, error) {
				return r.SpotRecords(ctx, exchange.SpotRecordRequest{StartTime: exchange.MillisOf(q.now.Add(-q.spotWindow)),
					EndTime: exchange.MillisOf(q.now), Limit: 500})
			},
			func(in *marketdata.BuildInput) **marketdata.SpotRecordsInput { return &in.SpotRecords },
			func(a []exchange.SpotRecord, at time.Time) *marketdata.SpotRecordsInput {
				return &marketdata.SpotRecordsInput{Records: a, At: at}
			},
			func(in *marketdata.SpotRecordsInput) []exchange.SpotRecord { return in.Records },
			sameList[exchange.SpotRecord]),
	},
	marketdata.PartClosedTrades: {
		// Every 5 s: a close moves a position's P&L from the positions
		// (polled every second) to the history, and until the history is
		// polled again pnl_today misses it; 5 s keeps that gap short for
		// a daily loss limit at one request per 5 s per product type (of
		// the venue's 20 a second); a close seen in the positions is
		// followed by a read at once (FollowUp), one request per close.
		// Closes beyond the first page of 100 (a very busy day) cost a
		// request each; neither is counted here. It keeps
		// its interval (ownInterval): polling closes faster than this
		// buys nothing.
		// The orders history of the same window comes with it: a close's
		// closing order says how it closed (last_close(...).how).
		ops: []exchange.Op{exchange.OpHistoryPosition, exchange.OpOrdersHistory}, every: 5 * time.Second, keyedBy: byProductType, ownInterval: true,
		fetch: keyedRow(fetchClosedTrades,
			func(in *marketdata.BuildInput) *[]marketdata.ClosedTradesInput { return &in.ClosedTrades },
			func(x *marketdata.ClosedTradesInput) string { return string(x.ProductType) },
			func(key string, a closedAnswer, at time.Time) marketdata.ClosedTradesInput {
				return marketdata.ClosedTradesInput{ProductType: exchange.ProductType(key), Positions: a.positions, Orders: a.orders, At: at}
			},
			func(x *marketdata.ClosedTradesInput) closedAnswer { return closedAnswer{x.Positions, x.Orders} },
			func(held, fresh closedAnswer) bool {
				return sameList(held.positions, fresh.positions) && sameList(held.orders, fresh.orders)
			}),
	},
	marketdata.PartBalances: {
		ops: []exchange.Op{exchange.OpAccounts}, every: 5 * time.Second, keyedBy: byProductType,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) ([]exchange.Account, error) {
				return r.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.ProductType(q.key)})
			},
			func(in *marketdata.BuildInput) *[]marketdata.BalancesInput { return &in.Balances },
			func(x *marketdata.BalancesInput) string { return string(x.ProductType) },
			func(key string, a []exchange.Account, at time.Time) marketdata.BalancesInput {
				return marketdata.BalancesInput{ProductType: exchange.ProductType(key), Accounts: a, At: at}
			},
			func(x *marketdata.BalancesInput) []exchange.Account { return x.Accounts },
			sameList[exchange.Account]),
	},
	marketdata.PartTicker: {
		ops: []exchange.Op{exchange.OpTicker}, every: time.Second, keyedBy: byContract, ownInterval: true,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) ([]exchange.Ticker, error) {
				c := contractOfKey(q.key)
				return r.Ticker(ctx, exchange.TickerRequest{Symbol: c.Symbol, ProductType: c.ProductType})
			},
			func(in *marketdata.BuildInput) *[]marketdata.TickerInput { return &in.Tickers },
			func(x *marketdata.TickerInput) string { return Contract{x.ProductType, x.Symbol}.key() },
			func(key string, a []exchange.Ticker, at time.Time) marketdata.TickerInput {
				c := contractOfKey(key)
				return marketdata.TickerInput{Symbol: c.Symbol, ProductType: c.ProductType, Tickers: a, At: at}
			},
			func(x *marketdata.TickerInput) []exchange.Ticker { return x.Tickers },
			sameList[exchange.Ticker]),
	},
	marketdata.PartFuturesBook: {
		ops: []exchange.Op{exchange.OpMergeDepth}, every: time.Second, keyedBy: byContract, ownInterval: true,
		fetch: keyedRow(
			func(ctx context.Context, r Reader, q request) (exchange.MergeDepth, error) {
				c := contractOfKey(q.key)
				// 15 levels: enough for a depth within tens of basis points
				// of the mid, a tenth of the default answer's size.
				return r.MergeDepth(ctx, exchange.MergeDepthRequest{Symbol: c.Symbol, ProductType: c.ProductType, Limit: futuresBookLimit})
			},
			func(in *marketdata.BuildInput) *[]marketdata.FuturesBookInput { return &in.FuturesBooks },
			func(x *marketdata.FuturesBookInput) string { return Contract{x.ProductType, x.Symbol}.key() },
			func(key string, a exchange.MergeDepth, at time.Time) marketdata.FuturesBookInput {
				c := contractOfKey(key)
				return marketdata.FuturesBookInput{Symbol: c.Symbol, ProductType: c.ProductType, Book: a, At: at}
			},
			func(x *marketdata.FuturesBookInput) exchange.MergeDepth { return x.Book },
			sameMergeDepth),
	},
}

// futuresBookLimit is how many levels a futures book poll asks for.
const futuresBookLimit = "15"

// sameMergeDepth reports whether a fresh futures book equals the one held.
func sameMergeDepth(held, fresh exchange.MergeDepth) bool {
	return held.TS == fresh.TS && held.Scale == fresh.Scale && sameList(held.Bids, fresh.Bids) && sameList(held.Asks, fresh.Asks)
}

// Fetch runs one task against r at now and stores its answer in into,
// holding lock (nil: none) while it writes there; an answer equal to the
// one held is not stored again (marketdata.Answers.Store). A backtest's
// source fetches with it too, so both read the venue the same way.
func Fetch(ctx context.Context, r Reader, t Task, now time.Time, spotWindow time.Duration, into *marketdata.Answers, lock sync.Locker) error {
	return parts[t.Part].fetch(ctx, r, request{key: t.Key, now: now, spotWindow: spotWindow}, into, lock)
}

// locked runs f holding lock, when there is one.
func locked(lock sync.Locker, f func()) {
	if lock != nil {
		lock.Lock()
		defer lock.Unlock()
	}
	f()
}

// fetchMarket reads the market's states and calendar; the session is
// computed from them at every tick.
func fetchMarket(ctx context.Context, r Reader, q request, into *marketdata.Answers, lock sync.Locker) error {
	states, err := r.MarketStates(ctx)
	if err != nil {
		return err
	}
	cal, err := r.MarketCalendar(ctx)
	if err != nil {
		return err
	}
	locked(lock, func() { into.SetMarket(states, cal, q.now) })
	return nil
}

// fetchPending reads every pending order of a product type through the
// client's pages.
func fetchPending(ctx context.Context, r Reader, q request) ([]exchange.PendingOrder, error) {
	var all []exchange.PendingOrder
	req := exchange.PendingOrdersRequest{ProductType: exchange.ProductType(q.key), Limit: exchange.MaxPageLimit}
	for o, err := range exchange.IterPendingOrders(ctx, r, req) {
		if err != nil {
			return nil, err
		}
		if len(all) == maxPendingOrders {
			return nil, fmt.Errorf("more than %d pending orders", maxPendingOrders)
		}
		all = append(all, o)
	}
	return all, nil
}

// closedAnswer is the closed trades' two answers: the position history
// and the orders history of the same window.
type closedAnswer struct {
	positions []exchange.HistoryPosition
	orders    []exchange.HistoryOrder
}

// fetchClosedTrades reads the positions of product type q.key closed
// since 00:00 New York time of the day before (marketdata.ClosedTradesFrom).
// The venue's docs do not say whether startTime bounds the open or the
// close time, and a position opened days ago and closed today must count:
// so no startTime is sent, and the pages, newest close first (idLessThan
// walks to older records), are read until a record closed before the
// window. Usually that is the first page.
func fetchClosedTrades(ctx context.Context, r Reader, q request) (closedAnswer, error) {
	from, err := marketdata.ClosedTradesFrom(q.now)
	if err != nil {
		return closedAnswer{}, fmt.Errorf("closed trades window: %w", err)
	}
	var a closedAnswer
	req := exchange.PositionHistoryRequest{ProductType: exchange.ProductType(q.key), EndTime: exchange.MillisOf(q.now),
		Limit: exchange.MaxPositionHistoryLimit}
	for p, err := range exchange.IterPositionHistory(ctx, r, req) {
		if err != nil {
			return closedAnswer{}, err
		}
		if p.UTime.Time().Before(from) {
			break // older closes follow
		}
		if len(a.positions) == maxClosedTrades {
			return closedAnswer{}, fmt.Errorf("more than %d closed positions since %s", maxClosedTrades, from.Format(time.DateOnly))
		}
		a.positions = append(a.positions, p)
	}
	if len(a.positions) == 0 {
		return a, nil // no close to tell how: the orders are not asked
	}
	// The closing orders: those created since the oldest close's
	// position opened (an order placed before it could not close it).
	// The request names no times: the venue checks them against its own
	// clock, which a simulator may keep in the past; the pages, newest
	// created first, are read until the orders are older. A failure
	// leaves the closes without their orders (how is then unknown) rather
	// than hold back the closes that limits and cooldowns read.
	since := a.positions[len(a.positions)-1].CTime.Time()
	oreq := exchange.OrderHistoryRequest{ProductType: exchange.ProductType(q.key), Limit: exchange.MaxPageLimit}
	for o, err := range exchange.IterOrderHistory(ctx, r, oreq) {
		if err != nil {
			if ctx.Err() != nil {
				return closedAnswer{}, ctx.Err()
			}
			a.orders = nil
			break
		}
		if o.CTime.Time().Before(since) || len(a.orders) == maxClosedTrades {
			break // older orders follow; or the newest are kept, the oldest closes read unknown
		}
		a.orders = append(a.orders, o)
	}
	return a, nil
}

// keyedRow makes the fetch of a part stored per key: get asks the venue;
// the answer is stored as the element of the list that key finds (wrap
// makes it), replacing it, unless the element's answer (held) is the same.
func keyedRow[A, In any](
	get func(ctx context.Context, r Reader, q request) (A, error),
	list func(*marketdata.BuildInput) *[]In,
	key func(*In) string,
	wrap func(key string, a A, at time.Time) In,
	held func(*In) A,
	same func(held, fresh A) bool,
) fetchFunc {
	return func(ctx context.Context, r Reader, q request, into *marketdata.Answers, lock sync.Locker) error {
		a, err := get(ctx, r, q)
		if err != nil {
			return err
		}
		if lock != nil {
			lock.Lock()
			defer lock.Unlock()
		}
		into.Store(func(in *marketdata.BuildInput) bool {
			l := *list(in)
			for i := range l { // a loop, not slices.IndexFunc: no closure to allocate
				if key(&l[i]) == q.key {
					return same(held(&l[i]), a)
				}
			}
			return false
		}, func(in *marketdata.BuildInput) {
			l := list(in)
			x := wrap(q.key, a, q.now)
			// In place: NewState keeps nothing of its input's slices (it
			// copies what it keeps), so no State built earlier sees the
			// change.
			for i := range *l {
				if key(&(*l)[i]) == q.key {
					(*l)[i] = x
					return
				}
			}
			*l = append(*l, x)
		})
		return nil
	}
}

// wholeRow makes the fetch of a part fetched whole: get asks the venue; the
// answer is stored in the field of the input (wrap makes it) unless the
// one held there is the same.
func wholeRow[A, In any](
	get func(ctx context.Context, r Reader, q request) (A, error),
	field func(*marketdata.BuildInput) **In,
	wrap func(a A, at time.Time) *In,
	held func(*In) A,
	same func(held, fresh A) bool,
) fetchFunc {
	return func(ctx context.Context, r Reader, q request, into *marketdata.Answers, lock sync.Locker) error {
		a, err := get(ctx, r, q)
		if err != nil {
			return err
		}
		if lock != nil {
			lock.Lock()
			defer lock.Unlock()
		}
		into.Store(func(in *marketdata.BuildInput) bool {
			h := *field(in)
			return h != nil && same(held(h), a)
		}, func(in *marketdata.BuildInput) { *field(in) = wrap(a, q.now) })
		return nil
	}
}

// sameBook reports whether a fresh book equals the one held.
func sameBook(held, fresh exchange.StockOrderBook) bool {
	return held.Symbol == fresh.Symbol && held.TS == fresh.TS && sameList(held.Bids, fresh.Bids) && sameList(held.Asks, fresh.Asks)
}

// sameList reports whether a fresh answer equals the one held: the same
// backing array (a reader that hands the very same slice back while
// nothing changed, checked without looking at the elements) or, for an
// answer decoded anew, equal elements.
func sameList[E comparable](held, fresh []E) bool {
	return len(held) == len(fresh) && (sameArray(held, fresh) || slices.Equal(held, fresh))
}

// sameListDeep is sameList for the answers whose records hold slices
// (reflect.DeepEqual, several times slower than ==).
func sameListDeep[E any](held, fresh []E) bool {
	return len(held) == len(fresh) && (sameArray(held, fresh) || reflect.DeepEqual(held, fresh))
}

// sameArray reports whether two lists of one length start at the same
// element.
func sameArray[E any](a, b []E) bool {
	return len(a) == 0 || &a[0] == &b[0]
}
