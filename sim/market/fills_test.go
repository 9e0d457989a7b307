package market

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestStockFills(t *testing.T) {
	m := newTestMarket(t)
	tests := []struct {
		name   string
		symbol string
		at     time.Time
		limit  int
		want   int
	}{
		{"regular session", "TSLAUSDT", et("2026-03-10 11:00"), 100, 100},
		{"small limit", "TSLAUSDT", et("2026-03-10 11:00"), 7, 7},
		{"zero limit is 100", "TSLAUSDT", et("2026-03-10 11:00"), 0, 100},
		{"over 100 is 100", "TSLAUSDT", et("2026-03-10 11:00"), 500, 100},
		{"weekend reaches back to friday", "TSLAUSDT", et("2026-03-14 12:00"), 100, 100},
		{"regular-only pair before the open", "NVDAUSDT", et("2026-03-10 09:00"), 100, 100},
		{"weekend-tradable pair on sunday", "NVDAUSDT", et("2026-03-15 12:00"), 100, 100},
		{"before any trading in the window", "TSLAUSDT", utc("1990-01-01T00:00:00Z"), 100, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fills, err := m.StockFills(tt.symbol, tt.at, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(fills) != tt.want {
				t.Fatalf("%d fills, want %d", len(fills), tt.want)
			}
			oldest := tt.at.AddDate(0, -3, 0)
			for i, f := range fills {
				at := f.TS.Time()
				if at.After(tt.at) || at.Before(oldest) {
					t.Fatalf("fill %d at %s outside (%s, %s]", i, at, oldest, tt.at)
				}
				if i > 0 && !at.Before(fills[i-1].TS.Time()) {
					t.Fatalf("fill %d at %s is not older than fill %d at %s", i, at, i-1, fills[i-1].TS.Time())
				}
				if ok, _ := m.StockTradable(tt.symbol, at); !ok {
					t.Fatalf("fill %d at %s (session %q) when the pair does not trade", i, Eastern(at), m.Session(at))
				}
				in := m.instruments[tt.symbol]
				q := in.quoteAt(at)
				want := in.num(q.ask())
				if f.Side == exchange.Sell {
					want = in.num(q.bid())
				}
				if f.Price != want || !f.Size.MustDecimal().IsPositive() || f.ExecID == "" {
					t.Fatalf("fill %d = %+v, want price %s (the %s side), a positive size and an id", i, f, want, f.Side)
				}
			}
		})
	}
}

func TestStockFillsNeverTraded(t *testing.T) {
	// A pair without trading periods has no fills: the answer is an empty
	// array, found by jumping over the closed stretches of three months.
	opts := testOptions()
	opts.StockPairs = append(opts.StockPairs, StockPairSpec{Symbol: "HALTED", Code: "HLT", PricePath: "TSLAUSDT"})
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	fills, err := m.StockFills("HALTED", et("2026-03-10 11:00"), 100)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(fills); string(b) != "[]" {
		t.Fatalf("fills of a pair that never trades = %s, want []", b)
	}
}

func TestStockFillsStable(t *testing.T) {
	m := newTestMarket(t)
	t1 := et("2026-03-10 11:00")
	t2 := t1.Add(3 * time.Minute)
	early, _ := m.StockFills("TSLAUSDT", t1, 100)
	late, _ := m.StockFills("TSLAUSDT", t2, 100)
	// The later answer is the earlier one with newer fills in front.
	i := 0
	for i < len(late) && late[i].TS.Time().After(t1) {
		i++
	}
	if i == 0 || i == len(late) {
		t.Fatalf("%d of %d fills are newer than three minutes ago", i, len(late))
	}
	if !reflect.DeepEqual(late[i:], early[:len(late)-i]) {
		t.Fatal("fills up to t1 differ when asked at a later time")
	}
	ids := map[string]bool{}
	for _, f := range late {
		if ids[f.ExecID] {
			t.Fatalf("execId %s twice", f.ExecID)
		}
		ids[f.ExecID] = true
	}
}

func TestStockFillsWeekendGap(t *testing.T) {
	m := newTestMarket(t)
	// Saturday noon: TSLAUSDT trades in every session, so its newest fill is
	// from Friday's after-hours session, before 20:00.
	fills, _ := m.StockFills("TSLAUSDT", et("2026-03-14 12:00"), 1)
	newest := Eastern(fills[0].TS.Time())
	if newest.Weekday() != time.Friday || newest.Hour() < 19 || newest.Hour() >= 20 {
		t.Fatalf("newest fill on Saturday is at %s, want Friday 19:xx", newest)
	}
	// Thanksgiving noon, a regular-only pair: Wednesday's regular session.
	fills, _ = m.StockFills("NVDAUSDT", et("2026-11-26 12:00"), 1)
	newest = Eastern(fills[0].TS.Time())
	if newest.Format("2006-01-02") != "2026-11-25" || newest.Hour() != 15 {
		t.Fatalf("newest NVDA fill on Thanksgiving is at %s, want 2026-11-25 15:xx", newest)
	}
}

