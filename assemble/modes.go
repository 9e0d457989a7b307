package assemble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
)

// modeRecheckGap is how long after an order refusal made the engine read a
// product type's mode again a further refusal may do it again. A refusal
// for another reason with a code WrongPositionMode counts (a 40019 for some
// other missing field) would otherwise cost a read per order.
const modeRecheckGap = time.Minute

// modeBook is the position mode of every product type as the engine last
// read it from the venue: at start, every poll.ModeEvery (run), and at once
// when the venue refuses an order for not fitting the mode (refused,
// through modeVenue). A trader may switch the mode in the venue's app
// while the engine runs (only while the product type is flat); orders are
// built for the mode read last. A product type whose mode could not be
// read is refused orders with the cause until it is: one-way and hedge
// orders carry different fields, so the engine never guesses.
type modeBook struct {
	r   AccountsReader
	clk engine.Clock
	log *zap.Logger

	mu     sync.Mutex
	read   map[exchange.ProductType]exchange.PosMode
	failed map[exchange.ProductType]error
	// quiet is when a refusal may make the mode of a product type be read
	// again (modeRecheckGap).
	quiet map[exchange.ProductType]time.Time
}

// newModeBook starts the book from the modes read at start and the
// product types whose read failed (e; nil when none did).
func newModeBook(start map[exchange.ProductType]exchange.PosMode, e *exchange.ModeError, r AccountsReader, clk engine.Clock, log *zap.Logger) *modeBook {
	b := &modeBook{r: r, clk: clk, log: log, read: map[exchange.ProductType]exchange.PosMode{},
		failed: map[exchange.ProductType]error{}, quiet: map[exchange.ProductType]time.Time{}}
	for pt, m := range start {
		b.read[pt] = m
	}
	if e != nil {
		for pt, err := range e.Failed {
			b.failed[pt] = err
		}
	}
	return b
}

// mode is actions.ExecutorOptions.ModeOf: the mode read last, or why
// there is none.
func (b *modeBook) mode(pt exchange.ProductType) (exchange.PosMode, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m, ok := b.read[pt]; ok {
		return m, nil
	}
	if err, ok := b.failed[pt]; ok {
		return "", fmt.Errorf("the position mode of %s could not be read (%v): its orders wait until the engine reads it (asked again every %s)", pt, err, poll.ModeEvery)
	}
	return "", fmt.Errorf("position mode of %s is not known (accounts not read)", pt)
}

// known is marketdata.BuildOptions.PositionModes: the State's
// position_mode() when the venue's accounts list names none.
func (b *modeBook) known(pt exchange.ProductType) (exchange.PosMode, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.read[pt]
	return m, ok
}

// snapshot returns the modes read last.
func (b *modeBook) snapshot() map[exchange.ProductType]exchange.PosMode {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[exchange.ProductType]exchange.PosMode, len(b.read))
	for pt, m := range b.read {
		out[pt] = m
	}
	return out
}

// run reads every mode again each poll.ModeEvery until ctx ends, so that
// position_mode() follows a switch made in the venue's app before any
// order meets it.
func (b *modeBook) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.clk.After(poll.ModeEvery):
		}
		b.readAll(ctx)
	}
}

// readAll reads again the mode of every product type that has one or whose
// read failed, in exchange.ProductTypes' order.
func (b *modeBook) readAll(ctx context.Context) {
	b.mu.Lock()
	var pts []exchange.ProductType
	for _, pt := range exchange.ProductTypes() {
		_, ok := b.read[pt]
		if _, bad := b.failed[pt]; ok || bad {
			pts = append(pts, pt)
		}
	}
	b.mu.Unlock()
	for _, pt := range pts {
		b.readOne(ctx, pt)
	}
}

