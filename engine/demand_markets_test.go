package engine_test

import (
	"slices"
	"testing"

	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
)

// TestDemandFetchesTheMarketsReadOnly: a contract's ticker and book are
// fetched for the contracts whose market a rule reads, not for every
// contract the rules name.
func TestDemandFetchesTheMarketsReadOnly(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []poll.Contract
		parts      []marketdata.Part
	}{
		{"ticker of one, orders of another", `rules:
  - name: r
    when: ticker("BTCUSDT").last > 0 && orders_count("ETHUSDT") == 0
    actions: [{log: {message: x}}]
`, []poll.Contract{{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"}}, []marketdata.Part{marketdata.PartTicker}},
		{"book per for_each symbol", `rules:
  - name: r
    for_each: [BTCUSDT, BTCUSD]
    when: book(symbol).spread_bps < 5
    actions: [{log: {message: x}}]
`, []poll.Contract{{ProductType: exchange.COINFutures, Symbol: "BTCUSD"}, {ProductType: exchange.USDTFutures, Symbol: "BTCUSDT"}}, []marketdata.Part{marketdata.PartFuturesBook}},
		{"no market read", `rules:
  - name: r
    when: orders_count("ETHUSDT") == 0
    actions: [{log: {message: x}}]
`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, cat, rs := demoWorld(t, tc.yaml)
			d := assemble.Demand(rs, cat)
			if !slices.Equal(d.Contracts, tc.want) {
				t.Errorf("contracts %v, want %v", d.Contracts, tc.want)
			}
			for _, p := range []marketdata.Part{marketdata.PartTicker, marketdata.PartFuturesBook} {
				if d.Parts.Has(p) != slices.Contains(tc.parts, p) {
					t.Errorf("part %s demanded: %v", p, d.Parts.Has(p))
				}
			}
		})
	}
}
