package backtest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// sampleReader is what the sampler reads from the simulated account.
type sampleReader interface {
	// LastPrice is the ticker's LastPr alone: the rest of a ticker reads
	// the book.
	LastPrice(ctx context.Context, req exchange.TickerRequest) (exchange.Num, error)
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
	AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error)
	MarketStates(ctx context.Context) ([]exchange.MarketState, error)
	MarketCalendar(ctx context.Context) (exchange.Calendar, error)
}

// acctKey names one margin account: a product type and its margin coin.
type acctKey struct {
	pt   exchange.ProductType
	coin string
}

// sampler takes the report's time series: equity of every margin account,
// the last price of the symbols the rules name, the open positions (kept
// only when they change) and the US market session. The equity and price
// samples are kept in bounded memory (seriesKeeper); the account figures
// are summed up as the samples come, from every sample.
type sampler struct {
	r       sampleReader
	cat     *rules.Catalog
	symbols []marketdata.ProductContract
	// held are the positions open at the first sample, the run's start.
	held []HeldPosition

	cal      *exchange.Calendar
	session  marketdata.SessionCache // the calendar parsed once, not every sample
	series   *seriesKeeper
	samples  int
	lastT    time.Time     // of the last sample
	prevT    time.Time     // of the sample before
	keys     []acctKey     // fixed at the first sample
	drawdown []equityStats // per key
	eqm      []equityMetrics
	exposed  []int // per key: samples with an open position
	// firstPrices and lastPrices are each symbol's first and last sampled
	// price ("" until there is one), for buy and hold.
	firstPrices, lastPrices []string
	// closing are each account's equity and unrealised P&L after the
	// run's last step (closingBalances), which the last sample precedes.
	closingEquity, closingUnrealised []decimal.Decimal
	pos                              []PositionsAt
	posSig                           string
	bands                            []SessionBand
}

// equityStats are the figures of one account's equity over every sample:
// the first and last, the highest so far, and the largest fall from a high
// in the coin and as a fraction of that high.
type equityStats struct {
	start, end, peak, dd, ddFrac decimal.Decimal
}

// add takes the next sample e; first says it is the first.
func (st *equityStats) add(e decimal.Decimal, first bool) {
	if first {
		st.start, st.peak = e, e
	}
	st.end = e
	st.peak = decimal.Max(st.peak, e)
	st.dd = decimal.Max(st.dd, st.peak.Sub(e))
	if st.peak.IsPositive() {
		st.ddFrac = decimal.Max(st.ddFrac, st.peak.Sub(e).Div(st.peak))
	}
}

// newSampler makes a sampler for a run expected to take about expected
// samples (which sizes the series' buckets).
func newSampler(r sampleReader, cat *rules.Catalog, symbols []string, expected int) *sampler {
	s := &sampler{r: r, cat: cat, series: newSeriesKeeper(expected)}
	for _, sym := range symbols {
		if c, ok := cat.Contract(sym); ok {
			s.symbols = append(s.symbols, c)
		}
	}
	return s
}

func (s *sampler) last() time.Time { return s.lastT }

// sample reads everything at t (the clock is already at t).
func (s *sampler) sample(ctx context.Context, t time.Time) error {
	s.samples++
	s.prevT, s.lastT = s.lastT, t
	row := sampleRow{t: t, prices: make([]string, len(s.symbols))}
	var err error
	if row.equity, err = s.sampleEquity(ctx, t); err != nil {
		return err
	}
	if s.firstPrices == nil {
		s.firstPrices, s.lastPrices = make([]string, len(s.symbols)), make([]string, len(s.symbols))
	}
	for i, c := range s.symbols {
		row.prices[i] = s.lastPrice(ctx, exchange.TickerRequest{Symbol: c.Symbol, ProductType: c.ProductType})
		if row.prices[i] != "" {
			if s.firstPrices[i] == "" {
				s.firstPrices[i] = row.prices[i]
			}
			s.lastPrices[i] = row.prices[i]
		}
	}
	s.series.add(row)
	if err := s.samplePositions(ctx, t); err != nil {
		return err
	}
	s.sampleSession(ctx, t)
	return nil
}

// lastPrice is the last price the ticker gives for req; empty when there
// is none.
func (s *sampler) lastPrice(ctx context.Context, req exchange.TickerRequest) string {
	p, err := s.r.LastPrice(ctx, req)
	if err != nil {
		return ""
	}
	return string(p)
}

