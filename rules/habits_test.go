package rules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHabits compiles formulas written the way traders write them: the
// first error names the habit where it is written and carries the
// corrected formula, which compiles.
func TestHabits(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, tc := range []struct {
		src, msg, fix string
		col           int
		kind          Kind // Bool (a condition) when zero
	}{
		{`market.session <> "closed"`, "<> is how spreadsheets", `market.session != "closed"`, 16, 0},
		{`price("BTCUSDT") > 100000`, "price(...) is not a function", `ticker("BTCUSDT").last > 100000`, 1, 0},
		{`market.is_open && times_fired("buy") < 2`, "times_fired(...) is not a function: the rules' name for it is firings_today(...)", `market.is_open && firings_today("buy") < 2`, 19, 0},
		{`last_fired("buy") > 30`, "the rules' name for it is minutes_since_fired(...)", `minutes_since_fired("buy") > 30`, 1, 0},
		{`=AND(market.is_open, stock("TSLA").bid > 1)`, "AND(...) is a spreadsheet function", `market.is_open && stock("TSLA").bid > 1`, 2, 0},
		{`market.is_open && AND(market.is_holiday, true)`, "AND(...)", `market.is_open && (market.is_holiday && true)`, 19, 0},
		{`Or(market.is_open, market.is_holiday, market.dst)`, "Or(...)", `market.is_open || market.is_holiday || market.dst`, 1, 0},
		{`NOT(market.is_open)`, "NOT(...)", `!(market.is_open)`, 1, 0},
		{`IF(market.is_open, true, false)`, "IF(test, a, b)", `market.is_open`, 1, 0},
		{`IF(market.is_open, stock("TSLA").bid, 1)`, "IF(test, a, b)", `market.is_open ? stock("TSLA").bid : 1`, 1, Number},
		{`ABS(stock("TSLA").bid - 250) < 5`, "function names are written in lower case: abs", `abs(stock("TSLA").bid - 250) < 5`, 1, 0},
		{`position("TSLAUSDT", "long").unrealized_pnl_pct < -3%`, "3% is not a number", `position("TSLAUSDT", "long").unrealized_pnl_pct < -0.03`, 52, 0},
		{`stock("TSLA").spread_bps < 0.5%`, "this value is in basis points", `stock("TSLA").spread_bps < 50`, 28, 0},
		{`stock("TSLA").bid * 101%`, "101% is not a number", `stock("TSLA").bid * 1.01`, 21, Number},
		{`stock("TSLA").spread_bps < 0,5`, "0,5 uses a decimal comma", `stock("TSLA").spread_bps < 0.5`, 28, 0},
		{`stock("TSLA").bid * 0,999`, "decimal comma", `stock("TSLA").bid * 0.999`, 21, Number},
		{`stock("TSLA").bid * 1,005`, "decimal comma", `stock("TSLA").bid * 1.005`, 21, Number},
		{`stock("TSLA").bid > 1,250`, "thousands separator", `stock("TSLA").bid > 1250`, 21, 0},
		{`stock("TSLA").bid > 1,250.50`, "thousands separator", `stock("TSLA").bid > 1250.50`, 21, 0},
		{`stock("TSLA").bid > 1.250,50`, "European way", `stock("TSLA").bid > 1250.50`, 21, 0},
		{`stock("TSLA").bid > $250.50`, "$ is not part of a number", `stock("TSLA").bid > 250.50`, 21, 0},
		{`now > 15:50`, "15:50 is a time of day", `now.Format("15:04") > "15:50"`, 7, 0},
		{`now.Hour() == 9:30`, "9:30 is a time of day", `now.Format("15:04") == "09:30"`, 15, 0},
		{`minutes_until(15:55) < 5`, "15:55 is a time of day", `minutes_until("15:55") < 5`, 15, 0},
		{`now < 2026-03-09`, "2026-03-09 is read as a subtraction", `now.Format("2006-01-02") < "2026-03-09"`, 7, 0},
		{`stock(TSLA).bid > 1`, "TSLA is not a variable", `stock("TSLA").bid > 1`, 7, 0},
		{`TSLA.bid > 1`, `stock pair is read with stock("TSLA")`, `stock("TSLA").bid > 1`, 1, 0},
		{`market.session == regular`, "regular is not a variable", `market.session == "regular"`, 19, 0},
		{`market.session in [regular, closed]`, "regular is not a variable", `market.session in ["regular", "closed"]`, 20, 0},
		{`market.session == “regular”`, "curly quote", `market.session == "regular"`, 19, 0},
		{`stock(‘TSLA’).bid > 1`, "curly quote", `stock("TSLA").bid > 1`, 7, 0},
		{`position("TSLAUSDT", "long").unrealized_pnl_pct < –0.02`, "dash from a word processor", `position("TSLAUSDT", "long").unrealized_pnl_pct < -0.02`, 51, 0},
		{`stock("TSLA").bid − 1 > 2`, "typographic minus", `stock("TSLA").bid - 1 > 2`, 19, 0},
		{`stock("TSLA").bid ≥ 250 && stock("TSLA").ask ≤ 260`, "≥ is written >=", `stock("TSLA").bid >= 250 && stock("TSLA").ask <= 260`, 19, 0},
		{`stock("TSLA").bid × 2 ≠ 3`, "× is written *", `stock("TSLA").bid * 2 != 3`, 19, 0},
		{`market.minutes_to_close =< 5`, "=< is written <=", `market.minutes_to_close <= 5`, 25, 0},
		{`market.minutes_to_close => 5`, "=> is written >=", `market.minutes_to_close >= 5`, 25, 0},
		{`market.session = "regular"`, "= sets a value", `market.session == "regular"`, 16, 0},
		{`market.is_open AND market.dst`, "AND is written &&", `market.is_open && market.dst`, 16, 0},
		{`market.is_open Or market.dst`, "Or is written ||", `market.is_open || market.dst`, 16, 0},
		{`NOT market.is_open`, "NOT is written !", `!market.is_open`, 1, 0},
		{`market.is_open == TRUE`, "TRUE is written true", `market.is_open == true`, 19, 0},
		{`market.session === "regular"`, "=== is written ==", `market.session == "regular"`, 16, 0},
		{`market.session !== "regular"`, "!== is written !=", `market.session != "regular"`, 16, 0},
		{`market.is_open & market.dst`, "& alone", `market.is_open && market.dst`, 16, 0},
		{`market.is_open | market.dst`, "| alone", `market.is_open || market.dst`, 16, 0},
		{`market.session == "regular" or "after_hours"`, `or "after_hours" compares nothing`, `market.session == "regular" or market.session == "after_hours"`, 32, 0},
		{`market.session == "open"`, `market.session is never "open"`, `market.is_open`, 19, 0},
		{`market.is_open && market.session != "open"`, `market.session is never "open"`, `market.is_open && !market.is_open`, 37, 0},
		{`market.session == "Pre-Market"`, `market.session is never "Pre-Market"; it is one of pre_market, regular, after_hours, overnight, closed`, `market.session == "pre_market"`, 19, 0},
		{`market.session == Regular`, "Regular is not a variable", `market.session == "regular"`, 19, 0},
		{`weekday == "friday"`, `weekday is never "friday"`, `weekday == "Friday"`, 12, 0},
		{`position("TSLAUSDT", "long").side == "buy"`, `the side of a position is never "buy"`, `position("TSLAUSDT", "long").side == "long"`, 38, 0},
		{`any(orders("TSLAUSDT"), .order_type == "LIMIT")`, `the order_type of an order is never "LIMIT"`, `any(orders("TSLAUSDT"), .order_type == "limit")`, 40, 0},
		{`"after-hours" in stock("TSLA").trading_periods`, `the trading_periods of a stock never holds "after-hours"`, `"after_hours" in stock("TSLA").trading_periods`, 1, 0},
		{`position_mode("USDT-FUTURES") == "hedge"`, `position_mode(...) is never "hedge"`, `position_mode("USDT-FUTURES") == "hedge_mode"`, 34, 0},
	} {
		t.Run(tc.src, func(t *testing.T) {
			kind := tc.kind
			var errs []*ExprError
			if kind == 0 {
				_, errs = c.Condition(tc.src)
			} else {
				_, errs = c.Formula(tc.src, kind)
			}
			if len(errs) == 0 {
				t.Fatal("compiled")
			}
			e := errs[0]
			if !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("message %q does not say %q", e.Msg, tc.msg)
			}
			if e.Line != 1 || e.Column != tc.col {
				t.Errorf("at %d:%d, want 1:%d", e.Line, e.Column, tc.col)
			}
			if e.Fix != tc.fix {
				t.Errorf("fix %q, want %q", e.Fix, tc.fix)
			}
			if kind == 0 {
				kind = Bool
			}
			if _, ferrs := c.Formula(e.Fix, kind); len(ferrs) > 0 {
				t.Errorf("the fix does not compile: %v", ferrs[0])
			}
		})
	}
}

