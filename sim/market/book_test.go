package market

import (
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// checkBook checks the invariants of every synthetic book.
func checkBook(t *testing.T, bids, asks []exchange.PriceLevel, price, tick decimal.Decimal, levels int) {
	t.Helper()
	if len(bids) != levels || len(asks) != levels {
		t.Fatalf("%d bids and %d asks, want %d each", len(bids), len(asks), levels)
	}
	for side, lv := range map[string][]exchange.PriceLevel{"bid": bids, "ask": asks} {
		for k, l := range lv {
			p, s := l.Price().MustDecimal(), l.Size().MustDecimal()
			if !p.IsPositive() || !s.IsPositive() {
				t.Fatalf("%s level %d = %v: price and size must be positive", side, k, l)
			}
			if !p.Mod(tick).IsZero() {
				t.Fatalf("%s level %d price %s is not a multiple of the tick %s", side, k, p, tick)
			}
			if k == 0 {
				continue
			}
			prev := lv[k-1].Price().MustDecimal()
			if (side == "bid" && !p.LessThan(prev)) || (side == "ask" && !p.GreaterThan(prev)) {
				t.Fatalf("%s level %d price %s does not move away from %s", side, k, p, prev)
			}
			// Unmerged raw depth: neighbouring levels are one or two ticks apart.
			if d := p.Sub(prev).Abs(); d.GreaterThan(tick.Mul(decimal.NewFromInt(2))) {
				t.Fatalf("%s level %d is %s from the previous one, more than two ticks", side, k, d)
			}
		}
	}
	bestBid, bestAsk := bids[0].Price().MustDecimal(), asks[0].Price().MustDecimal()
	if !bestBid.LessThan(price) || !bestAsk.GreaterThan(price) {
		t.Fatalf("best bid %s and ask %s do not surround the price %s", bestBid, bestAsk, price)
	}
	// A spread of a few basis points: at most 2 bps plus two ticks.
	maxSpread := price.Mul(decimal.New(2, -4)).Add(tick.Mul(decimal.NewFromInt(2)))
	if spread := bestAsk.Sub(bestBid); spread.GreaterThan(maxSpread) {
		t.Fatalf("spread %s wider than %s at price %s", spread, maxSpread, price)
	}
}

func TestBook(t *testing.T) {
	t.Parallel()
	m := newTestMarket(t)
	tests := []struct {
		symbol string
		at     string
		levels int
		want   int
	}{
		{"TSLAUSDT", "2026-03-10T14:00:00Z", 40, 40},
		{"TSLAUSDT", "2026-03-10T14:00:00Z", 5, 5},
		{"TSLAUSDT", "2026-03-10T14:00:00Z", 1000, MaxLevels},
		{"TSLAUSDT", "2026-03-10T14:00:00Z", 0, 0},
		{"TSLAUSDT", "2026-03-10T14:00:00Z", -3, 0},
		{"BTCUSDT", "2026-05-01T00:00:00Z", 40, 40},
		{"NVDAUSDT", "2026-11-27T15:00:00Z", 40, 40}, // its own tick 0.001 on the NVDA path
		{"NVDA", "2026-11-27T15:00:00Z", 40, 40},
	}
	for _, tt := range tests {
		t.Run(tt.symbol+"/"+tt.at+"/"+decimal.NewFromInt(int64(tt.levels)).String(), func(t *testing.T) {
			at := utc(tt.at)
			bids, asks := m.Book(tt.symbol, at, tt.levels)
			price, _ := m.PriceAt(tt.symbol, at)
			tick, _ := m.Tick(tt.symbol)
			if tt.want == 0 {
				if len(bids)+len(asks) != 0 {
					t.Fatalf("%d levels asked, got %d bids and %d asks", tt.levels, len(bids), len(asks))
				}
				return
			}
			checkBook(t, bids, asks, price, tick, tt.want)
			again, againAsks := m.Book(tt.symbol, at, tt.levels)
			if !reflect.DeepEqual(bids, again) || !reflect.DeepEqual(asks, againAsks) {
				t.Fatal("the same book asked twice differs")
			}
		})
	}
}

func TestBookVariesOverTime(t *testing.T) {
	m := newTestMarket(t)
	// The TSLA path is flat to the cent within this second and the next, but
	// the sizes move.
	at := utc("2026-03-10T14:00:00Z")
	_, a1 := m.Book("TSLAUSDT", at, 40)
	_, a2 := m.Book("TSLAUSDT", at.Add(time.Second), 40)
	if reflect.DeepEqual(a1, a2) {
		t.Fatal("the book is the same one second later")
	}
	distinct := map[exchange.Num]bool{}
	for _, l := range a1 {
		distinct[l.Size()] = true
	}
	if len(distinct) < 20 {
		t.Fatalf("only %d distinct sizes over 40 levels", len(distinct))
	}
}

func TestBookTinyPrice(t *testing.T) {
	// Near zero the bid side ends before the price would reach zero.
	m, err := New(Options{Paths: map[string]PathSpec{"X": {Points: []Point{{At: utc("2026-01-01T00:00:00Z"), Price: dec("0.05")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	bids, asks := m.Book("X", utc("2026-01-02T00:00:00Z"), 40)
	if len(asks) != 40 || len(bids) > 4 {
		t.Fatalf("%d bids and %d asks at 0.05 with tick 0.01, want at most 4 bids and 40 asks", len(bids), len(asks))
	}
	for _, b := range bids {
		if !b.Price().MustDecimal().IsPositive() {
			t.Fatalf("bid at %s", b.Price())
		}
	}
}

func TestStockOrderBook(t *testing.T) {
	m := newTestMarket(t)
	at := et("2026-03-14 12:00") // Saturday: the book is served while closed
	ob, err := m.StockOrderBook("TSLAUSDT", at)
	if err != nil {
		t.Fatal(err)
	}
	if ob.Symbol != "TSLAUSDT" || ob.TS != exchange.MillisOf(at) {
		t.Fatalf("symbol %q ts %q, want TSLAUSDT %q", ob.Symbol, ob.TS, exchange.MillisOf(at))
	}
	price, _ := m.PriceAt("TSLAUSDT", at)
	checkBook(t, ob.Bids, ob.Asks, price, dec("0.01"), MaxLevels)
	bids, asks := m.Book("TSLAUSDT", at, MaxLevels)
	if !reflect.DeepEqual(bids, ob.Bids) || !reflect.DeepEqual(asks, ob.Asks) {
		t.Fatal("the stock book differs from the matching book of the same symbol")
	}
}

// BenchmarkBook asks for the full book of a walk (a 5 s step): same-step
// asks at one time again and again, new-step at a new step every time.
func BenchmarkBook(b *testing.B) {
	m := newTestMarket(b)
	at := utc("2026-03-10T14:00:00Z")
	for _, tc := range []struct {
		name string
		step time.Duration
	}{{"same-step", 0}, {"new-step", 5 * time.Second}} {
		b.Run(tc.name, func(b *testing.B) {
			m.PriceAt("NVDAUSDT", at.Add(5000*time.Second)) // the walk's block sums are cached after this
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m.Book("NVDAUSDT", at.Add(time.Duration(i%1000)*tc.step), MaxLevels)
			}
		})
		// The same books in numbers, as a backtest's pollers read them: no
		// decimal text is written.
		for _, deep := range []bool{false, true} {
			name := tc.name + "/numbers-top"
			if deep {
				name = tc.name + "/numbers-depth"
			}
			b.Run(name, func(b *testing.B) {
				m := newTestMarket(b)
				m.PriceAt("NVDAUSDT", at.Add(5000*time.Second))
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					nb, err := m.StockBookNumbers("NVDAUSDT", at.Add(time.Duration(i%1000)*tc.step))
					if err != nil {
						b.Fatal(err)
					}
					if deep {
						nb.Depth()
					}
				}
			})
		}
	}
}

// BenchmarkPriceAt asks for prices of a points path and of a walk (a 1 s
// step), at the same time again and again or one second on every time.
func BenchmarkPriceAt(b *testing.B) {
	m := newTestMarket(b)
	at := utc("2026-03-10T14:00:00Z")
	for _, sym := range []string{"TSLAUSDT", "BTCUSDT"} {
		for _, tc := range []struct {
			name string
			step time.Duration
		}{{"same-step", 0}, {"new-step", time.Second}} {
			name := map[string]string{"TSLAUSDT": "points", "BTCUSDT": "walk"}[sym] + "/" + tc.name
			b.Run(name, func(b *testing.B) {
				m.PriceAt(sym, at.Add(1000*time.Second)) // the walk's block sums are cached after this
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					m.PriceAt(sym, at.Add(time.Duration(i%1000)*tc.step))
				}
			})
		}
	}
}

func TestNumLargePrice(t *testing.T) {
	// A price whose ticks overflow int64 when scaled still formats exactly.
	in, err := newInstrument("X", nil, dec("0.5"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 62
	if got, want := in.num(n), exchange.NumOf(decimal.NewFromInt(n).Mul(dec("0.5"))); got != want {
		t.Fatalf("num(2^62) = %s, want %s", got, want)
	}
}
