package market

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestPointsPriceAt(t *testing.T) {
	m := newTestMarket(t)
	tests := []struct {
		at   string
		want string
	}{
		{"2025-06-01T00:00:00Z", "250"},     // before the first point: held
		{"2026-01-01T00:00:00Z", "250"},     // on the first point
		{"2026-01-01T00:00:00.001Z", "250"}, // a hair later rounds back to the tick
		// 2026-01-01 to 2026-06-01 is 151 days: 50 * 75.5/151 = 25.
		{"2026-03-17T12:00:00Z", "275"},
		{"2026-06-01T00:00:00Z", "300"},
		// 213 days from 300 to 275.5: a third of the way is 291.8333...
		{"2026-08-11T00:00:00Z", "291.83"},
		{"2026-12-31T00:00:00Z", "275.5"},
		{"2027-03-01T00:00:00Z", "275.5"}, // after the last point: held
	}
	for _, tt := range tests {
		t.Run(tt.at, func(t *testing.T) {
			got, ok := m.PriceAt("TSLAUSDT", utc(tt.at))
			if !ok || !got.Equal(dec(tt.want)) {
				t.Fatalf("PriceAt(TSLAUSDT, %s) = %s, %v; want %s", tt.at, got, ok, tt.want)
			}
		})
	}
}

func TestPriceRoundsToTick(t *testing.T) {
	tests := []struct {
		name        string
		tick        string
		ticks       map[string]decimal.Decimal
		price, want string
	}{
		{"default tick", "", nil, "101.2345", "101.23"},
		{"half rounds away from zero", "", nil, "101.235", "101.24"},
		{"contract tick", "", map[string]decimal.Decimal{"X": dec("0.5")}, "101.3", "101.5"},
		{"path tick wins", "5", map[string]decimal.Decimal{"X": dec("0.5")}, "101.3", "100"},
		{"never below one tick", "1", nil, "0.2", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := PathSpec{Points: []Point{{At: utc("2026-01-01T00:00:00Z"), Price: dec(tt.price)}}}
			if tt.tick != "" {
				spec.Tick = dec(tt.tick)
			}
			m, err := New(Options{Paths: map[string]PathSpec{"X": spec}, Ticks: tt.ticks})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := m.PriceAt("X", utc("2026-02-01T00:00:00Z"))
			if !got.Equal(dec(tt.want)) {
				t.Fatalf("price %s = %s, want %s", tt.price, got, tt.want)
			}
			tick, _ := m.Tick("X")
			if !got.Mod(tick).IsZero() {
				t.Fatalf("price %s is not a multiple of the tick %s", got, tick)
			}
		})
	}
}

func TestCSVPath(t *testing.T) {
	m, err := New(Options{BaseDir: "testdata", Paths: map[string]PathSpec{"X": {CSV: "path.csv"}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ at, want string }{
		{"2025-12-31T00:00:00Z", "100"},
		{"2026-01-01T00:00:30Z", "105.25"},
		{"2026-01-01T00:01:00Z", "110.5"},
		{"2026-01-01T00:01:30Z", "100.25"},
		{"2026-01-01T00:05:00Z", "90"},
	}
	for _, tt := range tests {
		got, _ := m.PriceAt("X", utc(tt.at))
		if !got.Equal(dec(tt.want)) {
			t.Errorf("PriceAt(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"empty", "", "f.csv: no price lines"},
		{"header only", "ts,price\n", "f.csv: no price lines"},
		{"bad time", "1000,1\nyesterday,2\n", `f.csv:2: time "yesterday" is neither RFC 3339 nor Unix milliseconds`},
		{"bad time on line 1 with a numeric price", "yesterday,2\n", "f.csv:1: time"},
		{"bad price", "1000,1\n2000,abc\n", `f.csv:2: price "abc" is not a decimal number`},
		{"negative price", "1000,-1\n", "f.csv:1: price -1 is not positive"},
		{"three fields", "1000,1\n2000,2,3\n", "f.csv:2: wrong number of fields"},
		{"time goes back", "ts,price\n2000,1\n1000,2\n", "f.csv:3: time 1000 is not after"},
		{"same time twice", "1000,1\n# c\n1000,2\n", "f.csv:3: time 1000 is not after"},
		{"second header", "ts,price\nts,price\n", "f.csv:2: time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readCSV(strings.NewReader(tt.body), "f.csv")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("readCSV error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCSVFileErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("1000,1\n2000,x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{BaseDir: dir, Paths: map[string]PathSpec{"X": {CSV: "bad.csv"}}})
	want := filepath.Join(dir, "bad.csv") + ":2:"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("New error = %v, want it to name %s", err, want)
	}
}

// FuzzReadCSV checks that no file crashes the reader and that what it
// accepts is a valid path: increasing times, positive prices.
func FuzzReadCSV(f *testing.F) {
	for _, seed := range []string{
		"ts,price\n2026-01-01T00:00:00Z,100\n1767225660000,110.5\n",
		"1,1\n2,2\n", "\"1\",\"2\"\n", "a,b\n", ",\n", "1e3,1\n", "-5,1\n0,1\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		pts, err := readCSV(strings.NewReader(body), "fuzz.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(pts) == 0 {
			t.Fatal("no error and no points")
		}
		for i, p := range pts {
			if !p.Price.IsPositive() {
				t.Fatalf("point %d price %s accepted", i, p.Price)
			}
			if i > 0 && !p.At.After(pts[i-1].At) {
				t.Fatalf("point %d time %s not after %s", i, p.At, pts[i-1].At)
			}
		}
		if _, err := newPoints(pts); err != nil {
			t.Fatalf("accepted points rejected by newPoints: %v", err)
		}
	})
}

func ExampleMarket_PriceAt() {
	start := time.Date(2026, 3, 9, 13, 30, 0, 0, time.UTC)
	m, err := New(Options{Paths: map[string]PathSpec{
		"TSLAUSDT": {Points: []Point{
			{At: start, Price: decimal.RequireFromString("250")},
			{At: start.Add(time.Hour), Price: decimal.RequireFromString("251")},
		}},
	}})
	if err != nil {
		panic(err)
	}
	for _, d := range []time.Duration{-time.Hour, 0, 20 * time.Minute, 2 * time.Hour} {
		p, _ := m.PriceAt("TSLAUSDT", start.Add(d))
		fmt.Println(d, p)
	}
	// Output:
	// -1h0m0s 250
	// 0s 250
	// 20m0s 250.33
	// 2h0m0s 251
}
