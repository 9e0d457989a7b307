package main

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
)

// dryRunVenue is a placeholder replaced by the paper account.
func dryRunVenue(ctx context.Context, opts exchange.ClientOptions, log *zap.Logger) (*venueSet, error) {
	return nil, errors.New("--dry-run: not implemented yet")
}
