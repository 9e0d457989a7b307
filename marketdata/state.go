package marketdata

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// ErrMissingData is wrapped by every lookup that fails because the data a
// condition asks for was not fetched or has no value. The engine branches on
// it to report "did not fire: no data" instead of an error in the rule.
var ErrMissingData = errors.New("no data")

// MissingError says which data is missing and why. It wraps ErrMissingData.
type MissingError struct {
	What   string // the object, e.g. "stock TSLA", "position TSLAUSDT long", "market"
	Reason string // plain words, e.g. "the order book was not fetched"
	// Absent is set when the data was fetched and says there is no such
	// value: a flat position has no entry price, a closed market no
	// minutes to close. A trace shows that as "none", not as an error;
	// data that was not fetched stays an error.
	Absent bool
}

// Error reads "no data for stock TSLA: the order book was not fetched".
func (e *MissingError) Error() string {
	if e.Reason == "" {
		return "no data for " + e.What
	}
	return "no data for " + e.What + ": " + e.Reason
}

// Unwrap returns ErrMissingData.
func (e *MissingError) Unwrap() error { return ErrMissingData }

func missing(what, reason string) error { return &MissingError{What: what, Reason: reason} }

// Part is one independently fetched piece of the State. Each part comes from
// its own exchange operation, so a rule that reads only the market session
// never causes an order-book poll.
type Part uint8

// The parts of a State, one per poller.
const (
	PartMarket         Part = iota // market states and calendar
	PartStockInfo                  // stock-info
	PartStockBook                  // stock-orderbook, per pair
	PartStockTrades                // stock-fills, per pair
	PartPositions                  // all-position, per product type
	PartOrders                     // orders-pending, per product type
	PartStrategyOrders             // unfilled-strategy-orders, per category
	PartDiscount                   // eligible-discount-rate
	PartSpotRecords                // spot-record
	PartBalances                   // accounts (balances and position mode), per product type
	PartTicker                     // ticker, per futures contract
	PartFuturesBook                // merge-depth, per futures contract
	PartClosedTrades               // history-position, per product type
	numParts
)

var partNames = [numParts]string{
	"market", "stock_info", "stock_book", "stock_trades", "positions", "orders",
	"strategy_orders", "discount", "spot_records", "balances", "ticker", "futures_book",
	"closed_trades",
}

// String returns the part's name as used in traces and docs.
func (p Part) String() string {
	if p < numParts {
		return partNames[p]
	}
	return fmt.Sprintf("part(%d)", uint8(p))
}

// Parts returns every part in declaration order.
func Parts() []Part {
	out := make([]Part, numParts)
	for i := range out {
		out[i] = Part(i)
	}
	return out
}

// PartSet is a set of parts.
type PartSet uint16

// Add returns s with p added.
func (s PartSet) Add(p Part) PartSet { return s | 1<<p }

// Has reports whether p is in s.
func (s PartSet) Has(p Part) bool { return s&(1<<p) != 0 }

// Union returns the parts in s or t.
func (s PartSet) Union(t PartSet) PartSet { return s | t }

