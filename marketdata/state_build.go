package marketdata

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// ProductContract is a futures contract with the product type it was listed
// under (the contracts response does not repeat it).
type ProductContract struct {
	ProductType exchange.ProductType
	exchange.Contract
}

// StockInfoInput is one fetch of stock-info for every pair.
type StockInfoInput struct {
	Pairs []exchange.StockInfo
	At    time.Time
}

// BookInput is one fetch of the order book of a stock pair: Book as the
// exchange sends it, or Levels when the reader had it in numbers.
type BookInput struct {
	Symbol string
	Book   exchange.StockOrderBook
	Levels *NumericBook
	At     time.Time
}

// NumericBook is an order book in numbers, as the simulator hands it
// over (see exchange.BookNumbers): a State built from it equals one built
// from the decimal text.
type NumericBook = exchange.BookNumbers

// FillsInput is one fetch of the platform fills of a stock pair.
type FillsInput struct {
	Symbol string
	Fills  []exchange.StockFill
	At     time.Time
}

// DiscountInput is one fetch of the discount tiers.
type DiscountInput struct {
	Coins []exchange.DiscountCoin
	At    time.Time
}

// SpotRecordsInput is one fetch of spot records (all pages).
type SpotRecordsInput struct {
	Records []exchange.SpotRecord
	At      time.Time
}

// MarketFetch is the market session computed (by ComputeSession) from one
// fetch of the states and calendar.
type MarketFetch struct {
	Session SessionInfo
	At      time.Time
}

// BuildInput is everything the pollers fetched for one tick, as exchange wire
// types. A nil pointer or an absent list item means "not fetched", which is
// different from fetched and empty.
type BuildInput struct {
	// Now is the tick time from the engine's clock.
	Now time.Time
	// Contracts maps futures symbols to product types, so that a symbol
	// without a position can be known to be flat. Usually the catalog.
	Contracts []ProductContract

	Market         *MarketFetch
	StockInfo      *StockInfoInput
	Books          []BookInput
	Fills          []FillsInput
	Positions      []PositionsInput
	Orders         []OrdersInput
	StrategyOrders []StrategyOrdersInput
	Discount       *DiscountInput
	SpotRecords    *SpotRecordsInput
	Balances       []BalancesInput
	Tickers        []TickerInput
	FuturesBooks   []FuturesBookInput
	ClosedTrades   []ClosedTradesInput

	// Prev, when set, is a State built before by the same caller: what it
	// built from the very answers in this input is copied from it, with
	// only what follows the clock computed again (see Stock.atTime).
	Prev *State
	// KeepAges are the fields that move with time that no reader reads:
	// they may keep the value of the tick Prev was built at. An object that
	// Prev built from the very answers in this input, and whose other time
	// fields are the same at Now, is Prev's (the same pointer): the engine
	// keeps what its rules do not read, and re-aging it every tick would
	// copy every order and pair for nothing.
	KeepAges TimeFieldSet
}

// keeps reports whether the fields f are all kept and Prev is there to
// keep them from.
func (b *builder) keeps(f TimeFieldSet) bool { return b.prev != nil && b.keep&f == f }

// BuildOptions tunes NewState.
type BuildOptions struct {
	// TradeWindow is the span of fills for volume, trades_count and vwap;
	// 0 means DefaultTradeWindow.
	TradeWindow time.Duration
	// Parsed, when set, reuses the parsed numbers of a book or of fills
	// across the States built from the same fetch.
	Parsed *ParseCache
	// PositionModes, when set, gives the position mode of a product type
	// whose accounts answer names none. The live venue's accounts list has
	// no posMode (exchange.PositionModes reads it from the single account
	// instead), so without this position_mode() would never have a value
	// there; an answer that names the mode (the spec's) wins.
	PositionModes func(exchange.ProductType) (exchange.PosMode, bool)
}

