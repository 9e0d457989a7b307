package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/server"
)

// simSummaryEvery is how often engine sim sums up the requests it served.
// An engine polls a few operations a second: a line per request would
// bury the simulator's own messages, so they are logged only at
// --log-level debug.
const simSummaryEvery = 10 * time.Second

// requestTally counts the requests engine sim answers between two summary
// lines. The server's request goroutines add to it; the summary loop takes
// from it.
type requestTally struct {
	mu      sync.Mutex
	byOp    map[exchange.Op]int
	total   int
	refused int // answered with an error envelope (any code but 00000)
	dropped int // closed without an answer (an injected fault)
}

// add counts one request; it is the server's Options.OnRequest.
func (t *requestTally) add(o server.RequestOutcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byOp == nil {
		t.byOp = make(map[exchange.Op]int)
	}
	t.total++
	op := o.Op
	if op == "" {
		op = "unknown path"
	}
	t.byOp[op]++
	switch {
	case o.Dropped:
		t.dropped++
	case o.Code != exchange.CodeSuccess:
		t.refused++
	}
}

// log writes one line of the requests counted since the last line, and
// starts counting again. It writes nothing when there were none: an idle
// simulator stays quiet.
func (t *requestTally) log(log *zap.Logger, msg string) {
	t.mu.Lock()
	total, refused, dropped, byOp := t.total, t.refused, t.dropped, t.byOp
	t.total, t.refused, t.dropped, t.byOp = 0, 0, 0, nil
	t.mu.Unlock()
	if total == 0 {
		return
	}
	ops := make([]string, 0, len(byOp))
	for op, n := range byOp {
		ops = append(ops, fmt.Sprintf("%s %d", op, n))
	}
	sort.Strings(ops)
	log.Info(msg, zap.Int("requests", total), zap.Int("refused", refused), zap.Int("dropped", dropped),
		zap.String("by_operation", strings.Join(ops, ", ")))
}

// summarise logs the tally every simSummaryEvery until done is closed, then
// once more for the requests since the last line.
func (t *requestTally) summarise(log *zap.Logger, done <-chan struct{}) {
	tick := time.NewTicker(simSummaryEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			t.log(log, "requests in the last "+simSummaryEvery.String())
		case <-done:
			t.log(log, "requests since the last summary")
			return
		}
	}
}
