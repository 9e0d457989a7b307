package rules

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// closedInput is testInput with the position history of USDT-FUTURES:
// TSLAUSDT closed a short at a loss 20 minutes ago (15:30 New York time)
// and a long with a gain at 00:01, and a long at 23:59 yesterday.
func closedInput() marketdata.BuildInput {
	in := testInput()
	in.ClosedTrades = []marketdata.ClosedTradesInput{{ProductType: exchange.USDTFutures, At: testNow, Positions: []exchange.HistoryPosition{
		{PositionID: "3", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Short, CloseTotalPos: "1", NetProfit: "-12.5", UTime: ms(testNow.Add(-20 * time.Minute))},
		{PositionID: "2", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, CloseTotalPos: "2", NetProfit: "7.25", UTime: ms(time.Date(2026, 11, 20, 5, 1, 0, 0, time.UTC))},
		{PositionID: "1", Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: exchange.Long, CloseTotalPos: "2", NetProfit: "-100", UTime: ms(time.Date(2026, 11, 20, 4, 59, 0, 0, time.UTC))},
	}}}
	return in
}

// TestClosedTradeFunctions evaluates one condition per function of today's
// account and closed trades, and checks what each reads: the position
// history (and what else it names), and the clock, so that the engine
// evaluates it every tick (minutes_ago and "today" move with time alone).
func TestClosedTradeFunctions(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	st, err := marketdata.NewState(closedInput(), marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewVM()
	closed := marketdata.PartSet(0).Add(marketdata.PartClosedTrades)
	for _, tc := range []struct {
		src   string
		parts marketdata.PartSet
	}{
		{`last_close("TSLAUSDT").side == "short" && last_close("TSLAUSDT").pnl == -12.5 && last_close("TSLAUSDT").minutes_ago == 20`, closed},
		{`closes_today("TSLAUSDT") == 2`, closed},
		{`losses_today("TSLAUSDT") == 1`, closed},
		// -12.5 + 7.25 closed today, -20 unrealised now.
		{`pnl_today("USDT-FUTURES") == -25.25`, closed.Add(marketdata.PartPositions)},
		{`equity_day_start("USDT") == 1129.25`, closed.Add(marketdata.PartPositions).Add(marketdata.PartBalances)},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			got, err := p.EvalBool(m, NewEnv(st))
			if err != nil || !got {
				t.Errorf("got %v, %v; want true", got, err)
			}
			if p.Reads.Parts != tc.parts || !p.Reads.Time || !p.Reads.Clock || !p.Reads.ClockOther {
				t.Errorf("reads parts %s time %v clock %v; want %s and the clock", p.Reads.Parts, p.Reads.Time, p.Reads.Clock, tc.parts)
			}
		})
	}
	// A symbol never closed has no last close: the condition fails with
	// missing data (false), whichever way it is written.
	for _, src := range []string{`last_close("NVDAUSDT").pnl < 0`, `!(last_close("NVDAUSDT").pnl < 0)`} {
		p, errs := c.Condition(src)
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		if got, err := p.EvalBool(m, NewEnv(st)); !errors.Is(err, marketdata.ErrMissingData) {
			t.Errorf("%s: %v, %v; want missing data", src, got, err)
		}
	}
	if _, errs := c.Condition(`pnl_today("USDT-FUTURE") < 0`); len(errs) == 0 {
		t.Error("a misspelt product type was accepted")
	}
}

// TestRecordHints: engine check points the names traders reach for to
// today's P&L and the closed trades.
func TestRecordHints(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	for _, tc := range []struct{ src, msg, hint string }{
		{`pnl("TSLAUSDT") < 0`, "unknown function pnl", "pnl_today("},
		{`daily_pnl < -500`, "unknown variable daily_pnl", "pnl_today("},
		{`realized_pnl("USDT-FUTURES") < -500`, "unknown function realized_pnl", "last_close("},
		{`last_trade("TSLAUSDT").pnl < 0`, "unknown function last_trade", "last_close(\"TSLAUSDT\")"},
		{`starting_equity > 0`, "unknown variable starting_equity", "equity_day_start("},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, errs := c.Condition(tc.src)
			if len(errs) == 0 {
				t.Fatal("compiled")
			}
			e := errs[0]
			if !strings.Contains(e.Error(), tc.msg) || !strings.Contains(e.Hint, tc.hint) {
				t.Errorf("error %q hint %q; want %q with a hint naming %s", e.Error(), e.Hint, tc.msg, tc.hint)
			}
		})
	}
}

// TestClosedTradesVariable: closed_trades lists every close with its
// minutes_ago at the tick, and none(...) over it is true for a contract
// never closed, where last_close has no value.
func TestClosedTradesVariable(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	st, err := marketdata.NewState(closedInput(), marketdata.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`len(closed_trades) == 3 && closed_trades[0].minutes_ago == 20 && closed_trades[2].pnl == -100`, true},
		{`none(closed_trades, .symbol == "NVDAUSDT" && .pnl < 0)`, true},
		{`none(closed_trades, .symbol == "TSLAUSDT" && .pnl < 0 && .minutes_ago < 30)`, false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, errs := c.Condition(tc.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			got, err := p.EvalBool(NewVM(), NewEnv(st))
			if err != nil || got != tc.want {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
			if !p.Reads.Clock || !p.Reads.Parts.Has(marketdata.PartClosedTrades) {
				t.Errorf("reads %+v; want the closed trades and the clock", p.Reads)
			}
		})
	}
}
