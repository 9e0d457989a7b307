package backtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
)

// RecordVenue is what engine record reads: the pollers' operations, the
// catalog and the futures tickers. It has no method that sends an order.
type RecordVenue interface {
	poll.Reader
	rules.CatalogReader
	Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error)
}

// RecordOptions configure Record.
type RecordOptions struct {
	Venue     RecordVenue
	VenueName string
	Clock     engine.Clock
	Out       io.Writer
	// RuleDirs, when set, narrow the recording to what the rules read and
	// the futures they name; without rules every stock pair is recorded,
	// with the tickers of the futures named like a pair.
	RuleDirs []string
	Getenv   func(string) string
	Logger   *zap.Logger
}

// RecordStats counts what Record wrote.
type RecordStats struct {
	Lines int
}

// recordParts are the State parts a recording holds.
var recordParts = marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockInfo).
	Add(marketdata.PartStockBook).Add(marketdata.PartStockTrades)

// Record polls the venue as the engine's pollers would and writes every
// market answer, plus futures tickers, to opts.Out until ctx is done. The
// end of ctx is the normal end of a recording, not an error.
func Record(ctx context.Context, opts RecordOptions) (RecordStats, error) {
	if opts.Venue == nil || opts.Clock == nil || opts.Out == nil {
		return RecordStats{}, errors.New("record: Venue, Clock and Out are required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	cat, err := rules.FetchCatalog(ctx, opts.Venue)
	if err != nil {
		return RecordStats{}, fmt.Errorf("record: read contracts: %w", err)
	}
	demand, symbols, err := recordDemand(ctx, opts, cat)
	if err != nil {
		return RecordStats{}, err
	}
	hdr := RecordingHeader{Format: RecordingFormat, Version: RecordingVersion, Venue: opts.VenueName, Start: opts.Clock.Now().UTC()}
	for _, c := range cat.Contracts {
		hdr.Contracts = append(hdr.Contracts, RecordedContract{ProductType: c.ProductType, Contract: c.Contract})
	}
	// The live venue's accounts list carries no posMode: a venue that reads
	// the single account gives the modes, kept in the recorded accounts so
	// that a replay trades in the recorded mode.
	var modes map[exchange.ProductType]exchange.PosMode
	if ms, ok := opts.Venue.(exchange.ModeSource); ok {
		if modes, err = exchange.PositionModes(ctx, ms); err != nil {
			return RecordStats{}, fmt.Errorf("record: %w", err)
		}
	}
	for _, pt := range exchange.ProductTypes() {
		as, err := opts.Venue.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return RecordStats{}, fmt.Errorf("record: read %s account: %w", pt, err)
		}
		if m, ok := modes[pt]; ok {
			as = slices.Clone(as)
			for i := range as {
				if as[i].PosMode == "" {
					as[i].PosMode = m
				}
			}
		}
		hdr.Accounts = append(hdr.Accounts, RecordedAccounts{ProductType: pt, Accounts: as})
	}
	w := &recordWriter{w: bufio.NewWriter(opts.Out), clock: opts.Clock}
	if err := w.line(hdr); err != nil {
		return RecordStats{}, err
	}
	rr := &recordingReader{Reader: opts.Venue, w: w}
	poller, err := poll.New(poll.Options{Reader: rr, Clock: opts.Clock, Logger: opts.Logger.Named("poll"),
		Demand: demand, Contracts: cat.Contracts})
	if err != nil {
		return RecordStats{}, fmt.Errorf("record: %w", err)
	}
	// Tickers share the budget like the pollers: half the rate limit.
	tickerEvery := time.Duration(math.Ceil(float64(len(symbols))/10)) * time.Second
	tickerEvery = max(tickerEvery, time.Second)
	var nextTicker time.Time
	for {
		if err := poller.PollDue(ctx); err != nil && ctx.Err() == nil {
			opts.Logger.Warn("record: poll failed", zap.Error(err))
		}
		if now := opts.Clock.Now(); !now.Before(nextTicker) && ctx.Err() == nil {
			nextTicker = now.Add(tickerEvery)
			for _, c := range symbols {
				req := exchange.TickerRequest{Symbol: c.Symbol, ProductType: c.ProductType}
				tk, err := opts.Venue.Ticker(exchange.WithPriority(ctx, exchange.PriorityLow), req)
				if err == nil {
					err = w.answer(exchange.OpTicker, c.Symbol, tk)
				}
				if err != nil && ctx.Err() == nil {
					opts.Logger.Warn("record: ticker failed", zap.String("symbol", c.Symbol), zap.Error(err))
				}
			}
		}
		if err := w.flush(); err != nil {
			return RecordStats{Lines: w.n}, err
		}
		select {
		case <-ctx.Done():
			return RecordStats{Lines: w.n}, w.flush()
		case <-opts.Clock.After(time.Second):
		}
	}
}

// recordDemand is what a recording polls: the market parts of what the
// rules read (always the session and stock info), and the futures whose
// tickers are recorded.
func recordDemand(ctx context.Context, opts RecordOptions, cat *rules.Catalog) (poll.Demand, []marketdata.ProductContract, error) {
	d := poll.Demand{Parts: recordParts}
	var names []string
	if len(opts.RuleDirs) > 0 {
		rs, errs := rules.Load(ctx, opts.RuleDirs, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat, Getenv: opts.Getenv})
		if rs == nil {
			return d, nil, fmt.Errorf("%s\n%w", errs.Error(), assemble.ErrBadRules)
		}
		full := assemble.Demand(rs, cat)
		d.StockPairs = full.StockPairs
		d.Parts = marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockInfo)
		for _, p := range []marketdata.Part{marketdata.PartStockBook, marketdata.PartStockTrades} {
			if full.Parts.Has(p) {
				d.Parts = d.Parts.Add(p)
			}
		}
		names = assemble.FuturesSymbols(rs)
	} else {
		for _, p := range cat.StockPairs {
			d.StockPairs = append(d.StockPairs, p.Symbol)
			names = append(names, p.Symbol)
		}
	}
	if len(d.StockPairs) == 0 {
		d.Parts = marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockInfo)
	}
	slices.Sort(names)
	var symbols []marketdata.ProductContract
	for _, n := range slices.Compact(names) {
		if c, ok := cat.Contract(n); ok {
			symbols = append(symbols, c)
		}
	}
	return d, symbols, nil
}

