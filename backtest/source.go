package backtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
)

// versionReader is a reader that can tell cheaply that an answer cannot
// have changed: Version returns a value that stays the same while the
// answer of part for key does; ok is false when it cannot tell. The
// simulator can (numericReader); a poll skipped on an unchanged version
// counts as a fetch of the same answer.
type versionReader interface {
	Version(ctx context.Context, part marketdata.Part, key string) (v [3]int64, ok bool)
}

// promiseReader is a versionReader that can also promise for how long its
// versions hold: Promise returns a mark and a time before which (zero:
// never) no Version changes while Mark still returns that mark; Mark
// changes with every write (an order placed through the same venue). Mark
// must be cheap: it is read every tick instead of asking Version of every
// part.
type promiseReader interface {
	versionReader
	Promise(ctx context.Context) (mark uint64, until time.Time)
	Mark() uint64
}

// bookNumbersReader is a reader that hands an order book over in numbers
// (the simulator): the source then skips formatting and parsing 160
// decimal strings a book. StockBookNumbers must give exactly what parsing
// its StockOrderBook answer would, and may return the same slices again
// while the book is unchanged (they are never modified).
type bookNumbersReader interface {
	StockBookNumbers(ctx context.Context, symbol string) (marketdata.NumericBook, error)
}

// simulatorSource is the backtest's StateSource: the live poller's plan and
// fetches (package poll), with what only a simulator allows. It asks the
// simulator whether an answer changed before fetching it (versionReader),
// and how long nothing will change (promiseReader), so that most ticks
// fetch nothing and QuietUntil can tell the runner which seconds it may
// leap over; it reads books in numbers. TestLeapChangesNothing and
// TestSharingChangesNothing check that a backtest reports the same with the
// live poller. It is not safe for concurrent use: the runner polls and
// steps the engine in turn.
type simulatorSource struct {
	opts     poll.Options
	plan     *poll.Plan
	tasks    []simulatorTask
	answers  *marketdata.Answers
	versions versionReader     // opts.Reader, when it is one
	promises promiseReader     // opts.Reader, when it is one
	books    bookNumbersReader // opts.Reader, when it is one
	// allFetched is set once every task has been fetched (FullyPolled).
	allFetched bool

	// The last promise, asked at promisedAt.
	promised               bool
	promiseMark            uint64
	promisedAt, promiseEnd time.Time
}

// simulatorTask is a planned fetch, where it stands, and the version of
// the answer held.
type simulatorTask struct {
	poll.Task
	due       time.Time
	fetched   bool
	okAt      time.Time // the last successful fetch (or version check)
	version   [3]int64  // the reader's version before that fetch
	versioned bool      // version was given
}

// newSimulatorSource plans the tasks of opts.Demand as poll.New does.
func newSimulatorSource(opts poll.Options) (*simulatorSource, error) {
	if opts.Reader == nil || opts.Clock == nil {
		return nil, errors.New("poller: Reader and Clock are required")
	}
	opts.Defaults()
	// Planned as the live poller plans (poll.New): with the spare rate
	// budget, so that equity and the rest are as fresh as they are live.
	plan, err := poll.NewPlan(poll.WithSpareBudget(opts.PlanOptions()))
	if err != nil {
		return nil, err
	}
	s := &simulatorSource{opts: opts, plan: plan, answers: marketdata.NewAnswers(opts.Contracts, opts.Build, false)}
	for _, t := range plan.Tasks {
		s.tasks = append(s.tasks, simulatorTask{Task: t})
	}
	s.versions, _ = opts.Reader.(versionReader)
	s.promises, _ = opts.Reader.(promiseReader)
	s.books, _ = opts.Reader.(bookNumbersReader)
	return s, nil
}

// Covers reports whether the source fetches everything d demands.
func (s *simulatorSource) Covers(d poll.Demand) error { return s.plan.Covers(d) }

// Stale returns the first part of parts that is missing or too old in st.
func (s *simulatorSource) Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool) {
	return s.plan.Stale(st, parts)
}