// refused is told the answer to an order request on pt that did or did
// not carry a tradeSide. When the venue refused it for not fitting the
// position mode (exchange.WrongPositionMode), the mode is read again at
// once, at most once per modeRecheckGap. The refused order is not sent
// again: its firing stays failed for the trader to see, and the next ones
// are built for the mode read.
func (b *modeBook) refused(ctx context.Context, pt exchange.ProductType, code string, sentTradeSide bool) {
	if code == "" || !exchange.WrongPositionMode(code, sentTradeSide) {
		return
	}
	now := b.clk.Now()
	b.mu.Lock()
	if now.Before(b.quiet[pt]) {
		b.mu.Unlock()
		return
	}
	b.quiet[pt] = now.Add(modeRecheckGap)
	b.mu.Unlock()
	b.readOne(ctx, pt)
}

// readOne reads the mode of pt and keeps it. A failed read keeps the mode
// read before (a venue that does not answer says nothing about a switch);
// a product type never read stays refused with the new cause.
func (b *modeBook) readOne(ctx context.Context, pt exchange.ProductType) {
	m, err := readMode(ctx, b.r, pt)
	if err != nil && ctx.Err() != nil {
		return
	}
	b.mu.Lock()
	old, had := b.read[pt]
	_, wasFailed := b.failed[pt]
	switch {
	case err != nil && had:
	case err != nil:
		b.failed[pt] = err
	case m == "":
		// The venue answers but names no mode (no account): the same as a
		// product type never traded; orders stay refused.
		delete(b.failed, pt)
	default:
		delete(b.failed, pt)
		b.read[pt] = m
	}
	b.mu.Unlock()
	switch {
	case err != nil && had:
		b.log.Info("reading the position mode of "+string(pt)+" again failed: orders are built for "+string(old)+", as read before", zap.Error(err))
	case err != nil || m == "" || m == old:
	case had:
		b.log.Warn("position mode of "+string(pt)+" changed from "+string(old)+" to "+string(m)+" in the venue; orders are built for the new mode from now on",
			zap.String("product_type", string(pt)), zap.String("from", string(old)), zap.String("to", string(m)))
	case wasFailed:
		b.log.Info("the position mode of "+string(pt)+" was read: its orders go out again", zap.String("mode", string(m)))
	}
}

// modeVenue passes every request to the venue and tells the book the
// answers to orders (modeBook.refused) before they go back: when the venue
// refuses one for not fitting the position mode, the book reads the mode
// again at once, so the next firing is built for the mode the venue has.
type modeVenue struct {
	actions.Venue
	book *modeBook
}

// venueCode is the venue's code in err ("" for none or a client-side error).
func venueCode(err error) string {
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

func (v modeVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	a, err := v.Venue.PlaceOrder(ctx, req)
	v.book.refused(ctx, req.ProductType, venueCode(err), req.TradeSide != "")
	return a, err
}

func (v modeVenue) ClickBackhand(ctx context.Context, req exchange.ClickBackhandRequest) (exchange.OrderAck, error) {
	a, err := v.Venue.ClickBackhand(ctx, req)
	v.book.refused(ctx, req.ProductType, venueCode(err), req.TradeSide != "")
	return a, err
}

// BatchPlaceOrder reads the mode again for the whole request's refusal or
// for its failed items (errorCode); the items of one request are built for
// one mode.
func (v modeVenue) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	res, err := v.Venue.BatchPlaceOrder(ctx, req)
	sent := slices.ContainsFunc(req.OrderList, func(o exchange.BatchOrder) bool { return o.TradeSide != "" })
	v.book.refused(ctx, req.ProductType, venueCode(err), sent)
	for _, f := range res.FailureList {
		v.book.refused(ctx, req.ProductType, f.ErrorCode, sent)
	}
	return res, err
}

// PlacePlanOrder reads the mode again when the venue refuses the trigger
// order's tradeSide, as PlaceOrder does.
func (v modeVenue) PlacePlanOrder(ctx context.Context, req exchange.PlacePlanOrderRequest) (exchange.OrderAck, error) {
	a, err := v.Venue.PlacePlanOrder(ctx, req)
	v.book.refused(ctx, req.ProductType, venueCode(err), req.TradeSide != "")
	return a, err
}
