package exchange

import (
	"errors"
	"fmt"
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
}

// NewReadOnlyClient returns a read-only client for opts.
func NewReadOnlyClient(opts ClientOptions) (*ReadOnlyClient, error) {
	c, err := NewClient(opts)
	if err != nil {
		return nil, err
	}
	c.readOnly = true
	return &ReadOnlyClient{Reader: c}, nil
}

// refuseMutating is the transport-level half of the guarantee.
func (c *Client) refuseMutating(info OpInfo) error {
	if c.readOnly && info.Mutating {
		return fmt.Errorf("%s: %w", info.Op, ErrReadOnly)
	}
	return nil
}
