package sim

import (
	_ "embed"
	"fmt"
)

//go:embed demo.yaml
var demoYAML []byte

// DemoYAML returns the text of the built-in demo scenario, for users to copy.
func DemoYAML() []byte { return append([]byte(nil), demoYAML...) }

// Demo returns a fresh copy of the built-in demo scenario (issue 3, item 2):
// demo-key (one-way on every product type) and demo-hedge-key (hedge mode),
// each with 100,000 USDT, 10 BTC and 100,000 USDC; BTCUSDT, ETHUSDT and the
// stock futures TSLAUSDT, NVDAUSDT, AAPLUSDT; BTCUSD; BTCPERP; the TSLA, NVDA
// and AAPL stock pairs; strategy orders of every type; discount tiers; and a
// month of spot records. A test guarantees it loads, so a failure here is a
// build defect and panics.
func Demo() *Scenario {
	sc, err := ParseScenario(demoYAML, "demo.yaml", ".")
	if err != nil {
		panic(fmt.Sprintf("sim: the embedded demo scenario is invalid: %v", err))
	}
	return sc
}
