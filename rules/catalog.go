package rules

import (
	"slices"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Catalog is what the loader knows about the venue: the futures contracts
// (with their product type) and the US stock pairs. Constant symbols in
// conditions and action parameters are checked against it. Build it with
// NewCatalog; a nil *Catalog checks nothing.
type Catalog struct {
	Contracts  []marketdata.ProductContract
	StockPairs []exchange.StockInfo

	contractBy map[string]int // symbol -> index in Contracts
	stockBy    map[string]int // pair symbol and stock code -> index in StockPairs
	futures    []string       // contract symbols, for suggestions
	stockNames []string       // pair symbols then codes, for suggestions
}

// NewCatalog indexes contracts and stock pairs. A pair symbol wins over
// another pair's stock code when they collide.
func NewCatalog(contracts []marketdata.ProductContract, pairs []exchange.StockInfo) *Catalog {
	c := &Catalog{
		Contracts:  slices.Clone(contracts),
		StockPairs: slices.Clone(pairs),
		contractBy: make(map[string]int, len(contracts)),
		stockBy:    make(map[string]int, 2*len(pairs)),
	}
	for i, k := range c.Contracts {
		if _, dup := c.contractBy[k.Symbol]; !dup {
			c.contractBy[k.Symbol] = i
			c.futures = append(c.futures, k.Symbol)
		}
	}
	for i, p := range c.StockPairs {
		if _, dup := c.stockBy[p.Symbol]; !dup {
			c.stockBy[p.Symbol] = i
			c.stockNames = append(c.stockNames, p.Symbol)
		}
	}
	for i, p := range c.StockPairs {
		if _, dup := c.stockBy[p.Code]; !dup && p.Code != "" {
			c.stockBy[p.Code] = i
			c.stockNames = append(c.stockNames, p.Code)
		}
	}
	return c
}

// Contract returns the futures contract called symbol.
func (c *Catalog) Contract(symbol string) (marketdata.ProductContract, bool) {
	if c == nil {
		return marketdata.ProductContract{}, false
	}
	i, ok := c.contractBy[symbol]
	if !ok {
		return marketdata.ProductContract{}, false
	}
	return c.Contracts[i], true
}

// StockPair returns the stock pair whose pair symbol (TSLAUSDT) or stock
// code (TSLA) is name.
func (c *Catalog) StockPair(name string) (exchange.StockInfo, bool) {
	if c == nil {
		return exchange.StockInfo{}, false
	}
	i, ok := c.stockBy[name]
	if !ok {
		return exchange.StockInfo{}, false
	}
	return c.StockPairs[i], true
}

// SuggestContract returns the contract symbol closest to symbol, or "".
func (c *Catalog) SuggestContract(symbol string) string {
	if c == nil {
		return ""
	}
	return Suggest(symbol, c.futures)
}

// SuggestStockPair returns the pair symbol or code closest to name, or "".
func (c *Catalog) SuggestStockPair(name string) string {
	if c == nil {
		return ""
	}
	return Suggest(name, c.stockNames)
}
