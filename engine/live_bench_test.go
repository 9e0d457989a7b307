package engine_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/poll"
)

// processCPU is the CPU time the process has used, user and system, on
// every thread: the engine's tick and the garbage collection it causes.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLiveTick is the live engine's tick as engine run makes it, at
// 10, 100 and 1,000 rules: the live poller builds the tick's State afresh
// from its answers (polled once from the demo simulator beforehand: the
// venue's answers are not the engine's CPU), and the engine evaluates every
// rule's condition on expr's VM (no backtest speed-up: Options.Reuse
// is nil) and advances every state machine. Every rule is false, so every
// tick evaluates all of them. It reports the process's CPU time per tick
// and what that is, in percent of one core, at engine run's one tick a
// second (the target: under 5% at 1,000 rules).
func BenchmarkLiveTick(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			_, acct, v, cat, rs := demoWorld(b, quietRules(n))
			p, err := poll.New(poll.Options{Reader: acct, Clock: v, Demand: assemble.Demand(rs, cat), Contracts: cat.Contracts})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := p.PollDue(ctx); err != nil {
				b.Fatal(err)
			}
			x := &nopExecutor{}
			eng, err := engine.New(engine.Options{Rules: rs, Source: p, Executor: x, Clock: v})
			if err != nil {
				b.Fatal(err)
			}
			now := v.Now()
			eng.Step(ctx, now) // warm: the trace rings and the per-tick cache
			b.ReportAllocs()
			start := processCPU(b)
			for b.Loop() {
				eng.Step(ctx, now)
			}
			cpu := processCPU(b) - start
			if x.fired != 0 {
				b.Fatalf("%d rules fired; the benchmark's rules must all be false", x.fired)
			}
			stats, _, _ := eng.Stats()
			for name, s := range stats {
				if s.Reused != 0 || s.Evaluations < int64(b.N) {
					b.Fatalf("rule %s: %d evaluations, %d reused in %d ticks; want every tick evaluated", name, s.Evaluations, s.Reused, b.N+1)
				}
			}
			perTick := float64(cpu.Nanoseconds()) / float64(b.N)
			b.ReportMetric(perTick, "cpu-ns/tick")
			b.ReportMetric(perTick/float64(time.Second)*100, "%core@1tick/s")
		})
	}
}
