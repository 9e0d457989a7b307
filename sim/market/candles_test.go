package market

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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
		{"off the second", []CandleBar{{Start: t0.Add(time.Millisecond), Open: d("2"), High: d("3"), Low: d("1"), Close: d("2")}}, time.Minute},
		{"too many decimals", []CandleBar{{Start: t0, Open: d("2"), High: d("3"), Low: d("1.00000000000000000001"), Close: d("2")}}, time.Minute},
		{"too large after more decimals", []CandleBar{{Start: t0, Open: d("2"), High: d("90000000000000"), Low: d("1"), Close: d("2")},
			{Start: t0.Add(time.Minute), Open: d("2"), High: d("3"), Low: d("1.000001"), Close: d("2")}}, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CandlePoints(tc.bars, tc.length); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestCandlePointsDecimals checks that candles whose prices have
// different numbers of decimals give back their prices exactly: the path
// holds them as whole numbers at the most decimals seen so far.
func TestCandlePointsDecimals(t *testing.T) {
	d := decimal.RequireFromString
	t0 := time.Date(2026, 8, 3, 13, 30, 0, 0, time.UTC)
	bars := []CandleBar{
		{Start: t0, Open: d("412"), High: d("413"), Low: d("411"), Close: d("412")},
		{Start: t0.Add(time.Minute), Open: d("412.5"), High: d("412.75"), Low: d("411.125"), Close: d("412.3")},
		{Start: t0.Add(3 * time.Minute), Open: d("0.0001"), High: d("500"), Low: d("0.0001"), Close: d("499.9999")},
	}
	pts, err := CandlePoints(bars, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"412", "413", "411", "412", "412.5", "412.75", "411.125", "412.3", "412.3", "0.0001", "0.0001", "500", "499.9999"}
	if len(pts) != len(want) {
		t.Fatalf("%d points, want %d", len(pts), len(want))
	}
	for i, w := range want {
		if !pts[i].Price.Equal(d(w)) {
			t.Errorf("point %d at %s: price %s, want %s", i, pts[i].At.Format(time.RFC3339), pts[i].Price, w)
		}
	}
}

// TestCandleSpecSameAsPoints checks that a path given as candles
// (PathSpec.Candles, computed when asked) is the path of its points
// (CandlePoints) second by second: the same price, book and epoch, over
// made-up candles with gaps of one and several candles.
func TestCandleSpecSameAsPoints(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 8, 3, 13, 30, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(7, 11))
	var bars []CandleBar
	price := int64(43120) // cents
	at := t0
	for range 90 {
		if rnd.IntN(8) == 0 {
			at = at.Add(time.Duration(1+rnd.IntN(3)) * time.Minute) // a gap
		}
		o := price
		c := o + int64(rnd.IntN(41)) - 20
		h := max(o, c) + int64(rnd.IntN(10))
		l := min(o, c) - int64(rnd.IntN(10))
		if rnd.IntN(6) == 0 {
			h, l, c = o, o, o // flat, as in a closure
		}
		bars = append(bars, CandleBar{Start: at, Open: decimal.New(o, -2), High: decimal.New(h, -2), Low: decimal.New(l, -2), Close: decimal.New(c, -2)})
		price, at = c, at.Add(time.Minute)
	}
	pts, err := CandlePoints(bars, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tick := decimal.RequireFromString("0.01")
	// Two markets, the symbol the same: its book's sizes hash its name.
	byPoints, err := New(Options{Start: t0, Paths: map[string]PathSpec{"TSLAUSDT": {Points: pts, Tick: tick}}})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := NewCandleSpec(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// Appended in two parts, as a replay loads them a month at a time.
	if err := spec.Append(bars[:40]...); err != nil {
		t.Fatal(err)
	}
	if err := spec.Append(bars[40:]...); err != nil {
		t.Fatal(err)
	}
	byCandles, err := New(Options{Start: t0, Paths: map[string]PathSpec{"TSLAUSDT": {CandlePath: spec, Tick: tick}}})
	if err != nil {
		t.Fatal(err)
	}
	end := at.Add(2 * time.Minute)
	for s := t0.Add(-time.Minute); s.Before(end); s = s.Add(time.Second) {
		for _, tt := range []time.Time{s, s.Add(400 * time.Millisecond)} {
			p1, ok1 := byPoints.PriceAt("TSLAUSDT", tt)
			p2, ok2 := byCandles.PriceAt("TSLAUSDT", tt)
			if !p1.Equal(p2) || ok1 != ok2 {
				t.Fatalf("%s: price %s (points) and %s (candles)", tt.Format(time.RFC3339Nano), p1, p2)
			}
			e1, u1 := byPoints.EpochSpan(tt)
			e2, u2 := byCandles.EpochSpan(tt)
			if e1 != e2 || !u1.Equal(u2) {
				t.Fatalf("%s: epoch %d until %s (points) and %d until %s (candles)", tt.Format(time.RFC3339Nano), e1, u1, e2, u2)
			}
			b1, a1 := byPoints.Book("TSLAUSDT", tt, 5)
			b2, a2 := byCandles.Book("TSLAUSDT", tt, 5)
			if fmt.Sprint(b1, a1) != fmt.Sprint(b2, a2) {
				t.Fatalf("%s: book %v %v (points) and %v %v (candles)", tt.Format(time.RFC3339Nano), b1, a1, b2, a2)
			}
		}
	}
	if _, err := NewCandleSpec(time.Second); err == nil {
		t.Error("a candle length under 3 s was accepted")
	}
	if _, err := New(Options{Start: t0, Paths: map[string]PathSpec{"X": {CandlePath: &CandleSpec{}}}}); err == nil {
		t.Error("a candle path without candles was accepted")
	}
}
