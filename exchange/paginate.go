package exchange

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"
)

// This file holds the iterators over paged queries and the window splitting
// of the queries whose time span is limited. They take a Reader, so they
// work the same against the client and the simulator. Every iterator yields
// newest first, stops at the first error (yielded with a zero item), and
// sends no further request once the consumer breaks out of the loop.

// MaxPages bounds every paged walk: a server that keeps answering full pages
// would otherwise hold a caller forever. 10,000 pages of 100 are a million
// records, more than any 90-day window of one account.
const MaxPages = 10_000

// Pagination errors, for errors.Is.
var (
	// ErrTooManyPages means a walk reached MaxPages.
	ErrTooManyPages = errors.New("too many pages")
	// ErrPageStuck means the server answered a page whose cursor did not
	// move: continuing would repeat the same records forever.
	ErrPageStuck = errors.New("page cursor did not move")
)

// page is one fetched page: its items and the cursor of the next page.
// last reports that there is no next page.
type page[T any] struct {
	items []T
	next  string
	last  bool
}

// paginate walks pages from cursor start ("" for the newest) until a page is
// the last one, the consumer stops, or an error occurs.
func paginate[T any](ctx context.Context, op Op, start string, fetch func(ctx context.Context, cursor string) (page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor := start
		for n := 1; ; n++ {
			if n > MaxPages {
				yield(zero, fmt.Errorf("%s: %w (%d) before idLessThan %s", op, ErrTooManyPages, MaxPages, cursor))
				return
			}
			if err := ctx.Err(); err != nil {
				yield(zero, fmt.Errorf("%s page %d: %w", op, n, err))
				return
			}
			p, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, fmt.Errorf("%s page %d: %w", op, n, err))
				return
			}
			if !p.last && p.next == cursor {
				// The same cursor again means the server ignored idLessThan;
				// these items were yielded already.
				yield(zero, fmt.Errorf("%s page %d: %w: idLessThan %s answered with the same endId", op, n, ErrPageStuck, cursor))
				return
			}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			if p.last {
				return
			}
			cursor = p.next
		}
	}
}

// endIDPage ends the walk of the endId-paged queries on an empty page or an
// empty endId.
func endIDPage[T any](items []T, endID string) page[T] {
	return page[T]{items: items, next: endID, last: len(items) == 0 || endID == ""}
}

// IterFills yields every fill of req, newest first, following endId from
// req.IDLessThan (empty for the newest).
func IterFills(ctx context.Context, r Reader, req FillsRequest) iter.Seq2[Fill, error] {
	return paginate(ctx, OpFills, req.IDLessThan, func(ctx context.Context, cursor string) (page[Fill], error) {
		q := req // a copy per page, so that one sequence can be ranged over concurrently
		q.IDLessThan = cursor
		p, err := r.Fills(ctx, q)
		return endIDPage(p.FillList, p.EndID), err
	})
}

// IterFillHistory yields every fill of req, newest first. The request's span
// rule still applies: use FillHistoryRange for more than a week.
func IterFillHistory(ctx context.Context, r Reader, req FillHistoryRequest) iter.Seq2[Fill, error] {
	return paginate(ctx, OpFillHistory, req.IDLessThan, func(ctx context.Context, cursor string) (page[Fill], error) {
		q := req
		q.IDLessThan = cursor
		p, err := r.FillHistory(ctx, q)
		return endIDPage(p.FillList, p.EndID), err
	})
}

// PendingOrdersReader is the one query IterPendingOrders asks.
type PendingOrdersReader interface {
	PendingOrders(ctx context.Context, req PendingOrdersRequest) (PendingOrdersPage, error)
}

// IterPendingOrders yields every pending order of req, newest first. With
// req.Limit set, a page shorter than it is the last: the venue fills every
// page but the last, and the poller that reads the orders every second is
// spared the empty page after it.
func IterPendingOrders(ctx context.Context, r PendingOrdersReader, req PendingOrdersRequest) iter.Seq2[PendingOrder, error] {
	return paginate(ctx, OpOrdersPending, req.IDLessThan, func(ctx context.Context, cursor string) (page[PendingOrder], error) {
		q := req
		q.IDLessThan = cursor
		p, err := r.PendingOrders(ctx, q)
		pg := endIDPage(p.EntrustedList, p.EndID)
		pg.last = pg.last || len(p.EntrustedList) < req.Limit
		return pg, err
	})
}

// OrderHistoryReader reads the orders history: the part of a Reader
// IterOrderHistory needs.
type OrderHistoryReader interface {
	OrderHistory(ctx context.Context, req OrderHistoryRequest) (OrderHistoryPage, error)
}

