package poll

import (
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Demand is what the loaded rules read: the parts, and for the parts fetched
// per pair, product type or category, which ones. The poller fetches exactly
// this and nothing else.
type Demand struct {
	Parts        marketdata.PartSet
	StockPairs   []string
	ProductTypes []exchange.ProductType
	Categories   []exchange.Category
}

// keys are the keys part is fetched for: the stock pairs, product types or
// categories demanded, or one empty key for a part fetched whole.
func (d Demand) keys(part marketdata.Part) []string {
	switch parts[part].keyedBy {
	case byPair:
		return d.StockPairs
	case byProductType:
		keys := make([]string, 0, len(d.ProductTypes))
		for _, pt := range d.ProductTypes {
			keys = append(keys, string(pt))
		}
		return keys
	case byCategory:
		keys := make([]string, 0, len(d.Categories))
		for _, c := range d.Categories {
			keys = append(keys, string(c))
		}
		return keys
	}
	return []string{""}
}
