package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// ReadCandles reads one candle file of the store (a month of a series, or
// any file of the same columns: time,open,high,low,close,base_volume,
// quote_volume), oldest first; errors name the file and line.
func ReadCandles(path string) ([]Candle, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCandles(string(b), path)
}

// readFundingFile reads a funding file.
func readFundingFile(path string) ([]FundingRate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseFunding(string(b), path)
}

// Loaded is a series read from the store: its candles in [From, To), oldest
// first, and the gaps the download recorded in that span. Candles are
// never made up for a gap.
type Loaded struct {
	Series  Series
	Candles []Candle
	Gaps    []Span
	// Covered is the downloaded span: outside it, the store knows nothing.
	Covered Span
}

// Load reads the candles of s in [from, to) from the store in dir; a zero
// from or to leaves that end open.
func Load(dir string, s Series, from, to time.Time) (Loaded, error) {
	// Months are read first and copied once into a slice of the exact
	// size: growing one slice over a year of minutes cost more than the
	// parsing.
	var months [][]Candle
	total := 0
	out, err := Each(dir, s, from, to, func(rows []Candle) error {
		months = append(months, rows)
		total += len(rows)
		return nil
	})
	if err != nil {
		return Loaded{}, err
	}
	out.Candles = make([]Candle, 0, total)
	for _, rows := range months {
		out.Candles = append(out.Candles, rows...)
	}
	return out, nil
}

// Each is Load a month at a time: it calls fn with the candles of each
// month file of s in [from, to), oldest first, and returns the series'
// covered span and gaps without candles. A long replay converts each month
// as it comes instead of holding the whole span's text and rows at once.
// An error of fn stops the reading and is returned.
func Each(dir string, s Series, from, to time.Time, fn func(rows []Candle) error) (Loaded, error) {
	if _, ok := venueKind(s.Kind); !ok {
		return Loaded{}, fmt.Errorf("load %s: kind %q: want trade, mark or index", s, s.Kind)
	}
	m, ok, err := readManifest(dir, s)
	if err != nil {
		return Loaded{}, err
	}
	if !ok {
		return Loaded{}, fmt.Errorf("load %s: not downloaded (no %s in %s): run engine data download", s, manifestName, s.dir(dir))
	}
	files, err := monthFiles(dir, s)
	if err != nil {
		return Loaded{}, err
	}
	out := Loaded{Series: s, Covered: m.Covered}
	for _, f := range files {
		mo, err := time.Parse("2006-01", strings.TrimSuffix(filepath.Base(f), ".csv"))
		if err != nil {
			continue // not a month file
		}
		if (!to.IsZero() && !mo.Before(to)) || (!from.IsZero() && !mo.AddDate(0, 1, 0).After(from)) {
			continue
		}
		rows, err := ReadCandles(f)
		if err != nil {
			return Loaded{}, fmt.Errorf("load %s: %w", s, err)
		}
		lo, hi := 0, len(rows)
		for lo < hi && !from.IsZero() && rows[lo].Time.Before(from) {
			lo++
		}
		for hi > lo && !to.IsZero() && !rows[hi-1].Time.Before(to) {
			hi--
		}
		if err := fn(rows[lo:hi]); err != nil {
			return Loaded{}, err
		}
	}
	for _, g := range m.Gaps {
		if (to.IsZero() || g.From.Before(to)) && (from.IsZero() || g.To.After(from)) {
			out.Gaps = append(out.Gaps, g)
		}
	}
	return out, nil
}

// monthFiles are the series' month files, oldest first.
func monthFiles(dir string, s Series) ([]string, error) {
	entries, err := os.ReadDir(s.dir(dir))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", s, err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".csv") {
			out = append(out, filepath.Join(s.dir(dir), n))
		}
	}
	slices.Sort(out)
	return out, nil
}

// ErrNotDownloaded is the error of reading what the store does not hold.
var ErrNotDownloaded = errors.New("not downloaded: run engine data download")

// LoadFunding reads the stored funding settlements of a symbol, oldest
// first. The error is ErrNotDownloaded (wrapped) when the store has none.
func LoadFunding(dir string, product exchange.ProductType, symbol string) ([]FundingRate, error) {
	rows, err := readFundingFile(fundingFile(dir, product, symbol))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("funding of %s: %w", symbol, ErrNotDownloaded)
	}
	return rows, err
}

// Entry is one series of the store as List reports it.
type Entry struct {
	Series  Series
	Covered Span
	Rows    int
	First   time.Time // the first candle; zero without candles
	Last    time.Time // the last candle
	// Gaps are the spans without candles after the first candle (before
	// it, the symbol was not listed yet, or the store begins there).
	Gaps []Span
}

// List returns every candle series of the store in dir, by product,
// symbol, kind and interval.
func List(dir string) ([]Entry, error) {
	manifests, err := filepath.Glob(filepath.Join(dir, "*", "*", "*", manifestName))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	slices.Sort(manifests)
	var out []Entry
	for _, mf := range manifests {
		seriesDir := filepath.Dir(mf)
		kind, interval, ok := strings.Cut(filepath.Base(seriesDir), "-")
		if !ok {
			continue
		}
		symbolDir := filepath.Dir(seriesDir)
		s := Series{Product: exchange.ProductType(filepath.Base(filepath.Dir(symbolDir))), Symbol: filepath.Base(symbolDir), Kind: kind, Interval: exchange.Granularity(interval)}
		l, err := Load(dir, s, time.Time{}, time.Time{})
		if err != nil {
			return nil, err
		}
		e := Entry{Series: s, Covered: l.Covered, Rows: len(l.Candles)}
		if len(l.Candles) > 0 {
			e.First, e.Last = l.Candles[0].Time, l.Candles[len(l.Candles)-1].Time
			for _, g := range l.Gaps {
				if g.To.After(e.First) {
					e.Gaps = append(e.Gaps, g)
				}
			}
		}
		out = append(out, e)
	}
	return out, nil
}
