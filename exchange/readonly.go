package exchange

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrReadOnly is returned, before anything is sent, for a mutating operation
// on a read-only client.
var ErrReadOnly = errors.New("read-only client: mutating operations are disabled")

// ReadOnlyClient is a client for dry runs: its method set is Reader and
// nothing else, so code holding it cannot even name an order operation, and
// the client inside refuses every mutating operation before signing it, so
// not even a type assertion can get an order sent.
type ReadOnlyClient struct {
	Reader
	client *Client
}

// NewReadOnlyClient returns a read-only client for opts.
func NewReadOnlyClient(opts ClientOptions) (*ReadOnlyClient, error) {
	c, err := NewClient(opts)
	if err != nil {
		return nil, err
	}
	c.readOnly = true
	return &ReadOnlyClient{Reader: c, client: c}, nil
}

// The client's reads outside Reader, which a dry run and a doctor need too.

// ServerTime is Client.ServerTime.
func (r *ReadOnlyClient) ServerTime(ctx context.Context) (time.Time, error) {
	return r.client.ServerTime(ctx)
}

// SyncClock is Client.SyncClock.
func (r *ReadOnlyClient) SyncClock(ctx context.Context) (time.Duration, error) {
	return r.client.SyncClock(ctx)
}

// ClockOffset is Client.ClockOffset.
func (r *ReadOnlyClient) ClockOffset() time.Duration { return r.client.ClockOffset() }

// StockPathFamily is Client.StockPathFamily.
func (r *ReadOnlyClient) StockPathFamily(ctx context.Context) (PathFamily, error) {
	return r.client.StockPathFamily(ctx)
}

// SingleAccount is Client.SingleAccount.
func (r *ReadOnlyClient) SingleAccount(ctx context.Context, req SingleAccountRequest) (SingleAccount, error) {
	return r.client.SingleAccount(ctx, req)
}

// AccountPositionMode is Client.AccountPositionMode.
func (r *ReadOnlyClient) AccountPositionMode(ctx context.Context, productType ProductType, symbol, marginCoin string) (PosMode, error) {
	return r.client.AccountPositionMode(ctx, productType, symbol, marginCoin)
}

var _ ModeSource = (*ReadOnlyClient)(nil)

// refuseMutating is the transport-level half of the guarantee.
func (c *Client) refuseMutating(info OpInfo) error {
	if c.readOnly && info.Mutating {
		return fmt.Errorf("%s: %w", info.Op, ErrReadOnly)
	}
	return nil
}
