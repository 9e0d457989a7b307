package exchange

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"testing"
	"time"
)

var errFake = errors.New("fake reader failure")

// bounds says how the fake server treats startTime and endTime.
type bounds struct{ startIncl, endIncl bool }

func (b bounds) String() string {
	s, e := "(", ")"
	if b.startIncl {
		s = "["
	}
	if b.endIncl {
		e = "]"
	}
	return s + "start,end" + e
}

var allBounds = []bounds{{true, true}, {true, false}, {false, true}, {false, false}}

type fakeCall struct {
	op         Op
	start, end Millis
	idLessThan string
	limit      int
}

// fakeReader serves in-memory records, newest first, the way the spec
// describes: idLessThan is exclusive, endId is the oldest id on the page.
// Methods it does not fake panic through the nil embedded Reader.
type fakeReader struct {
	Reader
	now     time.Time
	bounds  bounds
	fills   []Fill // any order; served newest first
	pending []PendingOrder
	history []HistoryOrder
	spot    []SpotRecord
	// failOnCall makes the n-th call (1-based) fail; 0 never.
	failOnCall int
	// ignoreCursor makes the server answer every page as the first.
	ignoreCursor bool
	// endless makes the fills endpoint answer a one-item page forever.
	endless bool
	calls   []fakeCall
}

// serve returns one page of all (newest first) under the request's filters.
func serve[T any](f *fakeReader, op Op, all []T, key func(T) (string, int64), start, end Millis, cursor string, limit, defLimit int) ([]T, error) {
	f.calls = append(f.calls, fakeCall{op: op, start: start, end: end, idLessThan: cursor, limit: limit})
	if f.failOnCall == len(f.calls) {
		return nil, errFake
	}
	if limit == 0 {
		limit = defLimit
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b T) int {
		ia, _ := key(a)
		ib, _ := key(b)
		return cmpID(ib, ia)
	})
	var out []T
	for _, it := range sorted {
		id, ts := key(it)
		if cursor != "" && !f.ignoreCursor && cmpID(id, cursor) >= 0 {
			continue
		}
		if s := start.Int(); start != "" && (ts < s || ts == s && !f.bounds.startIncl) {
			continue
		}
		if e := end.Int(); end != "" && (ts > e || ts == e && !f.bounds.endIncl) {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, it)
	}
	return out, nil
}

func cmpID(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func lastID[T any](items []T, key func(T) (string, int64)) string {
	if len(items) == 0 {
		return ""
	}
	id, _ := key(items[len(items)-1])
	return id
}

func fillKey(f Fill) (string, int64)            { return f.TradeID, f.CTime.Int() }
func pendingKey(o PendingOrder) (string, int64) { return o.OrderID, o.CTime.Int() }
func historyKey(o HistoryOrder) (string, int64) { return o.OrderID, o.CTime.Int() }
func spotKey(r SpotRecord) (string, int64)      { return r.ID, r.TS.Int() }

func (f *fakeReader) Fills(ctx context.Context, req FillsRequest) (FillPage, error) {
	if f.endless {
		f.calls = append(f.calls, fakeCall{op: OpFills, idLessThan: req.IDLessThan})
		n := int64(1 << 40)
		if req.IDLessThan != "" {
			n, _ = strconv.ParseInt(req.IDLessThan, 10, 64)
		}
		id := strconv.FormatInt(n-1, 10)
		return FillPage{FillList: []Fill{{TradeID: id}}, EndID: id}, nil
	}
	items, err := serve(f, OpFills, f.fills, fillKey, req.StartTime, req.EndTime, req.IDLessThan, req.Limit, MaxPageLimit)
	return FillPage{FillList: items, EndID: lastID(items, fillKey)}, err
}

func (f *fakeReader) FillHistory(ctx context.Context, req FillHistoryRequest) (FillPage, error) {
	if err := req.Validate(f.now); err != nil {
		return FillPage{}, err
	}
	items, err := serve(f, OpFillHistory, f.fills, fillKey, req.StartTime, req.EndTime, req.IDLessThan, req.Limit, MaxPageLimit)
	return FillPage{FillList: items, EndID: lastID(items, fillKey)}, err
}

func (f *fakeReader) PendingOrders(ctx context.Context, req PendingOrdersRequest) (PendingOrdersPage, error) {
	items, err := serve(f, OpOrdersPending, f.pending, pendingKey, req.StartTime, req.EndTime, req.IDLessThan, req.Limit, MaxPageLimit)
	return PendingOrdersPage{EntrustedList: items, EndID: lastID(items, pendingKey)}, err
}

func (f *fakeReader) OrderHistory(ctx context.Context, req OrderHistoryRequest) (OrderHistoryPage, error) {
	items, err := serve(f, OpOrdersHistory, f.history, historyKey, req.StartTime, req.EndTime, req.IDLessThan, req.Limit, MaxPageLimit)
	return OrderHistoryPage{EntrustedList: items, EndID: lastID(items, historyKey)}, err
}

func (f *fakeReader) PositionHistory(context.Context, PositionHistoryRequest) (PositionHistoryPage, error) {
	return PositionHistoryPage{}, nil
}

func (f *fakeReader) SpotRecords(ctx context.Context, req SpotRecordRequest) ([]SpotRecord, error) {
	if err := req.Validate(f.now); err != nil {
		return nil, err
	}
	return serve(f, OpSpotRecord, f.spot, spotKey, req.StartTime, req.EndTime, req.IDLessThan, req.Limit, MaxSpotRecordLimit)
}

var pageNow = time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)