func TestStockFillsSideFollowsPrice(t *testing.T) {
	// A rising path gives buys, a falling one sells.
	start := utc("2026-03-10T14:00:00Z")
	for _, tt := range []struct {
		end  string
		want exchange.Side
	}{{"400", exchange.Buy}, {"100", exchange.Sell}} {
		m, err := New(Options{
			Paths:      map[string]PathSpec{"X": {Points: []Point{{At: start, Price: dec("200")}, {At: start.Add(time.Hour), Price: dec(tt.end)}}}},
			StockPairs: []StockPairSpec{{Symbol: "X", Code: "X", TradingPeriod: allPeriods}},
		})
		if err != nil {
			t.Fatal(err)
		}
		fills, _ := m.StockFills("X", start.Add(30*time.Minute), 50)
		for _, f := range fills {
			if f.Side != tt.want {
				t.Fatalf("path to %s: fill %+v, want side %s", tt.end, f, tt.want)
			}
		}
	}
}

// TestGoldenResponses pins the stock endpoints' answers for a fixed
// scenario and time: the same scenario must give byte-identical responses.
// Run with -update after an intended change.
func TestGoldenResponses(t *testing.T) {
	m := newTestMarket(t)
	at := et("2026-03-09 10:00")
	book, err := m.StockOrderBook("TSLAUSDT", at)
	if err != nil {
		t.Fatal(err)
	}
	fills, err := m.StockFills("NVDAUSDT", at, 5)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := m.StockInfo("")
	btc, _ := m.PriceAt("BTCUSDT", at)
	got, err := json.MarshalIndent(map[string]any{
		"stock-orderbook": book, "stock-fills": fills, "stock-info": info,
		"states": m.States(at), "calendar": m.Calendar(), "BTCUSDT": btc,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "responses.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("responses differ from %s; run with -update if the change is intended\n%s", path, got)
	}
}

func BenchmarkStockFills(b *testing.B) {
	m := newTestMarket(b)
	at := et("2026-03-14 12:00")
	b.ReportAllocs()
	for b.Loop() {
		m.StockFills("TSLAUSDT", at, 100)
	}
}

// TestStockFillsExtendedAsTheWindowMoves: an answer made from the one
// before and the fills since (extendFills) drops the fills the
// three-month window's start has passed. A sparse pair trades five minutes
// in April and again from late on July 14 (Eastern): asked a few times
// after that, its answers hold the newest July fills and fewer and fewer
// April ones, as a market that never answered before gives them.
func TestStockFillsExtendedAsTheWindowMoves(t *testing.T) {
	t.Parallel()
	opts := sparseOptions("2026-07-14 23:58")
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	april := 0
	for i, at := range []string{"2026-07-15T04:01:00Z", "2026-07-15T04:03:00Z", "2026-07-15T04:04:30Z", "2026-07-15T04:06:00Z"} {
		got, err := m.StockFills("SPARSE", utc(at), 100)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := fresh.StockFills("SPARSE", utc(at), 100)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("StockFills at %s: from the answer before %d fills, fresh %d", at, len(got), len(want))
		}
		n := 0
		for _, f := range got {
			if f.TS.Time().Month() == time.April {
				n++
			}
		}
		if i > 0 && n >= april {
			t.Errorf("at %s %d April fills, %d before: the window's start should have passed some", at, n, april)
		}
		april = n
	}
	if april != 0 {
		t.Errorf("%d April fills left after the window passed them all", april)
	}
}

// BenchmarkStockFillsPolled asks for a pair's fills every two seconds, as
// the pollers do, from a Saturday on (the pair does not trade: every
// answer is the one of Friday evening) and from a trading morning on.
func BenchmarkStockFillsPolled(b *testing.B) {
	for _, c := range []struct{ name, from string }{{"weekend", "2026-03-14 12:00"}, {"trading", "2026-03-10 10:00"}} {
		b.Run(c.name, func(b *testing.B) {
			m := newTestMarket(b)
			at := et(c.from)
			b.ReportAllocs()
			for b.Loop() {
				at = at.Add(2 * time.Second)
				if _, err := m.StockFills("TSLAUSDT", at, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestStockFillsAnswersNeverChange: answers made in place in a shared
// array (prepend.Array, tested on its own) are never changed by the
// answers after them: a pair polled every two seconds for a trading day
// gives answers equal, at the end, to the copies taken when they were
// given.
func TestStockFillsAnswersNeverChange(t *testing.T) {
	t.Parallel()
	m := newTestMarket(t)
	at := et("2026-03-10 09:30")
	type kept struct {
		got, copied []exchange.StockFill
	}
	var all []kept
	for range 6 * 3600 / 2 {
		at = at.Add(2 * time.Second)
		fills, err := m.StockFills("TSLAUSDT", at, 100)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(all); n == 0 || !slices.Equal(all[n-1].got, fills) {
			all = append(all, kept{fills, slices.Clone(fills)})
		}
	}
	if len(all) < 100 {
		t.Fatalf("only %d different answers in six trading hours", len(all))
	}
	for i, k := range all {
		if !slices.Equal(k.got, k.copied) {
			t.Fatalf("answer %d of %d changed after it was given", i, len(all))
		}
	}

}
