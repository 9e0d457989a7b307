package rules

import "testing"

func TestCatalog(t *testing.T) {
	c := testCatalog()
	for _, tc := range []struct {
		name, symbol string
		ok           bool
	}{
		{"TSLA", "TSLAUSDT", true},
		{"TSLAUSDT", "TSLAUSDT", true},
		{"NVDA", "NVDAUSDT", true},
		{"AAPL", "", false},
		{"tsla", "", false},
	} {
		p, ok := c.StockPair(tc.name)
		if ok != tc.ok || p.Symbol != tc.symbol {
			t.Errorf("StockPair(%q) = %q, %v", tc.name, p.Symbol, ok)
		}
	}
	if k, ok := c.Contract("BTCUSD"); !ok || k.ProductType != "COIN-FUTURES" {
		t.Errorf("Contract(BTCUSD) = %+v, %v", k, ok)
	}
	if _, ok := c.Contract("TSLA"); ok {
		t.Error("a stock code is not a contract")
	}
	if got := c.SuggestContract("TSLAUSD"); got != "TSLAUSDT" {
		t.Errorf("SuggestContract = %q", got)
	}
	if got := c.SuggestStockPair("NVDIA"); got != "NVDA" {
		t.Errorf("SuggestStockPair = %q", got)
	}
	var none *Catalog
	if _, ok := none.StockPair("TSLA"); ok || none.SuggestContract("X") != "" {
		t.Error("a nil catalog knows something")
	}
}

// TestCatalogLiteral checks that a Catalog written as a literal indexes
// itself, so that it cannot silently know nothing.
func TestCatalogLiteral(t *testing.T) {
	c := &Catalog{StockPairs: testCatalog().StockPairs, Contracts: testCatalog().Contracts}
	if p, ok := c.StockPair("TSLA"); !ok || p.Symbol != "TSLAUSDT" {
		t.Errorf("StockPair(TSLA) = %+v, %v", p, ok)
	}
	if _, ok := c.Contract("NVDAUSDT"); !ok {
		t.Error("Contract(NVDAUSDT) not found")
	}
}
