package marketdata

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// NumParts is how many parts a State has (Part values 0 to NumParts-1), for
// arrays indexed by Part.
const NumParts = int(numParts)

// PartTimes holds one time per part, indexed by Part: when each part was last
// polled successfully (zero: never).
type PartTimes [numParts]time.Time

// Answers holds the latest answer of every fetch and builds the State of a
// tick from them. A source of States (the live poller, a backtest's source)
// stores what it fetches here and asks for a State every tick. It does no
// I/O and takes no lock: the caller serialises its calls.
//
// Built fresh (NewAnswers with fresh: the live poller), every State is
// made from the answers alone. Otherwise (the backtest's source), while no
// stored answer changed, the State of a tick shares its data with the
// State before (State.SameData) and only the time, the session and the
// ages of the parts are new: the backtest's engine then knows, by pointer,
// that a condition reading nothing that moves with time has the value it
// had.
type Answers struct {
	build BuildOptions
	in    BuildInput
	// The market's states and calendar answers and when they were fetched
	// (zero: never); the session is computed from them at every tick.
	states   []exchange.MarketState
	cal      exchange.Calendar
	marketAt time.Time
	session  SessionCache
	// changes counts the stored answers that differed from the one held;
	// a State is built afresh only when it moved since last was built
	// (at builtAt).
	changes, builtAt uint64
	last             *State
	lastErr          error
	lastMarket       bool         // whether last knew the market session
	timed            TimeFieldSet // see SetTimedFields
	fresh            bool         // see NewAnswers
}

// NewAnswers returns an empty Answers whose States know contracts (so that
// a symbol without a position is known to be flat) and are built with opts.
// With fresh, every State is built from the answers alone, with every field
// at its time and the session computed anew (ComputeSession): nothing is
// shared with the State before and SetTimedFields is ignored. The live
// poller builds its States so; sharing is the backtest's speed-up.
func NewAnswers(contracts []ProductContract, opts BuildOptions, fresh bool) *Answers {
	a := &Answers{build: opts, in: BuildInput{Contracts: contracts}, fresh: fresh}
	if fresh {
		a.timed = AllTimeFields
	}
	return a
}

// SetMarket stores the market's states and calendar answers, fetched at.
func (a *Answers) SetMarket(states []exchange.MarketState, cal exchange.Calendar, at time.Time) {
	a.states, a.cal, a.marketAt = states, cal, at
}

// MarketAt is when the market's answers were last fetched (zero: never).
func (a *Answers) MarketAt() time.Time { return a.marketAt }

// SessionEnd is when the session segment of the last State ends: until
// then, with the same answers, only the minute fields of the session
// change (SessionCache.SegmentEnd). Zero when none is known.
func (a *Answers) SessionEnd() time.Time { return a.session.SegmentEnd() }

// Store keeps a fetched answer unless same says it equals the one held in
// the input; set writes it there. An equal answer keeps the old one (and
// its fetch time, which the State's parts take from PartTimes, not from
// it): the States built before and after it can then share their data.
func (a *Answers) Store(same func(*BuildInput) bool, set func(*BuildInput)) {
	if same(&a.in) {
		return
	}
	set(&a.in)
	a.changes++
}

// Changes counts the stored answers that differed from the one held: a
// poller compares it before and after a fetch to know whether the fetch
// brought anything new.
func (a *Answers) Changes() uint64 { return a.changes }

// SetTimedFields says which fields of fetched data that move with time (an
// age, the trade window, tradable_now) a reader reads; the engine sets it
// from the rules it runs, again on every reload. While any is, a State is
// built every tick, with those fields brought to its time; the objects
// whose timed fields did not change are shared with the State before while
// their answers stay the same, their other time fields as of the tick they
// were built at (BuildInput.KeepAges). With none, the States of the ticks
// between two answers share all their data.
func (a *Answers) SetTimedFields(f TimeFieldSet) {
	if !a.fresh {
		a.timed = f
	}
}

// State builds the State of the tick at now from the latest answers; polled
// says when each part was last polled successfully, which is its fetch time
// in the State (an answer equal to the one held was not stored again, but
// it is as fresh as the poll that brought it). The market session is
// computed here, at now, from the last states and calendar answers:
// minutes_to_close must be exact on every tick even though the calendar is
// fetched once a minute.
func (a *Answers) State(now time.Time, polled *PartTimes) (*State, error) {
	var mkt MarketFetch // a value: a tick that shares its data allocates only the State
	haveMkt := false
	var serr error
	if !a.marketAt.IsZero() {
		var s SessionInfo
		if a.fresh {
			s, serr = ComputeSession(now, a.states, a.cal)
		} else {
			s, serr = a.session.Compute(now, a.states, a.cal)
		}
		if serr == nil {
			mkt, haveMkt = MarketFetch{Session: s, At: a.marketAt}, true
		}
	}
	var st *State
	var err error
	if !a.fresh && a.timed == 0 && a.last != nil && a.builtAt == a.changes && a.lastMarket == haveMkt {
		var m *MarketFetch
		if haveMkt {
			m = &mkt
		}
		st, err = a.last.advance(now, m)
		err = errors.Join(err, a.lastErr)
	} else {
		in := a.in
		in.Now, in.KeepAges = now, AllTimeFields&^a.timed
		if !a.fresh {
			in.Prev = a.last
		}
		if haveMkt {
			m := mkt
			in.Market = &m
		}
		st, err = NewState(in, a.build)
		a.last, a.builtAt, a.lastErr, a.lastMarket = st, a.changes, err, haveMkt
	}
	st.setPollTimes(polled)
	if serr != nil {
		err = errors.Join(fmt.Errorf("market session: %w", serr), err)
	}
	return st, err
}

// setPollTimes sets the fetch time of every fetched part but the market
// (whose time is its answers') to polled.
func (s *State) setPollTimes(polled *PartTimes) {
	for part, at := range polled {
		switch {
		case Part(part) == PartMarket || !s.Fetched(Part(part)) || at.IsZero():
		case at == s.Now: // polled this tick, the common case: no arithmetic
			s.age[part] = 0
		default:
			s.setPart(Part(part), at)
		}
	}
}

// Age is how long before Now part p was last polled; 0 when it was not
// fetched (see Fetched).
func (s *State) Age(p Part) time.Duration {
	if !s.Fetched(p) {
		return 0
	}
	return s.age[p]
}

// Positions returns the positions answer held for pt (nil when none): a
// poller compares it before and after a fetch (poll.PositionsReduced).
func (a *Answers) Positions(pt exchange.ProductType) []exchange.Position {
	for i := range a.in.Positions {
		if a.in.Positions[i].ProductType == pt {
			return a.in.Positions[i].Positions
		}
	}
	return nil
}
