package rules_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// benchRules generates n distinct rules of the shape authors write: a
// condition of four comparisons and a limit order with a formula price.
// With heavy, each order also has formula take-profit and stop-loss and a
// log message with a placeholder (five programs per rule instead of two).
// Every condition and formula text is different, so nothing can be shared.
func benchRules(n int, heavy bool) []byte {
	syms := []string{"TSLA", "NVDA", "AAPL"}
	var b strings.Builder
	b.WriteString("defaults:\n  product_type: USDT-FUTURES\nrules:\n")
	for i := range n {
		s := syms[i%len(syms)]
		k := fmt.Sprintf("%.6f", 0.999-float64(i)*1e-6)
		fmt.Fprintf(&b, `  - name: rule-%d
    when: >
      market.session == "regular" && market.minutes_since_open > %d
      && stock(%q).spread_bps < %d && position("%sUSDT", "long").size == 0
    cooldown: 5m
    actions:
      - place_order:
          symbol: %sUSDT
          open: long
          type: limit
          size: %d
          price: =stock(%q).bid * %s
`, i, i, s, 5+i%10, s, s, 1+i%3, s, k)
		if heavy {
			fmt.Fprintf(&b, `          take_profit: =stock(%q).bid * %s * 1.02
          stop_loss: =stock(%q).bid * %s * 0.98
      - log: { message: "rule %d fired at {{ stock(\"%s\").bid + %d }}" }
`, s, k, s, k, i, s, i)
		}
	}
	return []byte(b.String())
}

// cpuTime is the process's user and system CPU time: on a shared, loaded
// machine it says more about the cost of a load than the wall clock does
// (it includes the GC's work on other cores and the stop-the-world reads).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoad1000Rules loads and compiles 1,000 rules, typical (2
// programs per rule) and heavy (5). Target: <= 100 ms and <= 20 MB.
// peak-heap-MB is the heap right after a load that started from a
// collected heap, its garbage not yet collected included; live-heap-MB the heap after a collection with the RuleSet still
// held (what a running engine keeps).
func BenchmarkLoad1000Rules(b *testing.B) {
	for _, heavy := range []bool{false, true} {
		name := "typical"
		if heavy {
			name = "heavy"
		}
		b.Run(name, func(b *testing.B) {
			data := benchRules(1000, heavy)
			opts := testOptions()
			var peak, live uint64
			var ms runtime.MemStats
			b.ReportAllocs()
			var rs *rules.RuleSet
			cpu0 := cpuTime()
			for b.Loop() {
				// Start each load from a collected heap, so that peak is what
				// one load needs and not the previous iteration's leftovers.
				b.StopTimer()
				rs = nil
				runtime.GC()
				b.StartTimer()
				var errs rulefmt.Errors
				rs, errs = rules.LoadBytes(context.Background(), "bench.yaml", data, opts)
				if len(errs) > 0 || rs == nil || len(rs.Rules) != 1000 {
					b.Fatalf("findings %v", errs[:min(len(errs), 3)])
				}
				b.StopTimer()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
				b.StartTimer()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = ms.HeapAlloc
			runtime.KeepAlive(rs)
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(live)/(1<<20), "live-heap-MB")
		})
	}
}
