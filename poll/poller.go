package poll

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Reader is what the poller reads from a venue: the live client, the
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
	PlanOrders(ctx context.Context, req exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error)
	DiscountRates(ctx context.Context, req exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error)
	SpotRecords(ctx context.Context, req exchange.SpotRecordRequest) ([]exchange.SpotRecord, error)
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
	Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error)
	MergeDepth(ctx context.Context, req exchange.MergeDepthRequest) (exchange.MergeDepth, error)
	PositionHistory(ctx context.Context, req exchange.PositionHistoryRequest) (exchange.PositionHistoryPage, error)
	OrderHistory(ctx context.Context, req exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error)
}

// Clock is the poller's time source.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options configure a Poller.
type Options struct {
	Reader Reader
	Clock  Clock
	Logger *zap.Logger
	Demand Demand
	// Contracts lets the State know which product type a symbol belongs to,
	// so a symbol without a position is known to be flat.
	Contracts []marketdata.ProductContract
	// Headroom is the fraction of each operation's published rate limit the
	// poller may use; the rest stays free for orders (default 0.5).
	Headroom float64
	// Intervals override the interval of a part; below the rate-limit
	// minimum they are raised to it.
	Intervals map[marketdata.Part]time.Duration
	// MinInterval is the shortest interval of any part (default 1s, the tick).
	MinInterval time.Duration
	// SpotWindow is how far back spot records are read (default 24h).
	SpotWindow time.Duration
	Build      marketdata.BuildOptions
	// OnFetch, when set, is called after every fetch with its part, key,
	// wall-clock duration and error (metrics use it).
	OnFetch func(part marketdata.Part, key string, took time.Duration, err error)
	// HeldRules, when set, names the rules that read a part for a key, as
	// a log line lists them ("a, b and 3 more"): the first failure of a
	// fetch says which rules it holds back.
	HeldRules func(part marketdata.Part, key string) string
}

// Defaults fills in the defaults of the options that have one.
func (o *Options) Defaults() {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.SpotWindow <= 0 {
		o.SpotWindow = 24 * time.Hour
	}
}

// PlanOptions are the options of the plan of o.
func (o *Options) PlanOptions() PlanOptions {
	return PlanOptions{Demand: o.Demand, Headroom: o.Headroom, Intervals: o.Intervals, MinInterval: o.MinInterval}
}

// RefusedRetry is how long the poller waits before asking again for a part
// the venue refused to this key (exchange.ErrForbidden: the stock book and
// fills are whitelist-only on the live venue) or does not serve
// (exchange.ErrUnavailable): asking every second would only spend budget.
const RefusedRetry = 10 * time.Minute

// ModeEvery is how often the engine reads the position mode of every
// product type again: a trader may switch it in the venue's app while the
// engine runs (the venue allows that only while the product type is flat),
// and position_mode() and the orders must follow. Rare on purpose: an
// order refused for the wrong mode makes the engine read it at once.
const ModeEvery = 5 * time.Minute

// ModeBudget is the requests per second, per operation, of reading the
// position modes of n product types every ModeEvery, counted from the
// requests one read makes (exchange.PositionModeOps).
func ModeBudget(n int) map[exchange.Op]float64 {
	out := map[exchange.Op]float64{}
	for _, op := range exchange.PositionModeOps() {
		out[op] += float64(n) / ModeEvery.Seconds()
	}
	return out
}

// task is a planned fetch and where it stands.
type task struct {
	Task
	due time.Time
	// phase is where in its interval the task is fetched, after its first
	// fetch (spread).
	phase time.Duration
	// tried is set by the first answer: data, a refusal or a failure.
	tried bool
	okAt  time.Time // the last successful fetch; zero until one
	// failures counts the failed fetches since the last success; the first
	// is logged with its cause, repeats only at 2, 4, 8... so that a part
	// failing every second does not fill the log.
	failures int
	refused  bool // the last failure was a refusal (RefusedRetry)
}

// Poller fetches the demanded parts at intervals that fit the rate limits
// and keeps the latest answer of each; State builds one immutable State from
// them. It is safe for concurrent use: Run polls while the engine takes
// States.
type Poller struct {
	opts  Options
	plan  *Plan
	tasks []task
	// allTried is set once every task has been tried (FullyPolled).
	allTried atomic.Bool

	mu      sync.Mutex // guards tasks' times and answers
	answers *marketdata.Answers
	// arrived receives after a fetch brought new data (Arrived).
	arrived chan struct{}
}

