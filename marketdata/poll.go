package marketdata

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// Reader is what the pollers read from a venue: the live client, the
// simulator, or a recording.
type Reader interface {
	MarketStates(ctx context.Context) ([]exchange.MarketState, error)
	MarketCalendar(ctx context.Context) (exchange.Calendar, error)
	StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error)
	StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error)
	StockFills(ctx context.Context, req exchange.StockFillsRequest) ([]exchange.StockFill, error)
	AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error)
	PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error)
	StrategyOrders(ctx context.Context, req exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error)
	DiscountRates(ctx context.Context, req exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error)
	SpotRecords(ctx context.Context, req exchange.SpotRecordRequest) ([]exchange.SpotRecord, error)
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
}

// Clock is the pollers' time source.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Demand is what the loaded rules read: the parts, and for the parts fetched
// per pair, product type or category, which ones. The pollers fetch exactly
// this and nothing else.
type Demand struct {
	Parts        PartSet
	StockPairs   []string
	ProductTypes []exchange.ProductType
	Categories   []exchange.Category
}

// StaleAfter is how many poll intervals old a part may be before the rules
// that read it stop firing.
const StaleAfter = 3

// PollerOptions configure a Poller.
type PollerOptions struct {
	Reader Reader
	Clock  Clock
	Logger *zap.Logger
	Demand Demand
	// Contracts lets the State know which product type a symbol belongs to,
	// so a symbol without a position is known to be flat.
	Contracts []ProductContract
	// Headroom is the fraction of each operation's published rate limit the
	// pollers may use; the rest stays free for orders (default 0.5).
	Headroom float64
	// Intervals override the interval of a part; below the rate-limit
	// minimum they are raised to it.
	Intervals map[Part]time.Duration
	// MinInterval is the shortest interval of any part (default 1s, the tick).
	MinInterval time.Duration
	// SpotWindow is how far back spot records are read (default 24h).
	SpotWindow time.Duration
	Build      BuildOptions
	// RebuildEveryTick builds a State every tick with every object aged to
	// its time: SetTimedFields with every field. Without it (or timed fields),
	// the States of the ticks between two fetches that brought a different
	// answer share their data (State.SameData), and only the time and the
	// session are new.
	RebuildEveryTick bool
	// OnFetch, when set, is called after every fetch with its part, key,
	// wall-clock duration and error (metrics use it).
	OnFetch func(part Part, key string, took time.Duration, err error)
}

// baseInterval is how often a part is worth polling when the rate limit is
// not the constraint: sessions, stock info and discount tiers change rarely.
var baseInterval = [numParts]time.Duration{
	PartMarket:         time.Minute,
	PartStockInfo:      time.Minute,
	PartStockBook:      time.Second,
	PartStockTrades:    2 * time.Second,
	PartPositions:      time.Second,
	PartOrders:         time.Second,
	PartStrategyOrders: 2 * time.Second,
	PartDiscount:       5 * time.Minute,
	PartSpotRecords:    time.Minute,
	PartBalances:       5 * time.Second,
}

// partOps are the operations each part calls, once per key.
var partOps = [numParts][]exchange.Op{
	PartMarket:         {exchange.OpMarketStates, exchange.OpMarketCalendar},
	PartStockInfo:      {exchange.OpStockInfo},
	PartStockBook:      {exchange.OpStockOrderBook},
	PartStockTrades:    {exchange.OpStockFills},
	PartPositions:      {exchange.OpAllPositions},
	PartOrders:         {exchange.OpOrdersPending},
	PartStrategyOrders: {exchange.OpStrategyOrders},
	PartDiscount:       {exchange.OpDiscountRate},
	PartSpotRecords:    {exchange.OpSpotRecord},
	PartBalances:       {exchange.OpAccounts},
}

// task is one fetch: a part for one key (pair, product type, category or "").
type task struct {
	part     Part
	key      string
	interval time.Duration
	due      time.Time
	fetched  bool
	okAt     time.Time // the last successful fetch
	ver      [3]int64  // the Versioner's version before that fetch
	verOK    bool
}

