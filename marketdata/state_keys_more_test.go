package marketdata

import (
	"slices"
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// TestSameKeysInfoAndStrategy is TestSameKeys for the parts keyed pair by
// pair and symbol by symbol since the stock info and the strategy orders
// are: a change of one pair's info or one symbol's strategy orders changes
// only the keys that read it; an equal answer changes none.
func TestSameKeysInfoAndStrategy(t *testing.T) {
	info := PartSet(0).Add(PartStockInfo)
	strategy := PartSet(0).Add(PartStrategyOrders)
	keys := map[string]Keys{
		"TSLA info":     NewKeys(info, nil, []string{"TSLAUSDT"}, false),
		"NVDA info":     NewKeys(info, nil, []string{"NVDAUSDT"}, false),
		"TSLA by code":  NewKeys(info, nil, []string{"TSLA"}, false),
		"TSLA book":     NewKeys(PartSet(0).Add(PartStockBook), nil, []string{"TSLAUSDT"}, false),
		"TSLA strategy": NewKeys(strategy, []string{"TSLAUSDT"}, nil, false),
		"NVDA strategy": NewKeys(strategy, []string{"NVDAUSDT"}, nil, false),
		"all strategy":  NewKeys(strategy, nil, nil, true),
	}
	clonePairs := func(in *BuildInput) []exchange.StockInfo {
		ps := slices.Clone(in.StockInfo.Pairs)
		in.StockInfo = &StockInfoInput{At: in.StockInfo.At, Pairs: ps}
		return ps
	}
	cloneStrategy := func(in *BuildInput) []exchange.StrategyOrder {
		os := slices.Clone(in.StrategyOrders[0].Orders)
		in.StrategyOrders = []StrategyOrdersInput{{Category: in.StrategyOrders[0].Category, At: now, Orders: os}}
		return os
	}
	tests := []struct {
		name    string
		change  func(in *BuildInput)
		changed []string // the keys whose data differs; the others are the same
	}{
		{"nothing", func(*BuildInput) {}, []string{"all strategy"}},
		{"the info fetched again, equal", func(in *BuildInput) { clonePairs(in) }, []string{"all strategy"}},
		{"TSLA's name", func(in *BuildInput) { clonePairs(in)[0].Name = "Tesla Inc" }, []string{"TSLA info", "TSLA by code", "TSLA book", "all strategy"}},
		{"NVDA's trading periods", func(in *BuildInput) {
			clonePairs(in)[1].TradingPeriod = []exchange.TradingPeriod{exchange.Regular}
		}, []string{"NVDA info", "all strategy"}},
		{"NVDA's weekend trading", func(in *BuildInput) { clonePairs(in)[1].WeekendTradable = exchange.LowerNo }, []string{"NVDA info", "all strategy"}},
		{"a pair listed", func(in *BuildInput) {
			in.StockInfo = &StockInfoInput{At: in.StockInfo.At, Pairs: append(clonePairs(in), exchange.StockInfo{Symbol: "AAPLUSDT", Code: "AAPL"})}
		}, []string{"all strategy"}},
		{"TSLA delisted", func(in *BuildInput) {
			in.StockInfo = &StockInfoInput{At: in.StockInfo.At, Pairs: clonePairs(in)[1:]}
			in.Books, in.Fills = in.Books[1:], nil
		}, []string{"TSLA info", "TSLA by code", "TSLA book", "all strategy"}},
		{"the info not fetched", func(in *BuildInput) { in.StockInfo = nil }, []string{"TSLA info", "NVDA info", "TSLA by code", "TSLA book", "all strategy"}},
		{"the strategy orders fetched again, equal", func(in *BuildInput) { cloneStrategy(in) }, []string{"all strategy"}},
		{"a TSLA stop-loss moved", func(in *BuildInput) { cloneStrategy(in)[0].StopLoss = "245" }, []string{"TSLA strategy", "all strategy"}},
		{"a TSLA trailing stop's parameters", func(in *BuildInput) {
			os := cloneStrategy(in)
			os[1].TrailingStopParams = []exchange.TrailingStopParams{{ActivationPrice: "271", TrailVariance: "0.01"}}
		}, []string{"TSLA strategy", "all strategy"}},
		{"the TSLA orders swapped", func(in *BuildInput) {
			os := cloneStrategy(in)
			os[0], os[1] = os[1], os[0]
		}, []string{"TSLA strategy", "all strategy"}},
		{"an NVDA strategy order placed", func(in *BuildInput) {
			in.StrategyOrders[0].Orders = append(cloneStrategy(in), exchange.StrategyOrder{OrderID: "s3", Symbol: "NVDAUSDT", Qty: "1", PosSide: exchange.Long, StopLoss: "170"})
		}, []string{"NVDA strategy", "all strategy"}},
		{"another category fetched", func(in *BuildInput) {
			in.StrategyOrders = append(slices.Clone(in.StrategyOrders), StrategyOrdersInput{Category: exchange.CategoryCOINFutures, At: now})
		}, []string{"TSLA strategy", "NVDA strategy", "all strategy"}},
		{"the strategy orders not fetched", func(in *BuildInput) { in.StrategyOrders = nil }, []string{"TSLA strategy", "NVDA strategy", "all strategy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fullInput()
			// The same answers as base's, as the pollers hand them over.
			ref := fullInput()
			in.StockInfo.Pairs, in.Books, in.Fills, in.StrategyOrders = ref.StockInfo.Pairs, ref.Books, ref.Fills, ref.StrategyOrders
			base := build(t, in)
			tt.change(&in)
			st := build(t, in)
			for name, k := range keys {
				want := !slices.Contains(tt.changed, name)
				if got := st.SameKeys(base, &k); got != want {
					t.Errorf("%s: SameKeys = %v, want %v", name, got, want)
				}
				if got := base.SameKeys(st, &k); got != want {
					t.Errorf("%s: SameKeys, swapped = %v, want %v", name, got, want)
				}
			}
		})
	}
}

// TestSameStrategyOrder: every field and parameter list of a strategy
// order record tells two records apart.
func TestSameStrategyOrder(t *testing.T) {
	base := exchange.StrategyOrder{OrderID: "s1", Symbol: "TSLAUSDT", Qty: "2", StopLoss: "240",
		OCOParams: []exchange.OCOParams{{OCOLimitPrice: "1"}}, TWAPParams: []exchange.TWAPParams{{Duration: "5"}}}
	tests := []struct {
		name   string
		change func(o *exchange.StrategyOrder)
		same   bool
	}{
		{"a copy", func(*exchange.StrategyOrder) {}, true},
		{"parameter lists copied", func(o *exchange.StrategyOrder) { o.OCOParams = slices.Clone(o.OCOParams) }, true},
		{"qty", func(o *exchange.StrategyOrder) { o.Qty = "3" }, false},
		{"status", func(o *exchange.StrategyOrder) { o.Status = exchange.StrategyCancelled }, false},
		{"updated time", func(o *exchange.StrategyOrder) { o.UpdatedTime = ms(now) }, false},
		{"an OCO leg", func(o *exchange.StrategyOrder) { o.OCOParams = []exchange.OCOParams{{OCOLimitPrice: "2"}} }, false},
		{"a TWAP parameter", func(o *exchange.StrategyOrder) { o.TWAPParams = []exchange.TWAPParams{{Duration: "6"}} }, false},
		{"an iceberg added", func(o *exchange.StrategyOrder) { o.IcebergParams = []exchange.IcebergParams{{}} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.change(&o)
			if got := sameStrategyOrder(&base, &o); got != tt.same {
				t.Errorf("sameStrategyOrder = %v, want %v", got, tt.same)
			}
		})
	}
}