// NewState builds the State of one tick. Derived values are computed here,
// once. The State keeps nothing of in's slices (the pollers change them in
// place), only the answers' own slices, which are never changed. Data that does not parse (an invalid number from the exchange) is
// left out as if it had not been fetched - a position list with one bad
// record is dropped whole, since a partial list would make other symbols
// look flat - and reported in the returned error; the State is usable
// either way.
func NewState(in BuildInput, opts BuildOptions) (*State, error) {
	if opts.TradeWindow <= 0 {
		opts.TradeWindow = DefaultTradeWindow
	}
	b := builder{s: &State{Now: in.Now, content: &content{}}, prev: in.Prev, now: in.Now, cache: opts.Parsed, keep: in.KeepAges, modes: opts.PositionModes}
	var err error
	if b.s.eastern, err = easternOf(in.Now); err != nil {
		b.fail(err)
	}
	b.market(in.Market)
	b.stocks(in.StockInfo, in.Books, in.Fills, opts.TradeWindow, opts.Parsed)
	b.products(in.Contracts, in.Positions, in.Orders)
	b.positions(in.Positions)
	b.orders(in.Orders)
	b.strategyOrders(in.StrategyOrders)
	b.discount(in.Discount)
	b.spotRecords(in.SpotRecords)
	b.balances(in.Balances)
	b.tickers(in.Tickers)
	b.futuresBooks(in.FuturesBooks)
	b.closedTrades(in.ClosedTrades)
	return b.s, errors.Join(b.errs...)
}

type builder struct {
	s     *State
	prev  *State // a State built before (BuildInput.Prev); nil: none
	now   time.Time
	cache *ParseCache
	keep  TimeFieldSet                                        // BuildInput.KeepAges
	modes func(exchange.ProductType) (exchange.PosMode, bool) // BuildOptions.PositionModes
	errs  []error
}

// fetched records a fetch of part at, keeping the oldest time.
func (b *builder) fetched(p Part, at time.Time) {
	if !b.s.Fetched(p) || at.Before(b.s.Part(p).At) {
		b.s.setPart(p, at)
	}
}

func (b *builder) fail(err error) { b.errs = append(b.errs, err) }

func (b *builder) market(in *MarketFetch) {
	if in == nil {
		return
	}
	b.s.market = newMarket(in.Session, b.now)
	b.fetched(PartMarket, in.At)
}

func (b *builder) stocks(info *StockInfoInput, books []BookInput, fills []FillsInput, window time.Duration, cache *ParseCache) {
	prev := b.prev
	var infos map[string]*exchange.StockInfo
	var infoAt time.Time
	if info != nil {
		infoAt = info.At
		b.s.srcInfo, b.s.srcInfoAt = info.Pairs, info.At
		b.fetched(PartStockInfo, info.At)
	}
	// Books and fills are fetched only for the pairs the rules read: a
	// few, looked up by scanning.
	for i := range books {
		b.fetched(PartStockBook, books[i].At)
	}
	for i := range fills {
		b.fetched(PartStockTrades, fills[i].At)
	}
	if prev.sameStockInputs(info, books, fills) {
		b.s.stockIndex = prev.stockIndex
		if b.keeps(stockTimeFields) { // no rule reads their ages: Prev's pairs
			b.s.stocks = prev.stocks
			return
		}
		// The pairs of the State before, aged: the common tick of a rule
		// that reads an age.
		b.s.stocks = make([]*Stock, len(prev.stocks))
		for i, old := range prev.stocks {
			b.s.stocks[i] = old.atTime(b.now, window, b.s.market, b.keep)
		}
		return
	}
	if prev.samePairs(info, books, fills) && b.stocksOfPairs(prev, infoAt, books, fills, window, cache) {
		return
	}
	if info != nil {
		infos = make(map[string]*exchange.StockInfo, len(info.Pairs))
		for i := range info.Pairs {
			infos[info.Pairs[i].Symbol] = &info.Pairs[i]
		}
	}
	symbols := make([]string, 0, len(infos)+len(books)+len(fills))
	for sym := range infos {
		symbols = append(symbols, sym)
	}
	for i := range books {
		symbols = append(symbols, books[i].Symbol)
	}
	for i := range fills {
		symbols = append(symbols, fills[i].Symbol)
	}
	slices.Sort(symbols)
	symbols = slices.Compact(symbols)

	b.s.stockIndex = make(map[string]int, 2*len(symbols))
	for _, sym := range symbols {
		in, book, fill := infos[sym], bySymbol(books, sym), bySymbol(fills, sym)
		var old *Stock
		if prev != nil {
			old = prev.stock(sym)
		}
		st, err := b.stock(old, sym, in, infoAt, book, fill, window, cache)
		if err != nil {
			b.fail(err)
			continue
		}
		b.s.stockIndex[sym] = len(b.s.stocks)
		b.s.stocks = append(b.s.stocks, st)
	}
	// Codes second, so that a pair symbol always wins over another pair's code.
	for i, st := range b.s.stocks {
		if _, taken := b.s.stockIndex[st.Code]; st.Code != "" && !taken {
			b.s.stockIndex[st.Code] = i
		}
	}
}

