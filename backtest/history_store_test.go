package backtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
)

// testStore writes a candle store in the layout package data documents
// (month CSV files and a manifest per series, funding.csv per symbol), as
// engine data download leaves it, for the replay tests and benchmark.
type testStore struct {
	t   testing.TB
	dir string
}

func newTestStore(t testing.TB) testStore { return testStore{t: t, dir: t.TempDir()} }

// series writes candles of one series (1m) with the span it covers and its
// gaps.
func (s testStore) series(symbol, kind string, candles []data.Candle, covered data.Span, gaps []data.Span) {
	s.t.Helper()
	dir := filepath.Join(s.dir, "USDT-FUTURES", symbol, kind+"-1m")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	months := map[string]*strings.Builder{}
	var order []string
	for _, c := range candles {
		m := c.Time.Format("2006-01")
		b, ok := months[m]
		if !ok {
			b = &strings.Builder{}
			b.WriteString("time,open,high,low,close,base_volume,quote_volume\n")
			months[m] = b
			order = append(order, m)
		}
		b.WriteString(c.Time.UTC().Format("2006-01-02T15:04:05Z"))
		// 60,000 USDT a minute: the modelled best level holds about 2,000 USDT.
		for _, n := range []string{string(c.Open), string(c.High), string(c.Low), string(c.Close), "150", "60000"} {
			b.WriteString("," + n)
		}
		b.WriteString("\n")
	}
	for _, m := range order {
		if err := os.WriteFile(filepath.Join(dir, m+".csv"), []byte(months[m].String()), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	if gaps == nil {
		gaps = []data.Span{}
	}
	b, err := json.Marshal(struct {
		Covered data.Span   `json:"covered"`
		Gaps    []data.Span `json:"gaps"`
	}{covered, gaps})
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// funding writes a symbol's funding settlements.
func (s testStore) funding(symbol string, at []time.Time, rates []string) {
	s.t.Helper()
	var b strings.Builder
	b.WriteString("time,rate\n")
	for i, t := range at {
		b.WriteString(t.UTC().Format("2006-01-02T15:04:05Z") + "," + rates[i] + "\n")
	}
	if err := os.WriteFile(filepath.Join(s.dir, "USDT-FUTURES", symbol, "funding.csv"), []byte(b.String()), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// candleSpec makes the candles of [from, to) a minute apart, leaving out
// those in skip (a gap): flat at price except where bar returns a candle.
type candleSpec struct {
	from, to time.Time
	price    string
	skip     []data.Span
	bar      func(at time.Time) (o, h, l, c string, ok bool)
}

func (cs candleSpec) candles() []data.Candle {
	var out []data.Candle
next:
	for at := cs.from; at.Before(cs.to); at = at.Add(time.Minute) {
		for _, g := range cs.skip {
			if !at.Before(g.From) && at.Before(g.To) {
				continue next
			}
		}
		p := data.Candle{Time: at, Open: exchange.Num(cs.price), High: exchange.Num(cs.price), Low: exchange.Num(cs.price), Close: exchange.Num(cs.price)}
		if cs.bar != nil {
			if o, h, l, c, ok := cs.bar(at); ok {
				p.Open, p.High, p.Low, p.Close = exchange.Num(o), exchange.Num(h), exchange.Num(l), exchange.Num(c)
			}
		}
		out = append(out, p)
	}
	return out
}

// wavyCandles are n one-minute candles from `from` of a price that swings
// around start by a few percent over hours, each with a range of a few
// ticks: a stand-in for real minutes, for the benchmark.
func wavyCandles(from time.Time, n int, start float64) []data.Candle {
	out := make([]data.Candle, n)
	prev := start
	for i := range out {
		// A slow swing and a faster wiggle, in cents.
		x := float64(i)
		mid := start * (1 + 0.03*sin(x/900) + 0.004*sin(x/37))
		o, c := prev, mid
		h, l := max(o, c)+0.05, min(o, c)-0.05
		out[i] = data.Candle{Time: from.Add(time.Duration(i) * time.Minute),
			Open: cents(o), High: cents(h), Low: cents(l), Close: cents(c)}
		prev = c
	}
	return out
}

// sin is a cheap sine (a parabola per half period), good enough for a
// made-up price and the same on every platform.
func sin(x float64) float64 {
	const pi = 3.141592653589793
	x -= 2 * pi * float64(int64(x/(2*pi)))
	sign := 1.0
	if x > pi {
		x, sign = x-pi, -1
	}
	return sign * 4 * x * (pi - x) / (pi * pi)
}

func cents(f float64) exchange.Num {
	return exchange.Num(decimal.NewFromFloat(f).Round(2).StringFixed(2))
}

// BenchmarkReplay replays stored 1m candles of TSLAUSDT, NVDAUSDT and
// AAPLUSDT (wavyCandles, written to a temporary store outside the timing)
// through the example rules: loading the store and the backtest, as engine
// backtest --data does. REPLAY_DAYS sets the span (default 7; the issue's
// target is a year, 365). It reports candles (of the three symbols) per
// second and the process's peak resident memory. REPLAY_STEP sets the
// engine's step (default 1s); REPLAY_STORE a folder to keep the store in.
func BenchmarkReplay(b *testing.B) {
	step := time.Second
	if s := os.Getenv("REPLAY_STEP"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		step = d
	}
	days := 7
	if s := os.Getenv("REPLAY_DAYS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		days = n
	}
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, days)
	n := int(to.Sub(from) / time.Minute)
	s := newTestStore(b)
	symbols := []string{"TSLAUSDT", "NVDAUSDT", "AAPLUSDT"}
	// REPLAY_STORE keeps the store in a folder of its own: the first run
	// writes it, a later one with the same span reuses it, so that its
	// peak memory is the replay's alone, without the writing.
	reuse := false
	if dir := os.Getenv("REPLAY_STORE"); dir != "" {
		s.dir = dir
		_, err := os.Stat(filepath.Join(dir, "USDT-FUTURES", "AAPLUSDT", "funding.csv"))
		reuse = err == nil
	}
	for i, sym := range symbols {
		if reuse {
			break
		}
		candles := wavyCandles(from, n, []float64{412.35, 182.40, 231.10}[i])
		s.series(sym, data.KindTrade, candles, data.Span{From: from, To: to}, nil)
		s.funding(sym, []time.Time{from.Add(8 * time.Hour)}, []string{"0.0001"})
	}
	env := map[string]string{"TSLA_DIP_SIZE": "2"}
	var candles int64
	b.ReportAllocs()
	for b.Loop() {
		h, err := LoadHistory(HistoryOptions{Dir: s.dir, Symbols: symbols, From: from, To: to})
		if err != nil {
			b.Fatal(err)
		}
		opts := Options{RuleDirs: []string{"../examples/rules"}, Step: step, Getenv: func(k string) string { return env[k] }}
		if err := h.Apply(&opts); err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		candles += int64(n * len(symbols))
	}
	b.ReportMetric(float64(candles)/b.Elapsed().Seconds(), "candles/s")
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
	}
}
