package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"
)

// This file holds the market-history operations: candles (recent, and the
// history of trade, mark and index prices) and the funding-rate history.
// They are public and limited to 20 requests a second per IP each (the
// venue's docs, contract/market Get-Candle-Data, Get-History-Candle-Data,
// Get-History-Mark-Candle-Data, Get-History-Index-Candle-Data and
// Get-History-Funding-Rate).

// Limits of the market-history operations (the venue's docs, above).
const (
	// MaxHistoryCandles is the most rows one history-*candles call returns.
	MaxHistoryCandles = 200
	// MaxRecentCandles is the most rows one candles call returns.
	MaxRecentCandles = 1000
	// MaxCandleSpan is the widest startTime..endTime window of a candle query.
	MaxCandleSpan = 90 * 24 * time.Hour
	// MaxFundingPageSize is the largest pageSize of history-fund-rate.
	MaxFundingPageSize = 100
)

// Granularity is a candle interval as the venue spells it in granularity.
type Granularity string

// The granularities of the futures candle queries (the venue's docs; SDKs and
// the docs' mirrors spell minutes 1m, one English page shows spot-style 1min).
const (
	Gran1m  Granularity = "1m"
	Gran3m  Granularity = "3m"
	Gran5m  Granularity = "5m"
	Gran15m Granularity = "15m"
	Gran30m Granularity = "30m"
	Gran1H  Granularity = "1H"
	Gran4H  Granularity = "4H"
	Gran6H  Granularity = "6H"
	Gran12H Granularity = "12H"
	Gran1D  Granularity = "1D"
	Gran1W  Granularity = "1W"
)

var granularities = enum[Granularity]{"granularity", []Granularity{Gran1m, Gran3m, Gran5m, Gran15m, Gran30m, Gran1H, Gran4H, Gran6H, Gran12H, Gran1D, Gran1W}}

// granDurations are the lengths of the fixed-length granularities. The
// calendar month (1M) and the 3-day line (3D) are left out: their candles
// do not start at multiples of their length from the Unix epoch.
var granDurations = map[Granularity]time.Duration{
	Gran1m: time.Minute, Gran3m: 3 * time.Minute, Gran5m: 5 * time.Minute, Gran15m: 15 * time.Minute,
	Gran30m: 30 * time.Minute, Gran1H: time.Hour, Gran4H: 4 * time.Hour, Gran6H: 6 * time.Hour,
	Gran12H: 12 * time.Hour, Gran1D: 24 * time.Hour, Gran1W: 7 * 24 * time.Hour,
}

// Duration returns the length of one candle; false for an unknown granularity.
func (g Granularity) Duration() (time.Duration, bool) {
	d, ok := granDurations[g]
	return d, ok
}

// Granularities returns the granularities the client and the simulator know,
// shortest first.
func Granularities() []Granularity { return append([]Granularity(nil), granularities.values...) }

// CandleKind is which price a candle series follows: the trades (the
// default), the mark price or the index price.
type CandleKind string

// Candle kinds: the values of the candles query's kLineType, and the history
// operation each is read from.
const (
	KindTrade CandleKind = "MARKET"
	KindMark  CandleKind = "MARK"
	KindIndex CandleKind = "INDEX"
)

var candleKinds = enum[CandleKind]{"kLineType", []CandleKind{KindTrade, KindMark, KindIndex}}

// HistoryOp returns the history operation of the kind.
func (k CandleKind) HistoryOp() (Op, bool) {
	switch k {
	case KindTrade:
		return OpHistoryCandles, true
	case KindMark:
		return OpHistoryMarkCandles, true
	case KindIndex:
		return OpHistoryIndexCandles, true
	}
	return "", false
}

// CandlesRequest is the query of the candle operations: candles (recent,
// up to 1000 rows, KLineType chooses the price) and history-candles,
// history-mark-candles and history-index-candles (back to the listing, up to
// 200 rows; KLineType is not sent). StartTime and EndTime are at most 90
// days apart.
type CandlesRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	Granularity Granularity `json:"granularity"`
	StartTime   Millis      `json:"startTime"`
	EndTime     Millis      `json:"endTime"`
	KLineType   CandleKind  `json:"kLineType"`
	Limit       int         `json:"limit"`
}

