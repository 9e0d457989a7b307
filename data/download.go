package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// Downloader fills the store from the venue's history queries, fetching
// only what the store lacks.
type Downloader struct {
	// Venue answers the history queries: an *exchange.Client (with its
	// rate limiter and retries) or the simulator.
	Venue exchange.HistoryReader
	// Dir is the store's folder.
	Dir string
	// Now is the time that decides which candles are finished; default time.Now.
	Now func() time.Time
	// Log receives one line per file written. Default: none.
	Log *zap.Logger
	// Progress, when set, is told after every page.
	Progress func(Progress)

	write atomicWriter // tests set its hook to interrupt a download
}

// Progress is how far a series' download has come.
type Progress struct {
	Series Series
	Rows   int           // candles received so far for this series
	Done   time.Duration // span fetched so far
	Total  time.Duration // span to fetch
}

// Request is what to download.
type Request struct {
	Product  exchange.ProductType
	Symbols  []string
	Interval exchange.Granularity
	From, To time.Time // To zero: up to the last finished candle
}

// DownloadHeadroom is the share of the venue's published rate a download
// uses (exchange.LimiterOptions.Headroom). At the full rate, requests that
// leave the client evenly spaced arrive unevenly (goroutines and the
// network delay some more than others) and the venue refuses one with 429
// now and then, which then costs a backoff; 5% below it they did not in
// the benchmark (BENCHMARKS.md, History store).
const DownloadHeadroom = 0.95

// recentSpan is how close to now an empty tail may be before it is taken
// for candles the venue has not published yet rather than for a gap: the
// tail is left out of the downloaded span and asked again next time.
const recentSpan = time.Hour