// stock builds the pair sym from these fetches: old (the pair of the State
// before; may be nil) when it was built from the very same ones, aged
// unless its ages are kept, else anew.
func (b *builder) stock(old *Stock, sym string, in *exchange.StockInfo, infoAt time.Time, book *BookInput, fill *FillsInput,
	window time.Duration, cache *ParseCache) (*Stock, error) {
	if old != nil && old.Symbol == sym && old.builtFrom(in, infoAt, book, fill) {
		if b.keeps(stockTimeFields) {
			return old, nil
		}
		return old.atTime(b.now, window, b.s.market, b.keep), nil
	}
	if old != nil && old.Symbol != sym {
		old = nil // found by its code: another pair
	}
	return newStock(sym, in, infoAt, book, fill, b.now, window, b.s.market, cache, old)
}

// samePairs reports whether s (nil: none) has exactly the pairs these
// fetches name: with info, the pairs of info, each built with its info;
// without, the pairs of the books and fills, each with one of them. These
// books and fills must all be of those pairs. A State built from them then
// has s's pairs, in s's order, and can share s's index.
func (s *State) samePairs(info *StockInfoInput, books []BookInput, fills []FillsInput) bool {
	if s == nil || (info == nil) != !s.Fetched(PartStockInfo) {
		return false
	}
	if info != nil && (!sameView(s.srcInfo, info.Pairs) || len(s.stocks) != len(info.Pairs)) {
		return false
	}
	for _, st := range s.stocks {
		if info != nil && st.src.info == nil {
			return false
		}
		if info == nil && bySymbol(books, st.Symbol) == nil && bySymbol(fills, st.Symbol) == nil {
			return false
		}
	}
	return s.pairsOf(books, fills)
}

// pairsOf reports whether every one of these books and fills is of a pair
// of s (by its pair symbol).
func (s *State) pairsOf(books []BookInput, fills []FillsInput) bool {
	for i := range books {
		if st := s.stock(books[i].Symbol); st == nil || st.Symbol != books[i].Symbol {
			return false
		}
	}
	for i := range fills {
		if st := s.stock(fills[i].Symbol); st == nil || st.Symbol != fills[i].Symbol {
			return false
		}
	}
	return true
}

// stocksOfPairs builds the pairs of prev (samePairs) from these fetches.
// It reports false, having built nothing, when one fails: the pairs then
// differ from prev's, and are built as when they are new.
func (b *builder) stocksOfPairs(prev *State, infoAt time.Time, books []BookInput, fills []FillsInput, window time.Duration, cache *ParseCache) bool {
	stocks := make([]*Stock, len(prev.stocks))
	for i, old := range prev.stocks {
		st, err := b.stock(old, old.Symbol, old.src.info, infoAt, bySymbol(books, old.Symbol), bySymbol(fills, old.Symbol), window, cache)
		if err != nil {
			return false
		}
		stocks[i] = st
	}
	b.s.stocks, b.s.stockIndex = stocks, prev.stockIndex
	return true
}

