package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
)

// cmdData runs engine data download and engine data list.
func cmdData(ctx context.Context, env *cliEnv, args []string) int {
	usage := "usage: engine data download --symbols S1,S2 --from DATE [--to DATE] [--interval 1m] [--product USDT-FUTURES] [--venue live|URL] [--dir DATA]\n       engine data list [--dir DATA]"
	if len(args) == 0 {
		fmt.Fprintln(env.stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "download":
		return dataDownload(ctx, env, args[1:])
	case "list":
		return dataList(env, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(env.stdout, usage)
		return exitOK
	}
	fmt.Fprintf(env.stderr, "engine data: unknown subcommand %q\n%s\n", args[0], usage)
	return exitUsage
}

// defaultDataDir is where the store lives unless --dir says otherwise.
const defaultDataDir = "data"

// parseDay reads a --from or --to value: a date (UTC midnight) or an RFC 3339 time.
func parseDay(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date (2026-08-01) nor a time (2026-08-01T14:30:00Z)", s)
	}
	return t.UTC(), nil
}

func dataDownload(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine data download", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	symbols := fs.String("symbols", "", "comma-separated `symbols`, for example TSLAUSDT,NVDAUSDT")
	fromS := fs.String("from", "", "first `day` (2026-08-01) or time (RFC 3339, UTC)")
	toS := fs.String("to", "", "end `day` or time, not included (default: the last finished candle)")
	interval := fs.String("interval", "1m", "candle `interval`: 1m 3m 5m 15m 30m 1H 4H 6H 12H 1D 1W")
	product := fs.String("product", string(exchange.USDTFutures), "product `type`")
	venue := fs.String("venue", "live", "`live` (the real exchange) or the URL of a venue such as engine sim")
	dir := fs.String("dir", defaultDataDir, "the store's `folder`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine data download --symbols S1,S2 --from DATE [--to DATE] [--interval 1m] [--product USDT-FUTURES] [--venue live|URL] [--dir DATA]")
		fmt.Fprintln(fs.Output(), "\nDownloads trade, mark and index candles and funding history into the store,")
		fmt.Fprintln(fs.Output(), "fetching only what it lacks. Safe to interrupt: the next run resumes.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	syms := splitList(*symbols)
	if fs.NArg() > 0 || len(syms) == 0 || *fromS == "" {
		fmt.Fprintln(env.stderr, "engine data download: --symbols and --from are required, and there are no other arguments")
		return exitUsage
	}
	req := data.Request{Product: exchange.ProductType(*product), Symbols: syms}
	var err error
	if req.From, err = parseDay(*fromS); err != nil {
		fmt.Fprintf(env.stderr, "engine data download: --from: %v\n", err)
		return exitUsage
	}
	if *toS != "" {
		if req.To, err = parseDay(*toS); err != nil {
			fmt.Fprintf(env.stderr, "engine data download: --to: %v\n", err)
			return exitUsage
		}
	}
	if req.Interval, err = data.ParseInterval(*interval); err != nil {
		fmt.Fprintf(env.stderr, "engine data download: --interval: %v\n", err)
		return exitUsage
	}
	if !req.Product.Valid() {
		fmt.Fprintf(env.stderr, "engine data download: --product %q: want one of %v\n", *product, exchange.ProductTypes())
		return exitUsage
	}
	for i, s := range syms {
		syms[i] = strings.ToUpper(s)
	}
	base := *venue
	if base == "live" {
		base = liveBaseURL
	}
	clk := clock.Real{}
	// The history queries are public: no credentials are read or sent.
	c, err := exchange.NewReadOnlyClient(exchange.ClientOptions{BaseURL: base, Clock: clk,
		Limiter: exchange.NewLimiter(exchange.LimiterOptions{Clock: clk, Headroom: data.DownloadHeadroom})})
	if err != nil {
		fmt.Fprintf(env.stderr, "engine data download: %v\n", err)
		return exitFail
	}
	bar := newDownloadBar(env.stderr, isTerminal(env.stderr), time.Now)
	d := &data.Downloader{Venue: c, Dir: *dir, Progress: bar.update}
	err = d.Download(ctx, req)
	bar.finish()
	if err != nil {
		fmt.Fprintf(env.stderr, "engine data download: %v\n", err)
		if ctx.Err() != nil {
			fmt.Fprintln(env.stderr, "engine data download: interrupted; what was written is whole, and the next run resumes")
		}
		return exitFail
	}
	return dataListTo(env.stdout, *dir)
}

// downloadBar shows a download's progress: on a terminal one line redrawn
// in place with a bar, rows, span and time left; elsewhere a plain line per
// series and per tenth of it.
type downloadBar struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	series   data.Series
	began    time.Time
	lastFrac int // plain output: the last tenth printed
	drawn    bool
}

func newDownloadBar(w io.Writer, terminal bool, now func() time.Time) *downloadBar {
	return &downloadBar{w: w, terminal: terminal, now: now, lastFrac: -1}
}

func (b *downloadBar) update(p data.Progress) {
	if p.Series != b.series {
		b.finish()
		b.series, b.began, b.lastFrac = p.Series, b.now(), -1
	}
	frac := 1.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	left := "?"
	if elapsed := b.now().Sub(b.began); frac > 0 && elapsed > 0 {
		left = (time.Duration(float64(elapsed)/frac) - elapsed).Round(time.Second).String()
	}
	line := fmt.Sprintf("%s: %d rows, %s of %s, about %s left", p.Series, p.Rows, days(p.Done), days(p.Total), left)
	if b.terminal {
		const width = 24
		n := int(frac * width)
		fmt.Fprintf(b.w, "\r[%s%s] %3.0f%% %s\x1b[K", strings.Repeat("#", n), strings.Repeat(".", width-n), 100*frac, line)
		b.drawn = true
		return
	}
	if tenth := int(frac * 10); tenth != b.lastFrac {
		b.lastFrac = tenth
		fmt.Fprintln(b.w, line)
	}
}

// finish ends a redrawn line.
func (b *downloadBar) finish() {
	if b.terminal && b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}

// days writes a span in days and hours.
func days(d time.Duration) string {
	if d < 24*time.Hour {
		return d.Round(time.Minute).String()
	}
	return fmt.Sprintf("%.1f days", d.Hours()/24)
}

func dataList(env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine data list", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	dir := fs.String("dir", defaultDataDir, "the store's `folder`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "engine data list: no arguments besides --dir")
		return exitUsage
	}
	code := dataListTo(env.stdout, *dir)
	if code != exitOK {
		fmt.Fprintf(env.stderr, "engine data list: cannot read the store in %s\n", *dir)
	}
	return code
}

// dataListTo writes the store's table: symbol, interval, kind, span, rows
// and gaps, then each gap.
func dataListTo(w io.Writer, dir string) int {
	entries, err := data.List(dir)
	if err != nil {
		fmt.Fprintf(w, "engine data list: %v\n", err)
		return exitFail
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "no history in %s: run engine data download\n", dir)
		return exitOK
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SYMBOL\tINTERVAL\tKIND\tFIRST\tLAST\tROWS\tGAPS")
	for _, e := range entries {
		first, last := "-", "-"
		if e.Rows > 0 {
			first, last = e.First.Format("2006-01-02 15:04"), e.Last.Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", e.Series.Symbol, e.Series.Interval, e.Series.Kind, first, last, e.Rows, len(e.Gaps))
	}
	tw.Flush()
	for _, e := range entries {
		for _, g := range e.Gaps {
			fmt.Fprintf(w, "gap: %s %s from %s to %s (%s without candles)\n", e.Series.Symbol, e.Series.Kind,
				g.From.Format("2006-01-02 15:04"), g.To.Format("2006-01-02 15:04"), days(g.Duration()))
		}
	}
	return exitOK
}