// recordWriter writes lines in time order; the pollers and the ticker loop
// share it.
type recordWriter struct {
	mu    sync.Mutex
	w     *bufio.Writer
	clock engine.Clock
	last  time.Time
	n     int
	err   error
}

func (w *recordWriter) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("record: encode: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("record: write: %w", err)
		return w.err
	}
	w.n++
	return nil
}

// answer writes one answer stamped with the clock's time, never earlier
// than the previous line (a wall clock may step back).
func (w *recordWriter) answer(op exchange.Op, key string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("record: encode %s: %w", op, err)
	}
	w.mu.Lock()
	t := w.clock.Now().UTC()
	if t.Before(w.last) {
		t = w.last
	}
	w.last = t
	w.mu.Unlock()
	return w.line(RecordedAnswer{T: t, Op: op, Key: key, Data: raw})
}

func (w *recordWriter) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		w.err = fmt.Errorf("record: write: %w", err)
	}
	return w.err
}

// recordingReader passes every read to the venue and records the market
// answers.
type recordingReader struct {
	poll.Reader
	w *recordWriter
}

func record[T any](w *recordWriter, op exchange.Op, key string, v T, err error) (T, error) {
	if err == nil {
		err = w.answer(op, key, v)
	}
	return v, err
}

func (r *recordingReader) MarketStates(ctx context.Context) ([]exchange.MarketState, error) {
	v, err := r.Reader.MarketStates(ctx)
	return record(r.w, exchange.OpMarketStates, "", v, err)
}

func (r *recordingReader) MarketCalendar(ctx context.Context) (exchange.Calendar, error) {
	v, err := r.Reader.MarketCalendar(ctx)
	return record(r.w, exchange.OpMarketCalendar, "", v, err)
}

func (r *recordingReader) StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	v, err := r.Reader.StockInfo(ctx, req)
	return record(r.w, exchange.OpStockInfo, req.Symbol, v, err)
}

func (r *recordingReader) StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	v, err := r.Reader.StockOrderBook(ctx, req)
	return record(r.w, exchange.OpStockOrderBook, req.Symbol, v, err)
}

func (r *recordingReader) StockFills(ctx context.Context, req exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	v, err := r.Reader.StockFills(ctx, req)
	return record(r.w, exchange.OpStockFills, req.Symbol, v, err)
}