// Download fetches the trade, mark and index candles and the funding
// settlements of every symbol of req into the store. A second call fetches
// only what is missing at either end; an interrupted call leaves whole
// files and a manifest that claims only what is on disk, so the next call
// resumes.
func (d *Downloader) Download(ctx context.Context, req Request) error {
	g, ok := req.Interval.Duration()
	if !ok {
		return fmt.Errorf("download: interval %q has no fixed length", req.Interval)
	}
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	to := req.To
	last := now().Truncate(g) // candles before this one are finished
	if to.IsZero() || to.After(last) {
		to = last
	}
	from := ceil(req.From, g)
	to = to.Truncate(g)
	if !from.Before(to) {
		return fmt.Errorf("download: nothing between %s and %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	for _, sym := range req.Symbols {
		for _, k := range kinds {
			s := Series{Product: req.Product, Symbol: sym, Kind: k.name, Interval: req.Interval}
			if err := d.series(ctx, s, k.kind, g, Span{from, to}, now()); err != nil {
				return err
			}
		}
		if err := d.funding(ctx, req.Product, sym, from); err != nil {
			return err
		}
	}
	return nil
}

func ceil(t time.Time, g time.Duration) time.Time {
	c := t.Truncate(g)
	if c.Before(t) {
		c = c.Add(g)
	}
	return c.UTC()
}

// series downloads what the store lacks of [want.From, want.To).
func (d *Downloader) series(ctx context.Context, s Series, kind exchange.CandleKind, g time.Duration, want Span, now time.Time) error {
	m, ok, err := readManifest(d.Dir, s)
	if err != nil {
		return err
	}
	removeLeftovers(s.dir(d.Dir), ".*.tmp")
	// The downloaded span stays one piece: a request beyond either end is
	// extended to meet it.
	type job struct {
		span     Span
		backward bool // before the downloaded span
	}
	var jobs []job
	switch {
	case !ok:
		jobs = append(jobs, job{span: want})
	default:
		if want.From.Before(m.Covered.From) {
			jobs = append(jobs, job{span: Span{want.From, m.Covered.From}, backward: true})
		}
		if want.To.After(m.Covered.To) {
			jobs = append(jobs, job{span: Span{m.Covered.To, want.To}})
		}
	}
	var total time.Duration
	for _, j := range jobs {
		total += j.span.Duration()
	}
	p := Progress{Series: s, Total: total}
	for _, j := range jobs {
		if err := d.fetch(ctx, s, kind, g, j.span, j.backward, &m, ok, now, &p); err != nil {
			return err
		}
		ok = true
	}
	return nil
}

// fetch downloads span and records it in m. A forward span extends the
// manifest after every month written; a backward span once it reached the
// downloaded span (until then, the months written are merged again by the
// next run).
func (d *Downloader) fetch(ctx context.Context, s Series, kind exchange.CandleKind, g time.Duration, span Span, backward bool, m *manifest, haveManifest bool, now time.Time, p *Progress) error {
	if !haveManifest {
		m.Covered = Span{span.From, span.From}
	}
	req := exchange.CandlesRequest{Symbol: s.Symbol, ProductType: s.Product, Granularity: s.Interval}
	var (
		buf      []Candle
		month    time.Time
		expected = span.From // the next candle time wanted
		reached  = span.From // how far the pager has come, for progress
		gaps     []Span
		doneBase = p.Done
	)
	flush := func() error {
		if len(buf) > 0 {
			if err := d.writeMonth(s, buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if backward {
			return nil
		}
		m.Covered.To = expected
		m.Gaps = mergeSpans(append(m.Gaps, gaps...))
		gaps = nil
		return writeManifest(d.Dir, s, *m)
	}
	for page, err := range exchange.CandlePages(ctx, d.Venue, kind, req, span.From, span.To) {
		if err != nil {
			// Keep what arrived: whole files, and a manifest up to it.
			if ferr := flush(); ferr != nil {
				return errors.Join(fmt.Errorf("download %s: %w", s, err), ferr)
			}
			return fmt.Errorf("download %s: %w", s, err)
		}
		for _, vc := range page {
			c := fromVenue(vc)
			if c.Time.After(expected) {
				gaps = append(gaps, Span{expected, c.Time})
			}
			if mo := monthOf(c.Time); !mo.Equal(month) {
				if len(buf) > 0 {
					if err := flush(); err != nil {
						return err
					}
				}
				month = mo
			}
			buf = append(buf, c)
			expected = c.Time.Add(g)
			p.Rows++
		}
		if len(page) == 0 {
			// An empty window: the pager moves past it; the gap is recorded
			// when the next candle arrives, or at the end.
			reached = minTime(span.To, maxTime(reached, reached.Add(g*exchange.MaxHistoryCandles)))
		} else {
			reached = expected
		}
		p.Done = doneBase + reached.Sub(span.From)
		if d.Progress != nil {
			d.Progress(*p)
		}
	}
	switch {
	case expected.Before(span.To) && now.Sub(span.To) < recentSpan && !backward:
		// The venue has not published the newest candles yet: leave the
		// tail out of the downloaded span, to be asked again.
	case expected.Before(span.To):
		gaps = append(gaps, Span{expected, span.To})
		expected = span.To
	}
	if err := flush(); err != nil {
		return err
	}
	p.Done = doneBase + span.Duration()
	if backward {
		m.Covered.From = span.From
		m.Gaps = mergeSpans(append(m.Gaps, gaps...))
		if err := writeManifest(d.Dir, s, *m); err != nil {
			return err
		}
	}
	return nil
}

// removeLeftovers removes the temporary files matching pattern in dir. A
// process killed while writing leaves its temporary file behind (never
// read: the names start with a dot); the next run removes it.
func removeLeftovers(dir, pattern string) {
	leftovers, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return // the patterns are constant and valid
	}
	for _, f := range leftovers {
		os.Remove(f)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func monthOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// writeMonth merges rows (all of one month, oldest first) into the
// month's file: a row of the same time replaces the stored one.
func (d *Downloader) writeMonth(s Series, rows []Candle) error {
	path := s.monthFile(d.Dir, rows[0].Time)
	old, err := ReadCandles(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	merged := mergeCandles(old, rows)
	if err := d.write.write(path, formatCandles(merged)); err != nil {
		return fmt.Errorf("download %s: %w", s, err)
	}
	if d.Log != nil {
		d.Log.Info("wrote candles", zap.String("file", path), zap.Int("rows", len(merged)))
	}
	return nil
}

// mergeCandles merges two oldest-first lists; on equal times b wins.
func mergeCandles(a, b []Candle) []Candle {
	out := make([]Candle, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Time.Before(b[j].Time)):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Time.Before(a[i].Time):
			out = append(out, b[j])
			j++
		default: // the same time
			out = append(out, b[j])
			i++
			j++
		}
	}
	return out
}

// mergeSpans sorts spans and joins those that touch or overlap.
func mergeSpans(spans []Span) []Span {
	if len(spans) == 0 {
		return nil
	}
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int { return a.From.Compare(b.From) })
	out := []Span{s[0]}
	for _, sp := range s[1:] {
		last := &out[len(out)-1]
		if !sp.From.After(last.To) {
			last.To = maxTime(last.To, sp.To)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// funding downloads the funding settlements since from (or since the
// newest stored one, when the store reaches back to from) and merges them
// into the symbol's funding file.
func (d *Downloader) funding(ctx context.Context, product exchange.ProductType, symbol string, from time.Time) error {
	path := fundingFile(d.Dir, product, symbol)
	removeLeftovers(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	old, err := readFundingFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	since := from
	if len(old) > 0 && !old[0].Time.After(from) {
		since = old[len(old)-1].Time.Add(time.Millisecond)
	}
	got, err := exchange.FundingSince(ctx, d.Venue, exchange.FundingHistoryRequest{Symbol: symbol, ProductType: product}, since)
	if err != nil {
		return fmt.Errorf("download funding of %s: %w", symbol, err)
	}
	if len(got) == 0 && len(old) > 0 {
		return nil
	}
	byTime := map[int64]FundingRate{}
	for _, f := range old {
		byTime[f.Time.UnixMilli()] = f
	}
	for _, f := range got {
		byTime[f.FundingTime.Int()] = FundingRate{Time: f.FundingTime.Time(), Rate: f.FundingRate}
	}
	all := make([]FundingRate, 0, len(byTime))
	for _, f := range byTime {
		all = append(all, f)
	}
	slices.SortFunc(all, func(a, b FundingRate) int { return a.Time.Compare(b.Time) })
	if err := d.write.write(path, formatFunding(all)); err != nil {
		return fmt.Errorf("download funding of %s: %w", symbol, err)
	}
	return nil
}
