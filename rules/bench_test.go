package rules

import (
	"fmt"
	"runtime"
	"testing"
)

// conditionsForBench returns n distinct, typical conditions over the test
// catalog: what a rule directory of n rules would hold.
func conditionsForBench(n int) []string {
	shapes := []string{
		`market.session == "regular" && market.minutes_to_close <= %d`,
		`stock("TSLA").spread_bps < %d && position("TSLAUSDT", "long").size == 0`,
		`position("TSLAUSDT", "long").unrealized_pnl_pct < -0.0%d`,
		`any(orders("TSLAUSDT"), .age_seconds > %d)`,
		`minutes_until("15:55") <= %d && !market.is_holiday`,
		`stock("NVDA").imbalance > 0.%d || depth_bid("NVDA", 10) > 500`,
		`orders_count("NVDAUSDT") < %d and weekday != "Friday"`,
		`balance("USDT").available > %d && position_mode("USDT-FUTURES") == "hedge_mode"`,
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(shapes[i%len(shapes)], i%9+1)
	}
	return out
}

// BenchmarkCompile1000Conditions compiles 1,000 conditions with one
// Compiler: the expression half of the "load and compile 1,000 rules"
// target (<= 100 ms, <= 20 MB).
func BenchmarkCompile1000Conditions(b *testing.B) {
	srcs := conditionsForBench(1000)
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		for _, src := range srcs {
			if _, errs := c.Condition(src); len(errs) > 0 {
				b.Fatal(src, errs[0])
			}
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
}

// BenchmarkEvalCondition evaluates a typical condition over a built State
// with a reused VM and Env.
func BenchmarkEvalCondition(b *testing.B) {
	for _, src := range []string{
		`market.session == "regular" && market.minutes_to_close <= 5`,
		`stock("TSLA").spread_bps < 8 && position("TSLAUSDT", "long").size == 0`,
		`position("TSLAUSDT", "long").unrealized_pnl_pct < -0.02`,
		`orders_count("TSLAUSDT") < 3`,
	} {
		b.Run(src, func(b *testing.B) {
			p, errs := NewCompiler(CompilerOptions{Catalog: testCatalog()}).Condition(src)
			if len(errs) > 0 {
				b.Fatal(errs[0])
			}
			env, m := NewEnv(testState(b)), NewVM()
			if _, err := p.EvalBool(m, env); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.EvalBool(m, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvalDirectVM runs the same compiled program straight on a reused
// expr VM, the baseline the engine's overhead is measured against.
func BenchmarkEvalDirectVM(b *testing.B) {
	p, errs := NewCompiler(CompilerOptions{Catalog: testCatalog()}).Condition(`stock("TSLA").spread_bps < 8 && position("TSLAUSDT", "long").size == 0`)
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	env, m := NewEnv(testState(b)), NewVM()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Run(p.VMProgram(), env.Value()); err != nil {
			b.Fatal(err)
		}
	}
}
