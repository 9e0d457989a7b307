package main

import (
	"context"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
)

// readPositionModes reads the account's position mode per product type.
func readPositionModes(ctx context.Context, r accountsReader) (map[exchange.ProductType]exchange.PosMode, error) {
	modes := map[exchange.ProductType]exchange.PosMode{}
	for _, pt := range exchange.ProductTypes() {
		accounts, err := r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("read %s account (position mode): %w", pt, err)
		}
		for _, a := range accounts {
			if a.PosMode != "" {
				modes[pt] = a.PosMode
			}
		}
	}
	return modes, nil
}
