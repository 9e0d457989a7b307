package market

import (
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// TestBookNumbersEqualParsedText: every number of StockBookNumbers is the
// float64 that parsing the same level of StockOrderBook gives, for prices
// and ticks from a penny stock to a five-figure coin, so a State built from
// either is the same.
func TestBookNumbersEqualParsedText(t *testing.T) {
	start := utc("2026-03-09T13:00:00Z")
	walk := func(price string, seed int64) PathSpec {
		return PathSpec{RandomWalk: &WalkSpec{Start: dec(price), Seed: seed, VolatilityBps: 20, Step: 10 * time.Second}}
	}
	cases := []struct {
		name, price, tick string
	}{
		{"penny", "0.0731", "0.0001"},
		{"stock", "412.35", "0.01"},
		{"odd tick", "231.10", "0.05"},
		{"coin", "91250.5", "0.1"},
		{"whole", "18250", "5"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(Options{Start: start,
				Paths:      map[string]PathSpec{"XUSDT": walk(c.price, int64(i+1))},
				Ticks:      map[string]decimal.Decimal{"XUSDT": dec(c.tick)},
				StockPairs: []StockPairSpec{{Symbol: "XUSDT", Code: "X", Name: "X"}}})
			if err != nil {
				t.Fatal(err)
			}
			levels := 0
			for s := 0; s < 600; s += 7 {
				at := start.Add(time.Duration(s) * time.Second)
				nb, err := m.StockBookNumbers("XUSDT", at)
				if err != nil {
					t.Fatal(err)
				}
				bids, asks, ts := nb.Bids, nb.Asks, nb.TS
				// The top is handed out first; it must be the whole book's.
				if len(bids) > 1 || len(asks) > 1 {
					t.Fatalf("at %s: %d bids and %d asks before Depth; want the best of each", at, len(bids), len(asks))
				}
				topBids, topAsks := bids, asks
				bids, asks = nb.Depth()
				if len(topBids) != min(1, len(bids)) || len(topAsks) != min(1, len(asks)) ||
					(len(topBids) == 1 && topBids[0] != bids[0]) || (len(topAsks) == 1 && topAsks[0] != asks[0]) {
					t.Fatalf("at %s: top %v/%v is not the first level of %v/%v", at, topBids, topAsks, bids[:1], asks[:1])
				}
				text, err := m.StockOrderBook("XUSDT", at)
				if err != nil {
					t.Fatal(err)
				}
				if ts != text.TS || len(bids) != len(text.Bids) || len(asks) != len(text.Asks) {
					t.Fatalf("at %s: numbers (%d bids, %d asks, ts %s) and text (%d, %d, %s) differ in shape", at, len(bids), len(asks), ts, len(text.Bids), len(text.Asks), text.TS)
				}
				for side, nums := range [][]Level{bids, asks} {
					for k, l := range [][]exchange.PriceLevel{text.Bids, text.Asks}[side] {
						p, err1 := strconv.ParseFloat(string(l.Price()), 64)
						sz, err2 := strconv.ParseFloat(string(l.Size()), 64)
						if err1 != nil || err2 != nil {
							t.Fatalf("level %v does not parse", l)
						}
						if nums[k].Price != p || nums[k].Size != sz {
							t.Fatalf("at %s side %d level %d: numbers %v/%v, text %s/%s", at, side, k, nums[k].Price, nums[k].Size, l.Price(), l.Size())
						}
						levels++
					}
				}
				again, _ := m.StockBookNumbers("XUSDT", at)
				if againBids, _ := again.Depth(); &again.Bids[0] != &topBids[0] || &againBids[0] != &bids[0] {
					t.Fatalf("at %s: asked twice in one step, the bids are not the same slice", at)
				}
			}
			if levels < 1000 {
				t.Fatalf("compared only %d levels", levels)
			}
		})
	}
}

// TestShortBookIsTheTop: a book asked for one or two levels (a ticker)
// is written afresh, and must be the top of the whole book.
func TestShortBookIsTheTop(t *testing.T) {
	t.Parallel()
	m := newTestMarket(t)
	at := utc("2026-03-10T14:00:00Z")
	for _, sym := range []string{"TSLAUSDT", "NVDAUSDT", "BTCUSDT"} {
		for _, n := range []int{1, 2, 3} {
			for s := 0; s < 40; s += 3 {
				now := at.Add(time.Duration(s) * time.Second)
				fullB, fullA := m.Book(sym, now, MaxLevels)
				b, a := m.Book(sym, now, n)
				if len(b) != n || len(a) != n {
					t.Fatalf("%s %d levels: got %d bids, %d asks", sym, n, len(b), len(a))
				}
				for k := range n {
					if b[k] != fullB[k] || a[k] != fullA[k] {
						t.Fatalf("%s level %d of a %d-level book: %v/%v, the whole book has %v/%v", sym, k, n, b[k], a[k], fullB[k], fullA[k])
					}
				}
			}
		}
	}
}

// TestTopLevelsDoNotAlias: the best levels live in one array inside the
// drawn book, so a side's slice must end where its level does: appending
// to the bids copies them and leaves the asks and the shared book as they
// were.
func TestTopLevelsDoNotAlias(t *testing.T) {
	m := newTestMarket(t)
	at := utc("2026-03-10T14:00:00Z")
	nb, err := m.StockBookNumbers("NVDAUSDT", at)
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Bids) != 1 || len(nb.Asks) != 1 || cap(nb.Bids) != 1 || cap(nb.Asks) != 1 {
		t.Fatalf("top levels: len %d/%d cap %d/%d, want 1 each", len(nb.Bids), len(nb.Asks), cap(nb.Bids), cap(nb.Asks))
	}
	ask := nb.Asks[0]
	grown := append(nb.Bids, Level{Price: -1, Size: -1})
	grown[0] = Level{Price: -2, Size: -2}
	again, err := m.StockBookNumbers("NVDAUSDT", at)
	if err != nil {
		t.Fatal(err)
	}
	if again.Asks[0] != ask || nb.Asks[0] != ask || again.Bids[0].Price <= 0 {
		t.Fatalf("appending to the bids changed the book: asks %v then %v, bids %v", ask, again.Asks[0], again.Bids[0])
	}
	bids, asks := again.Depth()
	if bids[0] != again.Bids[0] || asks[0] != again.Asks[0] {
		t.Fatalf("the top %v/%v is not the depth's first level %v/%v", again.Bids[0], again.Asks[0], bids[0], asks[0])
	}
}