// makeFills returns n fills with ids 1001.. and times one minute apart,
// oldest first.
func makeFills(n int) []Fill {
	out := make([]Fill, n)
	for i := range out {
		out[i] = Fill{TradeID: strconv.Itoa(1001 + i), CTime: ms(pageNow.Add(time.Duration(i-n) * time.Minute))}
	}
	return out
}

// collect drains seq, returning the ids before the first error and the error.
func collect[T any](seq iter.Seq2[T, error], key func(T) (string, int64)) ([]string, error) {
	var ids []string
	for it, err := range seq {
		if err != nil {
			return ids, err
		}
		id, _ := key(it)
		ids = append(ids, id)
	}
	return ids, nil
}

// newestFirst returns the ids of items, newest (largest id) first.
func newestFirst[T any](items []T, key func(T) (string, int64), keep func(ts int64) bool) []string {
	var ids []string
	for _, it := range items {
		id, ts := key(it)
		if keep == nil || keep(ts) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { return cmpID(b, a) })
	return ids
}

func TestIterEndIDPaging(t *testing.T) {
	ctx := context.Background()
	fills := makeFills(250)
	pending := make([]PendingOrder, 120)
	history := make([]HistoryOrder, 30)
	for i := range pending {
		pending[i].OrderID, pending[i].CTime = strconv.Itoa(5000+i), ms(pageNow.Add(time.Duration(i)*time.Second))
	}
	for i := range history {
		history[i].OrderID, history[i].CTime = strconv.Itoa(9000+i), ms(pageNow.Add(time.Duration(i)*time.Second))
	}
	f := &fakeReader{now: pageNow, fills: fills, pending: pending, history: history}

	cases := []struct {
		name     string
		run      func() ([]string, error)
		want     []string
		calls    int    // pages fetched, the final empty one included
		pageSize int    // items per full page
		first    string // idLessThan of the first request
	}{
		{"fills 250 by 100", func() ([]string, error) {
			return collect(IterFills(ctx, f, FillsRequest{ProductType: USDTFutures}), fillKey)
		}, newestFirst(fills, fillKey, nil), 4, 100, ""},
		{"fills 250 by 50", func() ([]string, error) {
			return collect(IterFills(ctx, f, FillsRequest{ProductType: USDTFutures, Limit: 50}), fillKey)
		}, newestFirst(fills, fillKey, nil), 6, 50, ""},
		{"fills from a cursor", func() ([]string, error) {
			return collect(IterFills(ctx, f, FillsRequest{ProductType: USDTFutures, IDLessThan: "1011", Limit: 4}), fillKey)
		}, newestFirst(fills[:10], fillKey, nil), 4, 4, "1011"},
		{"fill-history", func() ([]string, error) {
			return collect(IterFillHistory(ctx, f, FillHistoryRequest{ProductType: USDTFutures, Limit: 100}), fillKey)
		}, newestFirst(fills, fillKey, nil), 4, 100, ""},
		{"orders-pending", func() ([]string, error) {
			return collect(IterPendingOrders(ctx, f, PendingOrdersRequest{ProductType: USDTFutures}), pendingKey)
		}, newestFirst(pending, pendingKey, nil), 3, 100, ""},
		// With a limit, the short last page ends the walk: no empty page.
		{"orders-pending with a limit", func() ([]string, error) {
			return collect(IterPendingOrders(ctx, f, PendingOrdersRequest{ProductType: USDTFutures, Limit: 100}), pendingKey)
		}, newestFirst(pending, pendingKey, nil), 2, 100, ""},
		{"orders-history", func() ([]string, error) {
			return collect(IterOrderHistory(ctx, f, OrderHistoryRequest{ProductType: USDTFutures}), historyKey)
		}, newestFirst(history, historyKey, nil), 2, 100, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.calls = nil
			got, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %d ids %v..., want %d", len(got), head(got), len(c.want))
			}
			if len(f.calls) != c.calls {
				t.Errorf("%d requests, want %d", len(f.calls), c.calls)
			}
			if f.calls[0].idLessThan != c.first {
				t.Errorf("first request: idLessThan %q, want %q", f.calls[0].idLessThan, c.first)
			}
			// Each request after the first continues from the previous
			// page's endId, the oldest id on it.
			for i := 1; i < len(f.calls); i++ {
				if want := got[min(i*c.pageSize, len(got))-1]; f.calls[i].idLessThan != want {
					t.Errorf("request %d: idLessThan %q, want %q", i, f.calls[i].idLessThan, want)
				}
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

func TestIterSpotRecordsStopsOnShortPage(t *testing.T) {
	ctx := context.Background()
	mk := func(n int) []SpotRecord {
		out := make([]SpotRecord, n)
		for i := range out {
			out[i] = SpotRecord{ID: strconv.Itoa(70000 + i), TS: ms(pageNow.Add(-time.Duration(n-i) * time.Second))}
		}
		return out
	}
	cases := []struct {
		n, limit, calls int
	}{
		{1200, 0, 3},  // 500, 500, 200
		{1000, 0, 3},  // 500, 500, 0
		{499, 0, 1},   // short first page
		{0, 0, 1},     // nothing
		{250, 100, 3}, // 100, 100, 50
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d by %d", c.n, c.limit), func(t *testing.T) {
			recs := mk(c.n)
			f := &fakeReader{now: pageNow, spot: recs}
			req := SpotRecordRequest{StartTime: ms(pageNow.Add(-24 * time.Hour)), EndTime: ms(pageNow), Limit: c.limit}
			got, err := collect(IterSpotRecords(ctx, f, req), spotKey)
			if err != nil {
				t.Fatal(err)
			}
			if want := newestFirst(recs, spotKey, nil); !slices.Equal(got, want) {
				t.Fatalf("got %d records, want %d", len(got), len(want))
			}
			if len(f.calls) != c.calls {
				t.Errorf("%d requests, want %d", len(f.calls), c.calls)
			}
			pageSize := c.limit
			if pageSize == 0 {
				pageSize = MaxSpotRecordLimit
			}
			for i := 1; i < len(f.calls); i++ {
				if want := got[min(i*pageSize, len(got))-1]; f.calls[i].idLessThan != want {
					t.Errorf("request %d: idLessThan %q, want the last id received %q", i, f.calls[i].idLessThan, want)
				}
			}
		})
	}
}

func TestIterErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("error mid-stream", func(t *testing.T) {
		f := &fakeReader{now: pageNow, fills: makeFills(250), failOnCall: 2}
		got, err := collect(IterFills(ctx, f, FillsRequest{ProductType: USDTFutures}), fillKey)
		if !errors.Is(err, errFake) {
			t.Fatalf("err = %v, want the reader's error", err)
		}
		if len(got) != 100 || len(f.calls) != 2 {
			t.Errorf("got %d items after %d requests, want the first page (100) and 2 requests", len(got), len(f.calls))
		}
	})
	t.Run("stuck cursor", func(t *testing.T) {
		f := &fakeReader{now: pageNow, fills: makeFills(250), ignoreCursor: true}
		got, err := collect(IterFills(ctx, f, FillsRequest{ProductType: USDTFutures}), fillKey)
		if !errors.Is(err, ErrPageStuck) {
			t.Fatalf("err = %v, want ErrPageStuck", err)
		}
		if len(got) != 100 || len(f.calls) != 2 {
			t.Errorf("got %d items after %d requests, want one page and 2 requests", len(got), len(f.calls))
		}
		seen := map[string]bool{}
		for _, id := range got {
			if seen[id] {
				t.Fatalf("%s yielded twice", id)
			}
			seen[id] = true
		}
	})
	t.Run("too many pages", func(t *testing.T) {
		f := &fakeReader{now: pageNow, endless: true}
		got, err := collect(IterFills(ctx, f, FillsRequest{ProductType: USDTFutures}), fillKey)
		if !errors.Is(err, ErrTooManyPages) {
			t.Fatalf("err = %v, want ErrTooManyPages", err)
		}
		if len(got) != MaxPages || len(f.calls) != MaxPages {
			t.Errorf("%d items, %d requests, want %d of each", len(got), len(f.calls), MaxPages)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		f := &fakeReader{now: pageNow, fills: makeFills(250)}
		n := 0
		var err error
		for _, e := range IterFills(cctx, f, FillsRequest{ProductType: USDTFutures}) {
			if e != nil {
				err = e
				break
			}
			if n++; n == 150 {
				cancel()
			}
		}
		if !errors.Is(err, context.Canceled) || len(f.calls) != 2 {
			t.Errorf("err = %v after %d requests, want context.Canceled after 2", err, len(f.calls))
		}
	})
	t.Run("early break", func(t *testing.T) {
		f := &fakeReader{now: pageNow, fills: makeFills(250)}
		n := 0
		for _, err := range IterFills(ctx, f, FillsRequest{ProductType: USDTFutures}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 150 {
				break
			}
		}
		if len(f.calls) != 2 {
			t.Errorf("%d requests after breaking in page 2, want 2", len(f.calls))
		}
	})
}

// rangeTimes returns times of records at every window edge of a walk over
// [from, to] in windows of width, one millisecond either side of each edge,
// outside the range, and spread through it, with a ten-day gap. ids grow with
// time.
func rangeTimes(from, to time.Time, width time.Duration) []int64 {
	lo, hi, w := from.UnixMilli(), to.UnixMilli(), width.Milliseconds()
	set := map[int64]bool{}
	for _, edge := range []int64{lo, hi} {
		for d := int64(-2); d <= 2; d++ {
			set[edge+d] = true
		}
	}
	// Every edge the walk can use, whatever its overlap, and the
	// milliseconds around it.
	for e := hi + 1; e > lo; e -= w - 1 {
		for d := int64(-2); d <= 2; d++ {
			set[e-w+d] = true
			set[e+d] = true
		}
	}
	gapStart, gapEnd := lo+(hi-lo)/3, lo+(hi-lo)/3+(10*24*time.Hour).Milliseconds()
	for ts := lo; ts <= hi; ts += (7 * time.Hour).Milliseconds() {
		if ts < gapStart || ts > gapEnd {
			set[ts] = true
		}
	}
	out := make([]int64, 0, len(set))
	for ts := range set {
		out = append(out, ts)
	}
	slices.Sort(out)
	return out
}

func TestFillHistoryRange(t *testing.T) {
	ctx := context.Background()
	to := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	from := to.Add(-31 * 24 * time.Hour)
	times := rangeTimes(from, to, MaxFillHistorySpan)
	fills := make([]Fill, len(times))
	for i, ts := range times {
		fills[i] = Fill{TradeID: strconv.Itoa(100000 + i), CTime: Millis(strconv.FormatInt(ts, 10))}
	}
	inRange := func(ts int64) bool { return ts >= from.UnixMilli() && ts <= to.UnixMilli() }
	want := newestFirst(fills, fillKey, inRange)
	for _, b := range allBounds {
		t.Run(b.String(), func(t *testing.T) {
			f := &fakeReader{now: pageNow, bounds: b, fills: fills}
			got, err := collect(FillHistoryRange(ctx, f, FillHistoryRequest{ProductType: USDTFutures, Limit: 40}, from, to), fillKey)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d fills, want %d\nmissing %v\nextra %v", len(got), len(want), diff(want, got), diff(got, want))
			}
			checkWindows(t, f.calls, MaxFillHistorySpan)
		})
	}
}

