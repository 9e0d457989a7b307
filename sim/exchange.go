// Package sim is the simulated exchange: an in-process exchange.Venue per
// account that enforces the rules of the exchange interface (both position
// modes, every order operation, matching against a price path and a
// synthetic book, fees, positions, balances, queries and records), driven by
// a Scenario and a clock. The HTTP server in sim/server exposes it on the
// spec's paths; sim/market supplies prices, books and the US calendar.
//
// Everything is deterministic: the same scenario and the same calls at the
// same clock times give the same answers, byte for byte.
package sim

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/market"
)

// Market is what the core needs from the simulated market. *market.Market
// satisfies it; tests may pass their own.
type Market interface {
	PriceAt(symbol string, t time.Time) (decimal.Decimal, bool)
	Book(symbol string, t time.Time, levels int) (bids, asks []exchange.PriceLevel)
	FuturesOpen(t time.Time, isRwa bool) bool
	StockOrderBook(symbol string, t time.Time) (exchange.StockOrderBook, error)
	StockFills(symbol string, t time.Time, limit int) ([]exchange.StockFill, error)
	StockInfo(symbol string) ([]exchange.StockInfo, error)
	States(t time.Time) []exchange.MarketState
	Calendar() exchange.Calendar
}

// Options configure an Exchange. Zero values mean: the real clock, a no-op
// logger, the scenario's settings and a market built from the scenario.
type Options struct {
	Clock  exchange.Clock
	Logger *zap.Logger
	// Settings, when set, replace the scenario's settings.
	Settings *Settings
	// Market, when set, replaces the market built from the scenario.
	Market Market
	// CandleGaps are spans without candles in the candle history (see
	// history.go), as a maintenance leaves at the venue.
	CandleGaps []Window
}

// AccountAuth is what the HTTP server needs to authenticate a key.
type AccountAuth struct {
	UID        string
	Secret     string
	Passphrase string
	Perms      []exchange.Permission
}

// Exchange is one simulated exchange. It is safe for concurrent use: one
// mutex serialises every call, which is also what makes it deterministic.
type Exchange struct {
	mu     sync.Mutex
	sc     *Scenario
	set    Settings
	faults Faults
	clock  exchange.Clock
	log    *zap.Logger
	mkt    Market

	contracts  []*contract // product type order, then symbol
	contractBy map[string]*contract
	accounts   []*Account // scenario order
	byKey      map[string]*Account
	discount   []exchange.DiscountCoin

	step     time.Duration // matching step (clock.step)
	now      time.Time     // matching has run up to here
	orderSeq uint64
	tradeSeq uint64
	modifies []*pendingModify // due in order of appearance time, then creation

	// tpsl are the positions' take-profit/stop-loss strategy orders, in
	// creation order (see strategy.go); strategySeq numbers them.
	tpsl        []*posTPSL
	strategySeq uint64
	// plans are the orders resting on the exchange until a trigger
	// (plan.go), in creation order; numbered with strategySeq.
	plans []*planOrder
	// planHistory are the plan orders that left plans (triggered or
	// cancelled), oldest first, as orders-plan-history lists them.
	planHistory []*planOrder

	// keepRate is 1 - set.MaintenanceMarginRate: the share of a crossed
	// position's cushion that its liquidation price keeps (see liquidation).
	keepRate decimal.Decimal

	rev        atomic.Uint64 // state revision, see changed; read without the lock by Mark
	noMemo     bool          // tests: answer every query afresh
	noFixed    bool          // tests: compute the answers in decimal only (see fixed)
	epochCache epochCache    // see marketEpoch

	// noMatchSkip (tests) matches every book at every step; matchSkips
	// counts the steps matchResting skipped, so tests can tell it did.
	noMatchSkip bool
	matchSkips  uint64

	candleGaps []Window // Options.CandleGaps
}

// ID bases make ids look like the exchange's 19-digit ids; they only grow,
// so newer records always have larger ids.
const (
	orderIDBase = 1_100_000_000_000_000_000
	tradeIDBase = 1_200_000_000_000_000_000
)