// IterOrderHistory yields every history order of req, newest first.
func IterOrderHistory(ctx context.Context, r OrderHistoryReader, req OrderHistoryRequest) iter.Seq2[HistoryOrder, error] {
	return paginate(ctx, OpOrdersHistory, req.IDLessThan, func(ctx context.Context, cursor string) (page[HistoryOrder], error) {
		q := req
		q.IDLessThan = cursor
		p, err := r.OrderHistory(ctx, q)
		return endIDPage(p.EntrustedList, p.EndID), err
	})
}

// IterSpotRecords yields every spot record of req, newest first. spot-record
// has no endId: the next page asks for ids below the last record received,
// and a page shorter than the limit (500 when req.Limit is 0) is the last.
func IterSpotRecords(ctx context.Context, r Reader, req SpotRecordRequest) iter.Seq2[SpotRecord, error] {
	limit := req.Limit
	if limit <= 0 {
		limit = MaxSpotRecordLimit
	}
	return paginate(ctx, OpSpotRecord, req.IDLessThan, func(ctx context.Context, cursor string) (page[SpotRecord], error) {
		q := req
		q.IDLessThan = cursor
		recs, err := r.SpotRecords(ctx, q)
		p := page[SpotRecord]{items: recs, last: len(recs) < limit}
		if len(recs) > 0 {
			p.next = recs[len(recs)-1].ID
		}
		return p, err
	})
}

// FillHistoryRange yields every fill from from to to (both inclusive, in
// milliseconds), newest first and each once, querying fill-history in
// windows of at most seven days, newest window first (see windows for how
// the window edges are handled). req's StartTime, EndTime and IDLessThan
// are set per window; its other fields filter every window.
func FillHistoryRange(ctx context.Context, r Reader, req FillHistoryRequest, from, to time.Time) iter.Seq2[Fill, error] {
	return windows(OpFillHistory, from, to, MaxFillHistorySpan,
		func(start, end Millis) iter.Seq2[Fill, error] {
			w := req
			w.StartTime, w.EndTime, w.IDLessThan = start, end, ""
			return IterFillHistory(ctx, r, w)
		},
		func(f Fill) (string, int64) { return f.TradeID, f.CTime.Int() })
}

// SpotRecordRange yields every spot record from from to to (both inclusive,
// in milliseconds), newest first and each once, querying spot-record in
// windows of at most 30 days, newest window first. req's StartTime, EndTime and IDLessThan are
// set per window; Coin and Limit apply to every window.
func SpotRecordRange(ctx context.Context, r Reader, req SpotRecordRequest, from, to time.Time) iter.Seq2[SpotRecord, error] {
	return windows(OpSpotRecord, from, to, MaxSpotRecordSpan,
		func(start, end Millis) iter.Seq2[SpotRecord, error] {
			w := req
			w.StartTime, w.EndTime, w.IDLessThan = start, end, ""
			return IterSpotRecords(ctx, r, w)
		},
		func(s SpotRecord) (string, int64) { return s.ID, s.TS.Int() })
}

// windows walks [from, to] in windows of at most span, newest first.
//
// The spec does not say whether startTime and endTime are inclusive, so the
// walk does not depend on it: it queries one millisecond beyond each end of
// the range, consecutive windows overlap by two milliseconds (window k+1 ends
// one millisecond after window k starts), records that come back twice in the
// overlap are dropped by id, and records outside [from, to] are dropped by
// time. Whichever way the server treats its bounds, every record of [from,
// to] is yielded exactly once, in the server's newest-first order. A record
// without a time (ts 0) cannot be placed and is passed through.
func windows[T any](op Op, from, to time.Time, span time.Duration,
	walk func(start, end Millis) iter.Seq2[T, error], key func(T) (id string, ts int64)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		lo, hi, width := from.UnixMilli(), to.UnixMilli(), span.Milliseconds()
		if lo > hi {
			yield(zero, fmt.Errorf("%s: range start %s is after its end %s", op, from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano)))
			return
		}
		qlo, qhi := max(0, lo-1), hi+1
		var seen map[string]bool // ids of the previous window's overlap
		for end := qhi; ; {
			start := max(qlo, end-width)
			overlap := make(map[string]bool)
			for item, err := range walk(millisOf(start), millisOf(end)) {
				if err != nil {
					yield(zero, fmt.Errorf("window %d..%d: %w", start, end, err))
					return
				}
				id, ts := key(item)
				if seen[id] {
					continue
				}
				if ts <= start+1 {
					overlap[id] = true
				}
				if ts != 0 && (ts < lo || ts > hi) {
					continue
				}
				if !yield(item, nil) {
					return
				}
			}
			if start == qlo {
				return
			}
			end, seen = start+1, overlap
		}
	}
}

func millisOf(ms int64) Millis { return Millis(strconv.FormatInt(ms, 10)) }
