package marketdata

import (
	"slices"
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// TestSameKeys changes one thing at a time in the fixture and checks which
// conditions' data it changes: the records of one symbol change only that
// symbol's keys, a book only its pair's, the stock info every pair's, and
// anything outside the keyed parts every condition that reads it whole.
func TestSameKeys(t *testing.T) {
	base := build(t, fullInput())
	positions := PartSet(0).Add(PartPositions)
	orders := PartSet(0).Add(PartOrders)
	books := PartSet(0).Add(PartStockBook)
	fills := PartSet(0).Add(PartStockTrades)
	keys := map[string]Keys{
		"TSLA position": NewKeys(positions, []string{"TSLAUSDT"}, nil, false),
		"NVDA position": NewKeys(positions, []string{"NVDAUSDT"}, nil, false),
		"TSLA orders":   NewKeys(orders, []string{"TSLAUSDT"}, nil, false),
		"NVDA orders":   NewKeys(orders, []string{"NVDAUSDT"}, nil, false),
		"TSLA book":     NewKeys(books, nil, []string{"TSLAUSDT"}, false),
		"NVDA book":     NewKeys(books, nil, []string{"NVDAUSDT"}, false),
		"TSLA fills":    NewKeys(fills, nil, []string{"TSLAUSDT"}, false),
		"all positions": NewKeys(positions, nil, nil, true),
		"balances":      NewKeys(PartSet(0).Add(PartBalances), nil, nil, false),
		"nothing":       NewKeys(0, nil, nil, false),
	}
	tests := []struct {
		name    string
		change  func(in *BuildInput)
		changed []string // the keys whose data differs; the others are the same
	}{
		// Built twice from the same answers: only what is compared whole differs.
		{"nothing", func(*BuildInput) {}, []string{"all positions", "balances"}},
		{"TSLA's mark price", func(in *BuildInput) {
			in.Positions = []PositionsInput{{ProductType: exchange.USDTFutures, At: now, Positions: slices.Clone(in.Positions[0].Positions)}}
			in.Positions[0].Positions[0].MarkPrice = "251"
		}, []string{"TSLA position", "all positions", "balances"}},
		{"an NVDA position opens", func(in *BuildInput) {
			ps := append(slices.Clone(in.Positions[0].Positions), exchange.Position{Symbol: "NVDAUSDT", HoldSide: exchange.Long, Total: "1", MarginCoin: "USDT"})
			in.Positions = []PositionsInput{{ProductType: exchange.USDTFutures, At: now, Positions: ps}}
		}, []string{"NVDA position", "all positions", "balances"}},
		{"the positions of another product type fetched", func(in *BuildInput) {
			in.Positions = append(slices.Clone(in.Positions), PositionsInput{ProductType: exchange.COINFutures, At: now})
		}, []string{"TSLA position", "NVDA position", "all positions", "balances"}},
		{"a TSLA order", func(in *BuildInput) {
			os := slices.Clone(in.Orders[0].Orders)
			os[0].Size = "4"
			in.Orders = []OrdersInput{{ProductType: exchange.USDTFutures, At: now, Orders: os}}
		}, []string{"TSLA orders", "all positions", "balances"}},
		{"TSLA's book", func(in *BuildInput) {
			in.Books = slices.Clone(in.Books)
			in.Books[0].Book.Bids = slices.Clone(in.Books[0].Book.Bids)
		}, []string{"TSLA book", "all positions", "balances"}},
		{"TSLA's fills", func(in *BuildInput) {
			in.Fills = []FillsInput{{Symbol: "TSLAUSDT", At: now, Fills: slices.Clone(in.Fills[0].Fills)}}
		}, []string{"TSLA fills", "all positions", "balances"}},
		// Compared pair by pair, by value: an equal answer changes nothing
		// (state_keys_more_test.go changes one pair's info).
		{"the stock info", func(in *BuildInput) {
			in.StockInfo = &StockInfoInput{At: in.StockInfo.At, Pairs: slices.Clone(in.StockInfo.Pairs)}
		}, []string{"all positions", "balances"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fullInput()
			// The same answers as base's, as the pollers hand them over.
			ref := fullInput()
			in.StockInfo.Pairs, in.Books, in.Fills = ref.StockInfo.Pairs, ref.Books, ref.Fills
			in.Positions, in.Orders = ref.Positions, ref.Orders
			base := build(t, in)
			tt.change(&in)
			st := build(t, in)
			for name, k := range keys {
				want := !slices.Contains(tt.changed, name)
				if got := st.SameKeys(base, &k); got != want {
					t.Errorf("%s: SameKeys = %v, want %v", name, got, want)
				}
			}
		})
	}
	for name, k := range keys {
		if !base.SameKeys(base, &k) {
			t.Errorf("%s: a State differs from itself", name)
		}
	}
	if base.SameKeys(nil, &Keys{}) {
		t.Error("a State is the same as no State")
	}
}

// TestSameRecords walks fetches of records with the symbol's records spread
// over them, some missing, some extra, some changed.
func TestSameRecords(t *testing.T) {
	p := func(sym, size string) exchange.Position {
		return exchange.Position{Symbol: sym, Total: exchange.Num(size)}
	}
	fetch := func(ps ...exchange.Position) PositionsInput { return PositionsInput{Positions: ps} }
	tests := []struct {
		name string
		a, b []PositionsInput
		want bool
	}{
		{"none", nil, nil, true},
		{"empty fetches", []PositionsInput{fetch()}, nil, true},
		{"the same, other symbols differ", []PositionsInput{fetch(p("X", "1"), p("Y", "1"))}, []PositionsInput{fetch(p("Y", "2"), p("X", "1"))}, true},
		{"split over fetches", []PositionsInput{fetch(p("X", "1")), fetch(p("X", "2"))}, []PositionsInput{fetch(p("X", "1"), p("X", "2"))}, true},
		{"changed", []PositionsInput{fetch(p("X", "1"))}, []PositionsInput{fetch(p("X", "2"))}, false},
		{"one more", []PositionsInput{fetch(p("X", "1"))}, []PositionsInput{fetch(p("X", "1"), p("X", "1"))}, false},
		{"one fewer", []PositionsInput{fetch(p("X", "1"), p("Y", "1"))}, []PositionsInput{fetch(p("Y", "1"))}, false},
		{"order", []PositionsInput{fetch(p("X", "1"), p("X", "2"))}, []PositionsInput{fetch(p("X", "2"), p("X", "1"))}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameRecords(tt.a, tt.b, "X", positionsOf, positionSymbol); got != tt.want {
				t.Errorf("sameRecords = %v, want %v", got, tt.want)
			}
			if got := sameRecords(tt.b, tt.a, "X", positionsOf, positionSymbol); got != tt.want {
				t.Errorf("sameRecords, swapped = %v, want %v", got, tt.want)
			}
		})
	}
}