// New builds an exchange from sc. The exchange's time starts at the later of
// the scenario start and the clock's time.
func New(sc *Scenario, opts Options) (*Exchange, error) {
	if sc == nil {
		return nil, errors.New("sim: nil scenario")
	}
	x := &Exchange{
		sc: sc, faults: sc.Faults, clock: opts.Clock, log: opts.Logger, mkt: opts.Market,
		contractBy: map[string]*contract{}, byKey: map[string]*Account{},
		candleGaps: slices.Clone(opts.CandleGaps),
	}
	// Defaults again: a Scenario built in Go rather than loaded has none,
	// and a zero step or catch-up bound would never finish.
	tmp := Scenario{Clock: sc.Clock, Settings: sc.Settings}
	if opts.Settings != nil {
		tmp.Settings = *opts.Settings
	}
	tmp.applyDefaults()
	x.set, x.step = tmp.Settings, tmp.Clock.Step
	x.keepRate = one.Sub(x.set.MaintenanceMarginRate)
	checked := *sc
	checked.Settings, checked.Clock = x.set, tmp.Clock
	if errs := checked.check(); len(errs) > 0 {
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = fmt.Errorf("sim: scenario %s: %s: %w", pathString(e.path), e.msg, ErrScenario)
		}
		return nil, errors.Join(out...)
	}
	if x.clock == nil {
		x.clock = clock.Real{}
	}
	if x.log == nil {
		x.log = zap.NewNop()
	}
	for _, cs := range sc.Contracts {
		c, err := newContract(cs)
		if err != nil {
			return nil, fmt.Errorf("sim: contract %s: %w", cs.Symbol, err)
		}
		c.book = &restingBook{}
		if _, ok := sc.Prices[MarkPathName(c.spec.Symbol)]; ok && opts.Market == nil {
			c.markSymbol = MarkPathName(c.spec.Symbol)
		}
		x.contracts = append(x.contracts, c)
		x.contractBy[contractKey(c.productType, c.spec.Symbol)] = c
	}
	slices.SortStableFunc(x.contracts, func(a, b *contract) int {
		return cmp.Or(cmp.Compare(productRank(a.productType), productRank(b.productType)), cmp.Compare(a.spec.Symbol, b.spec.Symbol))
	})
	if x.mkt == nil {
		m, err := newMarket(sc, x.contracts)
		if err != nil {
			return nil, sc.located(fmt.Errorf("sim: market: %w", err))
		}
		x.mkt = m
	}
	for _, d := range sc.DiscountTiers {
		x.discount = append(x.discount, d.DiscountCoin)
	}
	x.now = sc.Clock.Start
	if now := x.clock.Now(); now.After(x.now) {
		x.now = now
	}
	for i := range sc.Accounts {
		a, err := x.newAccount(&sc.Accounts[i])
		if err != nil {
			return nil, fmt.Errorf("sim: account %s: %w", sc.Accounts[i].UID, err)
		}
		x.accounts = append(x.accounts, a)
		x.byKey[a.auth.apiKey] = a
	}
	return x, nil
}