// sameStockInputs reports whether s (nil: none) built its stock pairs from
// exactly these fetches, and every pair they name built: the pairs of a
// State from them are then s's, aged.
func (s *State) sameStockInputs(info *StockInfoInput, books []BookInput, fills []FillsInput) bool {
	if s == nil || (info == nil) != !s.Fetched(PartStockInfo) ||
		(info != nil && (!sameView(s.srcInfo, info.Pairs) || !s.srcInfoAt.Equal(info.At))) {
		return false
	}
	// Every pair of s must be built from these fetches, and every fetch
	// must be of a pair of s (else it made a new pair, or failed).
	for _, st := range s.stocks {
		var in *exchange.StockInfo
		if info != nil {
			in = st.src.info
		}
		if !st.builtFrom(in, s.srcInfoAt, bySymbol(books, st.Symbol), bySymbol(fills, st.Symbol)) {
			return false
		}
	}
	if !s.pairsOf(books, fills) {
		return false
	}
	if info != nil {
		for i := range info.Pairs {
			if st := s.stock(info.Pairs[i].Symbol); st == nil || st.Symbol != info.Pairs[i].Symbol || st.src.info != &info.Pairs[i] {
				return false
			}
		}
	}
	return true
}

// ordersRunsOrNil and strategyRunsOrNil are the runs of s's lists; nil
// when s is nil.
func (s *State) ordersRunsOrNil() *symbolRuns {
	if s == nil {
		return nil
	}
	return s.ordersRuns
}

func (s *State) strategyRunsOrNil() *symbolRuns {
	if s == nil {
		return nil
	}
	return s.strategyRuns
}

// bySymbol returns the input of symbol in ins (the last, as a map built
// from them would), nil when there is none.
func bySymbol[T interface{ symbol() string }](ins []T, symbol string) *T {
	for i := len(ins) - 1; i >= 0; i-- {
		if ins[i].symbol() == symbol {
			return &ins[i]
		}
	}
	return nil
}

func (b BookInput) symbol() string  { return b.Symbol }
func (f FillsInput) symbol() string { return f.Symbol }

// products learns the product type of every futures symbol, from the
// contracts (a map shared by the States built from one list) and from the
// fetches that name a product type (which take precedence).
func (b *builder) products(contracts []ProductContract, pos []PositionsInput, ords []OrdersInput) {
	b.s.contractPT = b.cache.productTypes(contracts)
	learn := func(sym string, pt exchange.ProductType) {
		if cur, ok := b.s.product(sym); sym == "" || (ok && cur == pt) {
			return // known so already
		}
		if b.s.productOf == nil {
			b.s.productOf = map[string]exchange.ProductType{}
		}
		b.s.productOf[sym] = pt
	}
	for _, f := range pos {
		for _, p := range f.Positions {
			learn(p.Symbol, f.ProductType)
		}
		learn(f.Symbol, f.ProductType)
	}
	for _, f := range ords {
		for _, o := range f.Orders {
			learn(o.Symbol, f.ProductType)
		}
		learn(f.Symbol, f.ProductType)
	}
}

