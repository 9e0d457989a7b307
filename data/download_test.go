package data_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// The conformance scenario starts here (the symbols' "listing"); BTCUSDT
// moves for three hours, TSLAUSDT holds 400.
var listing = time.Date(2026, 3, 13, 14, 0, 0, 0, time.UTC)

// venue is engine sim in-process on loopback: the simulator on a virtual
// clock at now, served over HTTP, and the exchange client that talks to it.
type venue struct {
	client   *exchange.Client
	now      time.Time
	requests atomic.Int64
	by       map[exchange.Op]*atomic.Int64
}

type venueOptions struct {
	now  time.Time
	gaps []sim.Window
	// front wraps the server's handler (429s).
	front func(http.Handler) http.Handler
}

func newVenue(t testing.TB, o venueOptions) *venue {
	t.Helper()
	if o.now.IsZero() {
		o.now = listing.Add(3 * 24 * time.Hour)
	}
	clk := clock.NewVirtual(o.now)
	x, err := sim.New(simtest.Scenario(), sim.Options{Clock: clk, CandleGaps: o.gaps})
	if err != nil {
		t.Fatal(err)
	}
	v := &venue{now: o.now, by: map[exchange.Op]*atomic.Int64{}}
	for _, info := range exchange.Ops() {
		v.by[info.Op] = new(atomic.Int64)
	}
	var h http.Handler = server.New(server.Options{Backend: server.SimBackend(x), Clock: clk, DisableRateLimits: true})
	if o.front != nil {
		h = o.front(h)
	}
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		if info, ok := exchange.OpForPath(r.Method, r.URL.Path); ok {
			v.by[info.Op].Add(1)
		}
		h.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(counted) // 127.0.0.1
	t.Cleanup(srv.Close)
	// Retries back off on the client's clock: on the simulator's virtual
	// one they would wait for ever, so the client backs off a millisecond
	// of real time. Public queries are not signed: the clock stamps nothing.
	c, err := exchange.NewClient(exchange.ClientOptions{BaseURL: srv.URL, Clock: clock.Real{}, Retry: exchange.RetryPolicy{Base: time.Millisecond, Max: 2 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	v.client = c
	return v
}

func (v *venue) downloader(dir string) *data.Downloader {
	return &data.Downloader{Venue: v.client, Dir: dir, Now: func() time.Time { return v.now }}
}

func btc(interval exchange.Granularity, from, to time.Time) data.Request {
	return data.Request{Product: exchange.USDTFutures, Symbols: []string{"BTCUSDT"}, Interval: interval, From: from, To: to}
}

func trade(symbol string, interval exchange.Granularity) data.Series {
	return data.Series{Product: exchange.USDTFutures, Symbol: symbol, Kind: data.KindTrade, Interval: interval}
}

func mustLoad(t *testing.T, dir string, s data.Series) data.Loaded {
	t.Helper()
	l, err := data.Load(dir, s, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDownloadAndLoad(t *testing.T) {
	t.Parallel()
	v := newVenue(t, venueOptions{})
	dir := t.TempDir()
	var last data.Progress
	d := v.downloader(dir)
	d.Progress = func(p data.Progress) { last = p }
	if err := d.Download(context.Background(), btc(exchange.Gran1m, listing, listing.Add(24*time.Hour))); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{data.KindTrade, data.KindMark, data.KindIndex} {
		s := data.Series{Product: exchange.USDTFutures, Symbol: "BTCUSDT", Kind: kind, Interval: exchange.Gran1m}
		l := mustLoad(t, dir, s)
		if len(l.Candles) != 1440 || len(l.Gaps) != 0 {
			t.Fatalf("%s: %d candles and gaps %v, want 1440 and none", s, len(l.Candles), l.Gaps)
		}
		if !l.Candles[0].Time.Equal(listing) || l.Candles[0].Open != "50000" {
			t.Errorf("%s: first candle %+v", s, l.Candles[0])
		}
	}
	if last.Rows != 1440 || last.Done != last.Total {
		t.Errorf("last progress %+v: want 1440 rows, done = total", last)
	}
	// 1440 minutes are 8 pages of at most 200, per kind.
	if n := v.by[exchange.OpHistoryCandles].Load(); n > 9 {
		t.Errorf("%d history-candles calls for 1440 minutes", n)
	}
	f, err := data.LoadFunding(dir, exchange.USDTFutures, "BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	if len(f) == 0 || !f[0].Time.Equal(listing.Add(2*time.Hour)) {
		t.Fatalf("funding %v: want settlements from 16:00 on the listing day", f)
	}
	// The month file is what a trader opens.
	b, err := os.ReadFile(filepath.Join(dir, "USDT-FUTURES", "BTCUSDT", "trade-1m", "2026-03.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), data.CandleHeader+"\n2026-03-13T14:00:00Z,50000,50000,50000,50000,0,0\n") {
		t.Errorf("month file starts %q", string(b[:120]))
	}
	entries, err := data.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Rows != 1440 || entries[0].Series.Kind != data.KindIndex {
		t.Fatalf("list = %+v", entries)
	}
}

func TestDownloadIncremental(t *testing.T) {
	t.Parallel()
	v := newVenue(t, venueOptions{})
	dir := t.TempDir()
	d := v.downloader(dir)
	ctx := context.Background()
	if err := d.Download(ctx, btc(exchange.Gran1m, listing.Add(6*time.Hour), listing.Add(12*time.Hour))); err != nil {
		t.Fatal(err)
	}
	first := v.by[exchange.OpHistoryCandles].Load()
	if err := d.Download(ctx, btc(exchange.Gran1m, listing, listing.Add(24*time.Hour))); err != nil {
		t.Fatal(err)
	}
	second := v.by[exchange.OpHistoryCandles].Load() - first
	// Only the 360 minutes before and the 720 after are asked: 2 + 4 pages.
	if second != 6 {
		t.Errorf("the second download made %d history-candles calls, want 6", second)
	}
	l := mustLoad(t, dir, trade("BTCUSDT", exchange.Gran1m))
	if len(l.Candles) != 1440 || !l.Covered.From.Equal(listing) || !l.Covered.To.Equal(listing.Add(24*time.Hour)) {
		t.Fatalf("%d candles covering %v, want 1440 covering the day", len(l.Candles), l.Covered)
	}
	for i := 1; i < len(l.Candles); i++ {
		if l.Candles[i].Time.Sub(l.Candles[i-1].Time) != time.Minute {
			t.Fatalf("candle %d at %s after %s", i, l.Candles[i].Time, l.Candles[i-1].Time)
		}
	}
	// A third run of the same span asks nothing but funding.
	before := v.by[exchange.OpHistoryCandles].Load()
	if err := d.Download(ctx, btc(exchange.Gran1m, listing, listing.Add(24*time.Hour))); err != nil {
		t.Fatal(err)
	}
	if n := v.by[exchange.OpHistoryCandles].Load() - before; n != 0 {
		t.Errorf("a repeated download made %d candle calls", n)
	}
}

func TestDownloadRecordsGaps(t *testing.T) {
	t.Parallel()
	gap := sim.Window{Start: listing.Add(2 * time.Hour), End: listing.Add(2*time.Hour + 30*time.Minute)}
	long := sim.Window{Start: listing.Add(5 * time.Hour), End: listing.Add(10 * time.Hour)} // longer than a page
	v := newVenue(t, venueOptions{gaps: []sim.Window{gap, long}})
	dir := t.TempDir()
	if err := v.downloader(dir).Download(context.Background(), btc(exchange.Gran1m, listing.Add(-time.Hour), listing.Add(12*time.Hour))); err != nil {
		t.Fatal(err)
	}
	l := mustLoad(t, dir, trade("BTCUSDT", exchange.Gran1m))
	if want := 12*60 - 30 - 300; len(l.Candles) != want {
		t.Fatalf("%d candles, want %d", len(l.Candles), want)
	}
	wantGaps := []data.Span{{listing.Add(-time.Hour), listing}, {gap.Start, gap.End}, {long.Start, long.End}}
	if len(l.Gaps) != len(wantGaps) {
		t.Fatalf("gaps %v, want %v", l.Gaps, wantGaps)
	}
	for i, g := range wantGaps {
		if !l.Gaps[i].From.Equal(g.From) || !l.Gaps[i].To.Equal(g.To) {
			t.Errorf("gap %d is %v, want %v", i, l.Gaps[i], g)
		}
	}
	entries, err := data.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if len(e.Gaps) != 2 { // the hour before the listing is not a gap of the series
			t.Errorf("%s: listed gaps %v, want the two inside", e.Series, e.Gaps)
		}
	}
}

func TestDownloadInterruptedAndResumed(t *testing.T) {
	t.Parallel()
	now := listing.AddDate(0, 2, 0)
	v := newVenue(t, venueOptions{now: now})
	req := btc(exchange.Gran1H, listing, now) // three months: three files per kind
	ctx := context.Background()

	clean := t.TempDir()
	if err := v.downloader(clean).Download(ctx, req); err != nil {
		t.Fatal(err)
	}
	want := mustLoad(t, clean, trade("BTCUSDT", exchange.Gran1H))

	dir := t.TempDir()
	d := v.downloader(dir)
	writes := 0
	errKilled := errors.New("killed between write and rename")
	data.SetWriteHook(d, func(path string) error {
		writes++
		if writes == 2 { // the second month of the trade candles
			return errKilled
		}
		return nil
	})
	if err := d.Download(ctx, req); !errors.Is(err, errKilled) {
		t.Fatalf("err = %v, want the injected failure", err)
	}
	// Nothing half-written is visible, and the manifest claims only the
	// first month, which is on disk.
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		if strings.HasSuffix(p, ".csv") {
			if _, err := data.ReadCandles(p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	part := mustLoad(t, dir, trade("BTCUSDT", exchange.Gran1H))
	if !part.Covered.To.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) || len(part.Candles) != int(part.Covered.Duration()/time.Hour) {
		t.Fatalf("after the interruption: %d candles, covered %v", len(part.Candles), part.Covered)
	}

	// A process killed by kill -9 between the write and the rename leaves
	// its temporary file: the next run must neither read nor keep it.
	leftover := filepath.Join(dir, "USDT-FUTURES", "BTCUSDT", "trade-1H", ".2026-04.csv.123.tmp")
	if err := os.WriteFile(leftover, []byte("time,open\n2026-04"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The funding file's temporary file sits in the symbol's folder.
	fundingLeftover := filepath.Join(dir, "USDT-FUTURES", "BTCUSDT", ".funding.csv.456.tmp")
	if err := os.WriteFile(fundingLeftover, []byte("time,rate\n2026-0"), 0o644); err != nil {
		t.Fatal(err)
	}
	data.SetWriteHook(d, nil)
	before := v.by[exchange.OpHistoryCandles].Load()
	if err := d.Download(ctx, req); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, dir, trade("BTCUSDT", exchange.Gran1H))
	if len(got.Candles) != len(want.Candles) || !got.Covered.To.Equal(want.Covered.To) {
		t.Fatalf("resumed: %d candles covering %v, want %d covering %v", len(got.Candles), got.Covered, len(want.Candles), want.Covered)
	}
	for i := range want.Candles {
		if got.Candles[i] != want.Candles[i] {
			t.Fatalf("candle %d: %+v, want %+v", i, got.Candles[i], want.Candles[i])
		}
	}
	for _, f := range []string{leftover, fundingLeftover} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("the leftover temporary file %s is still there: %v", filepath.Base(f), err)
		}
	}
	// The resumed run did not start over: the first month is not asked again.
	if n := v.by[exchange.OpHistoryCandles].Load() - before; n >= int64(len(want.Candles)/200)+3+3 {
		t.Errorf("the resumed run made %d candle calls", n)
	}
}

func TestDownloadThrough429s(t *testing.T) {
	t.Parallel()
	var n, refused atomic.Int64
	v := newVenue(t, venueOptions{front: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%3 == 0 { // every third request, as a venue over its limit
				refused.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"code":"429","msg":"Too Many Requests","requestTime":1773410400000,"data":null}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}})
	dir := t.TempDir()
	if err := v.downloader(dir).Download(context.Background(), btc(exchange.Gran1m, listing, listing.Add(12*time.Hour))); err != nil {
		t.Fatal(err)
	}
	if refused.Load() == 0 {
		t.Fatal("no request was refused")
	}
	if l := mustLoad(t, dir, trade("BTCUSDT", exchange.Gran1m)); len(l.Candles) != 720 {
		t.Fatalf("%d candles, want 720", len(l.Candles))
	}
}

func TestParseCandlesRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"no header", "2026-03-13T14:00:00Z,1,1,1,1,0,0\n"},
		{"six fields", data.CandleHeader + "\n2026-03-13T14:00:00Z,1,1,1,1,0\n"},
		{"eight fields", data.CandleHeader + "\n2026-03-13T14:00:00Z,1,1,1,1,0,0,0\n"},
		{"bad time", data.CandleHeader + "\n2026-02-30T14:00:00Z,1,1,1,1,0,0\n"},
		{"empty number", data.CandleHeader + "\n2026-03-13T14:00:00Z,,1,1,1,0,0\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := data.ParseCandles(tc.in, "x.csv"); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// FuzzParseCandles holds the candle file reader to the writer: a file it
// accepts is written back and read again to the same rows.
func FuzzParseCandles(f *testing.F) {
	f.Add(data.CandleHeader + "\n2026-03-13T14:00:00Z,50000,50000,49000.3,49000.3,0,0\n")
	f.Add(data.CandleHeader + "\r\n2026-03-13T14:00:00Z,1,2,3,4,5,6\r\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := data.ParseCandles(in, "fuzz.csv")
		if err != nil {
			return
		}
		back, err := data.ParseCandles(string(data.FormatCandles(rows)), "again.csv")
		if err != nil {
			t.Fatalf("written rows do not read back: %v", err)
		}
		if len(back) != len(rows) {
			t.Fatalf("%d rows back, want %d", len(back), len(rows))
		}
		for i := range rows {
			if back[i] != rows[i] {
				t.Fatalf("row %d: %+v, want %+v", i, back[i], rows[i])
			}
		}
	})
}
