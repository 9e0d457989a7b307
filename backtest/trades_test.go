package backtest

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// fill builds a USDT-futures fill of BTCUSDT for the trade tests.
func fill(at, order, side, tradeSide, price, size, fee, profit string) Fill {
	return Fill{Time: "2026-03-09T14:" + at + "Z", TradeID: order + at, OrderID: order, ProductType: "USDT-FUTURES", Symbol: "BTCUSDT",
		Side: side, TradeSide: tradeSide, Price: price, Size: size, Fee: fee, FeeCoin: "USDT", Profit: profit}
}

func closed(side, size, entryAt, entryPrice, entryRule, exitAt, exitPrice, exitRule, pnl, fees, net string) Trade {
	return Trade{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: side, Size: size, EntryTime: "2026-03-09T14:" + entryAt + "Z",
		EntryPrice: entryPrice, EntryRule: entryRule, ExitTime: "2026-03-09T14:" + exitAt + "Z", ExitPrice: exitPrice, ExitRule: exitRule,
		PnL: pnl, Fees: fees, NetPnL: net}
}

// TestRoundTrips pairs hand-made fills; every expectation is computed by
// hand in the case's comment.
func TestRoundTrips(t *testing.T) {
	names := orderNames{rule: map[string]string{"o1": "open", "o2": "add", "o3": "exit"}, by: map[string]string{"sl": "stop-loss"}}
	const start = "2026-03-09T13:30:00Z"
	cases := []struct {
		name  string
		held  []HeldPosition
		fills []Fill
		want  []Trade
	}{
		{"no fills", nil, nil, []Trade{}},
		{
			// 2 bought at 100, sold at 110: +20 realised, fees paid 0.2 + 0.22
			// (positive, as the engine's summary counts them): net 19.58.
			"one winning trade", nil,
			[]Fill{fill("00:00", "o1", "buy", "buy_single", "100", "2", "-0.2", "0"),
				fill("10:00", "o3", "sell", "reduce_sell_single", "110", "2", "-0.22", "20")},
			[]Trade{closed("long", "2", "00:00", "100", "open", "10:00", "110", "exit", "20", "0.42", "19.58")},
		},
		{
			// Half closed at a loss (-10, fees 0.1 of the entry + 0.09),
			// half later at a gain (+20, fees 0.1 + 0.12).
			"partial closes, a losing and a winning part", nil,
			[]Fill{fill("00:00", "o1", "buy", "buy_single", "100", "2", "-0.2", "0"),
				fill("05:00", "o2", "sell", "reduce_sell_single", "90", "1", "-0.09", "-10"),
				fill("10:00", "o3", "sell", "reduce_sell_single", "120", "1", "-0.12", "20")},
			[]Trade{closed("long", "1", "00:00", "100", "open", "05:00", "90", "add", "-10", "0.19", "-10.19"),
				closed("long", "1", "00:00", "100", "open", "10:00", "120", "exit", "20", "0.22", "19.78")},
		},
		{
			// Entries of 1 at 100 (o1) and 1 at 104 (o2); one exit order o3
			// in two fills of 0.5 (+4) and 1.5 (+12) at 110. FIFO: o1 gets
			// the first fill and a third of the second: P&L 4 + 4, fees
			// 0.1 + 0.055 + 0.055; o2 gets the rest: P&L 8, fees 0.104 + 0.11.
			"first in first out across orders and fills", nil,
			[]Fill{fill("00:00", "o1", "buy", "buy_single", "100", "1", "-0.1", "0"),
				fill("01:00", "o2", "buy", "buy_single", "104", "1", "-0.104", "0"),
				fill("10:00", "o3", "sell", "reduce_sell_single", "110", "0.5", "-0.055", "4"),
				fill("10:01", "o3", "sell", "reduce_sell_single", "110", "1.5", "-0.165", "12")},
			[]Trade{closed("long", "1", "00:00", "100", "open", "10:01", "110", "exit", "8", "0.21", "7.79"),
				closed("long", "1", "01:00", "104", "add", "10:01", "110", "exit", "8", "0.214", "7.786")},
		},
		{
			// One-way: long 1 at 100, then a sell of 3 at 90 closes it
			// (all of the fill's -10 is the closed part's; a third of its
			// 0.27 fee) and opens a short of 2 (two thirds of the fee).
			"one-way fill that turns the position around", nil,
			[]Fill{fill("00:00", "o1", "buy", "buy_single", "100", "1", "-0.1", "0"),
				fill("05:00", "o3", "sell", "sell_single", "90", "3", "-0.27", "-10")},
			[]Trade{closed("long", "1", "00:00", "100", "open", "05:00", "90", "exit", "-10", "0.19", "-10.19"),
				{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: "short", Size: "2", EntryTime: "2026-03-09T14:05:00Z",
					EntryPrice: "90", EntryRule: "exit", Fees: "0.18", Open: true}},
		},
		{
			// Hedge mode: buy is the long position also when closing.
			// Fees zero. The long closes at 105 (+5), the short at 99 (+2).
			"hedge mode long and short side by side", nil,
			[]Fill{fill("00:00", "o1", "buy", "open", "100", "1", "0", "0"),
				fill("00:01", "o2", "sell", "open", "101", "1", "0", "0"),
				fill("05:00", "o3", "buy", "close", "105", "1", "0", "5"),
				fill("06:00", "o4", "sell", "burst_close_short", "99", "1", "0", "2")},
			[]Trade{closed("long", "1", "00:00", "100", "open", "05:00", "105", "exit", "5", "0", "5"),
				closed("short", "1", "00:01", "101", "add", "06:00", "99", "", "2", "0", "2")},
		},
		{
			// A close of a position older than the run has no entry: left out.
			"close without an entry", nil,
			[]Fill{fill("05:00", "o3", "buy", "close", "105", "1", "-0.1", "5")},
			[]Trade{},
		},
		{
			// Still open: entry averaged over the order's fills (0.5 at 100
			// and 0.5 at 102 is 101), fees added up, no P&L.
			"open at the end", nil,
			[]Fill{fill("00:00", "o1", "buy", "buy_single", "100", "0.5", "-0.05", "0"),
				fill("00:00", "o1", "buy", "buy_single", "102", "0.5", "-0.051", "0")},
			[]Trade{{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: "long", Size: "1", EntryTime: "2026-03-09T14:00:00Z",
				EntryPrice: "101", EntryRule: "open", Fees: "0.101", Open: true}},
		},
		{
			// One-way: a long of 0.2 at 82000 held when the run starts; a
			// rule sells 0.2 at 83000 (+200, fee 0.0996 paid). Today's
			// report listed a new short of 0.2 "still open" entered by
			// "exit"; it is the close of the held long, entered at the
			// start at the position's average price, no fee in this run.
			"one-way long held at start, closed by a rule",
			[]HeldPosition{{Position: Position{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", HoldSide: "long", Size: "0.2", OpenPriceAvg: "82000"}, OneWay: true}},
			[]Fill{fill("05:00", "o3", "sell", "sell_single", "83000", "0.2", "-0.0996", "200")},
			[]Trade{{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: "long", Size: "0.2", EntryTime: start, EntryPrice: "82000",
				EntryBy: heldAtStart, ExitTime: "2026-03-09T14:05:00Z", ExitPrice: "83000", ExitRule: "exit", PnL: "200", Fees: "0.0996", NetPnL: "199.9004"}},
		},
		{
			// Hedge: a short of 1 held at 101, closed by a triggered
			// stop-loss at 105 (-4, fee 0.063): the exit names the
			// stop-loss, not "no rule".
			"hedge short held at start, closed by a stop-loss",
			[]HeldPosition{{Position: Position{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", HoldSide: "short", Size: "1", OpenPriceAvg: "101"}}},
			[]Fill{fill("05:00", "sl", "sell", "close", "105", "1", "-0.063", "-4")},
			[]Trade{{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: "short", Size: "1", EntryTime: start, EntryPrice: "101",
				EntryBy: heldAtStart, ExitTime: "2026-03-09T14:05:00Z", ExitPrice: "105", ExitBy: "stop-loss", PnL: "-4", Fees: "0.063", NetPnL: "-4.063"}},
		},
		{
			// Held long of 1 still open at the end: listed as held, open.
			"held at start and still open",
			[]HeldPosition{{Position: Position{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", HoldSide: "long", Size: "1", OpenPriceAvg: "100"}, OneWay: true}},
			nil,
			[]Trade{{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: "long", Size: "1", EntryTime: start, EntryPrice: "100",
				EntryBy: heldAtStart, Fees: "0", Open: true}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := roundTrips(c.fills, c.held, start, names)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("trades:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestTradeStats(t *testing.T) {
	tr := func(net string) Trade { return Trade{NetPnL: net} }
	cases := []struct {
		name        string
		trades      []Trade
		closed      int
		winRate, pf string
	}{
		{"no trades", nil, 0, "", ""},
		{"only open trades", []Trade{{Open: true, Fees: "-1"}}, 0, "", ""},
		// No loser: the profit factor has no meaning.
		{"all winners", []Trade{tr("5"), tr("1")}, 2, "100", ""},
		// 19.78 / 10.19 = 1.941...; one win of two.
		{"a win and a loss", []Trade{tr("-10.19"), tr("19.78"), {Open: true}}, 2, "50", "1.94"},
		// A trade at exactly zero is closed but neither wins nor loses:
		// one win of four is 25 %; 6 / (1 + 2) = 2.
		{"break-even trade", []Trade{tr("6"), tr("0"), tr("-1"), tr("-2")}, 4, "25", "2"},
		// One win of three is 33.3333 % (four places).
		{"one of three", []Trade{tr("6"), tr("-1"), tr("-2")}, 3, "33.3333", "2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, wr, pf := tradeStats(c.trades)
			if n != c.closed || wr != c.winRate || pf != c.pf {
				t.Errorf("tradeStats = %d, %q, %q; want %d, %q, %q", n, wr, pf, c.closed, c.winRate, c.pf)
			}
		})
	}
}

func TestPercent(t *testing.T) {
	d := decimal.RequireFromString
	cases := []struct {
		part, base, want string
	}{
		{"-1.5", "100000", "-0.0015"}, // the dip that must not look like a crash
		{"-63.5446514", "100000", "-0.0635"},
		{"5", "0", "0"},
		{"25", "200", "12.5"},
	}
	for _, c := range cases {
		if got := percent(d(c.part), d(c.base)); got != c.want {
			t.Errorf("percent(%s, %s) = %s, want %s", c.part, c.base, got, c.want)
		}
	}
}

// FuzzRoundTrips pairs fills made from random bytes (sides, trade sides of
// both position modes, sizes, prices) and checks what must hold whatever
// the order: no panic, every trade has a positive size and an entry price
// among the fills' prices, and no more is traded than was filled.
func FuzzRoundTrips(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 10, 3, 1, 20, 2, 0, 5, 5, 7, 7, 1})
	tradeSides := []string{"buy_single", "sell_single", "reduce_buy_single", "reduce_sell_single", "open", "close", "burst_close_long", "offset_close_short", ""}
	f.Fuzz(func(t *testing.T, in []byte) {
		var fills []Fill
		var total decimal.Decimal
		for i := 0; i+2 < len(in) && len(fills) < 200; i += 3 {
			side := "buy"
			if in[i]&1 == 1 {
				side = "sell"
			}
			price := decimal.NewFromInt(int64(90 + in[i+2]%20)).String()
			size := decimal.New(int64(in[i+1]%7), -1) // 0 to 0.6, zero sizes too
			fills = append(fills, Fill{Time: "t", OrderID: strconv.Itoa(i / 6), ProductType: "USDT-FUTURES", Symbol: []string{"A", "B"}[in[i]>>7],
				Side: side, TradeSide: tradeSides[int(in[i]>>1)%len(tradeSides)], Price: price, Size: size.String(), Fee: "-0.01", Profit: "1"})
			total = total.Add(size)
		}
		var traded decimal.Decimal
		for _, tr := range roundTrips(fills, nil, "", orderNames{}) {
			size := decimal.RequireFromString(tr.Size)
			if !size.IsPositive() {
				t.Fatalf("trade of size %s: %+v", tr.Size, tr)
			}
			traded = traded.Add(size)
			p := decimal.RequireFromString(tr.EntryPrice)
			if p.LessThan(decimal.NewFromInt(90)) || p.GreaterThan(decimal.NewFromInt(109)) || (tr.Open != (tr.ExitTime == "")) {
				t.Fatalf("trade %+v: entry price out of the fills' range, or open and exit disagree", tr)
			}
		}
		if traded.GreaterThan(total) {
			t.Fatalf("traded %s of %s filled", traded, total)
		}
	})
}

// TestExitLabel names the venue's order sources of orders no rule placed.
func TestExitLabel(t *testing.T) {
	cases := map[string]string{
		"pos_loss_market": "stop-loss", "pos_loss_limit": "stop-loss", "loss_market": "stop-loss",
		"pos_profit_market": "take-profit", "profit_limit": "take-profit", "liquidation": "liquidation",
		"plan_market": "trigger", "move_market": "trailing-stop", "normal": "", "reverse": "",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := exitLabel(in); got != want {
				t.Errorf("exitLabel(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

// TestRoundTrades rounds to the contract's places: prices to the price
// places (1 for BTCUSDT here), sizes to the volume places (4), money to
// both (5).
func TestRoundTrades(t *testing.T) {
	ts := []Trade{{Symbol: "BTCUSDT", Size: "0.12345", EntryPrice: "82000.123456", ExitPrice: "", PnL: "1.234567891", Fees: "0.0333333333", NetPnL: "1.2012345577"}}
	roundTrades(ts, func(string) places { return places{price: 1, volume: 4, money: 5} })
	want := Trade{Symbol: "BTCUSDT", Size: "0.1235", EntryPrice: "82000.1", PnL: "1.23457", Fees: "0.03333", NetPnL: "1.20123"}
	if ts[0] != want {
		t.Errorf("rounded:\n got %+v\nwant %+v", ts[0], want)
	}
}