func TestSpotRecordRange(t *testing.T) {
	ctx := context.Background()
	to := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	from := to.Add(-92 * 24 * time.Hour)
	times := rangeTimes(from, to, MaxSpotRecordSpan)
	recs := make([]SpotRecord, len(times))
	for i, ts := range times {
		recs[i] = SpotRecord{ID: strconv.Itoa(200000 + i), TS: Millis(strconv.FormatInt(ts, 10))}
	}
	inRange := func(ts int64) bool { return ts >= from.UnixMilli() && ts <= to.UnixMilli() }
	want := newestFirst(recs, spotKey, inRange)
	for _, b := range allBounds {
		t.Run(b.String(), func(t *testing.T) {
			f := &fakeReader{now: pageNow, bounds: b, spot: recs}
			got, err := collect(SpotRecordRange(ctx, f, SpotRecordRequest{Coin: "USDT", Limit: 30}, from, to), spotKey)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d records, want %d\nmissing %v\nextra %v", len(got), len(want), diff(want, got), diff(got, want))
			}
			checkWindows(t, f.calls, MaxSpotRecordSpan)
		})
	}
}

// checkWindows asserts that the windows go newest first, never exceed span
// and leave no gap.
func checkWindows(t *testing.T, calls []fakeCall, span time.Duration) {
	t.Helper()
	windows := 0
	var prevStart int64 = -1
	for _, c := range calls {
		if c.idLessThan != "" {
			continue // a further page of the same window
		}
		windows++
		s, e := c.start.Int(), c.end.Int()
		if time.Duration(e-s)*time.Millisecond > span {
			t.Errorf("window %d..%d is longer than %s", s, e, span)
		}
		if prevStart >= 0 && e != prevStart+1 {
			t.Errorf("window %d..%d does not end just after the previous start %d", s, e, prevStart)
		}
		prevStart = s
	}
	if windows < 2 {
		t.Errorf("only %d windows", windows)
	}
}

