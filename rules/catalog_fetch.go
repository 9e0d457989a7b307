package rules

import (
	"context"
	"errors"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// CatalogReader is what FetchCatalog reads: public market data.
type CatalogReader interface {
	Contracts(ctx context.Context, req exchange.ContractsRequest) ([]exchange.Contract, error)
	StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error)
}

// CatalogSourcer is a CatalogReader that names where its contracts come
// from ("the scenario x.yaml"). FetchCatalog sets the Catalog's Source from
// it, so that a symbol a rule names and the scenario lacks is reported as
// missing from the scenario.
type CatalogSourcer interface {
	CatalogSource() string
}

// ErrNoContracts is wrapped by FetchCatalog when the contracts of a product
// type cannot be read: without them no order's size, price step or minimum
// can be checked, so nothing may trade.
var ErrNoContracts = errors.New("without the contracts no order can be checked against the venue's sizes and steps; nothing was started")

// FetchCatalog reads the contracts of every product type and every stock
// pair from a venue. The contracts are required: a product type whose
// contracts cannot be read is an error (ErrNoContracts). The stock pairs
// are not: a venue that will not give them to this key, or fails to, must
// not stop futures trading, so their error is kept in the Catalog's
// StockPairsErr and only the rules that read stock data wait for them
// (NeedsStockPairs; FetchStockPairs asks again).
func FetchCatalog(ctx context.Context, r CatalogReader) (*Catalog, error) {
	var contracts []marketdata.ProductContract
	for _, pt := range exchange.ProductTypes() {
		cs, err := r.Contracts(ctx, exchange.ContractsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("read %s contracts: %w: %w", pt, err, ErrNoContracts)
		}
		for _, c := range cs {
			contracts = append(contracts, marketdata.ProductContract{ProductType: pt, Contract: c})
		}
	}
	pairs, err := FetchStockPairs(ctx, r)
	if err != nil && ctx.Err() != nil {
		return nil, err // stopped, not degraded
	}
	cat := NewCatalog(contracts, pairs)
	cat.StockPairsErr = err
	if s, ok := r.(CatalogSourcer); ok {
		cat.Source = s.CatalogSource()
	}
	return cat, nil
}

// FetchStockPairs reads every stock pair of a venue.
func FetchStockPairs(ctx context.Context, r CatalogReader) ([]exchange.StockInfo, error) {
	pairs, err := r.StockInfo(ctx, exchange.StockInfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("read stock pairs: %w", err)
	}
	return pairs, nil
}

// WithStockPairs returns a copy of c with pairs as its stock pairs, read
// after c was made without them.
func (c *Catalog) WithStockPairs(pairs []exchange.StockInfo) *Catalog {
	out := NewCatalog(c.Contracts, pairs)
	out.Source = c.Source
	return out
}

// NeedsStockPairs reports whether r reads stock data (a stock pair's book,
// fills or info, by name or for every pair): it cannot run on a Catalog
// without stock pairs, whose names are unresolved there.
func NeedsStockPairs(r *Rule) bool {
	rd := r.Reads()
	return len(rd.Stocks) > 0 || rd.AllStocks || rd.SymbolStock ||
		rd.Parts.Has(marketdata.PartStockInfo) || rd.Parts.Has(marketdata.PartStockBook) || rd.Parts.Has(marketdata.PartStockTrades)
}

// Without returns the rule set of rs without the rules drop reports; the
// files are shared. It is how rules held back (NeedsStockPairs on a Catalog
// without stock pairs) are left out of a run.
func (rs *RuleSet) Without(drop func(*Rule) bool) *RuleSet {
	out := &RuleSet{Files: rs.Files}
	var all Reads
	for _, r := range rs.Rules {
		if drop(r) {
			continue
		}
		out.Rules = append(out.Rules, r)
		if r.Enabled {
			all = all.Merge(r.reads)
		}
	}
	out.reads = all
	return out
}