// Parts returns the members of s in declaration order.
func (s PartSet) Parts() []Part {
	var out []Part
	for p := Part(0); p < numParts; p++ {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// String lists the members, e.g. "market,stock_book".
func (s PartSet) String() string {
	names := make([]string, 0, numParts)
	for _, p := range s.Parts() {
		names = append(names, p.String())
	}
	return strings.Join(names, ",")
}

// PartStatus says whether a part was fetched and when. For a part fetched per
// pair or per product type, At is the oldest of those fetches, so that a
// staleness check on it is conservative.
type PartStatus struct {
	Fetched bool
	At      time.Time
}

// Need is a set of data requirements of a field: what must be known for the
// field to have a value. Objects record what they have; a lookup asked for a
// field whose needs are not all met fails with a *MissingError.
type Need uint16

// Requirements of fields.
const (
	NeedInfo         Need = 1 << iota // stock pair info was fetched
	NeedBook                          // the order book was fetched and has both sides
	NeedTrades                        // platform fills were fetched (volume may be 0)
	NeedLastTrade                     // at least one fill is known
	NeedWindowTrades                  // at least one fill inside the trade window
	NeedMarket                        // the market session is known
	NeedSessionOpen                   // a session is in progress (not closed)
	NeedOpen                          // the position is open (one side, size > 0)
	NeedNextSession                   // a next session is known (within the calendar's horizon)
)

// needRows is one row per requirement: the part whose fetch provides it
// (none for a requirement on the data itself, like an open position), how
// the reference and traces say it is met, and how a lookup says it is not.
// A field's row names its requirements (FieldDoc.Needs); the poller's
// demand takes the parts from here, so a field reads the parts its
// requirements name and nothing else.
var needRows = []struct {
	n      Need
	parts  PartSet
	met    string // "the order book was fetched and has both sides"
	reason string // "the order book was not fetched or has an empty side"
	absent bool   // fetched, and there is none (MissingError.Absent)
}{
	{NeedInfo, PartSet(0).Add(PartStockInfo), "the stock pair info was fetched", "the stock pair info was not fetched", false},
	{NeedBook, PartSet(0).Add(PartStockBook), "the order book was fetched and has both sides", "the order book was not fetched or has an empty side", false},
	{NeedTrades, PartSet(0).Add(PartStockTrades), "the platform fills were fetched", "the platform fills were not fetched", false},
	{NeedLastTrade, PartSet(0).Add(PartStockTrades), "a fill is known", "no fill is known", true},
	{NeedWindowTrades, PartSet(0).Add(PartStockTrades), "a fill is in the trade window", "no fill in the trade window", true},
	{NeedMarket, PartSet(0).Add(PartMarket), "the market session was fetched", "the market session was not fetched", false},
	{NeedSessionOpen, 0, "a session is in progress", "the market is closed", true},
	{NeedOpen, 0, "the position is open", "the position is flat (or, for net, open on both sides)", true},
	{NeedNextSession, 0, "a next session is known", "no next session is known", true},
}

// String lists the requirements in plain words, for the reference and
// traces: "the order book was fetched and has both sides; ...".
func (n Need) String() string {
	var parts []string
	for _, r := range needRows {
		if n&r.n != 0 {
			parts = append(parts, r.met)
		}
	}
	return strings.Join(parts, "; ")
}

// Parts returns the parts that must be fetched for the requirements in n
// to be met: what a condition reading a field with these requirements
// makes the poller fetch.
func (n Need) Parts() PartSet {
	var s PartSet
	for _, r := range needRows {
		if n&r.n != 0 {
			s = s.Union(r.parts)
		}
	}
	return s
}

// check returns a *MissingError naming what when have lacks part of need.
func check(what string, have, need Need) error {
	lack := need &^ have
	if lack == 0 {
		return nil
	}
	for _, r := range needRows {
		if lack&r.n != 0 {
			return &MissingError{What: what, Reason: r.reason, Absent: r.absent}
		}
	}
	return missing(what, "")
}

// scope is what one fetch of a per-product part covered: a product type, and
// a symbol when the fetch was for one symbol only.
type scope struct {
	product exchange.ProductType
	symbol  string // empty: every symbol of product
	at      time.Time
}

// State is what conditions read in one tick. It is built once by NewState and
// never changed afterwards, so every rule of a tick sees the same values and
// any number of goroutines may read it.
//
// Between two fetches that bring new answers, the States of successive ticks
// share their data (see SameData) and differ only in the time and the market
// session, which follow the clock.
type State struct {
	// Now is the time of the tick, from the engine's clock.
	Now time.Time
	// fetched are the parts fetched, and age how long before Now each was
	// last polled (Part gives both): a duration is a third of a time's
	// size, and a State is made every tick.
	fetched PartSet
	age     [numParts]time.Duration

	eastern time.Time // Now in US Eastern time
	market  *Market

	*content
}

// content is everything in a State that comes from fetched answers. States
// of different ticks share one content while no answer changes.
type content struct {
	stocks     []*Stock       // sorted by symbol
	stockIndex map[string]int // in stocks, by pair symbol and by stock code; shared, read-only
	srcInfoAt  time.Time      // when srcInfo was fetched

	positions     []*Position                     // open positions, sorted by symbol then side
	positionIndex map[posKey]*Position            // open positions, by symbol and side
	positionScope []scope                         // what the position fetches covered
	contractPT    map[string]exchange.ProductType // shared by States; see product
	productOf     map[string]exchange.ProductType // what the fetches say, when the contracts do not
	flat          *flatMemo                       // flat and net positions handed out; see Position

	orders        []*Order    // sorted by symbol, then age (oldest first)
	ordersRuns    *symbolRuns // of orders
	ordersScope   []scope
	strategy      []*StrategyOrder // sorted by symbol, in the order fetched within one
	strategyRuns  *symbolRuns      // of strategy
	strategyScope []exchange.Category
	srcStrategy   []StrategyOrdersInput // what strategy was built from (KeepAges)

	discounts   map[string][]*DiscountTier
	spotRecords []*SpotRecord

	balances []*Balance
	posModes map[exchange.ProductType]string

	tickers      []*Ticker      // sorted by symbol
	tickersAsked []string       // the contracts whose ticker was fetched
	futuresBooks []*FuturesBook // the books with both sides
	booksAsked   []string       // the contracts whose book was fetched

	closed      []ClosedTrade          // closed positions, newest first
	closedScope []exchange.ProductType // the product types whose history was fetched

	// The answers the positions, orders and stock pairs were built from
	// (never changed), to tell which symbols' data two contents share
	// (SameKeys).
	srcPositions []PositionsInput
	srcOrders    []OrdersInput
	srcInfo      []exchange.StockInfo
}

// product returns the product type of a futures symbol: what the fetches
// say, else what the contracts say.
func (c *content) product(symbol string) (exchange.ProductType, bool) {
	if pt, ok := c.productOf[symbol]; ok {
		return pt, true
	}
	pt, ok := c.contractPT[symbol]
	return pt, ok
}

// SameData reports whether s and o hold the same fetched data (they differ at
// most in time, session and fetch times): a condition that reads nothing
// that moves with time has the same value in both.
func (s *State) SameData(o *State) bool {
	return o != nil && s.content == o.content
}

// SameSession reports whether s and o agree on every market field that is
// not counted in minutes (those whose row in Objects says movesWithSession):
// a condition that reads only those and fetched data has the same value in
// two States with the same data and the same session. A new such field is
// compared here too; TestSameSessionComparesEveryField fails until it is.
func (s *State) SameSession(o *State) bool {
	if o == nil || (s.market == nil) != (o.market == nil) {
		return false
	}
	if s.market == nil {
		return true
	}
	a, b := s.market, o.market
	return a.Session == b.Session && a.IsOpen == b.IsOpen && a.IsHoliday == b.IsHoliday &&
		a.IsWeekend == b.IsWeekend && a.Holiday == b.Holiday && a.NextSession == b.NextSession &&
		a.NextSessionStart.Equal(b.NextSessionStart) && a.DST == b.DST && a.have == b.have
}

// Fetched reports whether part p was fetched.
func (s *State) Fetched(p Part) bool { return p < numParts && s.fetched.Has(p) }

// Part says whether part p was fetched and when it was last polled.
func (s *State) Part(p Part) PartStatus {
	if !s.Fetched(p) {
		return PartStatus{}
	}
	return PartStatus{Fetched: true, At: s.Now.Add(-s.age[p])}
}

// setPart records that part p was last polled at.
func (s *State) setPart(p Part, at time.Time) {
	s.fetched = s.fetched.Add(p)
	s.age[p] = s.Now.Sub(at)
}

// Market returns the market session. need is NeedSessionOpen for the fields
// that only have a value while a session is in progress.
func (s *State) Market(need Need) (*Market, error) {
	if s.market == nil {
		return nil, missing("market", "the market session was not fetched")
	}
	return s.market, check("market", s.market.have, need)
}

// Stock returns the stock pair named by its pair symbol (TSLAUSDT) or its
// stock code (TSLA), or an error when it or a part in need is unknown.
func (s *State) Stock(name string, need Need) (*Stock, error) {
	st := s.stock(name)
	if st == nil {
		return nil, missing("stock "+name, "nothing was fetched for this pair")
	}
	if need&^st.have == 0 {
		return st, nil // the hot path: no message is built when nothing lacks
	}
	return st, check("stock "+name, st.have, need)
}

// stock returns the stock pair named by its pair symbol or its stock code;
// nil when there is none.
func (s *State) stock(name string) *Stock {
	if i, ok := s.stockIndex[name]; ok {
		return s.stocks[i]
	}
	return nil
}

// Stocks returns every stock pair with any fetched data, sorted by symbol.
func (s *State) Stocks() []*Stock { return s.stocks }
