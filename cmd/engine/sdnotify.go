package main

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/engine"
)

// systemdNotifier speaks systemd's notify protocol for engine run under a
// unit of Type=notify (deploy/systemd/tickrules@.service): READY=1 once
// every polled part was fetched, WATCHDOG=1 from the tick loop (so a loop
// that stops ticking stops the pings, and systemd restarts the engine after
// WatchdogSec), STOPPING=1 on the way out. systemd tells the process where
// to send them in NOTIFY_SOCKET and WATCHDOG_USEC; without them (not under
// systemd) every call does nothing.
type systemdNotifier struct {
	log *zap.Logger
	// watchdog is systemd's WatchdogSec (0: no watchdog); pings go at a
	// third of it, as sd_watchdog_enabled(3) advises at most half.
	watchdog time.Duration
	// now is the real clock: systemd's watchdog runs on it, whatever
	// clock the venue has.
	now func() time.Time

	mu       sync.Mutex
	ready    bool
	lastPing time.Time
}

// newSystemdNotifier reads the watchdog interval systemd set, if any.
func newSystemdNotifier(log *zap.Logger) *systemdNotifier {
	n := &systemdNotifier{log: log, now: time.Now}
	if os.Getenv("NOTIFY_SOCKET") == "" {
		return n
	}
	wd, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("WATCHDOG_USEC is not understood; no watchdog pings", zap.Error(err))
	}
	n.watchdog = wd
	log.Info("systemd notify socket found", zap.Duration("watchdog", wd))
	return n
}

// tick is called from the tick loop (engine.Options.OnTick) with the
// engine's heartbeat: READY=1 the first time the State is fully polled, and
// a watchdog ping when a third of the interval has passed since the last.
func (n *systemdNotifier) tick(hb engine.Heartbeat) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if hb.Ready && !n.ready {
		n.ready = true
		n.send("READY=1\nSTATUS=trading: every polled part fetched")
	}
	if n.watchdog <= 0 {
		return
	}
	if now := n.now(); n.lastPing.IsZero() || now.Sub(n.lastPing) >= n.watchdog/3 {
		n.lastPing = now
		n.send("WATCHDOG=1")
	}
}

// stopping tells systemd the engine is shutting down.
func (n *systemdNotifier) stopping() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.send("STOPPING=1")
}

// send writes one notification; a failure is logged, never fatal: the
// engine trades the same without its supervisor hearing of it.
func (n *systemdNotifier) send(state string) {
	if _, err := daemon.SdNotify(false, state); err != nil {
		n.log.Warn("systemd notification failed", zap.String("state", state), zap.Error(err))
	}
}

// tickHooks returns the engine's OnTick for engine run: the systemd
// notifications, then the stall fault when TICKRULES_STALL_FILE is set.
// eng is read when the hook runs (the engine is built after its options).
func tickHooks(sd *systemdNotifier, eng func() *engine.Engine, stallFile string) func(ctx context.Context, at time.Time) {
	return func(ctx context.Context, _ time.Time) {
		sd.tick(eng().Heartbeat())
		if stallFile != "" && fileExists(stallFile) {
			// The fault: the tick loop stops here until the engine
			// is stopped, as a loop stuck on a lock or a call would.
			<-ctx.Done()
		}
	}
}