// NumericBookReader is a Reader that can hand an order book over in numbers
// (the simulator in a backtest): the pollers then skip formatting and
// parsing 160 decimal strings a book. StockBookNumbers must give exactly
// what parsing its StockOrderBook answer would, and may return the same
// slices again while the book is unchanged (they are never modified).
type NumericBookReader interface {
	StockBookNumbers(ctx context.Context, symbol string) (NumericBook, error)
}

// Versioner is a Reader that can tell cheaply that an answer cannot have
// changed: Version returns a value that stays the same while the answer of
// part for key does; ok is false when it cannot tell. The simulator can (a
// backtest's reader), a live exchange cannot; the pollers then fetch every
// time. A poll skipped on an unchanged version counts as a fetch of the
// same answer.
type Versioner interface {
	Version(ctx context.Context, part Part, key string) (v [3]int64, ok bool)
}

// StillVersioner is a Versioner that can also say for how long its versions
// hold: StillUntil returns a mark and a time before which (zero: never) no
// Version changes while Mark still returns that mark; Mark changes with
// every write (an order placed through the same venue). Mark must be
// cheap: it is read every tick instead of asking Version of every part.
// The simulator can say so (a backtest's reader).
type StillVersioner interface {
	Versioner
	StillUntil(ctx context.Context) (mark uint64, until time.Time)
	Mark() uint64
}

// Poller fetches the demanded parts at intervals that fit the rate limits
// and keeps the latest answer of each; State builds one immutable State from
// them. It is safe for concurrent use: Run polls while the engine takes
// States.
type Poller struct {
	opts      PollerOptions
	tasks     []*task
	intervals [numParts]time.Duration // of the polled parts; 0 for the others
	versioner Versioner               // opts.Reader, when it is one
	still     StillVersioner          // opts.Reader, when it is one
	// allFetched is set once every task has been fetched (FullyPolled).
	allFetched atomic.Bool

	// The last StillUntil promise, asked at stillAt; PollDue alone uses
	// it (it is not safe to call concurrently with itself).
	stillSet            bool
	stillMark           uint64
	stillAt, stillUntil time.Time

	mu     sync.Mutex
	states []exchange.MarketState
	cal    exchange.Calendar
	mktAt  time.Time
	in     BuildInput
	// gen counts the answers that differed from the one held; a State is
	// built afresh only when it moved since last (built at lastGen).
	gen, lastGen uint64
	last         *State
	lastErr      error
	lastMarket   bool         // whether last knew the market session
	timed        TimeFieldSet // see SetTimedFields
	slab         []stateSlot  // the next States that share their data
	session      SessionCache
}

// NewPoller plans the tasks of opts.Demand.
func NewPoller(opts PollerOptions) (*Poller, error) {
	if opts.Reader == nil || opts.Clock == nil {
		return nil, errors.New("poller: Reader and Clock are required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Headroom <= 0 || opts.Headroom > 1 {
		opts.Headroom = 0.5
	}
	if opts.MinInterval <= 0 {
		opts.MinInterval = time.Second
	}
	if opts.SpotWindow <= 0 {
		opts.SpotWindow = 24 * time.Hour
	}
	p := &Poller{opts: opts, in: BuildInput{Contracts: opts.Contracts}}
	if opts.RebuildEveryTick {
		p.timed = AllTimeFields
	}
	p.versioner, _ = opts.Reader.(Versioner)
	p.still, _ = opts.Reader.(StillVersioner)
	d := opts.Demand
	for _, part := range d.Parts.Parts() {
		keys := d.keys(part)
		if len(keys) == 0 {
			return nil, fmt.Errorf("poller: part %s is read but names no %s", part, keyKind(part))
		}
		iv, err := p.interval(part, len(keys))
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			p.tasks = append(p.tasks, &task{part: part, key: k, interval: iv})
		}
		p.intervals[part] = iv
	}
	return p, nil
}

// keys are the keys part is fetched for: the stock pairs, product types or
// categories demanded, or one empty key for a part fetched whole.
func (d Demand) keys(part Part) []string {
	var keys []string
	switch part {
	case PartStockBook, PartStockTrades:
		keys = d.StockPairs
	case PartPositions, PartOrders, PartBalances:
		for _, pt := range d.ProductTypes {
			keys = append(keys, string(pt))
		}
	case PartStrategyOrders:
		for _, c := range d.Categories {
			keys = append(keys, string(c))
		}
	default:
		keys = []string{""}
	}
	return keys
}

