package backtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
)

// The recording format, version 1: JSON lines. The first line is a
// RecordingHeader; every other line is a RecordedAnswer, in time order.
//
// A recording holds the market side of what a venue answered: market
// states and calendar, stock info, stock order books and platform fills
// (exactly as the pollers fetched them) and futures tickers (which the
// pollers do not fetch, for the prices fills need). The account side
// (positions, orders, balances) is not recorded: a replay simulates it,
// starting flat from the balances and position modes in the header.
const (
	RecordingFormat  = "tickrules-recording"
	RecordingVersion = 1
	// ReplayAPIKey is the api key of the one account of a replay.
	ReplayAPIKey = "replay-key"
)

// RecordingHeader is the first line of a recording.
type RecordingHeader struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Venue   string    `json:"venue"`
	Start   time.Time `json:"start"`
	// Contracts are the venue's futures contracts, for the replay's
	// simulator (precision, minimums, fees).
	Contracts []RecordedContract `json:"contracts"`
	// Accounts are the balances and position modes at the start.
	Accounts []RecordedAccounts `json:"accounts"`
}

// RecordedContract is one contract with its product type.
type RecordedContract struct {
	ProductType exchange.ProductType `json:"productType"`
	Contract    exchange.Contract    `json:"contract"`
}

// RecordedAccounts is the accounts answer of one product type.
type RecordedAccounts struct {
	ProductType exchange.ProductType `json:"productType"`
	Accounts    []exchange.Account   `json:"accounts"`
}

// RecordedAnswer is one answer of the venue: the time it was fetched, the
// operation, its key (the symbol for per-symbol operations) and the
// response data as the venue's JSON.
type RecordedAnswer struct {
	T    time.Time       `json:"t"`
	Op   exchange.Op     `json:"op"`
	Key  string          `json:"key,omitempty"`
	Data json.RawMessage `json:"data"`
}

// maxRecordingLine bounds one line of a recording (a 100-fill answer is
// about 10 KB; a stock-info answer of every pair is the largest).
const maxRecordingLine = 16 << 20

// Recording is a parsed recording, indexed for replay.
type Recording struct {
	Name   string
	Header RecordingHeader
	End    time.Time
	// Ready is when every recorded series (each operation and symbol) has
	// its first answer: a replay starts there, since before it the pollers
	// could not fetch everything once and no rule may fire.
	Ready time.Time
	seen  map[string]bool

	states  []at[[]exchange.MarketState]
	cal     *exchange.Calendar
	info    []exchange.StockInfo
	books   map[string][]at[exchange.StockOrderBook]
	fills   map[string][]at[[]exchange.StockFill]
	tickers map[string][]at[quote]
}

// at is one recorded value and when it was fetched.
type at[T any] struct {
	t time.Time
	v T
}

// quote is a recorded ticker, parsed.
type quote struct {
	last, bid, ask decimal.Decimal
}

// LoadRecording reads a recording file.
func LoadRecording(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	return ParseRecording(f, filepath.Base(path))
}