func (b *builder) positions(fetches []PositionsInput) {
	if p := b.prev; b.keeps(positionAge) && sameInputs(p.srcPositions, fetches, samePositionsInput) {
		for _, f := range fetches {
			b.fetched(PartPositions, f.At)
		}
		b.s.positions, b.s.positionIndex, b.s.positionScope, b.s.srcPositions, b.s.flat =
			p.positions, p.positionIndex, p.positionScope, p.srcPositions, p.flat
		return
	}
	b.s.flat = &flatMemo{}
	b.s.positionIndex = map[posKey]*Position{}
	for _, f := range fetches {
		pt := f.ProductType
		all, err := agedList(b.cache, listKey{"positions", string(pt)}, f.Positions, b.now,
			func(w *exchange.Position) (*Position, time.Time, error) { return parsePosition(w, pt) },
			func(p *Position, age float64) { p.AgeSeconds = age })
		built := make([]*Position, 0, len(all))
		for _, p := range all {
			if err != nil {
				break
			}
			p.At = f.At
			if f.Symbol != "" && p.Symbol != f.Symbol {
				err = fmt.Errorf("position %s in a fetch for %s", p.Symbol, f.Symbol)
			} else if p.IsOpen {
				built = append(built, p)
			}
		}
		if err != nil {
			b.fail(fmt.Errorf("positions of %s: %w", f.ProductType, err))
			continue
		}
		b.fetched(PartPositions, f.At)
		b.s.positionScope = append(b.s.positionScope, scope{f.ProductType, f.Symbol, f.At})
		b.s.srcPositions = append(b.s.srcPositions, f)
		for _, p := range built {
			k := posKey{p.Symbol, p.Side}
			if b.s.positionIndex[k] == nil {
				b.s.positions = append(b.s.positions, p)
			}
			b.s.positionIndex[k] = p
		}
	}
	slices.SortFunc(b.s.positions, func(x, y *Position) int {
		return cmp.Or(cmp.Compare(x.Symbol, y.Symbol), cmp.Compare(x.Side, y.Side))
	})
}

func (b *builder) orders(fetches []OrdersInput) {
	if p := b.prev; b.keeps(orderAge) && sameInputs(p.srcOrders, fetches, sameOrdersInput) {
		for _, f := range fetches {
			b.fetched(PartOrders, f.At)
		}
		b.s.orders, b.s.ordersRuns, b.s.ordersScope, b.s.srcOrders = p.orders, p.ordersRuns, p.ordersScope, p.srcOrders
		return
	}
	for _, f := range fetches {
		pt := f.ProductType
		built, err := agedList(b.cache, listKey{"orders", string(pt)}, f.Orders, b.now,
			func(w *exchange.PendingOrder) (*Order, time.Time, error) { return parseOrder(w, pt) },
			func(o *Order, age float64) { o.AgeSeconds = age })
		if err != nil {
			b.fail(fmt.Errorf("orders of %s: %w", f.ProductType, err))
			continue
		}
		b.fetched(PartOrders, f.At)
		b.s.ordersScope = append(b.s.ordersScope, scope{f.ProductType, f.Symbol, f.At})
		b.s.srcOrders = append(b.s.srcOrders, f)
		b.s.orders = append(b.s.orders, built...)
	}
	// By symbol, then oldest first: each symbol's orders are then one run.
	slices.SortFunc(b.s.orders, func(x, y *Order) int {
		return cmp.Or(cmp.Compare(x.Symbol, y.Symbol), cmp.Compare(y.AgeSeconds, x.AgeSeconds), cmp.Compare(x.ID, y.ID))
	})
	b.s.ordersRuns = runsOf(b.s.orders, func(o *Order) string { return o.Symbol }, b.prev.ordersRunsOrNil())
}

// symbolRuns says where each symbol's run is in a list sorted by symbol:
// the orders of a symbol are one run of the State's list. States whose
// lists have the same runs share one (it is read-only): the lists are made
// every tick while a rule reads an age, their runs rarely change.
type symbolRuns struct {
	syms  []string       // in the list's order
	ends  []int          // run i is [ends[i-1], ends[i])
	index map[string]int // the run of a symbol
}

// run returns where symbol's run is; false when it has none. r may be nil.
func (r *symbolRuns) run(symbol string) (lo, hi int, ok bool) {
	if r == nil {
		return 0, 0, false
	}
	i, ok := r.index[symbol]
	if !ok {
		return 0, 0, false
	}
	if i > 0 {
		lo = r.ends[i-1]
	}
	return lo, r.ends[i], true
}

