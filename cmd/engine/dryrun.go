package main

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/paper"
	"github.com/tickrules/tickrules/rules"
)

// paperPriceEvery is how often a dry run reads the live prices of the
// symbols its rules name.
const paperPriceEvery = 2 * time.Second

// dryRunVenue reads from the venue through a read-only client and trades on
// a paper account seeded from the live account. Nothing in the returned set
// can send a mutating request to the venue: the only handle on it is an
// exchange.ReadOnlyClient. The paper account and the rules read clk, the
// venue's time.
func dryRunVenue(ctx context.Context, opts exchange.ClientOptions, clk exchange.Clock, log *zap.Logger) (*venueSet, error) {
	ro, err := exchange.NewReadOnlyClient(opts)
	if err != nil {
		return nil, err
	}
	cat, err := rules.FetchCatalog(ctx, ro)
	if err != nil {
		return nil, fmt.Errorf("dry run: read contracts: %w", err)
	}
	acct, prices, err := paper.Open(ctx, ro, cat.Contracts, clk, log.Named("paper"))
	if err != nil {
		return nil, fmt.Errorf("dry run: %w", err)
	}
	log.Info("DRY RUN: reading from the venue, orders go to a paper account seeded from it", zap.String("venue", opts.BaseURL))
	return &venueSet{
		name: "dry run on " + opts.BaseURL, reader: acct, cat: acct, accts: acct, trader: acct, pricer: acct, clock: clk,
		close: func() {},
		start: func(ctx context.Context, symbols []string) error {
			if err := prices.Refresh(ctx, symbols); err != nil {
				return fmt.Errorf("dry run: read prices: %w", err)
			}
			go prices.Run(ctx, symbols, paperPriceEvery, clk.After)
			return nil
		},
	}, nil
}
