// Package doctor is the read-only preflight of an account and its rules:
// engine doctor prints it, and engine run --venue live|demo runs it before
// it trades and refuses to start on a blocker. Each check gives one line of
// a checklist a trader can read: ok, warn or fail, what was found, and for
// anything but ok what to do about it in plain words.
//
// The doctor reads through Venue, a small interface of read operations
// only, so it cannot send an order even by mistake; engine doctor also
// hands it a client that refuses mutating requests at the transport.
package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Status is the verdict of one line.
type Status int

// Statuses, from good to blocking.
const (
	OK   Status = iota // nothing to do
	Warn               // works, but the trader should know or act
	Fail               // a blocker: the engine must not start
)

// String is the column the checklist prints.
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	}
	return "FAIL"
}

// Line is one item of the checklist.
type Line struct {
	Status Status
	// Topic names what was checked: "credentials", "symbol BTCUSDT".
	Topic string
	// Detail says what was found.
	Detail string
	// Fix says what to do; empty on ok lines.
	Fix string
}

// Report is the checklist of one run.
type Report struct {
	Lines []Line
}

func (r *Report) add(s Status, topic, fix, format string, args ...any) {
	r.Lines = append(r.Lines, Line{Status: s, Topic: topic, Detail: fmt.Sprintf(format, args...), Fix: fix})
}

// Count returns how many lines have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, l := range r.Lines {
		if l.Status == s {
			n++
		}
	}
	return n
}

// Blocked reports whether any line is a blocker.
func (r *Report) Blocked() bool { return r.Count(Fail) > 0 }

// topicWidth aligns the details of the checklist.
const topicWidth = 30

// Write prints the checklist, one line per check with its fix indented
// below, and a summary line.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	for _, l := range r.Lines {
		fmt.Fprintf(&b, "%-4s  %-*s %s\n", l.Status, topicWidth, l.Topic, l.Detail)
		if l.Fix != "" {
			fmt.Fprintf(&b, "%-4s  %-*s fix: %s\n", "", topicWidth, "", l.Fix)
		}
	}
	fails, warns := r.Count(Fail), r.Count(Warn)
	fmt.Fprintf(&b, "\n%d ok, %s, %s", r.Count(OK), plural(warns, "warning"), plural(fails, "blocker"))
	if fails > 0 {
		b.WriteString(": fix the blockers before the first live run\n")
	} else {
		b.WriteString(": ready\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Venue is what the doctor reads: read operations of the exchange client
// and the few it adds for a live venue (clock, path family, position mode,
// key permissions). It has no operation that changes the account.
type Venue interface {
	// SyncClock measures the offset of the venue's clock from the local
	// one and makes later signed requests use it.
	SyncClock(ctx context.Context) (time.Duration, error)
	// AccountInfo reads the permissions of the signing key.
	AccountInfo(ctx context.Context) (exchange.AccountInfo, error)
	// StockPathFamily finds which paths serve the stock market data.
	StockPathFamily(ctx context.Context) (exchange.PathFamily, error)
	// AccountPositionMode reads the position mode of one product type.
	AccountPositionMode(ctx context.Context, productType exchange.ProductType, symbol, marginCoin string) (exchange.PosMode, error)

	Contracts(ctx context.Context, req exchange.ContractsRequest) ([]exchange.Contract, error)
	StockInfo(ctx context.Context, req exchange.StockInfoRequest) ([]exchange.StockInfo, error)
	Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error)
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
	AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error)
	PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error)
	StockOrderBook(ctx context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error)
	StockFills(ctx context.Context, req exchange.StockFillsRequest) ([]exchange.StockFill, error)
}

// Options configure Run. Venue is required.
type Options struct {
	Venue Venue
	// RuleDirs are the rule files to check against the account; none
	// checks the account alone.
	RuleDirs []string
	// Getenv resolves ${NAME} in rule files. Default: every name unset.
	Getenv func(string) string
	// Demo says the venue is the real exchange's demo trading, which
	// changes some fixes.
	Demo bool
}

// Thresholds of the clock check: below ClockOK is ok; from ClockFail on
// the clock is a blocker. The venue refuses a signature more than 30 s
// off (40008); the client corrects for a measured offset, but a clock that
// far off means the computer does not synchronise its time, and its drift
// between two corrections would break signing.
const (
	ClockOK   = time.Second
	ClockFail = 10 * time.Second
)

// Run checks the account behind opts.Venue and the rules in opts.RuleDirs
// and returns the checklist. It sends read requests only.
func Run(ctx context.Context, opts Options) *Report {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	d := &run{opts: opts, v: opts.Venue, rep: &Report{}}
	d.clock(ctx)
	d.credentials(ctx)
	d.permissions(ctx)
	d.stockPaths(ctx)
	d.catalog(ctx)
	d.rules(ctx)
	d.balances(ctx)
	d.exposure(ctx)
	d.budget()
	d.stockAccess(ctx)
	return d.rep
}