// Candle is one row of a candle answer: seven strings, [ts, open, high,
// low, close, baseVol, quoteVol], ts the start of the candle in ms.
type Candle struct {
	TS       Millis
	Open     Num
	High     Num
	Low      Num
	Close    Num
	BaseVol  Num
	QuoteVol Num
}

// candleColumns is the number of columns of a row. The spot queries' rows
// carry an eighth (usdtVol); extra columns are ignored.
const candleColumns = 7

// UnmarshalJSON decodes a row: an array of at least seven strings or
// numbers.
func (c *Candle) UnmarshalJSON(b []byte) error {
	var cols []json.RawMessage
	if err := json.Unmarshal(b, &cols); err != nil {
		return fmt.Errorf("candle row: %w", err)
	}
	if len(cols) < candleColumns {
		return fmt.Errorf("candle row: %d columns, want at least %d", len(cols), candleColumns)
	}
	var s [candleColumns]string
	for i := range s {
		v, err := flexString(cols[i])
		if err != nil {
			return fmt.Errorf("candle row column %d: %w", i, err)
		}
		s[i] = v
	}
	if s[0] == "" || Millis(s[0]).Int() <= 0 {
		return fmt.Errorf("candle row: ts %q is not Unix milliseconds", s[0])
	}
	for i := 1; i < candleColumns; i++ {
		if !plainDecimal(s[i]) { // the venue writes prices and volumes plainly

			return fmt.Errorf("candle row column %d: %q is not a decimal number", i, s[i])
		}
	}
	*c = Candle{TS: Millis(s[0]), Open: Num(s[1]), High: Num(s[2]), Low: Num(s[3]), Close: Num(s[4]), BaseVol: Num(s[5]), QuoteVol: Num(s[6])}
	return nil
}

// MarshalJSON writes the row as the venue does: an array of seven strings.
func (c Candle) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range [candleColumns]string{string(c.TS), string(c.Open), string(c.High), string(c.Low), string(c.Close), string(c.BaseVol), string(c.QuoteVol)} {
		if i > 0 {
			b.WriteByte(',')
		}
		q, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		b.Write(q)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// FundingHistoryRequest is the query of GET
// /api/v2/mix/market/history-fund-rate: pages of at most 100 settlements,
// newest first, PageNo from 1.
type FundingHistoryRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	PageSize    int         `json:"pageSize"`
	PageNo      int         `json:"pageNo"`
}

// FundingRate is one settlement of the funding history.
type FundingRate struct {
	Symbol      string `json:"symbol"`
	FundingRate Num    `json:"fundingRate"`
	FundingTime Millis `json:"fundingTime"`
}

// HistoryReader is the market-history queries: *Client and the simulator
// satisfy it, and the local store downloads through it. It is apart from
// Reader because the engine never polls history.
type HistoryReader interface {
	Candles(ctx context.Context, req CandlesRequest) ([]Candle, error)
	HistoryCandles(ctx context.Context, kind CandleKind, req CandlesRequest) ([]Candle, error)
	FundingHistory(ctx context.Context, req FundingHistoryRequest) ([]FundingRate, error)
}

// Candles returns recent candles (GET /api/v2/mix/market/candles).
func (c *Client) Candles(ctx context.Context, req CandlesRequest) ([]Candle, error) {
	return do[[]Candle](ctx, c, OpCandles, &req)
}

// HistoryCandles returns candles of kind from its history operation
// (history-candles, history-mark-candles or history-index-candles).
// KLineType is not sent: the operation chooses the price.
func (c *Client) HistoryCandles(ctx context.Context, kind CandleKind, req CandlesRequest) ([]Candle, error) {
	op, ok := kind.HistoryOp()
	if !ok {
		return nil, &ValidationError{Op: OpHistoryCandles, Field: "kind", Code: CodeParamVerify, Rule: fmt.Sprintf("must be one of MARKET, MARK, INDEX (got %q)", string(kind))}
	}
	q := historyCandlesQuery{Symbol: req.Symbol, ProductType: req.ProductType, Granularity: req.Granularity,
		StartTime: req.StartTime, EndTime: req.EndTime, Limit: req.Limit, op: op}
	return do[[]Candle](ctx, c, op, &q)
}

// historyCandlesQuery is a CandlesRequest as the history operations take
// it: without kLineType (the operation chooses the price), at most 200 rows,
// its validation errors naming the operation (op is unexported, so neither
// sent nor signed).
type historyCandlesQuery struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	Granularity Granularity `json:"granularity"`
	StartTime   Millis      `json:"startTime"`
	EndTime     Millis      `json:"endTime"`
	Limit       int         `json:"limit"`
	op          Op
}

