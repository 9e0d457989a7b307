package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/notify"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/status"
)

// staleAfterFailures is how many reads of one polled part must fail in a
// row before the trader is told its data is stale: one failed read is
// retried on the next poll and usually passes.
const staleAfterFailures = poll.StaleAfter

// flushTimeout bounds how long engine run waits, once stopped, for the
// last notifications (the "engine stopped" one among them).
const flushTimeout = 5 * time.Second

// engineNotifier turns what engine run sees into notifications: firings,
// their failed and blocked requests, notify actions, stale data and the
// stop. Every method only queues; the notifier sends off the tick loop.
// A nil *engineNotifier does nothing: engine run without --notify.
type engineNotifier struct {
	n      *notify.Notifier
	log    *zap.Logger
	dryRun bool
	// cancel and done stop the background sender, so that a message it
	// was sending is back in its queue before the last flush.
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	failures map[string]int // consecutive failed reads per polled part and key
}

// openNotifier reads the --notify file and resolves its targets' secrets
// from the environment or the credentials file.
func openNotifier(env *cliEnv, path string, dryRun bool, log *zap.Logger) (*engineNotifier, error) {
	if path == "" {
		return nil, nil
	}
	cfg, err := notify.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	secrets, err := loadSecrets(env.getenv, os.Stat, os.ReadFile)
	if err != nil {
		return nil, err
	}
	n, err := notify.New(notify.Options{Config: cfg, Secret: secrets, Logger: log.Named("notify")})
	if err != nil {
		return nil, err
	}
	log.Info("notifications on", zap.Strings("targets", n.Targets()))
	return &engineNotifier{n: n, log: log.Named("notify"), dryRun: dryRun, failures: map[string]int{}}, nil
}

// start sends in the background until ctx ends or stopped is called.
func (e *engineNotifier) start(ctx context.Context) {
	if e == nil {
		return
	}
	ctx, e.cancel = context.WithCancel(ctx)
	e.done = make(chan struct{})
	go func() {
		defer close(e.done)
		e.n.Run(ctx)
	}()
}

// targets returns the names of the notify file's targets (none without
// --notify).
func (e *engineNotifier) targets() []string {
	if e == nil {
		return nil
	}
	return e.n.Targets()
}

// checkNotifyRoutes checks that every name a notify action sends to (to:)
// is a target of the notify file: a message meant for the security
// webhook must not silently go nowhere. Without --notify nothing is sent,
// so any name is an error too.
func checkNotifyRoutes(rs *rules.RuleSet, targets []string) error {
	var problems []string
	for _, r := range rs.Rules {
		for _, a := range r.Actions {
			for _, name := range a.Params.Names("to") {
				if slices.Contains(targets, name) {
					continue
				}
				known := "engine run has no --notify file"
				if len(targets) > 0 {
					known = "the notify file's targets are " + strings.Join(targets, ", ")
				}
				problems = append(problems, fmt.Sprintf("%s: rule %s sends to %q, which is not a target (%s)", a.Pos, r.Name, name, known))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("notify to: %s", strings.Join(slices.Compact(problems), "; "))
	}
	return nil
}

// halted tells the targets that get halts of a halt a protection of the
// safety file tripped (a rule's halt comes with its firing).
func (e *engineNotifier) halted(h actions.Halt) {
	if e == nil {
		return
	}
	e.send(notify.Event{Kind: notify.Halted, At: h.At, Text: h.String()})
}

func (e *engineNotifier) send(ev notify.Event) {
	if e.dryRun {
		ev.Text = "(dry run) " + ev.Text
	}
	e.n.Notify(ev)
}

// firing queues the rule's notify messages, the firing itself, and one
// message per failed or blocked request, described as in the order log.
func (e *engineNotifier) firing(f *engine.Firing, orders []status.OrderRecord) {
	if e == nil {
		return
	}
	var did []string
	for _, l := range f.Legs {
		switch l.Kind {
		case string(actions.Notify):
			e.send(notify.Event{Kind: notify.Message, At: f.At, Rule: f.Rule.Name, Text: l.Note, To: l.To})
			continue
		case string(actions.HaltAction):
			e.send(notify.Event{Kind: notify.Halted, At: f.At, Rule: f.Rule.Name, Text: l.Note})
			continue
		}
		if actions.Sends(l.Kind) { // a log line is not something the rule did at the venue
			did = append(did, l.Kind+" "+string(l.Outcome))
		}
	}
	text := fmt.Sprintf("fired (#%d)", f.Seq)
	if len(did) > 0 {
		text += ": " + strings.Join(did, ", ")
	}
	e.send(notify.Event{Kind: notify.RuleFired, At: f.At, Rule: f.Rule.Name, Text: text})
	for _, o := range orders {
		switch o.Outcome {
		case actions.Failed:
			e.send(notify.Event{Kind: notify.OrderFailed, At: o.At, Rule: o.Rule, Text: describeOrder(o) + " failed: " + o.Error})
		case actions.Blocked:
			e.send(notify.Event{Kind: notify.GuardBlocked, At: o.At, Rule: o.Rule, Text: describeOrder(o) + " blocked: " + o.Error})
		}
	}
}

// describeOrder is an order in a trader's words: "open long 0.01 BTCUSDT
// at 64000 (place_order)".
func describeOrder(o status.OrderRecord) string {
	parts := []string{o.Intent, o.Size, o.Symbol}
	if o.Price != "" {
		parts = append(parts, "at "+o.Price)
	}
	var b strings.Builder
	for _, p := range parts {
		if p != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		}
	}
	return b.String() + " (" + o.Kind + ")"
}

// fetched counts the poller's failed reads per part; the third in a row
// sends one data_stale message, and a good read starts the count again. A
// good read after that message sends one more, so a trader who was told the
// rules wait is also told when they run again.
func (e *engineNotifier) fetched(part marketdata.Part, key string, err error) {
	if e == nil {
		return
	}
	id := part.String()
	if key != "" {
		id += " " + key
	}
	e.mu.Lock()
	if err == nil {
		n := e.failures[id]
		delete(e.failures, id)
		e.mu.Unlock()
		if n >= staleAfterFailures {
			e.send(notify.Event{Kind: notify.DataStale, Text: fmt.Sprintf("%s: reads work again after %d failed in a row; rules reading it run again", id, n)})
		}
		return
	}
	e.failures[id]++
	n := e.failures[id]
	e.mu.Unlock()
	if n == staleAfterFailures {
		e.send(notify.Event{Kind: notify.DataStale, Text: fmt.Sprintf("%s: %d reads in a row failed, rules reading it wait: %v", id, n, err)})
	}
}

// stopped queues the closing summary and delivers what is left, for at
// most flushTimeout.
func (e *engineNotifier) stopped(ctx context.Context, at time.Time, t status.Totals) {
	if e == nil {
		return
	}
	e.send(notify.Event{Kind: notify.EngineStopped, At: at, Text: fmt.Sprintf("engine stopped: %d firings, %d orders (%d failed, %d blocked), %d fills",
		t.Firings, t.Orders, t.OrdersFailed, t.OrdersBlocked, t.Fills)})
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	e.n.Flush(fctx)
	st := e.n.Stats()
	e.log.Info("notifications", zap.Int64("sent", st.Sent), zap.Int64("failed", st.Failed),
		zap.Int64("dropped", st.Dropped), zap.Int64("suppressed", st.Suppressed))
}