func keyKind(p Part) string {
	switch p {
	case PartStockBook, PartStockTrades:
		return "stock pair"
	case PartStrategyOrders:
		return "category"
	}
	return "product type"
}

// interval is the poll interval of part when it has n keys: the wanted
// interval, raised until n fetches per interval fit in Headroom of the
// operation's rate limit.
func (p *Poller) interval(part Part, n int) (time.Duration, error) {
	iv := baseInterval[part]
	if o, ok := p.opts.Intervals[part]; ok && o > 0 {
		iv = o
	}
	for _, op := range partOps[part] {
		info, ok := exchange.LookupOp(op)
		if !ok {
			return 0, fmt.Errorf("poller: no rate limit known for %s", op)
		}
		perSecond := float64(info.Rate) / info.Per.Seconds() * p.opts.Headroom
		minIv := time.Duration(math.Ceil(float64(n) / perSecond * float64(time.Second)))
		iv = max(iv, minIv)
	}
	return max(iv, p.opts.MinInterval), nil
}

// Interval returns the poll interval of part (0 when it is not polled).
func (p *Poller) Interval(part Part) time.Duration {
	if part >= numParts {
		return 0
	}
	return p.intervals[part]
}

// ErrNotPolled is returned by Covers when the pollers do not fetch some of
// a demand.
var ErrNotPolled = errors.New("not polled")