// New plans the tasks of opts.Demand.
func New(opts Options) (*Poller, error) {
	if opts.Reader == nil || opts.Clock == nil {
		return nil, errors.New("poller: Reader and Clock are required")
	}
	opts.Defaults()
	plan, err := NewPlan(WithSpareBudget(opts.PlanOptions()))
	if err != nil {
		return nil, err
	}
	p := &Poller{opts: opts, plan: plan, answers: marketdata.NewAnswers(opts.Contracts, opts.Build, true),
		arrived: make(chan struct{}, 1)}
	phases := spread(plan.Tasks)
	for i, t := range plan.Tasks {
		p.tasks = append(p.tasks, task{Task: t, phase: phases[i]})
	}
	return p, nil
}

// Interval returns the poll interval of part (0 when it is not polled).
func (p *Poller) Interval(part marketdata.Part) time.Duration { return p.plan.Interval(part) }

// Covers reports whether the poller fetches everything d demands; the error
// (ErrNotPolled) names what it does not. Pollers are planned once: rules
// that read more need a new Poller.
func (p *Poller) Covers(d Demand) error { return p.plan.Covers(d) }

// Parts returns the set of parts the poller fetches.
func (p *Poller) Parts() marketdata.PartSet { return p.plan.Parts() }

// Budget lists, per operation, the requests per second the poller makes.
func (p *Poller) Budget() map[exchange.Op]float64 { return p.plan.Budget() }

// Tasks lists the planned fetches as "part key every interval", for logs.
func (p *Poller) Tasks() []string { return p.plan.Lines() }

// Stale returns the first part of parts that is missing or older than
// StaleAfter intervals in st, and whether there is one.
func (p *Poller) Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	return p.plan.Stale(st, parts)
}

// FullyPolled reports whether every task has been tried at least once:
// answered, refused or failed. No rule may fire before that: after a
// restart, half a State could make a rule look true. A part with a task that
// has never answered reads as missing (State), so the rules reading it wait
// (Stale) while the others trade: one part that fails from the start (a
// discount-tier path answering 500) never holds back the futures rules.
func (p *Poller) FullyPolled() bool {
	if p.allTried.Load() { // a task once tried stays tried
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.tasks {
		if !p.tasks[i].tried {
			return false
		}
	}
	p.allTried.Store(true)
	return true
}

// PollDue fetches every task that is due at the clock's time. Errors are
// logged and returned joined; the previous answer of a failed task is kept
// and ages towards staleness.
func (p *Poller) PollDue(ctx context.Context) error {
	now := p.opts.Clock.Now()
	var errs []error
	// Polls yield to the orders in the rate limiter's queue.
	if exchange.PriorityFrom(ctx) != exchange.PriorityLow {
		ctx = exchange.WithPriority(ctx, exchange.PriorityLow)
	}
	var dueBuf [16]*task
	due := dueBuf[:0]
	p.mu.Lock()
	for i := range p.tasks {
		if t := &p.tasks[i]; !t.due.After(now) {
			due = append(due, t)
		}
	}
	p.mu.Unlock()
	// A close seen in the positions is followed by the position history
	// of its product type in this same round (FollowUp), after the tasks
	// due.
	for i := 0; i < len(due); i++ {
		t := due[i]
		var before []exchange.Position
		if t.Part == marketdata.PartPositions {
			p.mu.Lock()
			before = p.answers.Positions(exchange.ProductType(t.Key))
			p.mu.Unlock()
		}
		err := p.fetchTask(ctx, t, now)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("poll %s %s: %w", t.Part, t.Key, err))
			continue
		}
		p.mu.Lock()
		next, ok := FollowUp(t.Task, before, p.answers)
		p.mu.Unlock()
		if !ok {
			continue
		}
		if f := p.task(next); f != nil && !slices.Contains(due[i+1:], f) {
			due = append(due, f)
		}
	}
	return errors.Join(errs...)
}