func diff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return head(out)
}

func TestRangeEdges(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t.Run("from after to", func(t *testing.T) {
		f := &fakeReader{now: pageNow}
		_, err := collect(FillHistoryRange(ctx, f, FillHistoryRequest{ProductType: USDTFutures}, at, at.Add(-time.Millisecond)), fillKey)
		if err == nil || len(f.calls) != 0 {
			t.Errorf("err = %v after %d requests, want an error before any request", err, len(f.calls))
		}
	})
	t.Run("one millisecond", func(t *testing.T) {
		fills := []Fill{
			{TradeID: "1", CTime: ms(at.Add(-time.Millisecond))},
			{TradeID: "2", CTime: ms(at)},
			{TradeID: "3", CTime: ms(at.Add(time.Millisecond))},
		}
		f := &fakeReader{now: pageNow, fills: fills}
		got, err := collect(FillHistoryRange(ctx, f, FillHistoryRequest{ProductType: USDTFutures}, at, at), fillKey)
		if err != nil || !slices.Equal(got, []string{"2"}) {
			t.Errorf("got %v, %v; want [2]", got, err)
		}
	})
	t.Run("empty range", func(t *testing.T) {
		f := &fakeReader{now: pageNow}
		got, err := collect(SpotRecordRange(ctx, f, SpotRecordRequest{}, at.Add(-100*24*time.Hour), at), spotKey)
		if err != nil || len(got) != 0 {
			t.Errorf("got %v, %v; want nothing", got, err)
		}
		if len(f.calls) != 4 {
			t.Errorf("%d requests for 100 days in 30-day windows, want 4", len(f.calls))
		}
	})
	t.Run("error in a later window", func(t *testing.T) {
		f := &fakeReader{now: pageNow, failOnCall: 2} // the first window is empty
		_, err := collect(FillHistoryRange(ctx, f, FillHistoryRequest{ProductType: USDTFutures}, pageNow.Add(-20*24*time.Hour), pageNow), fillKey)
		if !errors.Is(err, errFake) || len(f.calls) != 2 {
			t.Errorf("err = %v after %d requests, want the reader's error after 2", err, len(f.calls))
		}
	})
	t.Run("early break", func(t *testing.T) {
		f := &fakeReader{now: pageNow, fills: makeFills(10)}
		for _, err := range FillHistoryRange(ctx, f, FillHistoryRequest{ProductType: USDTFutures}, pageNow.Add(-20*24*time.Hour), pageNow) {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		if len(f.calls) != 1 {
			t.Errorf("%d requests after breaking at the first fill, want 1", len(f.calls))
		}
	})
}

func ExampleFillHistoryRange() {
	// A month of fills in one loop: the walk asks for seven days at a time.
	// r is a *Client or the simulator; here it is the tests' in-memory fake.
	var r Reader = &fakeReader{now: pageNow, fills: makeFills(3)}
	to := pageNow
	from := to.AddDate(0, -1, 0)
	for fill, err := range FillHistoryRange(context.Background(), r, FillHistoryRequest{ProductType: USDTFutures}, from, to) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(fill.TradeID, fill.CTime.Time().Format(time.RFC3339))
	}
	// Output:
	// 1003 2026-03-08T23:59:00Z
	// 1002 2026-03-08T23:58:00Z
	// 1001 2026-03-08T23:57:00Z
}