// Covers reports whether the poller fetches everything d demands; the error
// (ErrNotPolled) names what it does not. Pollers are planned once: rules
// that read more need a new Poller.
func (p *Poller) Covers(d Demand) error {
	polled := map[Part]map[string]bool{}
	for _, t := range p.tasks {
		if polled[t.part] == nil {
			polled[t.part] = map[string]bool{}
		}
		polled[t.part][t.key] = true
	}
	var missing []string
	for _, part := range d.Parts.Parts() {
		keys := polled[part]
		if keys == nil {
			missing = append(missing, part.String())
			continue
		}
		for _, k := range d.keys(part) {
			if !keys[k] {
				missing = append(missing, part.String()+" "+k)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNotPolled, strings.Join(missing, ", "))
}

// Parts returns the set of parts the poller fetches.
func (p *Poller) Parts() PartSet {
	var s PartSet
	for _, t := range p.tasks {
		s = s.Add(t.part)
	}
	return s
}

// Budget lists, per operation, the requests per second the pollers make.
func (p *Poller) Budget() map[exchange.Op]float64 {
	out := map[exchange.Op]float64{}
	for _, t := range p.tasks {
		for _, op := range partOps[t.part] {
			out[op] += 1 / t.interval.Seconds()
		}
	}
	return out
}

// FullyPolled reports whether every task has been fetched at least once. No
// rule may fire before that: after a restart, half a State could make a rule
// look true.
func (p *Poller) FullyPolled() bool {
	if p.allFetched.Load() { // a task once fetched stays fetched
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.tasks {
		if !t.fetched {
			return false
		}
	}
	p.allFetched.Store(true)
	return true
}

// PollDue fetches every task that is due at the clock's time. Errors are
// logged and returned joined; the previous answer of a failed task is kept
// and ages towards staleness.
func (p *Poller) PollDue(ctx context.Context) error {
	now := p.opts.Clock.Now()
	var errs []error
	// Polls yield to the orders in the rate limiter's queue; one context
	// for all of them, made only when the caller's is not one already.
	if exchange.PriorityFrom(ctx) != exchange.PriorityLow {
		ctx = exchange.WithPriority(ctx, exchange.PriorityLow)
	}
	still := p.stillHolds(ctx, now)
	var dueBuf, keptBuf [16]*task
	due, kept := dueBuf[:0], keptBuf[:0]
	var next nextDue
	p.mu.Lock()
	for _, t := range p.tasks {
		switch {
		case t.due.After(now):
		case still && t.fetched && t.verOK && !t.okAt.Before(p.stillAt):
			// Checked since the promise was made, which still holds: the
			// answer held is as fresh as a fetch now.
			t.due, t.okAt = next.at(now, t.interval), now
		default:
			due = append(due, t)
		}
	}
	p.mu.Unlock()
	for _, t := range due {
		held := t.fetched && t.verOK
		var ver [3]int64
		var verOK bool
		if p.versioner != nil {
			ver, verOK = p.versioner.Version(ctx, t.part, t.key)
		}
		if verOK && held && ver == t.ver {
			// Nothing the answer depends on changed: it is the one held.
			kept = append(kept, t)
			continue
		}
		var began time.Time
		if p.opts.OnFetch != nil { // the wall clock costs more than a quiet tick's fetch
			began = time.Now()
		}
		err := p.fetch(ctx, t, now)
		if p.opts.OnFetch != nil {
			p.opts.OnFetch(t.part, t.key, time.Since(began), err)
		}
		p.mu.Lock()
		t.due = now.Add(t.interval)
		if err == nil {
			t.fetched, t.okAt = true, now
			t.ver, t.verOK = ver, verOK
		}
		p.mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.opts.Logger.Warn("poll failed", zap.Stringer("part", t.part), zap.String("key", t.key), zap.Error(err))
			errs = append(errs, fmt.Errorf("poll %s %s: %w", t.part, t.key, err))
		}
	}
	if len(kept) > 0 {
		// A kept answer is as fresh as a fetch now.
		p.mu.Lock()
		for _, t := range kept {
			t.due, t.okAt = next.at(now, t.interval), now
		}
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

// nextDue is now plus an interval, added once for the tasks that share
// one (most do).
type nextDue struct {
	iv  time.Duration
	due time.Time
}

func (n *nextDue) at(now time.Time, iv time.Duration) time.Time {
	if iv != n.iv {
		n.iv, n.due = iv, now.Add(iv)
	}
	return n.due
}

// stillHolds reports whether the reader's last StillUntil promise holds at
// now. When it does not, it asks for a new one before this round checks
// any version: a write after that moves the mark, so a promise can never
// cover an answer fetched before a write it did not see.
func (p *Poller) stillHolds(ctx context.Context, now time.Time) bool {
	if p.still == nil {
		return false
	}
	if p.stillSet && (p.stillUntil.IsZero() || now.Before(p.stillUntil)) && p.still.Mark() == p.stillMark {
		return true
	}
	p.stillMark, p.stillUntil = p.still.StillUntil(ctx)
	p.stillAt, p.stillSet = now, true
	return false
}

// QuietUntil returns a time before which, short of a write through the
// reader (an order), no poll can bring another answer and no State can
// differ from the one at now but in the fields that follow the clock:
// the reader's StillUntil promise holds, every task it does not cover is
// neither due nor stale, the market's answers are not stale, and the
// market session stays in its segment (SessionCache). A backtest skips the ticks before it when no rule reads
// the clock (engine.Engine.SkipQuiet). Zero means it cannot tell: a reader
// that makes no promise (a live exchange), a promise broken since, or no
// session known. Like PollDue, it must not run concurrently with PollDue.
func (p *Poller) QuietUntil(now time.Time) time.Time {
	if p.still == nil || !p.stillSet || p.still.Mark() != p.stillMark {
		return time.Time{}
	}
	until := p.stillUntil // zero: no price step ahead
	earlier := func(t time.Time) {
		if until.IsZero() || t.Before(until) {
			until = t
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mktAt.IsZero() {
		return time.Time{}
	}
	// The market's age counts from its last fetch even when a promise
	// refreshes its task (see State).
	earlier(p.mktAt.Add(StaleAfter * p.intervals[PartMarket]))
	for _, t := range p.tasks {
		if t.fetched && t.verOK && !t.okAt.Before(p.stillAt) {
			continue // refreshed by the promise whenever it falls due
		}
		earlier(t.due)
		if t.fetched {
			earlier(t.okAt.Add(StaleAfter * p.intervals[t.part]))
		}
	}
	end := p.session.SegmentEnd()
	if end.IsZero() || !now.Before(end) {
		return time.Time{}
	}
	earlier(end)
	if !until.After(now) {
		return time.Time{}
	}
	return until
}

// Run polls until ctx is done, waking when the next task is due.
func (p *Poller) Run(ctx context.Context) error {
	for {
		_ = p.PollDue(ctx)
		next := p.nextDue()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.opts.Clock.After(next.Sub(p.opts.Clock.Now())):
		}
	}
}

func (p *Poller) nextDue() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var next time.Time
	for i, t := range p.tasks {
		if i == 0 || t.due.Before(next) {
			next = t.due
		}
	}
	return next
}

// fetch runs one task and stores its answer.
func (p *Poller) fetch(ctx context.Context, t *task, now time.Time) error {
	r := p.opts.Reader
	switch t.part {
	case PartMarket:
		states, err := r.MarketStates(ctx)
		if err != nil {
			return err
		}
		cal, err := r.MarketCalendar(ctx)
		if err != nil {
			return err
		}
		p.mu.Lock()
		p.states, p.cal, p.mktAt = states, cal, now
		p.mu.Unlock()
	case PartStockInfo:
		pairs, err := r.StockInfo(ctx, exchange.StockInfoRequest{})
		if err != nil {
			return err
		}
		p.store(func(in *BuildInput) bool { return in.StockInfo != nil && sameListDeep(in.StockInfo.Pairs, pairs) },
			func(in *BuildInput) { in.StockInfo = &StockInfoInput{Pairs: pairs, At: now} })
	case PartStockBook:
		match := func(b BookInput) bool { return b.Symbol == t.key }
		if nr, ok := r.(NumericBookReader); ok {
			nb, err := nr.StockBookNumbers(ctx, t.key)
			if err != nil {
				return err
			}
			p.store(func(in *BuildInput) bool {
				old, ok := find(in.Books, match)
				return ok && old.Levels != nil && old.Levels.TS == nb.TS && sameList(old.Levels.Bids, nb.Bids) && sameList(old.Levels.Asks, nb.Asks)
			}, func(in *BuildInput) {
				held := nb // the copy escapes, only when stored
				in.Books = replace(in.Books, BookInput{Symbol: t.key, Levels: &held, At: now}, match)
			})
			return nil
		}
		book, err := r.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: t.key})
		if err != nil {
			return err
		}
		p.store(func(in *BuildInput) bool {
			old, ok := find(in.Books, match)
			return ok && old.Book.Symbol == book.Symbol && old.Book.TS == book.TS && sameList(old.Book.Bids, book.Bids) && sameList(old.Book.Asks, book.Asks)
		}, func(in *BuildInput) {
			in.Books = replace(in.Books, BookInput{Symbol: t.key, Book: book, At: now}, match)
		})
	case PartStockTrades:
		fills, err := r.StockFills(ctx, exchange.StockFillsRequest{Symbol: t.key, Limit: 100})
		if err != nil {
			return err
		}
		match := func(f FillsInput) bool { return f.Symbol == t.key }
		p.store(func(in *BuildInput) bool { old, ok := find(in.Fills, match); return ok && sameList(old.Fills, fills) },
			func(in *BuildInput) {
				in.Fills = replace(in.Fills, FillsInput{Symbol: t.key, Fills: fills, At: now}, match)
			})
	case PartPositions:
		pt := exchange.ProductType(t.key)
		pos, err := r.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
		if err != nil {
			return err
		}
		match := func(x PositionsInput) bool { return x.ProductType == pt }
		p.store(func(in *BuildInput) bool {
			old, ok := find(in.Positions, match)
			return ok && sameList(old.Positions, pos)
		},
			func(in *BuildInput) {
				in.Positions = replace(in.Positions, PositionsInput{ProductType: pt, Positions: pos, At: now}, match)
			})
	case PartOrders:
		pt := exchange.ProductType(t.key)
		orders, err := p.allPending(ctx, pt)
		if err != nil {
			return err
		}
		match := func(x OrdersInput) bool { return x.ProductType == pt }
		p.store(func(in *BuildInput) bool {
			old, ok := find(in.Orders, match)
			return ok && sameList(old.Orders, orders)
		},
			func(in *BuildInput) {
				in.Orders = replace(in.Orders, OrdersInput{ProductType: pt, Orders: orders, At: now}, match)
			})
	case PartStrategyOrders:
		c := exchange.Category(t.key)
		orders, err := r.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: c})
		if err != nil {
			return err
		}
		match := func(x StrategyOrdersInput) bool { return x.Category == c }
		p.store(func(in *BuildInput) bool {
			old, ok := find(in.StrategyOrders, match)
			return ok && sameListDeep(old.Orders, orders)
		}, func(in *BuildInput) {
			in.StrategyOrders = replace(in.StrategyOrders, StrategyOrdersInput{Category: c, Orders: orders, At: now}, match)
		})
	case PartDiscount:
		coins, err := r.DiscountRates(ctx, exchange.DiscountRateRequest{})
		if err != nil {
			return err
		}
		p.store(func(in *BuildInput) bool { return in.Discount != nil && sameListDeep(in.Discount.Coins, coins) },
			func(in *BuildInput) { in.Discount = &DiscountInput{Coins: coins, At: now} })
	case PartSpotRecords:
		recs, err := r.SpotRecords(ctx, exchange.SpotRecordRequest{StartTime: exchange.MillisOf(now.Add(-p.opts.SpotWindow)), EndTime: exchange.MillisOf(now), Limit: 500})
		if err != nil {
			return err
		}
		p.store(func(in *BuildInput) bool { return in.SpotRecords != nil && sameList(in.SpotRecords.Records, recs) },
			func(in *BuildInput) { in.SpotRecords = &SpotRecordsInput{Records: recs, At: now} })
	case PartBalances:
		pt := exchange.ProductType(t.key)
		accts, err := r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return err
		}
		match := func(x BalancesInput) bool { return x.ProductType == pt }
		p.store(func(in *BuildInput) bool {
			old, ok := find(in.Balances, match)
			return ok && sameList(old.Accounts, accts)
		},
			func(in *BuildInput) {
				in.Balances = replace(in.Balances, BalancesInput{ProductType: pt, Accounts: accts, At: now}, match)
			})
	}
	return nil
}