// newMarket builds the scenario's market with the contracts' price steps.
func newMarket(sc *Scenario, contracts []*contract) (Market, error) {
	ticks := make(map[string]decimal.Decimal, len(contracts))
	for _, c := range contracts {
		ticks[c.spec.Symbol] = c.priceStep
		// A stored mark or index path moves in the contract's ticks too.
		ticks[MarkPathName(c.spec.Symbol)] = c.priceStep
		ticks[IndexPathName(c.spec.Symbol)] = c.priceStep
	}
	m, err := market.New(market.Options{
		Paths: sc.Prices, BaseDir: sc.BaseDir, StockPairs: sc.StockPairs, Calendar: sc.Calendar,
		Start: sc.Clock.Start, End: sc.Clock.End, Ticks: ticks,
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

var _ Market = (*market.Market)(nil)

func productRank(p exchange.ProductType) int {
	return slices.Index(exchange.ProductTypes(), p)
}

func contractKey(pt exchange.ProductType, symbol string) string { return string(pt) + "/" + symbol }

// Scenario returns the scenario the exchange was built from.
func (x *Exchange) Scenario() *Scenario { return x.sc }

// Faults returns the fault injection in effect.
func (x *Exchange) Faults() Faults { return x.faults }

// Account returns the account of apiKey; *Account is an exchange.Venue.
func (x *Exchange) Account(apiKey string) (*Account, bool) {
	a, ok := x.byKey[apiKey]
	return a, ok
}

// Accounts returns every account in scenario order.
func (x *Exchange) Accounts() []*Account { return slices.Clone(x.accounts) }

// Auth returns what authenticating apiKey needs.
func (x *Exchange) Auth(apiKey string) (AccountAuth, bool) {
	a, ok := x.byKey[apiKey]
	if !ok {
		return AccountAuth{}, false
	}
	return AccountAuth{UID: a.uid, Secret: a.auth.secret, Passphrase: a.auth.passphrase, Perms: slices.Clone(a.auth.perms)}, true
}

// AdvanceTo runs matching up to t (backtests drive it with their virtual
// clock). Every Venue call also catches up to the clock's time first.
func (x *Exchange) AdvanceTo(t time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.catchUp(t)
}

// Now returns the time matching has run up to.
func (x *Exchange) Now() time.Time {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.now
}

// lock takes the exchange lock and catches up with the clock. Every Venue
// method starts with it.
func (x *Exchange) lock() {
	x.mu.Lock()
	x.catchUp(x.clock.Now())
}

// catchUp advances matching from x.now to t in scenario steps, so that a
// limit order fills when the path crosses it between two calls. Asynchronous
// modifies that are due appear first at every step.
func (x *Exchange) catchUp(t time.Time) {
	if t.After(x.now) && len(x.modifies) == 0 && !x.resting() && len(x.tpsl) == 0 && len(x.plans) == 0 {
		// Nothing rests, waits to trigger or is due: every step would be a
		// no-op but funding, which needs no price in between.
		x.settleFunding(x.now, t)
		x.now = t
	}
	if t.After(x.now) {
		step := x.step
		gap := t.Sub(x.now)
		if n := int64(gap / step); n > int64(x.set.MaxCatchUpSteps) {
			step = gap / time.Duration(x.set.MaxCatchUpSteps)
		}
		for next := x.now.Add(step); !next.After(t); next = next.Add(step) {
			x.stepTo(next)
		}
		if t.After(x.now) {
			x.stepTo(t)
		}
	}
	x.applyModifies()
}

// resting reports whether an order rests on any book.
func (x *Exchange) resting() bool {
	for _, c := range x.contracts {
		if len(c.book.buys) > 0 || len(c.book.sells) > 0 {
			return true
		}
	}
	return false
}

func (x *Exchange) stepTo(t time.Time) {
	x.settleFunding(x.now, t)
	x.now = t
	x.applyModifies()
	for _, c := range x.contracts {
		x.matchResting(c)
	}
	x.triggerTPSL()
	x.triggerPlans()
}

func (x *Exchange) nextOrderID() string {
	x.orderSeq++
	return strconv.FormatUint(orderIDBase+x.orderSeq, 10)
}

func (x *Exchange) nextTradeID() string {
	x.tradeSeq++
	return strconv.FormatUint(tradeIDBase+x.tradeSeq, 10)
}

func (x *Exchange) contract(op exchange.Op, pt exchange.ProductType, symbol string) (*contract, error) {
	c, ok := x.contractBy[contractKey(pt, symbol)]
	if !ok {
		return nil, apiErr(op, exchange.CodeSymbolInvalid, fmt.Sprintf("symbol %s is not a %s contract", symbol, pt))
	}
	return c, nil
}

// price is the last price of c now; false when the path has no price.
func (x *Exchange) price(c *contract) (decimal.Decimal, bool) {
	return x.mkt.PriceAt(c.spec.Symbol, x.now)
}

// markPrice is c's mark price now: its mark path's price when the scenario
// has one (stored mark candles), else its last price. Unrealised P&L,
// equity and funding are valued at it, as at the venue; orders fill
// against the last price (price).
func (x *Exchange) markPrice(c *contract) (decimal.Decimal, bool) {
	return x.mkt.PriceAt(c.markSymbol, x.now)
}

// leverage of symbol for a.
func (a *Account) leverageOf(symbol string) decimal.Decimal {
	if l, ok := a.leverage[symbol]; ok && l.IsPositive() {
		return l
	}
	return a.x.set.DefaultLeverage
}
