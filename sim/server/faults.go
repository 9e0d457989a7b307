package server

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

// Faults is the scenario's fault injection (sim.Faults). The server applies
// all of it except VisibilityDelay, which the simulator core applies to its
// queries. Draws come from one generator seeded with Seed, taken in request
// order, so the same requests in the same order meet the same faults. An
// injected error answers HTTP 500 with the retryable code 45001 before the
// venue is called; a drop closes the connection without a response, after
// the venue was called when DropAfterProcessing is set (the ambiguous
// outcome callers must reconcile by clientOid).
type Faults = sim.Faults

// Window is a burst window [Start, End) of server time (sim.Window).
type Window = sim.Window

// faultPlan is what the dice decided for one request.
type faultPlan struct {
	fail bool // answer 500/45001 without calling the venue
	drop bool // close the connection without a response
}

// injector draws the faults of each request.
type injector struct {
	cfg Faults
	mu  sync.Mutex
	rng *rand.Rand
}

func newInjector(cfg Faults) *injector {
	return &injector{cfg: cfg, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0))}
}

// inBurst reports whether now falls in a 429 burst window.
func (f *injector) inBurst(now time.Time) bool {
	return slices.ContainsFunc(f.cfg.RateLimitBursts, func(w Window) bool { return w.Contains(now) })
}

// plan draws the faults of one request. Both draws are always taken, so
// changing one rate does not shift the other's sequence.
func (f *injector) plan() faultPlan {
	if f.cfg.ErrorRate <= 0 && f.cfg.DropRate <= 0 {
		return faultPlan{}
	}
	f.mu.Lock()
	errDraw, dropDraw := f.rng.Float64(), f.rng.Float64()
	f.mu.Unlock()
	fail := errDraw < f.cfg.ErrorRate
	return faultPlan{fail: fail, drop: !fail && dropDraw < f.cfg.DropRate}
}

// delay waits the configured latency on clk; it returns early with the
// context's error when the client goes away.
func (f *injector) delay(ctx context.Context, clk exchange.Clock) error {
	if f.cfg.Latency <= 0 {
		return nil
	}
	select {
	case <-clk.After(f.cfg.Latency):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
