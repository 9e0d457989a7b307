package market

import (
	"math"
	"testing"
	"time"
)

// TestBookModel checks the modelled book of candles worked out by hand:
// the half-spread is a twentieth of the range over the close, within 1 and
// 25 bps; the best level is two seconds of the average traded value, within
// 100 and 1,000,000; a gap keeps the last candle's; before the first there
// is none.
func TestBookModel(t *testing.T) {
	t0 := time.Date(2026, 9, 15, 14, 0, 0, 0, time.UTC)
	spec, err := NewCandleSpec(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	bars := []CandleBar{
		// range 20 over 399: 501.25 bps, a twentieth 25.06: the 25 cap.
		{Start: t0, Open: dec("400"), High: dec("400"), Low: dec("380"), Close: dec("399"), QuoteVolume: 60000},
		// range 0.4 over 400.2: 9.995 bps, a twentieth 0.4998: the 1 floor.
		{Start: t0.Add(time.Minute), Open: dec("400.2"), High: dec("400.4"), Low: dec("400"), Close: dec("400.2"), QuoteVolume: 1e12},
		// range 2 over 102: 196.08 bps, a twentieth 9.804.
		{Start: t0.Add(2 * time.Minute), Open: dec("100"), High: dec("102"), Low: dec("100"), Close: dec("102"), QuoteVolume: 600},
		// no volume: the default depth (0 here).
		{Start: t0.Add(3 * time.Minute), Open: dec("100"), High: dec("100"), Low: dec("100"), Close: dec("100")},
		// after a gap of two minutes
		{Start: t0.Add(6 * time.Minute), Open: dec("100"), High: dec("101"), Low: dec("100"), Close: dec("101"), QuoteVolume: 6000},
	}
	if err := spec.Append(bars...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		at      time.Time
		half    float64
		value   float64
		noModel bool
	}{
		{name: "before the first", at: t0.Add(-time.Second), noModel: true},
		{name: "wild minute", at: t0.Add(30 * time.Second), half: 25, value: 2000},             // 60000/60*2
		{name: "quiet minute, huge volume", at: t0.Add(61 * time.Second), half: 1, value: 1e6}, // capped
		{name: "2 % minute, thin", at: t0.Add(2*time.Minute + 59*time.Second), half: 200.0 / 102 * 0.05 * 100, value: 100},
		{name: "no volume", at: t0.Add(3 * time.Minute), half: 1, value: 0},
		{name: "in the gap", at: t0.Add(5 * time.Minute), half: 1, value: 0},
		{name: "after the gap", at: t0.Add(6 * time.Minute), half: 1.0 / 101 * 10000 * 0.05, value: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			half, value, ok := spec.BookModel(tc.at)
			if ok == tc.noModel {
				t.Fatalf("ok %v", ok)
			}
			if math.Abs(half-tc.half) > 1e-9 || math.Abs(value-tc.value) > 1e-9 {
				t.Errorf("half %v bps, best level %v; want %v, %v", half, value, tc.half, tc.value)
			}
		})
	}
}

// TestCandleBookSpread: on a candle path the book's best bid and ask sit
// the modelled half-spread from the price (390 at 14:30:30 in the wild
// candle: 25 bps is 97.5 ticks of 0.01, rounded up to 98: 389.02 and
// 390.98); on a points path, 1 bp as before (390 ± 0.04).
func TestCandleBookSpread(t *testing.T) {
	t0 := time.Date(2026, 9, 15, 14, 29, 0, 0, time.UTC)
	spec := CandlesSpec{Interval: "1m", Rows: []CandleRow{
		{At: t0, Open: dec("400"), High: dec("400"), Low: dec("400"), Close: dec("400")},
		{At: t0.Add(time.Minute), Open: dec("400"), High: dec("400"), Low: dec("380"), Close: dec("399")},
	}}
	at := t0.Add(90 * time.Second)
	m, err := New(Options{Start: t0, Paths: map[string]PathSpec{
		"C": {Candles: &spec},
		"P": {Points: []Point{{At: t0, Price: dec("390")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for sym, want := range map[string][2]string{"C": {"389.02", "390.98"}, "P": {"389.96", "390.04"}} {
		bids, asks := m.Book(sym, at, 1)
		if len(bids) != 1 || len(asks) != 1 || string(bids[0].Price()) != want[0] || string(asks[0].Price()) != want[1] {
			t.Errorf("%s: book %v / %v, want %s / %s", sym, bids, asks, want[0], want[1])
		}
	}
}
