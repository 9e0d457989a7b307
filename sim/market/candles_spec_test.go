package market

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCandlesSpec builds a scenario's candles path from rows and from a
// store file: the price follows the candle model (a candle at 14:30 of
// open 400, high 400, low 380, close 399 is 400 to 14:30:20, 380 at
// 14:30:40 and 399 at 14:30:59), and each mistake is refused with what and
// where.
func TestCandlesSpec(t *testing.T) {
	t0 := time.Date(2026, 9, 15, 14, 29, 0, 0, time.UTC)
	rows := []CandleRow{
		{At: t0, Open: dec("400"), High: dec("400"), Low: dec("400"), Close: dec("400")},
		{At: t0.Add(time.Minute), Open: dec("400"), High: dec("400"), Low: dec("380"), Close: dec("399")},
	}
	dir := t.TempDir()
	file := "tsla-1m.csv"
	content := "time,open,high,low,close,base_volume,quote_volume\n" +
		"2026-09-15T14:29:00Z,400,400,400,400,1,400\n2026-09-15T14:30:00Z,400,400,380,399,2,790\n"
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec CandlesSpec
	}{
		{"rows", CandlesSpec{Interval: "1m", Rows: rows}},
		{"file", CandlesSpec{Interval: "1m", File: file}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			m, err := New(Options{Start: t0, BaseDir: dir, Paths: map[string]PathSpec{"TSLAUSDT": {Candles: &spec}}})
			if err != nil {
				t.Fatal(err)
			}
			dip := t0.Add(time.Minute)
			for at, want := range map[time.Time]string{
				t0.Add(30 * time.Second):  "400",
				dip.Add(20 * time.Second): "400",
				dip.Add(40 * time.Second): "380",
				dip.Add(59 * time.Second): "399",
				dip.Add(10 * time.Minute): "399", // held after the last
				dip.Add(25 * time.Second): "395", // a quarter of the way down
			} {
				if got, _ := m.PriceAt("TSLAUSDT", at); got.String() != want {
					t.Errorf("price at %s: %s, want %s", at.Format(time.TimeOnly), got, want)
				}
			}
		})
	}
	bad := func(mod func(r []CandleRow)) []CandleRow {
		r := append([]CandleRow(nil), rows...)
		mod(r)
		return r
	}
	for _, tc := range []struct {
		name string
		spec CandlesSpec
		want string
	}{
		{"unknown interval", CandlesSpec{Interval: "2m", Rows: rows}, `interval "2m": want one of`},
		{"no candles", CandlesSpec{Interval: "1m"}, "no candles"},
		{"both", CandlesSpec{Interval: "1m", Rows: rows, File: file}, "rows or file, not both"},
		{"not on the minute", CandlesSpec{Interval: "1m", Rows: bad(func(r []CandleRow) { r[0].At = r[0].At.Add(30 * time.Second) })},
			"candle 1 at 2026-09-15T14:29:30Z: not at the start of a 1m candle (2026-09-15T14:29:00Z)"},
		{"high under the close", CandlesSpec{Interval: "1m", Rows: bad(func(r []CandleRow) { r[1].Close = dec("401") })}, "are not a candle"},
		{"out of order", CandlesSpec{Interval: "1m", Rows: []CandleRow{rows[1], rows[0]}}, "does not follow the one at"},
		{"missing file", CandlesSpec{Interval: "1m", File: "nope.csv"}, "nope.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			_, err := New(Options{Start: t0, BaseDir: dir, Paths: map[string]PathSpec{"TSLAUSDT": {Candles: &spec}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to say %q", err, tc.want)
			}
		})
	}
}
