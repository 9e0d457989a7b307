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
	return NewCatalog(contracts, pairs), nil
}