// Validate checks the history-candles rules under the query's operation.
func (q historyCandlesQuery) Validate(now time.Time) error {
	r := CandlesRequest{Symbol: q.Symbol, ProductType: q.ProductType, Granularity: q.Granularity, StartTime: q.StartTime, EndTime: q.EndTime, Limit: q.Limit}
	return r.validate(q.op, MaxHistoryCandles)
}

// FundingHistory returns one page of the funding-rate history, newest first.
func (c *Client) FundingHistory(ctx context.Context, req FundingHistoryRequest) ([]FundingRate, error) {
	return do[[]FundingRate](ctx, c, OpHistoryFundRate, &req)
}

// Validate checks the candles rules (the venue's docs): symbol, productType
// and granularity required, a window of at most 90 days, limit up to 1000.
func (r CandlesRequest) Validate(now time.Time) error {
	return r.validate(OpCandles, MaxRecentCandles)
}

// ValidateHistory checks the rules of the history operation of kind: those
// of candles, with at most 200 rows. The simulator checks with it.
func (r CandlesRequest) ValidateHistory(kind CandleKind) error {
	op, ok := kind.HistoryOp()
	if !ok {
		op = OpHistoryCandles
	}
	return r.validate(op, MaxHistoryCandles)
}

func (r CandlesRequest) validate(op Op, maxLimit int) error {
	p := problems{op: op}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.required("granularity", string(r.Granularity))
	p.addEnum(granularities.check("granularity", r.Granularity))
	p.addEnum(candleKinds.check("kLineType", r.KLineType))
	p.span(r.StartTime, r.EndTime, false, MaxCandleSpan)
	p.limit(r.Limit, maxLimit)
	return p.err()
}

// Validate checks the history-fund-rate rules: symbol and productType
// required, pageSize up to 100, pageNo not negative.
func (r FundingHistoryRequest) Validate(now time.Time) error {
	p := problems{op: OpHistoryFundRate}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	if r.PageSize < 0 || r.PageSize > MaxFundingPageSize {
		p.add("pageSize", CodeParamVerify, "must be between 1 and %d, or 0 for the default (got %d)", MaxFundingPageSize, r.PageSize)
	}
	if r.PageNo < 0 {
		p.add("pageNo", CodeParamVerify, "must be 1 or more, or 0 for the first page (got %d)", r.PageNo)
	}
	return p.err()
}

var (
	_ requestValidator = CandlesRequest{}
	_ requestValidator = historyCandlesQuery{}
	_ requestValidator = FundingHistoryRequest{}
	_ HistoryReader    = (*Client)(nil)
)

// candlePagesInFlight is how many windows CandlePages asks for at once:
// enough that the rate limiter, not the round trip, sets the pace.
const candlePagesInFlight = 4