// TestHabitsLeaveValidFormulasAlone: what looks like a habit but is valid
// expr (the remainder, a comma between arguments, a ternary, let) compiles,
// and is not rewritten when another mistake is in the formula.
func TestHabitsLeaveValidFormulasAlone(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, src := range []string{
		`now.Minute() % 5 == 0`,
		`now.Minute()%5 == 0`,
		`max(0,5) > 1`,
		`market.is_open ? 1:2`,
		`let x = 1; x > 0`,
		`market.is_open and market.dst or not market.is_holiday`,
		`stock("TSLA").bid > 1 && weekday == "Friday"`,
		`400 < stock("TSLA").bid < 420`, // expr chains comparisons as mathematics does
	} {
		t.Run(src, func(t *testing.T) {
			kind := Bool
			if strings.Contains(src, "?") {
				kind = Number
			}
			if _, errs := c.Formula(src, kind); len(errs) > 0 {
				t.Fatalf("does not compile: %v", errs[0])
			}
			if spots := c.findHabits(src); len(spots) > 0 {
				t.Errorf("habit found in a valid formula: %s", spots[0].msg)
			}
		})
	}
}

// TestHabitWithOtherMistake keeps the error that remains once the habit
// is corrected, at its place in the source, and gives the habit a hint in
// words instead of a corrected formula that would not compile.
func TestHabitWithOtherMistake(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	_, errs := c.Condition(`market.sesion <> "closed"`)
	if len(errs) != 2 {
		t.Fatalf("want the habit and the typo, got %v", errs)
	}
	if !strings.Contains(errs[0].Msg, "<>") || errs[0].Fix != "" || errs[0].Hint != "write != instead of <>" {
		t.Errorf("habit: %+v", errs[0])
	}
	if errs[1].Msg != "market has no field sesion" || errs[1].Column != 8 || errs[1].Suggestion != "session" {
		t.Errorf("remaining error: %+v", errs[1])
	}
}

