package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// The market-history queries (exchange.HistoryReader): candles of the
// scenario's price paths and the funding settlements of its rate, as the
// venue serves them (the venue's docs, contract/market). They are public;
// an account answers them too.
//
// Modelled, and so written down here:
//   - a candle's open is the path's price at its start, its close the price
//     one clock step before its end, its high and low the extremes of those
//     and of samples at the clock step (at most maxCandleSamples samples a
//     candle, the step widened for long candles);
//   - volumes are "0": the simulator has no public trades;
//   - mark and index candles are the trade candles: the ticker's mark and
//     index prices are its last price;
//   - the history starts at the scenario start (the "listing") and ends at
//     the last candle finished by the simulated now; Options.CandleGaps
//     leave out candles, as a maintenance does at the venue.

// maxCandleSamples bounds the prices read for one candle.
const maxCandleSamples = 240

// historyCandles answers the candle queries of op. maxRows is the op's
// row limit; kind is the price (every kind reads the same path here).
func (x *Exchange) historyCandles(op exchange.Op, req exchange.CandlesRequest, maxRows int) ([]exchange.Candle, error) {
	var err error
	if op == exchange.OpCandles {
		err = validate(op, req, x.now)
	} else {
		err = asAPIError(op, req.ValidateHistory(kindOfOp(op)))
	}
	if err != nil {
		return nil, err
	}
	c, err := x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return nil, err
	}
	g, ok := req.Granularity.Duration()
	if !ok {
		return nil, apiErr(op, exchange.CodeParamVerify, fmt.Sprintf("granularity %s is not served by the simulator", req.Granularity))
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 100 // the venue's default
	}
	limit = min(limit, maxRows)

	// Candles that have finished by now and start at or after the listing.
	first := x.sc.Clock.Start.Truncate(g)
	if first.Before(x.sc.Clock.Start) {
		first = first.Add(g)
	}
	last := x.now.Add(-g).Truncate(g) // the newest finished candle
	if req.StartTime != "" {
		if s := req.StartTime.Time(); s.After(first) {
			first = s.Truncate(g)
			if first.Before(s) {
				first = first.Add(g)
			}
		}
	}
	if req.EndTime != "" {
		if e := req.EndTime.Time().Truncate(g); e.Before(last) {
			last = e
		}
	}
	if last.Before(first) {
		return []exchange.Candle{}, nil
	}
	// The venue answers the newest rows of the window, oldest first.
	if n := int(last.Sub(first)/g) + 1; n > limit {
		first = last.Add(-time.Duration(limit-1) * g)
	}
	sample := max(x.step, g/maxCandleSamples)
	out := make([]exchange.Candle, 0, int(last.Sub(first)/g)+1)
	for t := first; !t.After(last); t = t.Add(g) {
		if x.inCandleGap(t, g) {
			continue
		}
		row, ok := x.candleAt(c.spec.Symbol, t, g, sample)
		if ok {
			out = append(out, row)
		}
	}
	return out, nil
}

// inCandleGap reports whether the candle [t, t+g) overlaps a gap.
func (x *Exchange) inCandleGap(t time.Time, g time.Duration) bool {
	for _, w := range x.candleGaps {
		if t.Before(w.End) && w.Start.Before(t.Add(g)) {
			return true
		}
	}
	return false
}

// candleAt is the candle of symbol over [t, t+g): the open at t, the close
// one clock step before t+g (the last price inside the candle), the high
// and low over samples every sample between them and the close.
func (x *Exchange) candleAt(symbol string, t time.Time, g, sample time.Duration) (exchange.Candle, bool) {
	open, ok := x.mkt.PriceAt(symbol, t)
	if !ok {
		return exchange.Candle{}, false
	}
	closeAt := t.Add(g - min(x.step, g))
	closing, _ := x.mkt.PriceAt(symbol, closeAt)
	high, low := decimal.Max(open, closing), decimal.Min(open, closing)
	for s := t.Add(sample); s.Before(closeAt); s = s.Add(sample) {
		p, _ := x.mkt.PriceAt(symbol, s)
		high, low = decimal.Max(high, p), decimal.Min(low, p)
	}
	return exchange.Candle{TS: exchange.MillisOf(t), Open: num(open), High: num(high), Low: num(low), Close: num(closing), BaseVol: "0", QuoteVol: "0"}, true
}