// fetchTask fetches one task at now and records its outcome: when it is
// due next, its failures, and an arrival when it brought something new.
func (p *Poller) fetchTask(ctx context.Context, t *task, now time.Time) error {
	var began time.Time
	if p.opts.OnFetch != nil {
		began = time.Now()
	}
	p.mu.Lock()
	changes := p.answers.Changes()
	p.mu.Unlock()
	err := Fetch(ctx, p.opts.Reader, t.Task, now, p.opts.SpotWindow, p.answers, &p.mu)
	if p.opts.OnFetch != nil {
		p.opts.OnFetch(t.Part, t.Key, time.Since(began), err)
	}
	if err != nil && ctx.Err() != nil {
		return err
	}
	p.mu.Lock()
	news := err == nil && (p.answers.Changes() != changes || t.okAt.IsZero() || t.failures > 0)
	t.due = t.nextDue(now)
	failures, refused := t.failures, refusal(err)
	t.tried = true
	if err == nil {
		t.okAt, t.failures, t.refused = now, 0, false
	} else {
		t.failures++
		if t.refused = refused; refused {
			t.due = now.Add(RefusedRetry)
		}
	}
	p.mu.Unlock()
	if news {
		p.arrive()
	}
	p.logFetch(t, err, failures, refused)
	return err
}

// task returns the poller's task of the same part and key as want (nil:
// the rules demand no such task).
func (p *Poller) task(want Task) *task {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.tasks {
		if p.tasks[i].Part == want.Part && p.tasks[i].Key == want.Key {
			return &p.tasks[i]
		}
	}
	return nil
}

// refusal reports whether err says the venue will not answer this part to
// this key at all, rather than failing this time.
func refusal(err error) bool {
	return errors.Is(err, exchange.ErrForbidden) || errors.Is(err, exchange.ErrUnavailable)
}

// logFetch summarises a task's failures: the first with its cause, repeats
// at growing intervals (the 2nd, 4th, 8th...), and the recovery once.
// failuresBefore is the count before this fetch.
func (p *Poller) logFetch(t *task, err error, failuresBefore int, refused bool) {
	if err == nil && failuresBefore == 0 {
		return // the common case: no logger built
	}
	log := p.opts.Logger.With(zap.Stringer("part", t.Part), zap.String("key", t.Key))
	if failuresBefore == 0 && p.opts.HeldRules != nil {
		log = log.With(zap.String("held_rules", p.opts.HeldRules(t.Part, t.Key)))
	}
	switch n := failuresBefore + 1; {
	case err == nil:
		log.Info("poll recovered", zap.Int("failed_polls", failuresBefore))
	case refused && failuresBefore == 0:
		log.Warn("the venue refuses this data to this key: the rules that read it wait, all others go on; asking again every "+RefusedRetry.String(), zap.Error(err))
	case failuresBefore == 0:
		log.Warn("poll failed: the rules that read this part wait for it once it is older than "+fmt.Sprint(StaleAfter)+" intervals", zap.Error(err))
	case n&(n-1) == 0: // a power of two
		log.Warn("poll still failing", zap.Int("failed_polls", n), zap.Error(err))
	}
}

// Run polls until ctx is done, waking when the next task is due. Rules
// that read nothing polled (only the clock) leave the poller without tasks:
// then it just waits for ctx, instead of waking at once forever.
func (p *Poller) Run(ctx context.Context) error {
	for {
		_ = p.PollDue(ctx)
		next, ok := p.nextDue()
		if !ok {
			<-ctx.Done()
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.opts.Clock.After(next.Sub(p.opts.Clock.Now())):
		}
	}
}

// nextDue returns when the earliest task is due; false when there are no
// tasks.
func (p *Poller) nextDue() (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var next time.Time
	for i := range p.tasks {
		if t := &p.tasks[i]; i == 0 || t.due.Before(next) {
			next = t.due
		}
	}
	return next, len(p.tasks) > 0
}

// State builds the State of the tick at now from the latest answers
// (marketdata.Answers.State); each part's fetch time is its tasks' oldest
// last successful poll. A part with a task tried but never answered (refused
// or failing since the start) reads as missing, even if its other keys
// answered: a rule must not read a pair's absent book or a product type's
// absent positions as empty.
func (p *Poller) State(now time.Time) (*marketdata.State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var polled marketdata.PartTimes
	var missing [marketdata.NumParts]bool
	for i := range p.tasks {
		switch t := &p.tasks[i]; {
		case !t.tried:
		case t.okAt.IsZero():
			missing[t.Part] = true
		case polled[t.Part].IsZero() || t.okAt.Before(polled[t.Part]):
			polled[t.Part] = t.okAt
		}
	}
	for part, m := range missing {
		if m {
			polled[part] = time.Time{}
		}
	}
	return p.answers.State(now, &polled)
}
