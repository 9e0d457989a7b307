package rules_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

// ExampleLoadBytes loads one rule file and prints what it found: every
// mistake, with its position, the line, a caret and a hint.
func ExampleLoadBytes() {
	src := `rules:
  - name: flatten
    when: markt.session == "regular"
    actions:
      - place_order: { symbol: TSLAUSDT, open: long, type: market, size: 0 }
`
	_, errs := rules.LoadBytes(context.Background(), "flatten.yaml", []byte(src), rules.LoadOptions{Actions: actions.Defs()})
	_ = errs.Render(os.Stdout)
	// Output:
	// flatten.yaml:3:11: unknown variable markt
	//         when: markt.session == "regular"
	//               ^
	//     hint: did you mean market?
	//
	// flatten.yaml:5:74: size must be greater than 0, got 0
	//           - place_order: { symbol: TSLAUSDT, open: long, type: market, size: 0 }
	//                                                                              ^
	//     hint: an order of size 0 does nothing; to close a position use close: long/short or close_positions
}

// ExampleLoad_ruleSet shows what a loaded rule carries: its compiled
// condition, its actions with inherited defaults, and what it reads.
func ExampleLoad_ruleSet() {
	src := `rules:
  - name: cut
    for_each: [TSLAUSDT]
    when: position(symbol, "long").unrealized_pnl_pct < -0.03
    actions:
      - close_positions: { side: long }
`
	rs, errs := rules.LoadBytes(context.Background(), "cut.yaml", []byte(src), rules.LoadOptions{Actions: actions.Defs()})
	if errs.HasErrors() {
		fmt.Println(errs)
		return
	}
	r := rs.Rules[0]
	sym, _ := r.Actions[0].Params.Text("symbol")
	pt, _ := r.Actions[0].Params.Text("product_type")
	fmt.Println(r.Name, r.Condition.Source)
	fmt.Println(r.Actions[0].Kind, sym, pt)
	fmt.Println(r.Reads())
	// Output:
	// cut[TSLAUSDT] position(symbol, "long").unrealized_pnl_pct < -0.03
	// close_positions TSLAUSDT USDT-FUTURES
	// parts=positions futures=TSLAUSDT symbol
}