// sampleEquity reads the equity of every account at t, in keys order.
func (s *sampler) sampleEquity(ctx context.Context, t time.Time) ([]decimal.Decimal, error) {
	first := s.keys == nil
	if first {
		s.keys = []acctKey{}
	}
	row := make([]decimal.Decimal, len(s.keys))
	unrealised := make([]decimal.Decimal, len(s.keys))
	for _, pt := range exchange.ProductTypes() {
		as, err := s.r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("backtest: sample %s equity: %w", pt, err)
		}
		for _, a := range as {
			eq, err := decimal.NewFromString(string(a.AccountEquity))
			if err != nil {
				return nil, fmt.Errorf("backtest: %s %s equity %q: %w", pt, a.MarginCoin, a.AccountEquity, err)
			}
			k := acctKey{pt, a.MarginCoin}
			upl := parseOrZero(string(a.UnrealizedPL))
			if first {
				s.keys = append(s.keys, k)
				row = append(row, eq)
				unrealised = append(unrealised, upl)
				continue
			}
			// A margin coin that appears after the first sample is not
			// charted: the series are fixed by the first sample.
			for i, have := range s.keys {
				if have == k {
					row[i], unrealised[i] = eq, upl
				}
			}
		}
	}
	if first {
		s.drawdown = make([]equityStats, len(s.keys))
		s.eqm = make([]equityMetrics, len(s.keys))
		s.exposed = make([]int, len(s.keys))
	}
	for i, e := range row {
		s.drawdown[i].add(e, first)
		f, _ := e.Float64()
		s.eqm[i].add(t, f)
		if first {
			s.eqm[i].unrealisedStart = unrealised[i]
		}
		s.eqm[i].unrealisedEnd = unrealised[i]
	}
	return row, nil
}

func (s *sampler) samplePositions(ctx context.Context, t time.Time) error {
	var cur []Position
	open := make([]bool, len(s.keys))
	for _, pt := range exchange.ProductTypes() {
		ps, err := s.r.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
		if err != nil {
			return fmt.Errorf("backtest: sample %s positions: %w", pt, err)
		}
		for _, p := range ps {
			if d, err := decimal.NewFromString(string(p.Total)); err != nil || d.IsZero() {
				continue
			}
			cur = append(cur, Position{ProductType: string(pt), Symbol: p.Symbol, HoldSide: string(p.HoldSide), Size: string(p.Total), OpenPriceAvg: string(p.OpenPriceAvg)})
			if s.samples == 1 {
				s.held = append(s.held, HeldPosition{Position: cur[len(cur)-1], OneWay: p.PosMode == exchange.OneWayMode})
			}
			if i := s.keyIndex(string(pt), settleCoin(s.cat, p.Symbol)); i >= 0 {
				open[i] = true
			}
		}
	}
	for i, o := range open {
		if o {
			s.exposed[i]++
		}
	}
	var sig strings.Builder
	for _, p := range cur {
		fmt.Fprintf(&sig, "%s|%s|%s|%s|%s;", p.ProductType, p.Symbol, p.HoldSide, p.Size, p.OpenPriceAvg)
	}
	if len(s.pos) > 0 && sig.String() == s.posSig {
		return nil
	}
	if cur == nil {
		cur = []Position{}
	}
	s.posSig = sig.String()
	s.pos = append(s.pos, PositionsAt{Time: stamp(t), Positions: cur})
	return nil
}

// sampleSession extends or starts a band of the open session at t. Errors
// leave a gap in the bands rather than failing the run: the bands are a
// picture, the rules saw the real thing.
func (s *sampler) sampleSession(ctx context.Context, t time.Time) {
	if s.cal == nil {
		cal, err := s.r.MarketCalendar(ctx)
		if err != nil {
			return
		}
		s.cal = &cal
	}
	states, err := s.r.MarketStates(ctx)
	if err != nil {
		return
	}
	si, err := s.session.Compute(t, states, *s.cal)
	if err != nil || !si.IsOpen {
		return
	}
	if n := len(s.bands); n > 0 && s.bands[n-1].Session == si.Session && s.samples > 1 &&
		s.bands[n-1].To == stamp(s.prevT) {
		s.bands[n-1].To = stamp(t)
		return
	}
	s.bands = append(s.bands, SessionBand{Session: si.Session, From: stamp(t), To: stamp(t)})
}

// fill writes the series into the report.
func (s *sampler) fill(rep *Report) {
	rows := s.series.kept()
	rep.Equity = make([]EquityPoint, len(rows))
	for i, r := range rows {
		eq := make([]string, len(r.equity))
		for j, d := range r.equity {
			eq[j] = d.String()
		}
		rep.Equity[i] = EquityPoint{Time: stamp(r.t), Accounts: eq}
	}
	rep.Prices = make([]PriceSeries, len(s.symbols))
	for i, c := range s.symbols {
		prices := make([]string, len(rows))
		for j, r := range rows {
			prices[j] = r.prices[i]
		}
		rep.Prices[i] = PriceSeries{Symbol: c.Symbol, Prices: prices}
	}
	rep.Positions = append([]PositionsAt{}, s.pos...)
	rep.Sessions = append([]SessionBand{}, s.bands...)
	// The fills and firings are in by now (the run's end reads them first):
	// pair them into the trade list.
	rep.Trades = roundTrips(rep.Fills, s.held, rep.From, namesOf(rep.Firings, rep.Orders))
	roundTrades(rep.Trades, s.places)
}

