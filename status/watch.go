package status

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// FillsReader reads the recent fills of a product type (the venue).
type FillsReader interface {
	Fills(ctx context.Context, req exchange.FillsRequest) (exchange.FillPage, error)
}

// Clock is the time source of the watcher and the snapshot.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// AccountsReader reads the balances of a product type (the venue).
type AccountsReader interface {
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
}

// WatcherOptions configure a Watcher.
type WatcherOptions struct {
	Fills    FillsReader
	Accounts AccountsReader
	Products []exchange.ProductType // the product types to read fills and balances of
	Recorder *Recorder
	Clock    Clock
	// Since is the time from which fills count (the engine's start).
	Since time.Time
	// Every is the time between two reads (default 5s): one fills and one
	// accounts request per product type, well inside the venue's limits.
	Every time.Duration
	// OnFill is called with each new fill (the log).
	OnFill func(FillRecord)
}

// Watcher reads the account's fills and balances off the tick loop, so the
// status page and the closing summary know the fills and the P&L since
// start whatever the rules read.
type Watcher struct {
	opts WatcherOptions
}

// NewWatcher returns a Watcher for opts.
func NewWatcher(opts WatcherOptions) *Watcher {
	if opts.Every <= 0 {
		opts.Every = 5 * time.Second
	}
	return &Watcher{opts: opts}
}

// Poll reads once: the balances of every product type and its fills since
// Since. What fails to read is read on the next Poll; the error names the
// first failure.
func (w *Watcher) Poll(ctx context.Context) error {
	var first error
	for _, pt := range w.opts.Products {
		accts, err := w.opts.Accounts.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			first = cmp.Or(first, fmt.Errorf("read %s accounts: %w", pt, err))
		} else {
			w.opts.Recorder.ObserveAccounts(pt, accts)
		}
		page, err := w.opts.Fills.Fills(ctx, exchange.FillsRequest{ProductType: pt, StartTime: exchange.MillisOf(w.opts.Since), Limit: 100})
		if err != nil {
			first = cmp.Or(first, fmt.Errorf("read %s fills: %w", pt, err))
			continue
		}
		for _, f := range w.opts.Recorder.ObserveFills(pt, page.FillList) {
			if w.opts.OnFill != nil {
				w.opts.OnFill(f)
			}
		}
	}
	return first
}

// Run polls every Every until ctx ends; a failed read is reported to
// onErr (may be nil) and retried on the next round.
func (w *Watcher) Run(ctx context.Context, onErr func(error)) {
	for {
		if err := w.Poll(ctx); err != nil && onErr != nil && ctx.Err() == nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.opts.Clock.After(w.opts.Every):
		}
	}
}
