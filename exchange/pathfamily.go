package exchange

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"
)

// PathFamily names the set of paths a venue serves the stock-pair
// operations under.
type PathFamily string

// Path families of the stock-pair operations.
const (
	// PathsSpec is the spec's: /api/v3/stock/market/... and
	// /api/v3/account/stock-... (engine sim serves it).
	PathsSpec PathFamily = "spec"
	// PathsReality is the live venue's: /api/v3/reality/market/... and
	// /api/v3/account/reality-... (exchange notes, "Live venue
	// differences"), where the spec's paths answer 40404.
	PathsReality PathFamily = "reality"
)

// Valid reports whether f is one of the two families.
func (f PathFamily) Valid() bool { return f == PathsSpec || f == PathsReality }

// ErrNoStockPaths is returned when neither path family answers: the venue
// serves no stock-pair data.
var ErrNoStockPaths = errors.New("the venue answers neither the spec's nor the live stock-pair paths")

// pathProbeOrder is the order StockPathFamily tries the families in: the
// live venue's first, since that is where real money is.
var pathProbeOrder = [...]PathFamily{PathsReality, PathsSpec}

// StockPathFamily returns the path family the venue speaks, asking it once
// and caching the answer; a family set in ClientOptions.StockPaths is
// returned without asking. It asks with stock-info, a public operation.
// The first stock-pair operation the client sends finds the family the
// same way, so calling this first costs no extra request.
func (c *Client) StockPathFamily(ctx context.Context) (PathFamily, error) {
	if f := c.paths.Load(); f != nil {
		return *f, nil
	}
	info, _ := LookupOp(OpStockInfo)
	if _, err := doStock[[]StockInfo](ctx, c, info, &StockInfoRequest{}); err != nil && !errors.Is(err, ErrNoStockPaths) {
		if f := c.paths.Load(); f != nil {
			return *f, nil // the venue answered on a path: an error, but the path exists
		}
		return "", fmt.Errorf("stock path family: %w", err)
	} else if err != nil {
		return "", fmt.Errorf("stock path family: %w", err)
	}
	return *c.paths.Load(), nil
}

// doStock runs a stock-pair operation on the path of the venue's family.
// While the family is unknown, the operation itself is the question: sent
// on the live venue's path first, and on the spec's when that answers not
// found (40404 or HTTP 404); any other answer, an error envelope included,
// shows the path exists and fixes the family. A transport failure fixes
// nothing, so the next operation asks again.
func doStock[T any](ctx context.Context, c *Client, info OpInfo, req any) (T, error) {
	var out T
	if f := c.paths.Load(); f != nil {
		info.Path = info.PathFor(*f)
		return doInfo[T](ctx, c, info, req)
	}
	select {
	case c.pathsSem <- struct{}{}:
	case <-ctx.Done():
		return out, fmt.Errorf("%s: finding the stock path family: %w", info.Op, ctx.Err())
	}
	defer func() { <-c.pathsSem }()
	if f := c.paths.Load(); f != nil {
		info.Path = info.PathFor(*f)
		return doInfo[T](ctx, c, info, req)
	}
	var errs []error
	for _, f := range pathProbeOrder {
		probe := info
		probe.Path = info.PathFor(f)
		res, err := doInfo[T](ctx, c, probe, req)
		if isPathNotFound(err) {
			errs = append(errs, err)
			continue
		}
		var apiErr *APIError
		if err == nil || (errors.As(err, &apiErr) && apiErr.Code != "") {
			c.paths.Store(&f)
			c.log.Info("stock-pair path family", zap.String("family", string(f)))
		}
		return res, err
	}
	return out, fmt.Errorf("%s: %w: %w", info.Op, ErrNoStockPaths, errors.Join(errs...))
}

// isPathNotFound reports an answer that means "no such path": code 40404 or
// an HTTP 404 (with or without an envelope).
func isPathNotFound(err error) bool { return errors.Is(err, ErrUnavailable) }
