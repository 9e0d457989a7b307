package market

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestCandlePathGolden writes the price every second inside three
// one-minute candles and a two-minute gap (the golden file shows the model
// of docs/backtesting.md: open, nearer extreme, other extreme, close, in
// tick steps; the flat price across the gap).
func TestCandlePathGolden(t *testing.T) {
	d := decimal.RequireFromString
	t0 := time.Date(2026, 8, 3, 13, 30, 0, 0, time.UTC)
	bars := []CandleBar{
		{Start: t0, Open: d("431.20"), High: d("431.60"), Low: d("431.10"), Close: d("431.50")},                      // low nearer: low first
		{Start: t0.Add(time.Minute), Open: d("431.50"), High: d("431.70"), Low: d("430.90"), Close: d("431.00")},     // high nearer
		{Start: t0.Add(4 * time.Minute), Open: d("431.05"), High: d("431.05"), Low: d("431.05"), Close: d("431.05")}, // after a gap; flat
	}
	pts, err := CandlePoints(bars, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Paths: map[string]PathSpec{"TSLAUSDT": {Points: pts, Tick: d("0.01")}}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	for at := t0; at.Before(t0.Add(5 * time.Minute)); at = at.Add(time.Second) {
		p, _ := m.PriceAt("TSLAUSDT", at)
		fmt.Fprintf(&got, "%s %s\n", at.Format("15:04:05"), p.StringFixed(2))
	}
	golden := filepath.Join("testdata", "candle_path.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./sim/market -run CandlePathGolden -update)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the candle path differs from %s (rerun with -update if the change is intended)", golden)
	}
	// The model's promises, checked apart from the golden file: every
	// candle's open, high, low and close are met, and nothing leaves the
	// candle's range inside it.
	for _, b := range bars {
		lo, hi := decimal.Zero, decimal.Zero
		for at := b.Start; at.Before(b.Start.Add(time.Minute)); at = at.Add(time.Second) {
			p, _ := m.PriceAt("TSLAUSDT", at)
			if at.Equal(b.Start) {
				lo, hi = p, p
				if !p.Equal(b.Open) {
					t.Errorf("%s: opens at %s, want %s", at, p, b.Open)
				}
			}
			lo, hi = decimal.Min(lo, p), decimal.Max(hi, p)
			if at.Equal(b.Start.Add(59*time.Second)) && !p.Equal(b.Close) {
				t.Errorf("%s: closes at %s, want %s", at, p, b.Close)
			}
		}
		if !lo.Equal(b.Low) || !hi.Equal(b.High) {
			t.Errorf("candle at %s: range %s..%s, want %s..%s", b.Start, lo, hi, b.Low, b.High)
		}
	}
}

func TestCandlePointsRejects(t *testing.T) {
	d := decimal.RequireFromString
	t0 := time.Date(2026, 8, 3, 13, 30, 0, 0, time.UTC)
	ok := CandleBar{Start: t0, Open: d("2"), High: d("3"), Low: d("1"), Close: d("2")}
	tests := []struct {
		name   string
		bars   []CandleBar
		length time.Duration
	}{
		{"high below low", []CandleBar{{Start: t0, Open: d("2"), High: d("1"), Low: d("3"), Close: d("2")}}, time.Minute},
		{"open above high", []CandleBar{{Start: t0, Open: d("4"), High: d("3"), Low: d("1"), Close: d("2")}}, time.Minute},
		{"not in order", []CandleBar{ok, ok}, time.Minute},
		{"off the grid", []CandleBar{ok, {Start: t0.Add(90 * time.Second), Open: d("2"), High: d("3"), Low: d("1"), Close: d("2")}}, time.Minute},
		{"too short", []CandleBar{ok}, 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CandlePoints(tc.bars, tc.length); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