// maxPendingPages bounds the pages of one pending-orders poll; a page is
// 100 orders, so this is 2,000 open orders per product type.
const maxPendingPages = 20

// allPending reads every pending order of pt, following endId.
func (p *Poller) allPending(ctx context.Context, pt exchange.ProductType) ([]exchange.PendingOrder, error) {
	var all []exchange.PendingOrder
	req := exchange.PendingOrdersRequest{ProductType: pt, Limit: 100}
	for page := 0; page < maxPendingPages; page++ {
		res, err := p.opts.Reader.PendingOrders(ctx, req)
		if err != nil {
			return nil, err
		}
		all = append(all, res.EntrustedList...)
		if len(res.EntrustedList) < req.Limit || res.EndID == "" || res.EndID == req.IDLessThan {
			return all, nil
		}
		req.IDLessThan = res.EndID
	}
	return nil, fmt.Errorf("more than %d pages of pending orders", maxPendingPages)
}

// store keeps a fetched answer unless same says it equals the one held. An
// equal answer keeps the old input (and its fetch time, which the State's
// Parts do not take from it): the States built before and after it can then
// share their data.
func (p *Poller) store(same func(*BuildInput) bool, set func(*BuildInput)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if same(&p.in) {
		return
	}
	set(&p.in)
	p.gen++
}

