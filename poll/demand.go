package poll

import (
	"strings"

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
	// Contracts are the futures contracts whose ticker and book the rules
	// read.
	Contracts []Contract
}

// Contract names one futures contract: its ticker and book are fetched by
// symbol and product type.
type Contract struct {
	ProductType exchange.ProductType
	Symbol      string
}

// key is the contract's key in the poller's tasks, "USDT-FUTURES/BTCUSDT".
func (c Contract) key() string { return string(c.ProductType) + "/" + c.Symbol }

// contractOfKey reads a key that Contract.key wrote.
func contractOfKey(key string) Contract {
	pt, sym, _ := strings.Cut(key, "/")
	return Contract{ProductType: exchange.ProductType(pt), Symbol: sym}
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
	case byContract:
		keys := make([]string, 0, len(d.Contracts))
		for _, c := range d.Contracts {
			keys = append(keys, c.key())
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