// ParseRecording reads a recording from r; name is used in messages.
func ParseRecording(r io.Reader, name string) (*Recording, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRecordingLine)
	rec := &Recording{Name: name, seen: map[string]bool{}, books: map[string][]at[exchange.StockOrderBook]{},
		fills: map[string][]at[[]exchange.StockFill]{}, tickers: map[string][]at[quote]{}}
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		if line == 1 {
			if err := json.Unmarshal(sc.Bytes(), &rec.Header); err != nil {
				return nil, fmt.Errorf("recording %s:1: header: %w", name, err)
			}
			if rec.Header.Format != RecordingFormat || rec.Header.Version != RecordingVersion {
				return nil, fmt.Errorf("recording %s:1: format %q version %d, want %q version %d", name,
					rec.Header.Format, rec.Header.Version, RecordingFormat, RecordingVersion)
			}
			if rec.Header.Start.IsZero() {
				return nil, fmt.Errorf("recording %s:1: the header has no start", name)
			}
			rec.End, rec.Ready = rec.Header.Start, rec.Header.Start
			continue
		}
		var a RecordedAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("recording %s:%d: %w", name, line, err)
		}
		if a.T.Before(rec.End) {
			return nil, fmt.Errorf("recording %s:%d: time %s is before the previous line's", name, line, stamp(a.T))
		}
		rec.End = a.T
		if k := string(a.Op) + "/" + a.Key; !rec.seen[k] {
			rec.seen[k], rec.Ready = true, a.T
		}
		if err := rec.add(a); err != nil {
			return nil, fmt.Errorf("recording %s:%d: %s: %w", name, line, a.Op, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("recording %s: %w", name, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("recording %s: empty", name)
	}
	return rec, nil
}

func (rec *Recording) add(a RecordedAnswer) error {
	switch a.Op {
	case exchange.OpMarketStates:
		var v []exchange.MarketState
		if err := json.Unmarshal(a.Data, &v); err != nil {
			return err
		}
		rec.states = append(rec.states, at[[]exchange.MarketState]{a.T, v})
	case exchange.OpMarketCalendar:
		var v exchange.Calendar
		if err := json.Unmarshal(a.Data, &v); err != nil {
			return err
		}
		if rec.cal == nil {
			rec.cal = &v
		}
	case exchange.OpStockInfo:
		var v []exchange.StockInfo
		if err := json.Unmarshal(a.Data, &v); err != nil {
			return err
		}
		if rec.info == nil {
			rec.info = v
		}
	case exchange.OpStockOrderBook:
		var v exchange.StockOrderBook
		if err := json.Unmarshal(a.Data, &v); err != nil {
			return err
		}
		rec.books[a.Key] = append(rec.books[a.Key], at[exchange.StockOrderBook]{a.T, v})
	case exchange.OpStockFills:
		var v []exchange.StockFill
		if err := json.Unmarshal(a.Data, &v); err != nil {
			return err
		}
		rec.fills[a.Key] = append(rec.fills[a.Key], at[[]exchange.StockFill]{a.T, v})
	case exchange.OpTicker:
		var v []exchange.Ticker
		if err := json.Unmarshal(a.Data, &v); err != nil {
			return err
		}
		if len(v) == 0 {
			return nil
		}
		q, err := parseQuote(v[0])
		if err != nil {
			return err
		}
		rec.tickers[a.Key] = append(rec.tickers[a.Key], at[quote]{a.T, q})
	default:
		return errors.New("not an operation a recording holds")
	}
	return nil
}

func parseQuote(t exchange.Ticker) (quote, error) {
	var q quote
	var err error
	if q.last, err = decimal.NewFromString(string(t.LastPr)); err != nil {
		return q, fmt.Errorf("lastPr %q: %w", t.LastPr, err)
	}
	q.bid, q.ask = q.last, q.last
	if b, err := decimal.NewFromString(string(t.BidPr)); err == nil && b.IsPositive() {
		q.bid = b
	}
	if a, err := decimal.NewFromString(string(t.AskPr)); err == nil && a.IsPositive() {
		q.ask = a
	}
	return q, nil
}

// latest returns the last value fetched at or before t.
func latest[T any](xs []at[T], t time.Time) (T, bool) {
	i := sort.Search(len(xs), func(i int) bool { return xs[i].t.After(t) })
	if i == 0 {
		var zero T
		return zero, false
	}
	return xs[i-1].v, true
}

// Apply sets opts to replay the recording: its scenario (one account,
// ReplayAPIKey, with the recorded balances and position modes, and the
// recorded contracts), its Market, and its time range when opts has none:
// from Ready to the last answer.
func (rec *Recording) Apply(opts *Options) error {
	sc, err := rec.Scenario()
	if err != nil {
		return err
	}
	opts.Scenario, opts.Market, opts.Source, opts.APIKey = sc, rec.Market(), rec.Name, ReplayAPIKey
	if opts.From.IsZero() {
		opts.From = rec.Ready
	}
	if opts.To.IsZero() {
		opts.To = rec.End
	}
	if !opts.To.After(opts.From) {
		return fmt.Errorf("recording %s: nothing to replay between %s and %s (every series is first recorded at %s)",
			rec.Name, stamp(opts.From), stamp(opts.To), stamp(rec.Ready))
	}
	return nil
}

// Scenario is the simulated exchange of a replay.
func (rec *Recording) Scenario() (*sim.Scenario, error) {
	acct := sim.AccountSpec{UID: "1", APIKey: ReplayAPIKey, Secret: "replay-secret", Passphrase: "replay-passphrase",
		Balances: map[string]decimal.Decimal{}, PositionMode: map[exchange.ProductType]exchange.PosMode{}}
	for _, ra := range rec.Header.Accounts {
		for _, a := range ra.Accounts {
			eq, err := decimal.NewFromString(string(a.AccountEquity))
			if err != nil {
				return nil, fmt.Errorf("recording %s: %s %s equity %q: %w", rec.Name, ra.ProductType, a.MarginCoin, a.AccountEquity, err)
			}
			// Balances are per coin in the simulator; the first product
			// type that names a coin gives its balance.
			if _, ok := acct.Balances[a.MarginCoin]; !ok {
				acct.Balances[a.MarginCoin] = eq
			}
			if a.PosMode != "" {
				acct.PositionMode[ra.ProductType] = a.PosMode
			}
		}
	}
	sc := &sim.Scenario{Name: "recording " + rec.Name, Clock: sim.ClockSpec{Start: rec.Header.Start, End: rec.End, Step: time.Second},
		Accounts: []sim.AccountSpec{acct}, Source: rec.Name}
	for _, c := range rec.Header.Contracts {
		sc.Contracts = append(sc.Contracts, sim.ContractSpec{ProductType: c.ProductType, Contract: c.Contract})
	}
	return sc, nil
}

// Market is the replay's market: everything the simulator serves or
// matches against comes from the recording.
//
//   - PriceAt is the last recorded ticker's last price at or before t.
//   - Book is the recorded best bid and ask, each one level deep with
//     unlimited size: a market order fills whole at the recorded top of
//     book. The recording has no depth for futures; this is the replay's
//     simplification, and it is optimistic for large orders.
//   - Stock books, stock fills, market states: the last recorded answer at
//     or before t; stock info and the calendar: the first recorded answer.
//   - FuturesOpen: stock futures (isRwa) trade when the recorded session
//     is not a weekend or holiday closure; crypto futures always trade.
func (rec *Recording) Market() sim.Market { return recMarket{rec} }

type recMarket struct{ rec *Recording }

var _ sim.Market = recMarket{}

// unlimited is the size of each side of a replay's futures book.
var unlimited = exchange.Num("1000000000")

func (m recMarket) PriceAt(symbol string, t time.Time) (decimal.Decimal, bool) {
	q, ok := latest(m.rec.tickers[symbol], t)
	return q.last, ok
}

func (m recMarket) Book(symbol string, t time.Time, levels int) (bids, asks []exchange.PriceLevel) {
	q, ok := latest(m.rec.tickers[symbol], t)
	if !ok || levels <= 0 {
		return nil, nil
	}
	return []exchange.PriceLevel{{exchange.Num(q.bid.String()), unlimited}}, []exchange.PriceLevel{{exchange.Num(q.ask.String()), unlimited}}
}

func (m recMarket) FuturesOpen(t time.Time, isRwa bool) bool {
	if !isRwa {
		return true
	}
	states, ok := latest(m.rec.states, t)
	if !ok || m.rec.cal == nil {
		return false
	}
	s, err := marketdata.ComputeSession(t, states, *m.rec.cal)
	return err == nil && !s.IsWeekend && !s.IsHoliday
}

func (m recMarket) StockOrderBook(symbol string, t time.Time) (exchange.StockOrderBook, error) {
	b, ok := latest(m.rec.books[symbol], t)
	if !ok {
		return exchange.StockOrderBook{}, fmt.Errorf("stock order book %s: not recorded by %s: %w", symbol, stamp(t), market.ErrUnknownSymbol)
	}
	return b, nil
}

func (m recMarket) StockFills(symbol string, t time.Time, limit int) ([]exchange.StockFill, error) {
	f, ok := latest(m.rec.fills[symbol], t)
	if !ok {
		return nil, fmt.Errorf("stock fills %s: not recorded by %s: %w", symbol, stamp(t), market.ErrUnknownSymbol)
	}
	if limit > 0 && len(f) > limit {
		f = f[:limit]
	}
	return slices.Clone(f), nil
}

func (m recMarket) StockInfo(symbol string) ([]exchange.StockInfo, error) {
	if symbol == "" {
		return slices.Clone(m.rec.info), nil
	}
	for _, p := range m.rec.info {
		if p.Symbol == symbol {
			return []exchange.StockInfo{p}, nil
		}
	}
	return nil, fmt.Errorf("stock info %s: %w", symbol, market.ErrUnknownSymbol)
}

func (m recMarket) States(t time.Time) []exchange.MarketState {
	s, ok := latest(m.rec.states, t)
	if !ok && len(m.rec.states) > 0 {
		s = m.rec.states[0].v
	}
	return slices.Clone(s)
}

func (m recMarket) Calendar() exchange.Calendar {
	if m.rec.cal == nil {
		return exchange.Calendar{}
	}
	return *m.rec.cal
}