// runsOf returns the runs of list, sorted by symbol: prev (nil: none) when
// they are the same, else new ones; nil when list is empty.
func runsOf[T any](list []*T, symbol func(*T) string, prev *symbolRuns) *symbolRuns {
	if len(list) == 0 {
		return nil
	}
	same, n := prev != nil, 0
	for lo := 0; lo < len(list); n++ {
		sym, hi := symbol(list[lo]), lo+1
		for hi < len(list) && symbol(list[hi]) == sym {
			hi++
		}
		same = same && n < len(prev.syms) && prev.syms[n] == sym && prev.ends[n] == hi
		lo = hi
	}
	if same && n == len(prev.syms) {
		return prev
	}
	r := &symbolRuns{syms: make([]string, 0, n), ends: make([]int, 0, n), index: make(map[string]int, n)}
	for lo := 0; lo < len(list); {
		sym, hi := symbol(list[lo]), lo+1
		for hi < len(list) && symbol(list[hi]) == sym {
			hi++
		}
		r.index[sym] = len(r.syms)
		r.syms, r.ends = append(r.syms, sym), append(r.ends, hi)
		lo = hi
	}
	return r
}

func (b *builder) strategyOrders(fetches []StrategyOrdersInput) {
	if p := b.prev; b.keeps(strategyOrderAge) && sameInputs(p.srcStrategy, fetches, sameStrategyInput) {
		for _, f := range fetches {
			b.fetched(PartStrategyOrders, f.At)
		}
		b.s.strategy, b.s.strategyRuns, b.s.strategyScope, b.s.srcStrategy = p.strategy, p.strategyRuns, p.strategyScope, p.srcStrategy
		return
	}
	var all []*StrategyOrder
	for _, f := range fetches {
		built, err := agedList(b.cache, listKey{"strategy", string(f.Category)}, f.Orders, b.now, parseStrategyOrder,
			func(o *StrategyOrder, age float64) { o.AgeSeconds = age })
		if err != nil {
			b.fail(fmt.Errorf("strategy orders of %s: %w", f.Category, err))
			continue
		}
		b.fetched(PartStrategyOrders, f.At)
		b.s.strategyScope = append(b.s.strategyScope, f.Category)
		b.s.srcStrategy = append(b.s.srcStrategy, f)
		all = append(all, built...)
	}
	// By symbol, in the order fetched within one.
	slices.SortStableFunc(all, func(x, y *StrategyOrder) int { return cmp.Compare(x.Symbol, y.Symbol) })
	b.s.strategy = all
	b.s.strategyRuns = runsOf(all, func(o *StrategyOrder) string { return o.Symbol }, b.prev.strategyRunsOrNil())
}

func (b *builder) discount(in *DiscountInput) {
	if in == nil {
		return
	}
	b.s.discounts = map[string][]*DiscountTier{}
	b.fetched(PartDiscount, in.At)
	for _, c := range in.Coins {
		var p numParser
		tiers := make([]*DiscountTier, 0, len(c.List))
		for _, t := range c.List {
			tiers = append(tiers, &DiscountTier{StartValue: p.num("tierStartValue", t.TierStartValue), Rate: p.num("discountRate", t.DiscountRate)})
		}
		if p.err != nil {
			b.fail(fmt.Errorf("discount tiers of %s: %w", c.Coin, p.err))
			continue
		}
		slices.SortStableFunc(tiers, func(x, y *DiscountTier) int { return cmp.Compare(x.StartValue, y.StartValue) })
		b.s.discounts[c.Coin] = tiers
	}
}