func kindOfOp(op exchange.Op) exchange.CandleKind {
	switch op {
	case exchange.OpHistoryMarkCandles:
		return exchange.KindMark
	case exchange.OpHistoryIndexCandles:
		return exchange.KindIndex
	}
	return exchange.KindTrade
}

// fundingHistory answers history-fund-rate: one settlement every
// FundingInterval from the scenario start to now, at the scenario's rate,
// newest first, in pages; with a FundingHistory (a replay of stored
// history), its settlements up to now.
func (x *Exchange) fundingHistory(req exchange.FundingHistoryRequest) ([]exchange.FundingRate, error) {
	op := exchange.OpHistoryFundRate
	if err := validate(op, req, x.now); err != nil {
		return nil, err
	}
	c, err := x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return nil, err
	}
	size, page := req.PageSize, max(req.PageNo, 1)
	if size <= 0 {
		size = 20 // the venue's default
	}
	if len(x.sc.FundingHistory) > 0 {
		return storedFundingPage(c.spec.Symbol, x.sc.FundingHistory[c.spec.Symbol], x.now, size, page), nil
	}
	newest := x.now.Truncate(FundingInterval)
	oldest := x.sc.Clock.Start.Truncate(FundingInterval)
	if oldest.Before(x.sc.Clock.Start) {
		oldest = oldest.Add(FundingInterval)
	}
	rate := x.fundingRateNum()
	out := []exchange.FundingRate{}
	at := newest.Add(-time.Duration((page-1)*size) * FundingInterval)
	for ; len(out) < size && !at.Before(oldest); at = at.Add(-FundingInterval) {
		out = append(out, exchange.FundingRate{Symbol: c.spec.Symbol, FundingRate: rate, FundingTime: exchange.MillisOf(at)})
	}
	return out, nil
}

// Candles answers GET /api/v2/mix/market/candles.
func (p publicReader) Candles(ctx context.Context, req exchange.CandlesRequest) ([]exchange.Candle, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.historyCandles(exchange.OpCandles, req, exchange.MaxRecentCandles)
}

// HistoryCandles answers the history candle queries of kind.
func (p publicReader) HistoryCandles(ctx context.Context, kind exchange.CandleKind, req exchange.CandlesRequest) ([]exchange.Candle, error) {
	op, ok := kind.HistoryOp()
	if !ok {
		return nil, apiErr(exchange.OpHistoryCandles, exchange.CodeParamVerify, fmt.Sprintf("unknown candle kind %q", kind))
	}
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.historyCandles(op, req, exchange.MaxHistoryCandles)
}

// FundingHistory answers GET /api/v2/mix/market/history-fund-rate.
func (p publicReader) FundingHistory(ctx context.Context, req exchange.FundingHistoryRequest) ([]exchange.FundingRate, error) {
	p.x.lock()
	defer p.x.mu.Unlock()
	return p.x.fundingHistory(req)
}

// Candles answers the candles query for an account (it is public).
func (a *Account) Candles(ctx context.Context, req exchange.CandlesRequest) ([]exchange.Candle, error) {
	return publicReader{a.x}.Candles(ctx, req)
}

// HistoryCandles answers the history candle queries for an account.
func (a *Account) HistoryCandles(ctx context.Context, kind exchange.CandleKind, req exchange.CandlesRequest) ([]exchange.Candle, error) {
	return publicReader{a.x}.HistoryCandles(ctx, kind, req)
}

// FundingHistory answers history-fund-rate for an account.
func (a *Account) FundingHistory(ctx context.Context, req exchange.FundingHistoryRequest) ([]exchange.FundingRate, error) {
	return publicReader{a.x}.FundingHistory(ctx, req)
}

var (
	_ exchange.HistoryReader = publicReader{}
	_ exchange.HistoryReader = (*Account)(nil)
)

// storedFundingPage is page (from 1) of size settlements of list (sorted
// by time) up to now, newest first.
func storedFundingPage(symbol string, list []FundingSettlement, now time.Time, size, page int) []exchange.FundingRate {
	out := []exchange.FundingRate{}
	for i := lastSettlement(list, now) - (page-1)*size; i >= 0 && len(out) < size; i-- {
		out = append(out, exchange.FundingRate{Symbol: symbol, FundingRate: num(list[i].Rate), FundingTime: exchange.MillisOf(list[i].At)})
	}
	return out
}