// CandlePages yields the candles of kind from from (inclusive) to to
// (exclusive), oldest first, one page (at most 200 rows) per history call.
//
// The span is cut into windows of exactly 200 candles; each call asks for
// its window from one millisecond before its first candle to one
// millisecond before the next window's, so whether the venue counts
// startTime and endTime inclusively or not, a window holds 200 candle times
// and no candle falls between two windows. Rows outside the window and rows
// not after the last one yielded are dropped. A window without candles (a
// closure, a maintenance, before the listing) yields an empty page. Up to
// candlePagesInFlight windows are asked at once, through r's own rate
// limiting; pages are yielded in order. The page yielded with an error is
// empty, and nothing more is asked after it or after the consumer stops.
func CandlePages(ctx context.Context, r HistoryReader, kind CandleKind, req CandlesRequest, from, to time.Time) iter.Seq2[[]Candle, error] {
	return func(yield func([]Candle, error) bool) {
		g, ok := req.Granularity.Duration()
		if !ok {
			yield(nil, fmt.Errorf("candle pages: granularity %q has no fixed length", req.Granularity))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // stops the windows still in flight
		window := g * MaxHistoryCandles
		type answer struct {
			start time.Time
			rows  []Candle
			err   error
		}
		var inFlight []chan answer // oldest first
		next := from.Truncate(g)
		if next.Before(from) {
			next = next.Add(g)
		}
		launch := func() {
			if !next.Before(to) {
				return
			}
			start := next
			next = next.Add(window)
			ch := make(chan answer, 1) // buffered: an abandoned answer does not block its goroutine
			inFlight = append(inFlight, ch)
			go func() {
				q := req
				q.StartTime = MillisOf(start.Add(-time.Millisecond))
				q.EndTime = MillisOf(start.Add(window - time.Millisecond))
				q.Limit = MaxHistoryCandles
				rows, err := r.HistoryCandles(ctx, kind, q)
				ch <- answer{start, rows, err}
			}()
		}
		for range candlePagesInFlight {
			launch()
		}
		last := int64(-1)
		for len(inFlight) > 0 {
			a := <-inFlight[0]
			inFlight = inFlight[1:]
			if a.err != nil {
				yield(nil, fmt.Errorf("candles of %s from %s: %w", req.Symbol, a.start.Format(time.RFC3339), a.err))
				return
			}
			end := a.start.Add(window)
			if end.After(to) {
				end = to
			}
			page := keepCandles(a.rows, a.start, end, last)
			if len(page) > 0 {
				last = page[len(page)-1].TS.Int()
			}
			if !yield(page, nil) {
				return
			}
			launch()
		}
	}
}

// keepCandles returns the rows in [from, to) after last (ms), oldest first,
// each time once. The venue's answers are oldest first already; a
// newest-first answer is turned round.
func keepCandles(rows []Candle, from, to time.Time, last int64) []Candle {
	if len(rows) > 1 && rows[0].TS.Int() > rows[len(rows)-1].TS.Int() {
		rev := make([]Candle, len(rows))
		for i, c := range rows {
			rev[len(rows)-1-i] = c
		}
		rows = rev
	}
	lo, hi := from.UnixMilli(), to.UnixMilli()
	out := make([]Candle, 0, len(rows))
	for _, c := range rows {
		ts := c.TS.Int()
		if ts < lo || ts >= hi || ts <= last {
			continue
		}
		out = append(out, c)
		last = ts
	}
	return out
}

// FundingSince returns the funding settlements at or after since, oldest
// first, walking history-fund-rate's pages (newest first) until a page
// reaches back before since or is short.
func FundingSince(ctx context.Context, r HistoryReader, req FundingHistoryRequest, since time.Time) ([]FundingRate, error) {
	if req.PageSize <= 0 {
		req.PageSize = MaxFundingPageSize
	}
	var newestFirst []FundingRate
	lo := since.UnixMilli()
	for page := 1; ; page++ {
		if page > MaxPages {
			return nil, fmt.Errorf("funding history of %s: %w", req.Symbol, ErrTooManyPages)
		}
		q := req
		q.PageNo = page
		rows, err := r.FundingHistory(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("funding history of %s page %d: %w", req.Symbol, page, err)
		}
		done := len(rows) < req.PageSize
		for _, f := range rows {
			if f.FundingTime.Int() < lo {
				done = true
				continue
			}
			newestFirst = append(newestFirst, f)
		}
		if done {
			break
		}
	}
	out := make([]FundingRate, 0, len(newestFirst))
	seen := make(map[int64]bool, len(newestFirst))
	for i := len(newestFirst) - 1; i >= 0; i-- {
		ts := newestFirst[i].FundingTime.Int()
		if seen[ts] {
			continue // a settlement that moved to the next page while we read
		}
		seen[ts] = true
		out = append(out, newestFirst[i])
	}
	return out, nil
}

// Candles returns recent candles; see Client.Candles.
func (r *ReadOnlyClient) Candles(ctx context.Context, req CandlesRequest) ([]Candle, error) {
	return r.client.Candles(ctx, req)
}

// HistoryCandles returns candles of kind from its history operation; see
// Client.HistoryCandles.
func (r *ReadOnlyClient) HistoryCandles(ctx context.Context, kind CandleKind, req CandlesRequest) ([]Candle, error) {
	return r.client.HistoryCandles(ctx, kind, req)
}

// FundingHistory returns one page of the funding-rate history; see
// Client.FundingHistory.
func (r *ReadOnlyClient) FundingHistory(ctx context.Context, req FundingHistoryRequest) ([]FundingRate, error) {
	return r.client.FundingHistory(ctx, req)
}

var _ HistoryReader = (*ReadOnlyClient)(nil)
