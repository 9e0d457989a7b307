package rules_test

import (
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// A condition is compiled once at load and evaluated on every tick with a
// reused VM and Env.
func ExampleCompiler_Condition() {
	catalog := rules.NewCatalog(nil, []exchange.StockInfo{{Symbol: "TSLAUSDT", Code: "TSLA"}})
	c := rules.NewCompiler(rules.CompilerOptions{Catalog: catalog})

	if _, errs := c.Condition(`stock("TSLA").sprd_bps < 8`); len(errs) > 0 {
		fmt.Println(errs[0])
	}

	p, _ := c.Condition(`stock("TSLA").spread_bps < 8`)
	fmt.Println("reads:", p.Reads)

	now := time.Date(2026, 11, 20, 20, 50, 0, 0, time.UTC)
	state, _ := marketdata.NewState(marketdata.BuildInput{
		Now: now,
		Books: []marketdata.BookInput{{Symbol: "TSLAUSDT", At: now, Book: exchange.StockOrderBook{
			Bids: []exchange.PriceLevel{{"249.90", "30"}},
			Asks: []exchange.PriceLevel{{"250.10", "10"}},
		}}},
	}, marketdata.BuildOptions{})
	vm, env := rules.NewVM(), rules.NewEnv(state)
	fmt.Println(p.EvalBool(vm, env))

	empty, _ := marketdata.NewState(marketdata.BuildInput{Now: now}, marketdata.BuildOptions{})
	env.SetState(empty)
	fmt.Println(p.EvalBool(vm, env))
	// Output:
	// 1:15: stock has no field sprd_bps; did you mean spread_bps?
	// reads: parts=stock_book stocks=TSLAUSDT
	// false <nil>
	// false no data for stock TSLAUSDT: nothing was fetched for this pair
}
