package rules

import (
	"context"
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

// FetchCatalog reads the contracts of every product type and every stock
// pair from a venue.
func FetchCatalog(ctx context.Context, r CatalogReader) (*Catalog, error) {
	var contracts []marketdata.ProductContract
	for _, pt := range exchange.ProductTypes() {
		cs, err := r.Contracts(ctx, exchange.ContractsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("read %s contracts: %w", pt, err)
		}
		for _, c := range cs {
			contracts = append(contracts, marketdata.ProductContract{ProductType: pt, Contract: c})
		}
	}
	pairs, err := r.StockInfo(ctx, exchange.StockInfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("read stock pairs: %w", err)
	}
	cat := NewCatalog(contracts, pairs)
	if s, ok := r.(CatalogSourcer); ok {
		cat.Source = s.CatalogSource()
	}
	return cat, nil
}