// sameList reports whether a fresh answer equals the one held: the same
// backing array (the simulator hands the very same slice back while nothing
// changed, which is checked without looking at the elements) or, for an
// answer decoded anew, equal elements.
func sameList[E comparable](held, fresh []E) bool {
	return len(held) == len(fresh) && (sameView(held, fresh) || slices.Equal(held, fresh))
}

// sameListDeep is sameList for the answers whose records hold slices
// (reflect.DeepEqual, several times slower than ==).
func sameListDeep[E any](held, fresh []E) bool {
	return len(held) == len(fresh) && (sameView(held, fresh) || reflect.DeepEqual(held, fresh))
}

// find returns the first element of xs that match accepts.
func find[T any](xs []T, match func(T) bool) (T, bool) {
	for _, x := range xs {
		if match(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// replace returns xs with the element matching same replaced by x (or x
// appended), in place: NewState keeps nothing of its input's slices (it
// copies what it keeps), so no State built earlier sees the change.
func replace[T any](xs []T, x T, same func(T) bool) []T {
	for i := range xs {
		if same(xs[i]) {
			xs[i] = x
			return xs
		}
	}
	return append(xs, x)
}

// SetTimedFields says which fields of fetched data that move with time (an
// age, the trade window, tradable_now) a reader reads; the engine sets it
// from the rules it runs, again on every reload. While any is, a State is
// built every tick, with those fields brought to its time; the objects
// whose timed fields did not change are shared with the State before while
// their answers stay the same, their other time fields as of the tick they
// were built at (BuildInput.KeepAges). With none, the States of the ticks
// between two answers share all their data. RebuildEveryTick times every
// field.
func (p *Poller) SetTimedFields(f TimeFieldSet) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timed = f
}

// State builds the State of the tick at now from the latest answers. The
// market session is computed here, at now, from the last states and calendar
// answers: minutes_to_close must be exact on every tick even though the
// calendar is fetched once a minute. While no answer changed, the State
// shares its data with the previous one (unless a field is timed, see
// SetTimedFields).
func (p *Poller) State(now time.Time) (*State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var mkt MarketFetch // a value: a tick that shares its data allocates only the State
	haveMkt := false
	var serr error
	if !p.mktAt.IsZero() {
		var s SessionInfo
		s, serr = p.session.Compute(now, p.states, p.cal)
		if serr == nil {
			mkt, haveMkt = MarketFetch{Session: s, At: p.mktAt}, true
		}
	}
	var st *State
	var err error
	if p.timed == 0 && p.last != nil && p.lastGen == p.gen && p.lastMarket == haveMkt {
		var m *MarketFetch
		if haveMkt {
			m = &mkt
		}
		if len(p.slab) == 0 {
			p.slab = make([]stateSlot, stateSlab)
		}
		st, err = p.last.advance(&p.slab[0], now, m)
		p.slab = p.slab[1:]
		err = errors.Join(err, p.lastErr)
	} else {
		in := p.in
		in.Now, in.Prev, in.KeepAges = now, p.last, AllTimeFields&^p.timed
		if haveMkt {
			m := mkt
			in.Market = &m
		}
		st, err = NewState(in, p.opts.Build)
		p.last, p.lastGen, p.lastErr, p.lastMarket = st, p.gen, err, haveMkt
	}
	p.pollTimes(st)
	if serr != nil {
		err = errors.Join(fmt.Errorf("market session: %w", serr), err)
	}
	return st, err
}

// pollTimes sets the fetch time of every fetched part to the oldest last
// successful poll of its tasks: an answer equal to the one held was not
// stored again, but it is as fresh as the poll that brought it.
func (p *Poller) pollTimes(st *State) {
	var oldest [numParts]time.Time
	for _, t := range p.tasks {
		if t.fetched && (oldest[t.part].IsZero() || t.okAt.Before(oldest[t.part])) {
			oldest[t.part] = t.okAt
		}
	}
	for part, at := range oldest {
		switch {
		case Part(part) == PartMarket || !st.Fetched(Part(part)) || at.IsZero():
		case at == st.Now: // polled this tick, the common case: no arithmetic
			st.age[part] = 0
		default:
			st.setPart(Part(part), at)
		}
	}
}

// Stale returns the first part of parts that is missing or older than
// StaleAfter intervals in st, and whether there is one.
func (p *Poller) Stale(st *State, parts PartSet) (Part, bool) {
	for part := Part(0); part < numParts; part++ { // not parts.Parts(): no allocation per tick
		if !parts.Has(part) {
			continue
		}
		iv := p.Interval(part)
		if iv == 0 {
			return part, true // read but never polled: a bug in the demand
		}
		if !st.Fetched(part) || st.age[part] > StaleAfter*iv {
			return part, true
		}
	}
	return 0, false
}

// Tasks lists the planned fetches as "part key every interval", for logs and
// `engine check`.
func (p *Poller) Tasks() []string {
	out := make([]string, 0, len(p.tasks))
	for _, t := range p.tasks {
		s := t.part.String()
		if t.key != "" {
			s += " " + t.key
		}
		out = append(out, fmt.Sprintf("%s every %s", s, t.interval))
	}
	slices.Sort(out)
	return out
}
