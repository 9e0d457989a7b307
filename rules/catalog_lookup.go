package rules

import (
	"strings"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// This file is the loader's view of the Catalog and of the State's field
// table: the few lookups it needs, in one place.

// contractInfo is what the loader needs of one contract.
type contractInfo struct {
	Symbol      string
	BaseCoin    string
	ProductType exchange.ProductType
}

func catalogContract(cat *Catalog, sym string) (contractInfo, bool) {
	c, ok := cat.Contract(sym)
	if !ok {
		return contractInfo{}, false
	}
	return contractInfo{Symbol: c.Symbol, BaseCoin: c.BaseCoin, ProductType: c.ProductType}, true
}

// catalogKnowsContracts reports whether symbols can be checked at all.
func catalogKnowsContracts(cat *Catalog) bool { return cat != nil && len(cat.Contracts) > 0 }

func catalogHasStock(cat *Catalog, s string) bool {
	_, ok := cat.StockPair(s)
	return ok
}

// ratioFields are the State fields whose unit is a ratio (0.05 = 5%), from
// the same table the compiler and the reference use.
func ratioFields() map[string]bool {
	out := map[string]bool{}
	for _, o := range marketdata.Objects() {
		for _, f := range o.Fields {
			if strings.HasPrefix(f.Unit, "ratio") {
				out[f.Name] = true
			}
		}
	}
	return out
}
