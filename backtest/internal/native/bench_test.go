package native_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/tickrules/tickrules/backtest/internal/native"
	"github.com/tickrules/tickrules/rules"
)

// BenchmarkNativeVsVM evaluates n typical conditions over one State,
// alternately: compiled to Go closures (this package, through
// Program.EvalBool as the backtest's engine calls it) and as plain expr, the
// same programs on a reused VM, as engine run evaluates them. Each half runs the n conditions often enough to
// make about 1,000 evaluations, and is measured in the CPU time of its
// thread, which the other work on a shared machine does not inflate. It
// reports the CPU time of each half per tick of n conditions, and their
// ratio.
func BenchmarkNativeVsVM(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("%drules", n), func(b *testing.B) {
			c := rules.NewCompiler(rules.CompilerOptions{Catalog: testCatalog(), Closures: native.NewCompiler()})
			var progs []*rules.Program
			for _, src := range conditionsForBench(n) {
				p, errs := c.Condition(src)
				if len(errs) > 0 {
					b.Fatal(src, errs[0])
				}
				if !p.Compiled() {
					b.Fatalf("%s runs on the VM", src)
				}
				progs = append(progs, p)
			}
			env, m := rules.NewEnv(testState(b)), rules.NewVM()
			for _, p := range progs {
				if _, err := p.EvalBool(m, env); err != nil {
					b.Fatal(p.Source, err)
				}
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			reps := (1000 + n - 1) / n
			var native, plain time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := threadCPU()
				for range reps {
					for _, p := range progs {
						if _, err := p.EvalBool(m, env); err != nil {
							b.Fatal(err)
						}
					}
				}
				mid := threadCPU()
				for range reps {
					for _, p := range progs {
						if _, err := m.Run(p.VMProgram(), env.Value()); err != nil {
							b.Fatal(err)
						}
					}
				}
				end := threadCPU()
				native, plain = native+mid-start, plain+end-mid
			}
			ticks := float64(b.N * reps)
			b.ReportMetric(float64(native.Nanoseconds())/ticks, "native-cpu-ns/tick")
			b.ReportMetric(float64(plain.Nanoseconds())/ticks, "vm-cpu-ns/tick")
			b.ReportMetric(float64(plain)/float64(native), "speedup")
		})
	}
}