// TestTypoIsNotAText: a misspelt variable compared with == is reported as
// a typo of the variable, not as a text without quotes.
func TestTypoIsNotAText(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	_, errs := c.Condition(`weekday == weekdy`)
	if len(errs) != 1 || errs[0].Msg != "unknown variable weekdy" || errs[0].Suggestion != "weekday" {
		t.Errorf("got %v", errs)
	}
}

func TestOriginalOffset(t *testing.T) {
	src := `a <> b && c = d`
	spots := []habitSpot{{edits: []habitEdit{{2, 4, "!="}}}, {edits: []habitEdit{{12, 13, "=="}}}}
	fixed, edits := applyHabitEdits(src, spots)
	if fixed != `a != b && c == d` {
		t.Fatalf("fixed %q", fixed)
	}
	for _, tc := range []struct{ in, want int }{{0, 0}, {2, 2}, {5, 5}, {12, 12}, {13, 12}, {15, 14}} {
		if got := originalOffset(edits, tc.in); got != tc.want {
			t.Errorf("originalOffset(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// FuzzHabits feeds arbitrary formulas to the habit scan and the compiler:
// no panic, every spot inside the source, and a corrected formula given
// with an error always compiles.
func FuzzHabits(f *testing.F) {
	for _, s := range []string{`a <> b`, `=AND(a, b)`, `IF(a, b, c)`, `x < -3%`, `0,5`, `1.000,50`, `now > 15:50`, `now < 2026-03-09`,
		`stock(TSLA).bid`, `“x”`, `‘x`, `a == "b" or "c"`, `NOT a`, `$1.5`, `x = 1`, `(AND(`, `IF(,,)`, `)))`} {
		f.Add(s)
	}
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) || len(src) > 300 {
			return
		}
		n := utf8.RuneCountInString(src)
		for _, sp := range c.findHabits(src) {
			for _, e := range sp.edits {
				if e.from < 0 || e.to > n || e.from > e.to {
					t.Fatalf("edit %+v outside %q", e, src)
				}
			}
		}
		_, errs := c.Condition(src)
		for _, e := range errs {
			if e.Fix == "" {
				continue
			}
			if _, ferrs := c.Condition(e.Fix); len(ferrs) > 0 {
				t.Fatalf("fix %q of %q does not compile: %v", e.Fix, src, ferrs[0])
			}
		}
	})
}

// TestExtremeFunctionHints: highest(...) and its kind, which other tools
// compute over a price history, point to the extremes the engine keeps per
// position.
func TestExtremeFunctionHints(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, tc := range []struct{ src, msg, hint string }{
		{`position("TSLAUSDT", "long").mark_price < highest("TSLAUSDT", 30) * 0.98`, "highest(...) is not a function", `use position("TSLAUSDT", "long").high_since_open`},
		{`lowest("TSLAUSDT", 30) > 0`, "lowest(...) is not a function", `use position("TSLAUSDT", "long").low_since_open`},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, errs := c.Condition(tc.src)
			if len(errs) == 0 || !strings.Contains(errs[0].Msg, tc.msg) || errs[0].Hint != tc.hint {
				t.Fatalf("findings %+v; want %q with the hint %q", errs, tc.msg, tc.hint)
			}
		})
	}
}
