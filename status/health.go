package status

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/tickrules/tickrules/engine"
)

// DefaultStallTicks is how many ticks the tick loop may go without finishing
// one before the engine counts as stalled (see HealthOptions.StallTicks).
const DefaultStallTicks = 5

// MinStall is the least time without a finished tick that counts as a
// stall, whatever the tick: a tick that sends orders waits for the venue's
// answers, and a slow answer is not a stuck engine.
const MinStall = 5 * time.Second

// HeartbeatSource is the tick loop's pulse (the engine).
type HeartbeatSource interface {
	Heartbeat() engine.Heartbeat
}

// Probe is the answer of /healthz or /readyz: whether the check passes and,
// when it does not, every reason why, in words.
type Probe struct {
	OK      bool     `json:"ok"`
	Reasons []string `json:"reasons,omitempty"`
	// LastLoop is when the tick loop last finished a tick (zero before
	// the first).
	LastLoop time.Time `json:"last_loop,omitzero"`
}

// HealthStatus is both probes at one moment, as engine status shows them.
type HealthStatus struct {
	Live  Probe `json:"live"`
	Ready Probe `json:"ready"`
}

// ReadyCheck is one condition of readiness. Check returns why the engine is
// not ready, or "" when the condition holds. Readiness is a list of them so
// that a new reason to stop trading (a halt) is one more entry.
type ReadyCheck struct {
	Name  string
	Check func() string
}

// HealthOptions configure a Health. Engine and Clock are required.
type HealthOptions struct {
	Engine HeartbeatSource
	Clock  interface{ Now() time.Time }
	// StallTicks is how many ticks may pass without a finished tick before
	// the loop counts as stalled (default DefaultStallTicks); never less
	// than MinStall.
	StallTicks int
	// StateDir is the account's state directory, checked writable by
	// readiness (empty: not checked).
	StateDir string
	// Guard is the kill switch: while it is on the engine is not ready
	// (nil: not checked).
	Guard KillSwitchSource
	// Checks are more readiness conditions, checked after the built-in
	// ones.
	Checks []ReadyCheck
}

// Health answers the liveness and readiness probes of a running engine.
// Liveness: the process answers and the tick loop finished a tick within
// the last few ticks. Readiness: live, every polled part fetched once, the
// state directory writable, and not halted (the kill switch off).
type Health struct {
	opts   HealthOptions
	checks []ReadyCheck
}

// NewHealth returns the Health of opts.
func NewHealth(opts HealthOptions) *Health {
	if opts.StallTicks <= 0 {
		opts.StallTicks = DefaultStallTicks
	}
	h := &Health{opts: opts}
	h.checks = append(h.checks, ReadyCheck{Name: "live", Check: h.stalled})
	h.checks = append(h.checks, ReadyCheck{Name: "polled", Check: func() string {
		if !opts.Engine.Heartbeat().Ready {
			return "waiting for the first full poll: not every part of the State has been fetched yet"
		}
		return ""
	}})
	if opts.StateDir != "" {
		h.checks = append(h.checks, ReadyCheck{Name: "state-dir", Check: func() string { return writable(opts.StateDir) }})
	}
	if opts.Guard != nil {
		h.checks = append(h.checks, ReadyCheck{Name: "kill-switch", Check: func() string {
			if on, why := opts.Guard.Killed(); on {
				return "halted: the kill switch is on (" + why + "); no new orders"
			}
			return ""
		}})
	}
	h.checks = append(h.checks, opts.Checks...)
	return h
}

// stallAfter is how long the loop may go without a finished tick.
func (h *Health) stallAfter(tick time.Duration) time.Duration {
	return max(time.Duration(h.opts.StallTicks)*tick, MinStall)
}

// stalled says why the tick loop counts as stalled, or "".
func (h *Health) stalled() string {
	hb := h.opts.Engine.Heartbeat()
	if hb.Last.IsZero() {
		return "the tick loop has not finished a tick yet"
	}
	age := h.opts.Clock.Now().Sub(hb.Last)
	if limit := h.stallAfter(hb.Tick); age > limit {
		return fmt.Sprintf("the tick loop is stalled: its last tick finished %s ago (more than %s, %d ticks of %s)",
			age.Round(time.Millisecond), limit, h.opts.StallTicks, hb.Tick)
	}
	return ""
}

// Live is the liveness probe: the tick loop ran within the last few ticks.
func (h *Health) Live() Probe {
	p := Probe{OK: true, LastLoop: h.opts.Engine.Heartbeat().Last.UTC()}
	if why := h.stalled(); why != "" {
		p.OK, p.Reasons = false, []string{why}
	}
	return p
}

// Ready is the readiness probe: every ReadyCheck, each failing one a reason.
func (h *Health) Ready() Probe {
	p := Probe{OK: true, LastLoop: h.opts.Engine.Heartbeat().Last.UTC()}
	for _, c := range h.checks {
		if why := c.Check(); why != "" {
			p.OK = false
			p.Reasons = append(p.Reasons, why)
		}
	}
	return p
}

// Status returns both probes.
func (h *Health) Status() HealthStatus {
	return HealthStatus{Live: h.Live(), Ready: h.Ready()}
}

// writable says why dir cannot take a new file, or "": readiness creates
// and removes a small file there, as the journal's first write would.
func writable(dir string) string {
	f, err := os.CreateTemp(dir, ".readyz-*")
	if err != nil {
		return fmt.Sprintf("the state directory %s cannot be written: %v", dir, err)
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Sprintf("the state directory %s cannot be written: %v", dir, err)
	}
	return ""
}

// serveProbe writes p with 200 when it passes and 503 when it does not.
func serveProbe(w http.ResponseWriter, p Probe) {
	code := http.StatusOK
	if !p.OK {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, p)
}
