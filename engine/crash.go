package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
)

// Crash points of a firing, in the order they happen (TICKRULES_CRASH_AT).
const (
	CrashIntentWritten  = "intent-written"  // the intent is on disk, the rule state not yet
	CrashStateSaved     = "state-saved"     // both on disk, no order sent yet
	CrashLegSent        = "leg-sent"        // the venue has the N-th request; its answer is not read
	CrashAnswerReceived = "answer-received" // the N-th leg's answer is read, not yet in the journal
)

// CrashHook kills the process with SIGKILL at one step of a firing: the
// crash-point tests restart the engine after it and check that every order
// reached the venue exactly once. A nil hook does nothing; engine run makes
// one only when TICKRULES_CRASH_AT is set.
type CrashHook struct {
	point string
	n     int // the n-th time the point is reached (1 for the steps without :N)
	kill  func()

	mu   sync.Mutex
	seen int
}

// ParseCrashAt parses TICKRULES_CRASH_AT: intent-written, state-saved,
// leg-sent:N or answer-received:N (N counts from 1 over the process's life).
func ParseCrashAt(s string) (*CrashHook, error) {
	point, num, hasN := strings.Cut(s, ":")
	n := 1
	switch point {
	case CrashIntentWritten, CrashStateSaved:
		if hasN {
			return nil, fmt.Errorf("TICKRULES_CRASH_AT=%s: %s takes no :N", s, point)
		}
	case CrashLegSent, CrashAnswerReceived:
		var err error
		if n, err = strconv.Atoi(num); err != nil || n < 1 {
			return nil, fmt.Errorf("TICKRULES_CRASH_AT=%s: %s needs :N with N >= 1", s, point)
		}
	default:
		return nil, fmt.Errorf("TICKRULES_CRASH_AT=%s: not one of intent-written, state-saved, leg-sent:N, answer-received:N", s)
	}
	return &CrashHook{point: point, n: n, kill: func() {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; nothing more may happen
	}}, nil
}

// At marks that the process reached point; the hook kills it there when
// that is its point and count.
func (h *CrashHook) At(point string) {
	if h == nil || point != h.point {
		return
	}
	h.mu.Lock()
	h.seen++
	hit := h.seen == h.n
	h.mu.Unlock()
	if hit {
		h.kill()
	}
}

// crashVenue marks CrashLegSent after every order request the venue
// answered, before the answer reaches the dispatcher.
type crashVenue struct {
	actions.Venue
	h *CrashHook
}

func (c crashVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.PlaceOrder(ctx, req)
	c.h.At(CrashLegSent)
	return a, err
}

func (c crashVenue) ClickBackhand(ctx context.Context, req exchange.ClickBackhandRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.ClickBackhand(ctx, req)
	c.h.At(CrashLegSent)
	return a, err
}

func (c crashVenue) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	a, err := c.Venue.BatchPlaceOrder(ctx, req)
	c.h.At(CrashLegSent)
	return a, err
}

func (c crashVenue) ModifyOrder(ctx context.Context, req exchange.ModifyOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.ModifyOrder(ctx, req)
	c.h.At(CrashLegSent)
	return a, err
}

func (c crashVenue) PlaceTPSLOrder(ctx context.Context, req exchange.PlaceTPSLOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.PlaceTPSLOrder(ctx, req)
	c.h.At(CrashLegSent)
	return a, err
}

func (c crashVenue) PlacePlanOrder(ctx context.Context, req exchange.PlacePlanOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.PlacePlanOrder(ctx, req)
	c.h.At(CrashLegSent)
	return a, err
}
