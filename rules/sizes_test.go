package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/rules"
)

func TestSizeChecks(t *testing.T) {
	for _, tc := range []struct {
		name, action string
		want         []string // one-line findings, in order
	}{
		{"a limit order within the largest", `place_order: {symbol: TSLAUSDT, open: long, type: limit, price: 400, size: 10}`, nil},
		{"a market order above the largest market order",
			`place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1500}`,
			[]string{"x.yaml:5:73: size 1500 is above the largest market order TSLAUSDT accepts (1000)"}},
		{"an item of batch_place above the largest order",
			`batch_place: {symbol: NVDAUSDT, orders: [{open: long, type: limit, price: 180, size: 1}, {open: long, type: limit, price: 179, size: 9000}]}`,
			[]string{"x.yaml:5:142: size 9000 is above the largest order NVDAUSDT accepts (5000)"}},
		{"an order worth more than the account can carry, at the reference price",
			`place_order: {symbol: TSLAUSDT, open: long, type: market, size: 900}`,
			[]string{"x.yaml:5:73: warning: this order is worth about 371,115 USDT (size 900 at about 412.35, the test scenario's price), 3.7 times the equity of the test scenario's account (100,000 USDT): at 2x leverage it cannot be placed"}},
		{"a formula size is checked when it fires, not here",
			`place_order: {symbol: TSLAUSDT, open: long, type: market, size: '=balance("USDT").available'}`, nil},
		{"coin-margined sizes are not weighed against USDT",
			`place_order: {symbol: BTCUSD, product_type: COIN-FUTURES, open: long, type: limit, price: 90000, size: 400}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions()
			opts.Account = rules.FixtureAccount()
			opts.Account.Leverage = decimal.NewFromInt(2)
			src := "rules:\n  - name: r\n    when: market.is_open\n    actions:\n      - " + tc.action + "\n"
			_, errs := rules.LoadBytes(context.Background(), "x.yaml", []byte(src), opts)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestRoundFigure(t *testing.T) {
	for in, want := range map[string]string{"0.4": "0", "999.5": "1,000", "1234567.89": "1,234,568", "-20500": "-20,500"} {
		if got := rules.RoundFigure(decimal.RequireFromString(in)); got != want {
			t.Errorf("roundFigure(%s) = %s, want %s", in, got, want)
		}
	}
}
