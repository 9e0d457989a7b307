// Package data is the local store of downloaded market history: the
// venue's trade, mark and index candles and its funding settlements, kept
// in plain CSV files a trader can open in a spreadsheet, pandas or DuckDB.
//
// Layout, under the store's directory:
//
//	USDT-FUTURES/TSLAUSDT/trade-1m/2026-08.csv   one file per month
//	USDT-FUTURES/TSLAUSDT/trade-1m/manifest.json what was downloaded, and the gaps
//	USDT-FUTURES/TSLAUSDT/funding.csv            every funding settlement
//
// A candle file has the header time,open,high,low,close,base_volume,
// quote_volume; time is the candle's start in UTC (RFC 3339), the numbers
// are the venue's decimal strings as sent. Every file is written whole to
// a temporary file in the same folder, synced and renamed over the old
// one, so an interrupted download never leaves a half-written file; the
// manifest is written after the files it describes, so it never claims
// rows that are not on disk.
package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Kind names of the candle series in the store's folder names.
const (
	KindTrade = "trade"
	KindMark  = "mark"
	KindIndex = "index"
)

// Kinds are the candle kinds a download fetches, in that order.
var kinds = []struct {
	name string
	kind exchange.CandleKind
}{{KindTrade, exchange.KindTrade}, {KindMark, exchange.KindMark}, {KindIndex, exchange.KindIndex}}

// venueKind returns the venue's candle kind of a store kind name.
func venueKind(name string) (exchange.CandleKind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k.kind, true
		}
	}
	return "", false
}

// Series names one candle series of the store.
type Series struct {
	Product  exchange.ProductType
	Symbol   string
	Kind     string // trade, mark or index
	Interval exchange.Granularity
}

// String is the series as list shows it: TSLAUSDT trade 1m (USDT-FUTURES).
func (s Series) String() string {
	return fmt.Sprintf("%s %s %s (%s)", s.Symbol, s.Kind, s.Interval, s.Product)
}

// dir is the series' folder under root.
func (s Series) dir(root string) string {
	return filepath.Join(root, string(s.Product), s.Symbol, s.Kind+"-"+string(s.Interval))
}

// monthFile is the file of the month of t.
func (s Series) monthFile(root string, t time.Time) string {
	return filepath.Join(s.dir(root), t.UTC().Format("2006-01")+".csv")
}

// fundingFile is the funding file of the series' symbol.
func fundingFile(root string, product exchange.ProductType, symbol string) string {
	return filepath.Join(root, string(product), symbol, "funding.csv")
}

// Span is a time range [From, To).
type Span struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Duration is To - From.
func (s Span) Duration() time.Duration { return s.To.Sub(s.From) }

// manifest is what the store knows of a series beyond its rows: the span
// downloaded (every candle of it the venue had is on disk) and the gaps
// inside it (spans the venue answered without candles: maintenance,
// closures, before the listing).
type manifest struct {
	Covered Span   `json:"covered"`
	Gaps    []Span `json:"gaps"`
}

const manifestName = "manifest.json"

// readManifest returns the series' manifest; ok is false when there is none.
func readManifest(root string, s Series) (m manifest, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(s.dir(root), manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return manifest{}, false, nil
	}
	if err != nil {
		return manifest{}, false, fmt.Errorf("read manifest of %s: %w", s, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return manifest{}, false, fmt.Errorf("manifest of %s: %w", s, err)
	}
	return m, true, nil
}

// writeManifest replaces the series' manifest atomically.
func writeManifest(root string, s Series, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest of %s: %w", s, err)
	}
	return writeAtomic(filepath.Join(s.dir(root), manifestName), append(b, '\n'))
}

// afterWriteHook, when set (tests), runs after a temporary file is synced
// and before it is renamed: a failure there is an interrupted download.
type writeHook func(path string) error

// atomicWriter writes files whole: temporary file, sync, rename, sync of
// the folder. hook (tests) runs between the sync and the rename.
type atomicWriter struct{ hook writeHook }

// writeAtomic writes with no hook.
func writeAtomic(path string, content []byte) error { return atomicWriter{}.write(path, content) }

func (w atomicWriter) write(path string, content []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp) // a leftover would be harmless (list skips dot files), but keep the folder clean
		}
	}()
	if _, err := f.Write(content); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if w.hook != nil {
		if err := w.hook(path); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// ParseInterval checks an interval given on the command line.
func ParseInterval(s string) (exchange.Granularity, error) {
	g := exchange.Granularity(s)
	if _, ok := g.Duration(); !ok {
		names := make([]string, 0)
		for _, g := range exchange.Granularities() {
			names = append(names, string(g))
		}
		return "", fmt.Errorf("interval %q: want one of %s", s, strings.Join(names, ", "))
	}
	return g, nil
}