// SetTimedFields says which fields of fetched data that move with time the
// rules read (marketdata.Answers.SetTimedFields).
func (s *simulatorSource) SetTimedFields(f marketdata.TimeFieldSet) { s.answers.SetTimedFields(f) }

// FullyPolled reports whether every task has been fetched at least once.
func (s *simulatorSource) FullyPolled() bool {
	if s.allFetched {
		return true
	}
	for i := range s.tasks {
		if !s.tasks[i].fetched {
			return false
		}
	}
	s.allFetched = true
	return true
}

// PollDue fetches every task that is due at the clock's time and whose
// answer may have changed, as poll.Poller.PollDue does with every due task.
func (s *simulatorSource) PollDue(ctx context.Context) error {
	now := s.opts.Clock.Now()
	var errs []error
	if exchange.PriorityFrom(ctx) != exchange.PriorityLow {
		ctx = exchange.WithPriority(ctx, exchange.PriorityLow)
	}
	promised := s.promiseHolds(ctx, now)
	var follow []*simulatorTask
	for i := range s.tasks {
		if t := &s.tasks[i]; !t.due.After(now) {
			f, err := s.pollTask(ctx, t, now, promised)
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				errs = append(errs, err)
			}
			if f != nil && !slices.Contains(follow, f) {
				follow = append(follow, f)
			}
		}
	}
	// As the live poller: a close seen in the positions is followed by the
	// position history of its product type in this round (poll.FollowUp).
	for _, t := range follow {
		if _, err := s.pollTask(ctx, t, now, false); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// pollTask polls t at now, unless the answer held is known to be as fresh
// (promised, or the reader's version of it unchanged), and returns the
// task to follow it up with in this round (poll.FollowUp), or nil.
func (s *simulatorSource) pollTask(ctx context.Context, t *simulatorTask, now time.Time, promised bool) (*simulatorTask, error) {
	if promised && t.fetched && t.versioned && !t.okAt.Before(s.promisedAt) {
		// Checked since the promise was made, which still holds: the
		// answer held is as fresh as a fetch now.
		t.due, t.okAt = now.Add(t.Interval), now
		return nil, nil
	}
	var version [3]int64
	var versioned bool
	if s.versions != nil {
		version, versioned = s.versions.Version(ctx, t.Part, t.Key)
	}
	if versioned && t.fetched && t.versioned && version == t.version {
		// Nothing the answer depends on changed: it is the one held.
		t.due, t.okAt = now.Add(t.Interval), now
		return nil, nil
	}
	var before []exchange.Position
	if t.Part == marketdata.PartPositions {
		before = s.answers.Positions(exchange.ProductType(t.Key))
	}
	var began time.Time
	if s.opts.OnFetch != nil {
		began = time.Now()
	}
	err := s.fetch(ctx, t, now)
	if s.opts.OnFetch != nil {
		s.opts.OnFetch(t.Part, t.Key, time.Since(began), err)
	}
	t.due = now.Add(t.Interval)
	if err != nil {
		if ctx.Err() == nil {
			s.opts.Logger.Warn("poll failed", zap.Stringer("part", t.Part), zap.String("key", t.Key), zap.Error(err))
		}
		return nil, fmt.Errorf("poll %s %s: %w", t.Part, t.Key, err)
	}
	t.fetched, t.okAt = true, now
	t.version, t.versioned = version, versioned
	next, ok := poll.FollowUp(t.Task, before, s.answers)
	if !ok {
		return nil, nil
	}
	for i := range s.tasks {
		if s.tasks[i].Part == next.Part && s.tasks[i].Key == next.Key {
			return &s.tasks[i], nil
		}
	}
	return nil, nil
}

// fetch runs one task and stores its answer: a book in numbers when the
// reader has them, anything else as the live poller fetches it.
func (s *simulatorSource) fetch(ctx context.Context, t *simulatorTask, now time.Time) error {
	if t.Part == marketdata.PartStockBook && s.books != nil {
		nb, err := s.books.StockBookNumbers(ctx, t.Key)
		if err != nil {
			return err
		}
		s.storeBookNumbers(t.Key, nb, now)
		return nil
	}
	// No lock: the runner polls and steps the engine in turn.
	return poll.Fetch(ctx, s.opts.Reader, t.Task, now, s.opts.SpotWindow, s.answers, nil)
}

// storeBookNumbers stores a book in numbers unless it is the one held.
func (s *simulatorSource) storeBookNumbers(symbol string, nb marketdata.NumericBook, now time.Time) {
	of := func(b marketdata.BookInput) bool { return b.Symbol == symbol }
	s.answers.Store(func(in *marketdata.BuildInput) bool {
		i := slices.IndexFunc(in.Books, of)
		if i < 0 {
			return false
		}
		old := in.Books[i].Levels
		return old != nil && old.TS == nb.TS && sameArray(old.Bids, nb.Bids) && sameArray(old.Asks, nb.Asks)
	}, func(in *marketdata.BuildInput) {
		held := nb // the copy escapes, only when stored
		b := marketdata.BookInput{Symbol: symbol, Levels: &held, At: now}
		if i := slices.IndexFunc(in.Books, of); i >= 0 {
			in.Books[i] = b
			return
		}
		in.Books = append(in.Books, b)
	})
}

// sameArray reports whether two lists are the same slice of one array:
// the simulator hands the very same levels back while a book is unchanged.
func sameArray[E any](a, b []E) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// promiseHolds reports whether the reader's last promise holds at now.
// When it does not, it asks for a new one before this round checks any
// version: a write after that moves the mark, so a promise can never cover
// an answer fetched before a write it did not see.
func (s *simulatorSource) promiseHolds(ctx context.Context, now time.Time) bool {
	if s.promises == nil {
		return false
	}
	if s.promised && (s.promiseEnd.IsZero() || now.Before(s.promiseEnd)) && s.promises.Mark() == s.promiseMark {
		return true
	}
	s.promiseMark, s.promiseEnd = s.promises.Promise(ctx)
	s.promisedAt, s.promised = now, true
	return false
}

// QuietUntil returns a time before which, short of a write through the
// reader (an order), no poll can bring another answer and no State can
// differ from the one at now but in the fields that follow the clock: the
// reader's promise holds, every task it does not cover is neither due nor
// stale, the market's answers are not stale, and the market session stays
// in its segment. The runner skips the ticks before it when every
// rule's tick repeats (engine.Engine.SkipQuiet). Zero means it cannot
// tell: a reader that makes no promise, a promise broken since, or no
// session known.
func (s *simulatorSource) QuietUntil(now time.Time) time.Time {
	if s.promises == nil || !s.promised || s.promises.Mark() != s.promiseMark {
		return time.Time{}
	}
	until := s.promiseEnd // zero: no price step ahead
	earlier := func(t time.Time) {
		if until.IsZero() || t.Before(until) {
			until = t
		}
	}
	marketAt := s.answers.MarketAt()
	if marketAt.IsZero() {
		return time.Time{}
	}
	// The market's age counts from its last fetch even when a promise
	// refreshes its task (see marketdata.Answers.State).
	earlier(marketAt.Add(poll.StaleAfter * s.plan.Interval(marketdata.PartMarket)))
	for i := range s.tasks {
		t := &s.tasks[i]
		if t.fetched && t.versioned && !t.okAt.Before(s.promisedAt) {
			continue // refreshed by the promise whenever it falls due
		}
		earlier(t.due)
		if t.fetched {
			earlier(t.okAt.Add(poll.StaleAfter * s.plan.Interval(t.Part)))
		}
	}
	end := s.answers.SessionEnd()
	if end.IsZero() || !now.Before(end) {
		return time.Time{}
	}
	earlier(end)
	if !until.After(now) {
		return time.Time{}
	}
	return until
}

// State builds the State of the tick at now from the latest answers, as
// poll.Poller.State does.
func (s *simulatorSource) State(now time.Time) (*marketdata.State, error) {
	var polled marketdata.PartTimes
	for i := range s.tasks {
		t := &s.tasks[i]
		if t.fetched && (polled[t.Part].IsZero() || t.okAt.Before(polled[t.Part])) {
			polled[t.Part] = t.okAt
		}
	}
	return s.answers.State(now, &polled)
}
