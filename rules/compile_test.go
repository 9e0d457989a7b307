package rules

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/marketdata"
)

func TestConditionErrors(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, tc := range []struct {
		src  string
		want string // ExprError.Error() of the first error
	}{
		{`markt.session == "regular"`, `1:1: unknown variable markt; did you mean market?`},
		{`market.sesion == "regular"`, `1:8: market has no field sesion; did you mean session?`},
		{`market.minutes_to_close`, `1:1: this condition gives a number, but when needs true or false`},
		{`  stock("TSLA").bid * 2`, `1:3: this condition gives a number, but when needs true or false`},
		{`market.session`, `1:1: this condition gives text, but when needs true or false`},
		{`stock("XYZ").bid > 1`, `1:7: stock pair XYZ is not known`},
		{`stock("TSLX").bid > 1`, `1:7: stock pair TSLX is not known; did you mean TSLA?`},
		{`stock("BTCUSDT").bid > 1`, `1:7: BTCUSDT is a futures contract, not a stock pair; use ticker("BTCUSDT") (last, bid, ask, mark...) or book("BTCUSDT") (spread_bps, depth...)`},
		{`position("TSLAUSD", "long").size == 0`, `1:10: TSLAUSD is not a futures contract; did you mean TSLAUSDT?`},
		{`position("TSLAUSDT", "lng").size == 0`, `1:22: position side must be long, short or net, not "lng"; did you mean long?`},
		{`position("TSLAUSDT", "buy").size == 0`, `1:22: position side must be long, short or net, not "buy"`},
		{`position("TSLAUSDT").size == 0`, `1:1: position needs 2 values (symbol, side) in the parentheses, like position("TSLAUSDT", "long").size == 0`},
		{`stock("TSLA") != nil`, `1:1: stock(...) needs a field after it, like stock("TSLA").bid`},
		{`market != nil`, `1:1: market needs a field after it, like market.session`},
		{`stock("TSLA").sprd < 8`, `1:15: stock has no field sprd; did you mean spread?`},
		{`stok("TSLA").bid > 1`, `1:1: unknown function stok; did you mean stock?`},
		{`market.session = "regular"`, `1:16: = sets a value; to compare, write ==; did you mean: market.session == "regular"`},
		{`market.is_open & true`, `1:16: & alone is not an operator; write && (and); did you mean: market.is_open && true`},
		{`market.session == "regular`, `1:19: a text value is missing its closing quote`},
		{`market.is_open &&`, `1:18: the condition ends too early: something is missing at the end`},
		{`now() > 5`, `1:1: now() would read the computer's clock or time zone; use the variable now (the time of the tick, in Eastern time) or minutes_until("HH:MM")`},
		{`date("2026-01-01") < now`, `1:1: date() would read the computer's clock or time zone; use the variable now (the time of the tick, in Eastern time) or minutes_until("HH:MM")`},
		{`timezone("UTC") != nil`, `1:1: timezone() would read the computer's clock or time zone; use the variable now (the time of the tick, in Eastern time) or minutes_until("HH:MM")`},
		{`market() != nil`, `1:1: market is a value, not a function: write it without ( )`},
		{`stock > 1`, `1:1: stock is a function: write stock(...)`},
		{`symbol == "TSLAUSDT"`, `1:1: symbol is only known in a rule with for_each`},
		{`market.session > 5`, `1:16: cannot compare text with a number using >`},
		{`market.is_open && 5`, `1:16: && needs true or false on both sides, not true or false and a number`},
		{`minutes_until("3:55") < 5`, `1:15: time of day must be written HH:MM in 24-hour Eastern time, like "15:55", not "3:55"`},
		{`position_mode("USDT-FUTURE") == "hedge_mode"`, `1:15: product type must be one of USDT-FUTURES, COIN-FUTURES, USDC-FUTURES, not "USDT-FUTURE"; did you mean USDT-FUTURES?`},
		{`has_stop_loss("TSLAUSDT", "net")`, `1:27: side must be long, short or any, not "net"`},
		{`stock(5).bid > 1`, `1:7: stock needs text here, not a number`},
		{`any(orders("TSLAUSDT"), .pricee > 1)`, `1:26: order has no field pricee; did you mean price?`},
		{`any(orders("TSLAUSDT"), .price)`, `1:25: the test inside the list function must give true or false, not a number`},
		{`$env.now_ms > 0`, `1:1: $env is not available in rules; name the variable directly`},
		{`_market($env, 0).is_open`, `1:1: unknown function _market`},
		{"market.is_open &&\n  stok(\"TSLA\").bid > 1", `2:3: unknown function stok; did you mean stock?`},
		{"market.is_open\n\t&& prise > 1", `2:5: unknown variable prise`},
		{"let market = 1; market > 0", `1:5: market is already a name in rules; choose another name after let`},
		{"", `1:1: the condition is empty`},
		{"   ", `1:1: the condition is empty`},
		{strings.Repeat(`1<2&&`, 200) + `true`, `1:1: this condition is too complex: at most 500 parts are allowed`},
		{strings.Repeat("x", 2001), `1:1: this condition is 2001 characters long; at most 2000 are allowed`},
		{`"é" == 1 + `, `1:11: the condition ends too early: something is missing at the end`},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) == 0 {
				t.Fatalf("compiled; reads %v", p.Reads)
			}
			if got := errs[0].Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestConditionCollectsEveryNameError checks that the name checks report
// every mistake of an expression, not the first.
func TestConditionCollectsEveryNameError(t *testing.T) {
	_, errs := NewCompiler(CompilerOptions{Catalog: testCatalog()}).Condition(`markt.is_open && stock("XYZ").bid > 1 && position("TSLAUSDT", "lng").size == 0`)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`1:1: unknown variable markt; did you mean market?`,
		`1:24: stock pair XYZ is not known`,
		`1:63: position side must be long, short or net, not "lng"; did you mean long?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConditionsThatCompile(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, src := range []string{
		`market.session == "regular" && market.minutes_to_close <= 5`,
		`market.session == "regular" and market.minutes_since_open < 15 and stock("TSLA").spread_bps < 8 and position("TSLAUSDT", "long").size == 0`,
		`stock("TSLAUSDT").spread_bps < 8`,
		`stock("TSLA")?.bid > 1`,
		`stock("TSLA")["bid"] > 1`,
		`"overnight" in stock("NVDA").trading_periods`,
		`not market.is_holiday && !market.is_weekend`,
		`any(positions, .unrealized_pnl_pct < -0.05)`,
		`count(orders("TSLAUSDT"), .age_seconds > 600) >= 1`,
		`let s = stock("TSLA").spread_bps; s < 8 && s > 0`,
		`minutes_until("15:55") <= 5 && weekday != "Saturday"`,
		`now.Hour() >= 15 && now_ms > 0`,
		`now > market.next_session_start - duration("1h")`,
		`depth_bid("TSLA", 10) > depth_ask("TSLA", 10.5)`,
		`has_stop_loss("TSLAUSDT", "long") || has_take_profit("TSLAUSDT", "any")`,
		`len(strategy_orders("TSLAUSDT")) > 0 && strategy_orders("TSLAUSDT")[0].type == "tpsl"`,
		`balance("USDT").available > 100 && position_mode("USDT-FUTURES") == "hedge_mode"`,
		`discount_rate("BTC", 5000) < 1 || len(discount_tiers("BTC")) == 0`,
		`any(spot_records, .type == "Deposit" && .age_seconds < 3600)`,
		"market.is_open\n  && stock(\"TSLA\").bid > 0\n",
		`abs(position("TSLAUSDT", "net").size) > 0 ? true : false`,
	} {
		t.Run(src, func(t *testing.T) {
			if _, errs := c.Condition(src); len(errs) > 0 {
				t.Errorf("%v", errs[0])
			}
		})
	}
}

func TestFormula(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	env, m := NewEnv(testState(t)), NewVM()
	for _, tc := range []struct {
		src  string
		want Kind
		err  string
		out  any
	}{
		{`stock("TSLA").bid * 0.999`, Number, "", 249.90 * 0.999},
		{`2`, Number, "", 2.0},
		{`orders_count("TSLAUSDT") + 1`, Number, "", 3.0},
		{`"rule fired at " + string(stock("TSLA").mid)`, String, "", "rule fired at 250"},
		{`market.is_open`, Bool, "", true},
		{`"TSLA bid " + format(stock("TSLA").bid, 2)`, String, "", "TSLA bid 249.90"},
		{`format(stock("TSLA").bid * 0.999, 2)`, String, "", "249.65"},
		{`format(orders_count("TSLAUSDT"), 1)`, String, "", "2.0"},
		{`format(stock("TSLA").bid, -1)`, String, "1:27: format shows 0 to 12 decimal places, not -1: write format(x, 2) for two decimals", nil},
		{`format(stock("TSLA").bid, 13)`, String, "1:27: format shows 0 to 12 decimal places, not 13: write format(x, 2) for two decimals", nil},
		{`format(stock("TSLA").bid, 1.5)`, String, "1:27: format shows a whole number of decimal places, not 1.5: write format(x, 2) for two decimals", nil},
		{`market.session`, Number, "1:1: this formula gives text, but a number is needed here", nil},
		{`stock("TSLA").bid`, String, "1:1: this formula gives a number, but text is needed here", nil},
		{`stock("TSLA").bid`, Bool, "1:1: this formula gives a number, but true or false is needed here", nil},
		{``, Number, "1:1: the formula is empty", nil},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Formula(tc.src, tc.want)
			if tc.err != "" {
				if len(errs) == 0 || errs[0].Error() != tc.err {
					t.Fatalf("errors %v, want %s", errs, tc.err)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			var out any
			var err error
			switch tc.want {
			case Number:
				out, err = p.EvalNumber(m, env)
			case String:
				out, err = p.EvalString(m, env)
			case Bool:
				out, err = p.EvalBool(m, env)
			}
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := out.(float64); ok {
				if !near(f, tc.out.(float64)) {
					t.Errorf("got %v, want %v", out, tc.out)
				}
			} else if out != tc.out {
				t.Errorf("got %v, want %v", out, tc.out)
			}
		})
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

// TestEvalOverState evaluates conditions over the fixture State: derived
// values, flat positions, helpers.
func TestEvalOverState(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	env, m := NewEnv(testState(t)), NewVM()
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`stock("TSLA").mid == 250`, true},
		{`abs(stock("TSLA").spread_bps - 8) < 1e-9`, true},
		{`stock("TSLA").imbalance == 0.5`, true},
		{`abs(stock("TSLA").vwap - 749.0/3) < 1e-9`, true},
		{`stock("TSLA").volume == 3 && stock("TSLA").trades_count == 2 && stock("TSLA").last_price == 250`, true},
		{`stock("TSLA").tradable_now && stock("NVDA").weekend_tradable && !stock("TSLA").weekend_tradable`, true},
		{`depth_bid("TSLA", 10) == 80 && depth_ask("TSLA", 20) == 30`, true},
		{`abs(position("TSLAUSDT", "long").unrealized_pnl_pct - (250.0-260)/260) < 1e-12`, true},
		{`position("TSLAUSDT", "long").roe < -0.19`, true},
		{`position("TSLAUSDT", "short").size == 0`, true},
		{`position("NVDAUSDT", "long").size == 0 && !position("NVDAUSDT", "net").is_open`, true},
		{`position("TSLAUSDT", "net").size == 2`, true},
		{`len(positions) == 1 && positions[0].symbol == "TSLAUSDT"`, true},
		{`orders_count("TSLAUSDT") == 2 && orders("TSLAUSDT")[0].id == "o1"`, true},
		{`any(orders("TSLAUSDT"), .age_seconds > 600)`, true},
		{`orders_count("NVDAUSDT") == 0`, true},
		{`has_stop_loss("TSLAUSDT", "long") && !has_stop_loss("TSLAUSDT", "short") && !has_take_profit("TSLAUSDT", "any")`, true},
		{`market.session == "regular" && market.minutes_to_close <= 10 && market.minutes_to_next_session == 10`, true},
		{`minutes_until("15:55") == 5 && minutes_since("09:30") == 380`, true},
		{`weekday == "Friday" && now.Hour() == 15 && now.Minute() == 50`, true},
		{`balance("USDT").available == 1000 && position_mode("USDT-FUTURES") == "hedge_mode"`, true},
		{`discount_rate("BTC", 5000) == 1 && discount_rate("BTC", 10000) == 0.9`, true},
		{`any(spot_records, .type == "Deposit" && .age_seconds == 1800)`, true},
		{`len(all_orders) == 2 && all_orders[0].id == "o1" && all_orders[1].symbol == "TSLAUSDT"`, true},
		{`len(all_strategy_orders) == 1 && all_strategy_orders[0].stop_loss == 240`, true},
		{`stock("TSLA").spread_bps > 8.5`, false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			got, err := p.EvalBool(m, env)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMissingDataFailsEvaluation checks that a condition over data that was
// not fetched fails with ErrMissingData instead of comparing a zero.
func TestMissingDataFailsEvaluation(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	in := testInput()
	in.Books = in.Books[:1] // NVDA book not fetched
	in.Market.Session = marketdata.SessionInfo{Session: marketdata.SessionClosed}
	in.Orders = nil
	st, err := marketdata.NewState(in, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := marketdata.NewState(marketdata.BuildInput{Now: testNow}, marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewVM()
	for _, tc := range []struct {
		src   string
		state *marketdata.State
		msg   string
	}{
		{`stock("NVDA").spread_bps < 8`, st, "no data for stock NVDAUSDT: the order book was not fetched or has an empty side"},
		{`!(stock("NVDA").spread_bps > 8)`, st, "no data for stock NVDAUSDT"},
		{`stock("NVDA").vwap > 0`, st, "the platform fills were not fetched"},
		{`market.minutes_to_close <= 5`, st, "no data for market: the market is closed"},
		{`orders_count("TSLAUSDT") == 0`, st, "pending orders of USDT-FUTURES were not fetched"},
		{`market.is_open`, empty, "market session was not fetched"},
		{`len(positions) == 0`, empty, "no positions were fetched"},
		{`len(spot_records) == 0`, empty, "spot records were not fetched"},
		{`len(all_orders) == 0`, empty, "no data for all_orders: no pending orders were fetched"},
		{`len(all_strategy_orders) == 0`, empty, "no data for all_strategy_orders: no strategy orders were fetched"},
		{`position("TSLAUSDT", "long").size == 0`, empty, "no data for position TSLAUSDT long"},
		{`position("TSLAUSDT", "short").entry_price > 0`, st, "the position is flat"},
		{`depth_ask("NVDA", 5) > 0`, st, "order book"},
		{`balance("USDT").available > 0`, empty, "no accounts were fetched"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			got, err := p.EvalBool(m, NewEnv(tc.state))
			if err == nil {
				t.Fatalf("evaluated to %v without data", got)
			}
			if !errors.Is(err, marketdata.ErrMissingData) {
				t.Errorf("error %v does not wrap ErrMissingData", err)
			}
			var ee *EvalError
			if !errors.As(err, &ee) || ee.Line != 1 {
				t.Errorf("error %#v has no position", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
	// Short-circuit: a closed market answers without the book.
	p, _ := c.Condition(`market.is_open && stock("NVDA").spread_bps < 8`)
	if got, err := p.EvalBool(m, NewEnv(st)); err != nil || got {
		t.Errorf("short circuit: %v, %v", got, err)
	}
}

func TestForEachSymbol(t *testing.T) {
	cat := testCatalog()
	c := NewCompiler(CompilerOptions{Catalog: cat, ForEach: true})
	p, errs := c.Condition(`position(symbol, "long").size > 0 && stock(symbol).spread_bps < 10`)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if got := p.Reads.String(); got != "parts=stock_book,positions symbol symbol_stock symbol_futures" {
		t.Errorf("reads %s", got)
	}
	m := NewVM()
	env := NewEnv(testState(t))
	if _, err := p.Eval(m, env); !errors.Is(err, ErrUnboundSymbol) {
		t.Errorf("unbound: %v", err)
	}
	if _, err := p.WithSymbol("TSLAUSDT", cat).Eval(m, NewEnv(nil)); !errors.Is(err, ErrNoState) {
		t.Errorf("no state: %v", err)
	}
	tsla := p.WithSymbol("TSLAUSDT", cat)
	if got := tsla.Reads.String(); got != "parts=stock_book,positions stocks=TSLAUSDT futures=TSLAUSDT products=USDT-FUTURES symbol" {
		t.Errorf("bound reads %s", got)
	}
	nvda := p.WithSymbol("NVDAUSDT", cat)
	for _, tc := range []struct {
		p    *Program
		want bool
	}{{tsla, true}, {nvda, false}, {tsla, true}} {
		got, err := tc.p.EvalBool(m, env)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.p.Symbol(), got, err, tc.want)
		}
	}
	// symbol passed through an expression: every pair must be polled.
	p, errs = c.Condition(`stock(symbol + "").bid > 0`)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if !p.Reads.AllStocks {
		t.Errorf("reads %s", p.Reads)
	}
}

func TestReads(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, tc := range []struct{ src, want string }{
		{`market.session == "regular"`, "parts=market time"},
		{`market.is_open && !market.is_holiday && market["next_session"] == "after_hours"`, "parts=market time"},
		{`market.is_open && market.minutes_since_open > 5`, "parts=market time clock"},
		{`market.session == "regular" && any(orders("TSLAUSDT"), .size > 1)`, "parts=market,orders futures=TSLAUSDT products=USDT-FUTURES time"},
		{`minutes_until("15:55") < 5 && weekday == "Friday"`, "parts= time clock"},
		{`stock("TSLA").spread_bps < 8`, "parts=stock_book stocks=TSLAUSDT"},
		{`stock("TSLA").name != ""`, "parts=stock_info stocks=TSLAUSDT"},
		{`stock("TSLA").tradable_now`, "parts=market,stock_info stocks=TSLAUSDT time clock data_time aged=stock.tradable_now"},
		{`stock("NVDA").vwap > stock("TSLA").last_price`, "parts=stock_trades stocks=NVDAUSDT,TSLAUSDT time clock data_time aged=stock.vwap"},
		{`depth_bid("NVDAUSDT", 5) > 1`, "parts=stock_book stocks=NVDAUSDT"},
		{`position("TSLAUSDT", "long").size == 0 && position("BTCUSD", "net").size == 0`, "parts=positions futures=BTCUSD,TSLAUSDT products=COIN-FUTURES,USDT-FUTURES"},
		{`any(positions, .size > 1)`, "parts=positions all_futures"},
		{`len(all_orders) > 0`, "parts=orders all_futures"},
		{`any(all_strategy_orders, .stop_loss > 0)`, "parts=strategy_orders all_futures"},
		{`orders_count("TSLAUSDT") > 0`, "parts=orders futures=TSLAUSDT products=USDT-FUTURES"},
		{`has_stop_loss("NVDAUSDT", "any")`, "parts=strategy_orders futures=NVDAUSDT products=USDT-FUTURES"},
		{`balance("USDT").equity > 0 && position_mode("USDC-FUTURES") == ""`, "parts=balances coins=USDT products=USDC-FUTURES"},
		{`discount_rate("BTC", 1) > 0`, "parts=discount coins=BTC"},
		{`len(spot_records) > 0`, "parts=spot_records"},
		{`let p = "TSLA"; stock(p).bid > 0`, "parts=stock_book all_stocks"},
		{`stock("TSLA").last_price > 250`, "parts=stock_trades stocks=TSLAUSDT"},
		{`stock("TSLA").book_age_seconds < 5`, "parts=stock_book stocks=TSLAUSDT time clock data_time aged=stock.book_age_seconds"},
		{`any(orders("TSLAUSDT"), .age_seconds > 600)`, "parts=orders futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=order.age_seconds"},
		{`orders("TSLAUSDT")[0].price > 1`, "parts=orders futures=TSLAUSDT products=USDT-FUTURES"},
		{`position("TSLAUSDT", "long").age_seconds > 60`, "parts=positions futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=position.age_seconds"},
		{`now_ms > 0`, "parts= time clock"},
		{`minutes_since("09:30") > 5`, "parts= time clock"},
		{`market.minutes_to_close < 5`, "parts=market time clock"},
		{`let m = {"a": 1}; let k = "a"; m[k] > 0`, "parts= time clock data_time aged=stock.tradable_now,stock.book_age_seconds,stock.last_trade_age_seconds,stock.volume,stock.trades_count,stock.vwap,position.age_seconds,order.age_seconds,strategy_order.age_seconds,spot_record.age_seconds"},
		// Only the time fields that can be seen are brought to every
		// tick: those read, and all of the objects taken whole.
		{`has_stop_loss("TSLAUSDT", "long") && orders("TSLAUSDT")[0].age_seconds > 60`, "parts=orders,strategy_orders futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=order.age_seconds"},
		{`position("TSLAUSDT", "long").size > 0 && stock("TSLA").vwap > 1`, "parts=stock_trades,positions stocks=TSLAUSDT futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=stock.vwap"},
		{`len(strategy_orders("TSLAUSDT")) > 0 && orders("TSLAUSDT")[0].age_seconds > 60`, "parts=orders,strategy_orders futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=order.age_seconds,strategy_order.age_seconds"},
		{`orders("TSLAUSDT")[0].age_seconds > 60 && strategy_orders("TSLAUSDT")[0].trigger_price > 0`, "parts=orders,strategy_orders futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=order.age_seconds"},
		{`any(positions, .age_seconds > 60)`, "parts=positions all_futures time clock data_time aged=position.age_seconds"},
		{`let o = orders("TSLAUSDT")[0]; o.age_seconds > 60 && position("TSLAUSDT", "long").size > 0`, "parts=positions,orders futures=TSLAUSDT products=USDT-FUTURES time clock data_time aged=order.age_seconds"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			if got := p.Reads.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	a, _ := c.Condition(`stock("TSLA").bid > 0`)
	b, _ := c.Condition(`orders_count("TSLAUSDT") > 0 && stock("NVDA").bid > 0`)
	if got := a.Reads.Merge(b.Reads).String(); got != "parts=stock_book,orders stocks=NVDAUSDT,TSLAUSDT futures=TSLAUSDT products=USDT-FUTURES" {
		t.Errorf("merge: %s", got)
	}
}

func TestWithoutCatalog(t *testing.T) {
	c := NewCompiler(CompilerOptions{})
	p, errs := c.Condition(`stock("AAPL").bid > 0 && position("AAPLUSDT", "long").size == 0`)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if got := p.Reads.String(); got != "parts=stock_book,positions stocks=AAPL futures=AAPLUSDT" {
		t.Errorf("reads %s", got)
	}
}

// TestDocumentedExamplesCompile compiles the example of every variable,
// function and field of the reference, so the docs cannot show a condition
// the compiler rejects.
func TestDocumentedExamplesCompile(t *testing.T) {
	plain := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	forEach := NewCompiler(CompilerOptions{Catalog: testCatalog(), ForEach: true})
	check := func(t *testing.T, c *Compiler, ex string) {
		t.Helper()
		if ex == "" {
			return
		}
		if _, errs := c.Condition(ex); len(errs) > 0 {
			if _, errs2 := c.Formula(ex, Number); len(errs2) > 0 {
				if _, errs3 := c.Formula(ex, String); len(errs3) > 0 {
					t.Errorf("example %q: %v", ex, errs[0])
				}
			}
		}
	}
	for _, v := range Variables() {
		c := plain
		if v.ForEachOnly {
			c = forEach
		}
		check(t, c, v.Example)
	}
	for _, f := range append(Functions(), Builtins()...) {
		check(t, plain, f.Example)
	}
	for _, o := range marketdata.Objects() {
		for _, f := range o.Fields {
			if f.Example == "market.next_session_start" || f.Type == "time" {
				continue // a time on its own is neither a condition nor a formula
			}
			check(t, plain, f.Example)
		}
	}
}

// TestVariablesMatchEnv checks the variable table against the expression
// environment: every documented variable is known to the compiler and every
// environment field is documented.
func TestVariablesMatchEnv(t *testing.T) {
	c := NewCompiler(CompilerOptions{ForEach: true})
	documented := map[string]bool{}
	for _, v := range Variables() {
		documented[v.Name] = true
		known := c.plainVars[v.Name] || c.byVariable[v.Name] != nil || v.Name == "symbol"
		if !known {
			t.Errorf("documented variable %s is not in the environment", v.Name)
		}
	}
	for name := range c.plainVars {
		if !documented[name] {
			t.Errorf("variable %s is not documented", name)
		}
	}
	for name := range c.byVariable {
		if !documented[name] {
			t.Errorf("variable %s is not documented", name)
		}
	}
	for _, f := range Functions() {
		if c.byName[f.Name] == nil || len(f.Args) != c.byName[f.Name].arity() {
			t.Errorf("function %s: documentation and table disagree", f.Name)
		}
	}
}

// FuzzCondition compiles arbitrary text: never a panic, and every error has
// a position inside the source.
func FuzzCondition(f *testing.F) {
	for _, s := range []string{
		`market.session == "regular" && market.minutes_to_close <= 5`,
		`stock("TSLA").spread_bps < 8 && position("TSLAUSDT", "long").size == 0`,
		`any(orders("TSLAUSDT"), .age_seconds > 600)`,
		`let x = stock("TSLA"); x.bid`, `market.`, `stock(`, `"`, `$env`, `now()`, `[1,2][5]`,
		`1 in 1..1000000`, `map(1..100, #)`, `position(symbol, "long").size`,
	} {
		f.Add(s)
	}
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	env := NewEnv(testState(f))
	f.Fuzz(func(t *testing.T, src string) {
		p, errs := c.Condition(src)
		lines := strings.Count(src, "\n") + 1
		for _, e := range errs {
			if e.Line < 1 || e.Line > lines || e.Column < 1 || e.Msg == "" {
				t.Fatalf("bad error %+v for %q", e, src)
			}
		}
		if p != nil {
			_, _ = p.EvalBool(NewVM(), env) // must not panic either
		}
	})
}

// TestConcurrentCompileAndEval compiles with one Compiler and evaluates one
// Program from several goroutines, each with its own VM and Env (run with
// -race).
func TestConcurrentCompileAndEval(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	p, errs := c.Condition(`stock("TSLA").spread_bps <= 8 && position("TSLAUSDT", "long").size == 2`)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	state := testState(t)
	srcs := conditionsForBench(40)
	done := make(chan error, 4)
	for g := range 4 {
		go func() {
			m, env := NewVM(), NewEnv(state)
			for i := range 50 {
				if _, errs := c.Condition(srcs[(g*50+i)%len(srcs)]); len(errs) > 0 {
					done <- errs[0]
					return
				}
				if ok, err := p.EvalBool(m, env); err != nil || !ok {
					done <- fmt.Errorf("eval: %v %v", ok, err)
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestEvalErrorPosition checks that a runtime failure names its place in
// a multi-line source.
func TestEvalErrorPosition(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	p, errs := c.Condition("market.is_open &&\n  stock(\"NVDA\").vwap > 0")
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	_, err := p.EvalBool(NewVM(), NewEnv(testState(t)))
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Line != 2 || !errors.Is(err, marketdata.ErrMissingData) {
		t.Fatalf("error %#v", err)
	}
	if ee.Error() != "no data for stock NVDAUSDT: the platform fills were not fetched" {
		t.Errorf("message %q", ee.Error())
	}
}

// TestMemoryBudget checks that a run that builds huge lists stops with an
// error instead of exhausting memory.
func TestMemoryBudget(t *testing.T) {
	p, errs := NewCompiler(CompilerOptions{}).Condition(`len(1..1000000) > 0`)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if _, err := p.EvalBool(NewVM(), NewEnv(testState(t))); err == nil || !strings.Contains(err.Error(), "memory budget exceeded") {
		t.Errorf("error %v", err)
	}
}