func (b *builder) spotRecords(in *SpotRecordsInput) {
	if in == nil {
		return
	}
	recs := make([]*SpotRecord, 0, len(in.Records))
	for i := range in.Records {
		r, err := newSpotRecord(&in.Records[i], b.now)
		if err != nil {
			b.fail(err)
			return
		}
		recs = append(recs, r)
	}
	slices.SortStableFunc(recs, func(x, y *SpotRecord) int { return y.Time.Compare(x.Time) })
	b.s.spotRecords = recs
	b.fetched(PartSpotRecords, in.At)
}

func (b *builder) balances(fetches []BalancesInput) {
	for _, f := range fetches {
		built := make([]*Balance, 0, len(f.Accounts))
		var err error
		for i := range f.Accounts {
			var bal *Balance
			if bal, err = newBalance(&f.Accounts[i], f.ProductType); err != nil {
				break
			}
			built = append(built, bal)
		}
		if err != nil {
			b.fail(err)
			continue
		}
		b.fetched(PartBalances, f.At)
		b.s.balances = append(b.s.balances, built...)
		if m, ok := b.knownMode(f.ProductType, built); ok {
			for _, bal := range built {
				bal.PositionMode = string(m)
			}
		}
		for _, bal := range built {
			if bal.PositionMode != "" {
				if b.s.posModes == nil {
					b.s.posModes = map[exchange.ProductType]string{}
				}
				b.s.posModes[f.ProductType] = bal.PositionMode
			}
		}
	}
}

// knownMode is the position mode BuildOptions.PositionModes gives for the
// accounts of pt when none of them names one.
func (b *builder) knownMode(pt exchange.ProductType, accounts []*Balance) (exchange.PosMode, bool) {
	if b.modes == nil || len(accounts) == 0 || slices.ContainsFunc(accounts, func(a *Balance) bool { return a.PositionMode != "" }) {
		return "", false
	}
	return b.modes(pt)
}

// advance returns the State of the tick at now that shares s's data: only
// the time, the market session (nil: not known) and the market's fetch time
// are new. The caller must know that nothing s read from the clock is read
// at the new tick (see Answers.SetTimedFields), and that whether the market
// is known has not changed (stocks record it).
func (s *State) advance(now time.Time, m *MarketFetch) (*State, error) {
	// The State and its market in one allocation: this runs every tick.
	both := &struct {
		st  State
		mkt Market
	}{st: State{Now: now, fetched: s.fetched &^ PartSet(0).Add(PartMarket), content: s.content}}
	n := &both.st
	later := now.Sub(s.Now)
	for p := range n.age { // the same polls, seen from now
		if n.fetched.Has(Part(p)) {
			n.age[p] = s.age[p] + later
		}
	}
	var err error
	n.eastern, err = easternOf(now)
	if m != nil {
		both.mkt = marketAt(m.Session, now)
		n.market = &both.mkt
		n.setPart(PartMarket, m.At)
	}
	return n, err
}

// sameInputs reports whether a State built its objects from exactly the
// fetches in (held, successful ones only: a fetch that failed to parse
// is missing from held, so it is parsed, and reported, again).
func sameInputs[T any](held, in []T, same func(a, b *T) bool) bool {
	if len(held) != len(in) {
		return false
	}
	for i := range in {
		if !same(&held[i], &in[i]) {
			return false
		}
	}
	return true
}

// The very answers, fetched at the same time, for the same scope.
func samePositionsInput(a, b *PositionsInput) bool {
	return a.ProductType == b.ProductType && a.Symbol == b.Symbol && a.At.Equal(b.At) && sameView(a.Positions, b.Positions)
}

func sameOrdersInput(a, b *OrdersInput) bool {
	return a.ProductType == b.ProductType && a.Symbol == b.Symbol && a.At.Equal(b.At) && sameView(a.Orders, b.Orders)
}

func sameStrategyInput(a, b *StrategyOrdersInput) bool {
	return a.Category == b.Category && a.At.Equal(b.At) && sameView(a.Orders, b.Orders)
}
