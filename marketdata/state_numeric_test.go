package marketdata

import (
	"reflect"
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// TestNumericBookEqualsParsed: a book handed over in numbers builds the
// same stock as the same book in decimal strings.
func TestNumericBookEqualsParsed(t *testing.T) {
	in := fullInput()
	fromStrings := build(t, in)
	in.Books[0].Levels = &NumericBook{
		// Out of order like the strings fixture: the builder must sort a copy.
		Bids: []BookLevel{{Price: 249.80, Size: 50}, {Price: 249.90, Size: 30}, {Price: 249.00, Size: 100}},
		Asks: []BookLevel{{Price: 250.10, Size: 10}, {Price: 251.00, Size: 100}, {Price: 250.30, Size: 20}},
		TS:   in.Books[0].Book.TS,
	}
	shared := slicesOf(in.Books[0].Levels)
	in.Books[0].Book = exchange.StockOrderBook{}
	fromNumbers := build(t, in)
	a, _ := fromStrings.Stock("TSLAUSDT", 0)
	b, _ := fromNumbers.Stock("TSLAUSDT", 0)
	// What each was built from differs by design; what rules read may not.
	a2, b2 := comparableStock(a), comparableStock(b)
	a2.src, b2.src = stockSource{}, stockSource{}
	if !reflect.DeepEqual(a2, b2) {
		t.Errorf("stock from numbers differs:\n strings %+v\n numbers %+v", a, b)
	}
	if !reflect.DeepEqual(shared, slicesOf(in.Books[0].Levels)) {
		t.Error("building the State reordered the reader's slices")
	}
}

func slicesOf(nb *NumericBook) [][]BookLevel {
	return [][]BookLevel{append([]BookLevel(nil), nb.Bids...), append([]BookLevel(nil), nb.Asks...)}
}

// TestNumericBookDepthOnDemand: a book handed over top first gives the same
// stock as the whole book, and draws its depth only when a rule reads it.
func TestNumericBookDepthOnDemand(t *testing.T) {
	in := fullInput()
	whole := &NumericBook{
		Bids: []BookLevel{{Price: 249.90, Size: 30}, {Price: 249.80, Size: 50}, {Price: 249.00, Size: 100}},
		Asks: []BookLevel{{Price: 250.10, Size: 10}, {Price: 250.30, Size: 20}, {Price: 251.00, Size: 100}},
		TS:   in.Books[0].Book.TS,
	}
	in.Books[0].Book, in.Books[0].Levels = exchange.StockOrderBook{}, whole
	full := build(t, in)
	calls := 0
	in.Books[0].Levels = &NumericBook{Bids: whole.Bids[:1], Asks: whole.Asks[:1], TS: whole.TS,
		Depth: func() (bids, asks []BookLevel) { calls++; return whole.Bids, whole.Asks }}
	lazy := build(t, in)
	a, _ := full.Stock("TSLAUSDT", NeedBook)
	b, _ := lazy.Stock("TSLAUSDT", NeedBook)
	if a.Bid != b.Bid || a.Ask != b.Ask || a.SpreadBps != b.SpreadBps || a.BidSize != b.BidSize || a.Imbalance != b.Imbalance || a.BookAgeSeconds != b.BookAgeSeconds {
		t.Errorf("top first %+v, whole book %+v", b, a)
	}
	if calls != 0 {
		t.Fatalf("the depth was drawn %d times before any rule read it", calls)
	}
	for _, bps := range []float64{1, 10, 100} {
		if a.DepthBid(bps) != b.DepthBid(bps) || a.DepthAsk(bps) != b.DepthAsk(bps) {
			t.Errorf("depth within %v bps: %v/%v top first, %v/%v whole", bps, b.DepthBid(bps), b.DepthAsk(bps), a.DepthBid(bps), a.DepthAsk(bps))
		}
	}
	if calls != 1 {
		t.Errorf("the depth was drawn %d times; want once", calls)
	}
}
