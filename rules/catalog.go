package rules

import (
	"fmt"
	"slices"
	"sync"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
)

// Catalog is what the loader knows about the venue: the futures contracts
// (with their product type) and the US stock pairs. Constant symbols in
// conditions and action parameters are checked against it. A nil *Catalog
// checks nothing. The lookups index the lists on first use, so a Catalog
// built as a literal works too; do not change the lists after that.
type Catalog struct {
	Contracts  []marketdata.ProductContract
	StockPairs []exchange.StockInfo
	// Source, when set, names where the contracts come from ("the scenario
	// x.yaml"): a symbol it lacks is then reported as missing there, for
	// the author to add, rather than only as a mistake of the rule.
	Source string
	// StockPairsErr, when set, is why the stock pairs could not be read
	// (FetchCatalog): StockPairs is then empty, stock pair names in rules
	// are taken as written, unchecked, and the rules that read stock data
	// must not run (NeedsStockPairs) until the pairs are read.
	StockPairsErr error

	once       sync.Once
	contractBy map[string]int // symbol -> index in Contracts
	stockBy    map[string]int // pair symbol and stock code -> index in StockPairs
	futures    []string       // contract symbols, for suggestions
	stockNames []string       // pair symbols then codes, for suggestions
}

// NewCatalog returns a Catalog of copies of contracts and pairs.
func NewCatalog(contracts []marketdata.ProductContract, pairs []exchange.StockInfo) *Catalog {
	return &Catalog{Contracts: slices.Clone(contracts), StockPairs: slices.Clone(pairs)}
}

// index builds the lookups. A pair symbol wins over another pair's stock
// code when they collide; the first of duplicates wins.
func (c *Catalog) index() {
	c.once.Do(func() {
		c.contractBy = make(map[string]int, len(c.Contracts))
		c.stockBy = make(map[string]int, 2*len(c.StockPairs))
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
	})
}

// Contract returns the futures contract called symbol.
func (c *Catalog) Contract(symbol string) (marketdata.ProductContract, bool) {
	if c == nil {
		return marketdata.ProductContract{}, false
	}
	c.index()
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
	c.index()
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
	c.index()
	return rulefmt.Suggest(symbol, c.futures)
}

// SuggestStockPair returns the pair symbol or code closest to name, or "".
func (c *Catalog) SuggestStockPair(name string) string {
	if c == nil {
		return ""
	}
	c.index()
	return rulefmt.Suggest(name, c.stockNames)
}

// missing returns what a finding about a symbol the catalog lacks adds to
// its message (" in the scenario x.yaml") and its hint when it has no
// other, from Source.
func (c *Catalog) missing(what, sym string) (where, hint string) {
	if c == nil || c.Source == "" {
		return "", ""
	}
	return " in " + c.Source, fmt.Sprintf("if the rule is right, add %s to the %s of %s", sym, what, c.Source)
}