// accountSummaries sums fills and trades per margin account and measures
// the equity series. The margin coin of a fill is its own when it names
// one, else the contract's (base coin for coin-margined futures, quote coin
// otherwise).
func (s *sampler) accountSummaries(fills []Fill, cat *rules.Catalog) []AccountSummary {
	out := make([]AccountSummary, len(s.keys))
	pnl := make([]decimal.Decimal, len(s.keys))
	fees := make([]decimal.Decimal, len(s.keys))
	nfills := make([]int, len(s.keys))
	trades := make([][]Trade, len(s.keys))
	index := s.keyIndex
	for _, f := range fills {
		if i := index(f.ProductType, settleCoin(cat, f.Symbol)); i >= 0 {
			pnl[i] = pnl[i].Add(parseOrZero(f.Profit))
			nfills[i]++
		}
		if i := index(f.ProductType, f.FeeCoin); i >= 0 {
			// Paid is positive, as in the engine's own summary; the
			// exchange reports a fee paid as negative.
			fees[i] = fees[i].Sub(parseOrZero(f.Fee))
		}
	}
	for _, t := range roundTrips(fills, s.held, "", orderNames{}) {
		if i := index(t.ProductType, settleCoin(cat, t.Symbol)); i >= 0 {
			trades[i] = append(trades[i], t)
		}
	}
	for i, k := range s.keys {
		st := s.drawdown[i]
		start, end, dd, ddPct := st.start, st.end, st.dd, st.ddFrac
		closed, winRate, pf := tradeStats(trades[i])
		var buyHold []float64
		returns := symbolReturns(s.symbolNames(), s.firstPrices, s.lastPrices)
		for _, c := range s.symbols {
			if r, ok := returns[c.Symbol]; ok && s.keyIndex(string(c.ProductType), settleCoin(s.cat, c.Symbol)) == i {
				buyHold = append(buyHold, r)
			}
		}
		out[i] = AccountSummary{ProductType: string(k.pt), MarginCoin: k.coin, EquityStart: start.String(), EquityEnd: end.String(),
			ReturnPct: percent(end.Sub(start), start), RealisedPnL: pnl[i].String(), Fees: fees[i].String(), MaxDrawdown: dd.String(),
			MaxDrawdownPct: percent(ddPct, decimal.NewFromInt(1)), Fills: nfills[i], Trades: closed, WinRatePct: winRate, ProfitFactor: pf,
			Metrics: s.eqm[i].metrics(trades[i], pnl[i], fees[i], s.closingChange(i), s.exposed[i], buyHold)}
	}
	return out
}

// closingChange is account i's equity after the last step less its
// equity and unrealised P&L at the start, plus its unrealised P&L at the
// start and less at the end: the change that realised P&L, fees and
// funding made (see Metrics.FundingPaid).
func (s *sampler) closingChange(i int) decimal.Decimal {
	if s.closingEquity == nil {
		return s.drawdown[i].end.Sub(s.drawdown[i].start).Sub(s.eqm[i].unrealisedEnd.Sub(s.eqm[i].unrealisedStart))
	}
	return s.closingEquity[i].Sub(s.drawdown[i].start).Sub(s.closingUnrealised[i].Sub(s.eqm[i].unrealisedStart))
}

// keyIndex is the index in keys of the margin account of product type pt
// and coin, or -1.
func (s *sampler) keyIndex(pt, coin string) int {
	for i, k := range s.keys {
		if string(k.pt) == pt && k.coin == coin {
			return i
		}
	}
	return -1
}

// symbolNames are the sampled symbols' names, in sampling order.
func (s *sampler) symbolNames() []string {
	out := make([]string, len(s.symbols))
	for i, c := range s.symbols {
		out[i] = c.Symbol
	}
	return out
}

// closingBalances reads every account's equity and unrealised P&L after
// the run's last step: the last sample is taken before it, so fills of
// that step would otherwise be in the fills and not in the equity. Funding
// is derived from these (Metrics.FundingPaid).
func (s *sampler) closingBalances(ctx context.Context) error {
	s.closingEquity = make([]decimal.Decimal, len(s.keys))
	s.closingUnrealised = make([]decimal.Decimal, len(s.keys))
	for i := range s.keys {
		s.closingEquity[i] = s.drawdown[i].end
		s.closingUnrealised[i] = s.eqm[i].unrealisedEnd
	}
	for _, pt := range exchange.ProductTypes() {
		as, err := s.r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return fmt.Errorf("backtest: read %s balances at the end: %w", pt, err)
		}
		for _, a := range as {
			if i := s.keyIndex(string(pt), a.MarginCoin); i >= 0 {
				s.closingEquity[i] = parseOrZero(string(a.AccountEquity))
				s.closingUnrealised[i] = parseOrZero(string(a.UnrealizedPL))
			}
		}
	}
	return nil
}

// places are the decimal places of symbol's figures (contractPlaces).
func (s *sampler) places(symbol string) places { return contractPlaces(s.cat, symbol) }

// settleCoin is the coin a contract's profit is paid in: the base coin of
// coin-margined futures, the quote coin otherwise ("" for an unknown
// symbol).
func settleCoin(cat *rules.Catalog, symbol string) string {
	c, ok := cat.Contract(symbol)
	if !ok {
		return ""
	}
	if c.ProductType == exchange.COINFutures {
		return c.BaseCoin
	}
	return c.QuoteCoin
}

func parseOrZero(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}
