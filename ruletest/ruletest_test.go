package ruletest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s (run with -update after checking):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func report(t *testing.T, results []FileResult) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, results, true, false); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPassingFile(t *testing.T) {
	res := RunFile(context.Background(), "testdata/passing/dip_test.yaml", Options{})
	if res.Failed() || len(res.Tests) != 2 {
		t.Fatalf("want 2 passing tests:\n%s", report(t, []FileResult{res}))
	}
	if s := Summarize([]FileResult{res}); !s.OK() || s.String() != "2 tests in 1 files: 2 passed, 0 failed" {
		t.Errorf("summary %q", s)
	}
}

func TestFailingFileReadableDiff(t *testing.T) {
	res := RunFile(context.Background(), "testdata/failing/dip_test.yaml", Options{})
	for _, tr := range res.Tests {
		if tr.Passed() {
			t.Errorf("test %q passed; every test of the file must fail", tr.Name)
		}
	}
	if len(res.Tests) != 5 {
		t.Fatalf("ran %d tests, want 5", len(res.Tests))
	}
	golden(t, "failing.golden", report(t, []FileResult{res}))
	if s := Summarize([]FileResult{res}); s.OK() || s.Failed != 5 {
		t.Errorf("summary %+v", s)
	}
}

func TestRunSelectsTests(t *testing.T) {
	cases := []struct {
		re   string
		want []string
	}{
		{"spread", []string{"quiet when the spread is wide"}},
		{"^fires", []string{"fires at the open"}},
		{"nothing matches this", nil},
		{".", []string{"fires at the open", "quiet when the spread is wide"}},
	}
	for _, c := range cases {
		t.Run(c.re, func(t *testing.T) {
			res := RunFile(context.Background(), "testdata/passing/dip_test.yaml", Options{Run: regexp.MustCompile(c.re)})
			var got []string
			for _, tr := range res.Tests {
				got = append(got, tr.Name)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("ran %q, want %q", got, c.want)
			}
		})
	}
}

// TestExamples runs the tests of each examples directory, and checks that
// every rule file there has one.
func TestExamples(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"rules", "remember"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "examples", name)
			results, err := RunDir(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s := Summarize(results); !s.OK() || s.Tests == 0 {
				t.Errorf("%s\n%s", s, report(t, results))
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				name := e.Name()
				if ext := filepath.Ext(name); (ext == ".yaml" || ext == ".yml") && !IsTestFile(name) {
					test := strings.TrimSuffix(name, ext) + "_test" + ext
					if _, err := os.Stat(filepath.Join(dir, test)); err != nil {
						t.Errorf("%s has no rule test %s", name, test)
					}
				}
			}
		})
	}
}

func TestBadTestFiles(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"fired without last", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    fired:\n      r: {today: 1}\n",
			"bad.yaml:5:10: fired: r needs last: the time of its last firing"},
		{"fired today not a number", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    fired:\n      r: {today: two, last: \"09:00\"}\n",
			"bad.yaml:5:18: today must be a whole number, not \"two\""},
		{"fired after the start", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    fired:\n      r: {today: 1, last: \"09:45\"}\n",
			"bad.yaml:5:27: last 09:45 is after the test's start"},
		{"unknown key", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    stat: {}\n",
			"bad.yaml:4:5: unknown key \"stat\" in tests item 1"},
		{"unknown stock key", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      stocks:\n        TSLA: {bid: 1, aks: 2}\n",
			"bad.yaml:6:24: unknown key \"aks\" in stocks TSLA"},
		{"not a number", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      stocks:\n        TSLA: {bid: abc}\n",
			"bad.yaml:6:21: bid must be a number, not \"abc\""},
		{"bad time", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    expect:\n      - rule: r\n        fires: [{at: \"9h31\"}]\n",
			"bad.yaml:6:22: at: \"9h31\" is not a time"},
		{"time before start", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    expect:\n      - rule: r\n        fires: [{at: \"09:00\"}]\n",
			"bad.yaml:6:22: at 09:00 is before the test's start"},
		{"no start", "tests:\n  - name: a\n", "bad.yaml:2:5: test \"a\" has no start"},
		{"nothing expected", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    expect:\n      - rule: r\n",
			"bad.yaml:5:9: nothing is expected of r"},
		{"unknown action", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    expect:\n      - rule: r\n        fires:\n          - at: \"09:31\"\n            actions:\n              - place_ordr: {size: 1}\n",
			"bad.yaml:9:17: unknown action \"place_ordr\""},
		{"bad side", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      positions:\n        - {symbol: TSLAUSDT, side: up, size: 1}\n",
			"bad.yaml:6:11: a position's side is long or short, not \"up\""},
		{"negative modifications", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      orders:\n        - {symbol: TSLAUSDT, side: buy, size: 1, price: 400, modifications: -1}\n",
			"bad.yaml:6:11: an order's modifications: is how often the engine moved it, 0 or more"},
		{"modifications in a change", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    changes:\n      - at: \"09:31\"\n        orders:\n          - {symbol: TSLAUSDT, side: buy, size: 1, price: 400, modifications: 2}\n",
			"bad.yaml:7:13: modifications: is stated in the test's state, as a restart finds it, not in a change"},
		{"duplicate test", "tests:\n  - {name: a, start: \"2026-03-09 09:30\"}\n  - {name: a, start: \"2026-03-09 09:30\"}\n",
			"bad.yaml:3:5: a second test named \"a\""},
		{"strategy order without side", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      strategy_orders:\n        - {symbol: TSLAUSDT, size: 1, stop_loss: 395}\n",
			"bad.yaml:6:11: a strategy order's side is the position side it works on, long or short, not \"\""},
		{"tpsl without prices", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      strategy_orders:\n        - {symbol: TSLAUSDT, side: long, size: 1, type: tpsl}\n",
			"bad.yaml:6:11: a tpsl strategy order needs stop_loss: or take_profit:"},
		{"trigger with a stop-loss", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      strategy_orders:\n        - {symbol: TSLAUSDT, side: long, size: 1, type: trigger, trigger_price: 400, stop_loss: 395}\n",
			"bad.yaml:6:11: a trigger strategy order cannot have stop_loss: or take_profit:"},
		{"strategy type not inline", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      strategy_orders:\n        - {symbol: TSLAUSDT, side: long, size: 1, type: twap}\n",
			"bad.yaml:6:11: a strategy order's type is tpsl or trigger here, not \"twap\""},
		{"strategy status", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      strategy_orders:\n        - {symbol: TSLAUSDT, side: long, size: 1, stop_loss: 395, status: open}\n",
			"bad.yaml:6:11: a strategy order's status is pending, submitting, success, failed or cancelled, not \"open\""},
		{"strategy key", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      strategy_orders:\n        - {symbol: TSLAUSDT, side: long, size: 1, stoploss: 395}\n",
			"bad.yaml:6:51: unknown key \"stoploss\" in strategy_orders item 1"},
		{"spot record type", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      spot_records:\n        - {coin: USDT, type: deposit, amount: 5}\n",
			"bad.yaml:6:11: a spot record's type is one of the venue's spotTaxType values, not \"deposit\""},
		{"spot record without amount", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      spot_records:\n        - {coin: USDT, type: Deposit}\n",
			"bad.yaml:6:11: a spot record needs coin:, type: and amount:"},
		{"an age without its unit", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      positions:\n        - {symbol: TSLAUSDT, side: long, size: 1, entry: 400, age: 90}\n",
			"bad.yaml:6:68: 90 has no unit"},
		{"account in a change", "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    changes:\n      - {at: \"09:31\", account: \"1\"}\n",
			"bad.yaml:5:9: account: belongs in a test's state:, not in a change"},
		{"yaml syntax", "tests:\n  - name: a\n   start: x\n", "bad.yaml:3:4: this line's indentation does not fit the lines above"},
		{"empty", "", "bad.yaml:1:1: the file is empty"},
		{"no tests", "env: {A: b}\n", "bad.yaml:1:1: no tests"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, errs := Parse("bad.yaml", []byte(c.text))
			if f != nil || len(errs) == 0 {
				t.Fatalf("no finding; want %q", c.want)
			}
			if got := errs[0].Error(); !strings.HasPrefix(got, c.want) {
				t.Errorf("first finding %q\nwant prefix %q\nall:\n%v", got, c.want, errs)
			}
		})
	}
}

// TestBadFileRendering shows a bad file as engine test prints it: with the
// source line, a caret and a hint.
func TestBadFileRendering(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x_test.yaml")
	text := "tests:\n  - name: a\n    start: \"2026-03-09 09:30\"\n    state:\n      stocks:\n        TSLA: {bid: 1, aks: 2}\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	res := RunFile(context.Background(), path, Options{})
	out := strings.ReplaceAll(string(report(t, []FileResult{res})), dir, "DIR")
	want := `DIR/x_test.yaml: could not run
DIR/x_test.yaml:6:24: unknown key "aks" in stocks TSLA
            TSLA: {bid: 1, aks: 2}
                           ^
    hint: did you mean "ask"?
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if !res.Failed() {
		t.Error("a file that could not run must count as failed")
	}
}

func TestRuleFilesThatDoNotLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte("rules:\n  - name: r\n    when: nosuchvar > 1\n    actions: [{log: {message: x}}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "r_test.yaml"), []byte("tests:\n  - {name: a, start: \"2026-03-09 09:30\", expect: [{rule: r, fires: []}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
	if !res.Failed() || len(res.Errors) == 0 || !strings.Contains(res.Errors[0].Error(), "r.yaml:3:") {
		t.Errorf("want the rule file's finding with its line; got %v", res.Errors)
	}
}

// TestAccountFromScenario runs tests that start from a scenario's accounts:
// their positions, orders, strategy orders and position modes decide what
// the example rules do (see testdata/account/account_test.yaml).
func TestAccountFromScenario(t *testing.T) {
	res := RunFile(context.Background(), "testdata/account/account_test.yaml", Options{})
	if res.Failed() || len(res.Tests) != 4 {
		t.Fatalf("want 4 passing tests:\n%s", report(t, []FileResult{res}))
	}
}

// TestInlineStrategyOrders checks that a stop-loss written in the state is
// what has_stop_loss reads, and that a change replaces it: the same rule
// and position with and without a stop-loss strategy order.
func TestInlineStrategyOrders(t *testing.T) {
	dir := t.TempDir()
	rule := "rules:\n  - name: r\n    when: position(\"TSLAUSDT\", \"long\").size > 0 && !has_stop_loss(\"TSLAUSDT\", \"long\")\n    actions: [{log: {message: x}}]\n"
	test := `tests:
  - name: stop-loss held, then cancelled
    start: "2026-03-09 10:00"
    end: "10:00:05"
    state:
      positions: [{symbol: TSLAUSDT, side: long, size: 1, entry: 400}]
      strategy_orders: [{symbol: TSLAUSDT, side: long, size: 1, stop_loss: 390}]
    changes:
      - {at: "10:00:03", strategy_orders: []}
    expect:
      - rule: r
        fires: [{at: "10:00:03"}]   # edge-triggered: once, when the stop-loss goes
  - name: a trigger order is not a stop-loss
    start: "2026-03-09 10:00"
    end: "10:00:01"
    state:
      positions: [{symbol: TSLAUSDT, side: long, size: 1, entry: 400}]
      strategy_orders: [{symbol: TSLAUSDT, side: long, size: 1, trigger_price: 390}]
    expect:
      - rule: r
        fires: [{at: "10:00"}]
`
	for name, text := range map[string]string{"r.yaml": rule, "r_test.yaml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
	if res.Failed() || len(res.Tests) != 2 {
		t.Fatalf("want 2 passing tests:\n%s", report(t, []FileResult{res}))
	}
}

// TestInlineSpotRecords checks that spot records written in a test's state
// are what spot_records reads, newest first, with their ages, and that a
// test that gives none has none fetched (issue 25: they could not be
// stated).
func TestInlineSpotRecords(t *testing.T) {
	dir := t.TempDir()
	rule := `rules:
  - name: deposit-arrived
    when: len(spot_records) > 0 && spot_records[0].type == "Deposit" && spot_records[0].amount > 500 && spot_records[0].age_seconds >= 60
    actions: [{log: {message: "deposit {{ spot_records[0].amount }} {{ spot_records[0].coin }}"}}]
`
	test := `tests:
  - name: a deposit a minute old, after a withdrawal
    start: "2026-03-09 10:00"
    end: "10:00:05"
    state:
      spot_records: [{coin: USDT, type: Withdrawal, amount: -20, balance: 980, age: 2h}]
    changes:
      - at: "10:00:03"
        spot_records:
          - {coin: USDT, type: Withdrawal, amount: -20, balance: 980, age: 2h}
          - {coin: USDT, type: Deposit, amount: 853.6, balance: 1833.6, biz_order_id: "9100000000", age: 1m}
    expect:
      - rule: deposit-arrived
        fires:
          - at: "10:00:03"
            actions: [{log: {message: "deposit 853.6 USDT"}}]
  - name: none given, none fetched
    start: "2026-03-09 10:00"
    end: "10:00:02"
    expect:
      - rule: deposit-arrived
        fires: []
`
	for name, text := range map[string]string{"r.yaml": rule, "r_test.yaml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
	if res.Failed() || len(res.Tests) != 2 {
		t.Fatalf("want 2 passing tests:\n%s", report(t, []FileResult{res}))
	}
}

// TestModifyOrderIsSettledInTheTick: the dispatcher looks a modify's new
// order up by its newClientOid; in a rule test that lookup finds it at
// once, with no wait on the test's clock (issue 25: each modify_order cost
// 15 s of real time, and its leg failed when the wait gave up).
func TestModifyOrderIsSettledInTheTick(t *testing.T) {
	dir := t.TempDir()
	rule := `rules:
  - name: move-bid
    when: market.session == "regular"
    once: per_session
    actions:
      - modify_order: {symbol: TSLAUSDT, order_id: "o1", new_price: 401, new_size: 1}
`
	test := `tests:
  - name: moves the bid at the open
    start: "2026-03-09 09:29:58"
    end: "09:30:02"
    state:
      orders: [{symbol: TSLAUSDT, side: buy, size: 1, price: 400, id: o1}]
    expect:
      - rule: move-bid
        fires:
          - at: "09:30"
            actions: [{modify_order: {order_id: o1, new_price: 401, outcome: ok}}]
`
	for name, text := range map[string]string{"r.yaml": rule, "r_test.yaml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
	if res.Failed() || len(res.Tests) != 1 {
		t.Fatalf("want 1 passing test:\n%s", report(t, []FileResult{res}))
	}
	// Five ticks and one firing take milliseconds; the wait took 15 s.
	if e := res.Tests[0].Elapsed; e > 5*time.Second {
		t.Errorf("the test took %v of real time", e)
	}
}

func TestUnknownScenarioAccount(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte("rules:\n  - name: r\n    when: true\n    actions: [{log: {message: x}}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "r_test.yaml"), []byte("tests:\n  - {name: a, start: \"2026-03-09 09:30\", state: {account: \"42\"}, expect: [{rule: r, fires: []}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
	want := "state: account 42: the scenario has no account with this uid (it has 1000000001, 1000000002)"
	if len(res.Tests) != 1 || len(res.Tests[0].Failures) != 1 || !strings.HasSuffix(res.Tests[0].Failures[0], want) {
		t.Errorf("want one failure ending %q; got %+v", want, res.Tests)
	}
}

// TestNotifyMessage: a rule test checks a notify action's message as it
// checks a log message.
func TestNotifyMessage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte("rules:\n  - name: r\n    when: true\n    once: per_day\n    actions: [{notify: {message: \"sum {{ 1 + 1 > 1 ? \\\"big\\\" : \\\"small\\\" }}\"}}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		message string
		pass    bool
	}{{"sum big", true}, {"sum small", false}} {
		test := "tests:\n  - {name: a, start: \"2026-03-09 09:30\", expect: [{rule: r, fires: [{at: \"09:30\", actions: [{notify: {message: \"" + tt.message + "\"}}]}]}]}\n"
		if err := os.WriteFile(filepath.Join(dir, "r_test.yaml"), []byte(test), 0o600); err != nil {
			t.Fatal(err)
		}
		res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
		out := string(report(t, []FileResult{res}))
		if res.Failed() == tt.pass || !tt.pass && !strings.Contains(out, `message was "sum big", expected "sum small"`) {
			t.Errorf("message %q: failed %v:\n%s", tt.message, res.Failed(), out)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/passing/dip_test.yaml", "testdata/failing/dip_test.yaml", "../examples/rules/nvda-ladder_test.yaml", "testdata/account/account_test.yaml", "../examples/rules/restore-stop-loss_test.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("tests: [{name: a, start: x, state: {stocks: {A: {bids: [[1]]}}}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, errs := Parse("fuzz.yaml", data)
		if (file == nil) == (len(errs) == 0) {
			t.Fatalf("a file and findings, or neither: %v %v", file != nil, errs)
		}
		for _, e := range errs {
			if e.File != "fuzz.yaml" {
				t.Fatalf("finding without the file name: %v", e)
			}
		}
	})
}

// runInline writes a rule file and a test file to a new directory and runs
// the test file.
func runInline(t *testing.T, rule, test string) FileResult {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"r.yaml": rule, "r_test.yaml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
}

// TestImpossibleAccounts: a test's account must be one the exchange can
// have, and the one its rule files were written for.
func TestImpossibleAccounts(t *testing.T) {
	rule := "rules:\n  - name: r\n    when: position(\"TSLAUSDT\", \"long\").size > 0\n    actions: [{log: {message: x}}]\n"
	hedgeRule := "defaults:\n  position_mode: hedge_mode\n" + rule
	for _, tc := range []struct {
		name, rule, state, want string
	}{
		{"one-way long and short", rule,
			"{positions: [{symbol: TSLAUSDT, side: long, size: 1}, {symbol: TSLAUSDT, side: short, size: 1}]}",
			"state: 7:61: the account holds a long and a short TSLAUSDT position, but USDT-FUTURES is in one-way mode, where a symbol has one position: keep one side, or set position_mode: {USDT-FUTURES: hedge}"},
		{"hedge long and short", rule,
			"{position_mode: {USDT-FUTURES: hedge}, positions: [{symbol: TSLAUSDT, side: long, size: 1}, {symbol: TSLAUSDT, side: short, size: 1}]}", ""},
		{"rule file in hedge mode, account one-way", hedgeRule, "{positions: [{symbol: TSLAUSDT, side: long, size: 1}]}",
			"r.yaml says position_mode: hedge_mode in its defaults, but this test's account is in one_way_mode for USDT-FUTURES: set position_mode: {USDT-FUTURES: hedge} in the test's state, or change the rule file"},
		{"rule file and account in hedge mode", hedgeRule, "{position_mode: {USDT-FUTURES: hedge}, positions: [{symbol: TSLAUSDT, side: long, size: 1}]}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test := "tests:\n  - name: a\n    start: \"2026-03-09 10:00\"\n    end: \"10:00:01\"\n    expect: [{rule: r, fires: [{at: \"10:00\"}]}]\n" +
				"    state:\n      " + tc.state + "\n"
			res := runInline(t, tc.rule, test)
			if len(res.Errors) > 0 || len(res.Tests) != 1 {
				t.Fatalf("%v %+v", res.Errors, res.Tests)
			}
			f := res.Tests[0].Failures
			if tc.want == "" {
				if len(f) > 0 {
					t.Fatalf("failed: %v", f)
				}
				return
			}
			if len(f) != 1 || !strings.HasSuffix(f[0], tc.want) {
				t.Errorf("failures %q\nwant one ending %q", f, tc.want)
			}
		})
	}
}

// TestFailureOutputSummarised: a test that fails on every tick shows its
// first differences and a count of the rest, unless verbose.
func TestFailureOutputSummarised(t *testing.T) {
	results := []FileResult{{Path: "x_test.yaml", Tests: []TestResult{{Name: "noisy", Failures: []string{"d1", "d2", "d3", "d4", "d5", "d6", "d7"}}}}}
	var b bytes.Buffer
	if err := Write(&b, results, false, false); err != nil {
		t.Fatal(err)
	}
	want := "x_test.yaml\n  FAIL  noisy\n        d1\n        d2\n        d3\n        d4\n        d5\n        ... and 2 more differences (-v shows them all)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := Write(&b, results, true, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "d7") || strings.Contains(b.String(), "more differences") {
		t.Errorf("verbose must show every difference:\n%s", b.String())
	}
}

// TestScenarioLackingAContract: a rule naming a contract the test's
// scenario does not have is reported as missing from the scenario.
func TestScenarioLackingAContract(t *testing.T) {
	dir := t.TempDir()
	// The scenario has TSLAUSDT, NVDAUSDT and AAPLUSDT, not ETHUSDT.
	scenario, err := os.ReadFile("testdata/account/scenario/weekend-tradable.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Scenarios have their own folder beside the rules'.
	files := map[string]string{
		"scenarios/noeth.yaml": string(scenario),
		"rules/r.yaml":         "rules:\n  - name: r\n    when: position(\"ETHUSDT\", \"long\").size > 0\n    actions: [{log: {message: x}}]\n",
		"rules/r_test.yaml":    "scenario: ../scenarios/noeth.yaml\ntests:\n  - {name: a, start: \"2026-03-09 09:30\", expect: [{rule: r, fires: []}]}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := RunFile(context.Background(), filepath.Join(dir, "rules/r_test.yaml"), Options{})
	if len(res.Errors) != 1 {
		t.Fatalf("want one finding, got %v", res.Errors)
	}
	e := res.Errors[0]
	if e.Message != "ETHUSDT is not a futures contract in the scenario ../scenarios/noeth.yaml" ||
		e.Hint != "if the rule is right, add ETHUSDT to the contracts: (and prices:) of the scenario ../scenarios/noeth.yaml" {
		t.Errorf("got %q, hint %q", e.Message, e.Hint)
	}
}

// TestLogMessages checks the messages a firing's log actions wrote with
// logs: in a firing, apart from its other actions.
func TestLogMessages(t *testing.T) {
	res := RunFile(context.Background(), "testdata/logs/spread_test.yaml", Options{})
	if len(res.Errors) > 0 || len(res.Tests) != 3 {
		t.Fatalf("want 3 tests:\n%s", report(t, []FileResult{res}))
	}
	out := string(report(t, []FileResult{res}))
	for i, want := range []string{
		"",
		`report-spread at 09:30:00: log message 1 was "TSLA bid 412.00, spread 4.9 bps", expected "TSLA bid 412, spread 4.9 bps"`,
		`report-spread at 09:30:00: expected 0 log messages; it wrote 1: "TSLA bid 412.00, spread 4.9 bps"`,
	} {
		tr := res.Tests[i]
		if (want == "") != tr.Passed() {
			t.Errorf("test %q passed: %v\n%s", tr.Name, tr.Passed(), out)
		}
		if want != "" && !strings.Contains(out, want) {
			t.Errorf("report does not say %q:\n%s", want, out)
		}
	}
}

// TestInlineClosedTrades checks that closed trades written in a test's
// state are what last_close, closes_today, losses_today, pnl_today and
// equity_day_start read, one test per function: today starts at 00:00
// New York time (a loss closed at 23:30 yesterday is not today's),
// minutes_ago follows the test's clock, and a symbol never closed has no
// last close (the condition is false).
func TestInlineClosedTrades(t *testing.T) {
	dir := t.TempDir()
	rule := `rules:
  - name: cooldown-over
    when: last_close("TSLAUSDT").pnl < 0 && last_close("TSLAUSDT").minutes_ago >= 30
    actions: [{log: {message: "cooldown over after {{ last_close(\"TSLAUSDT\").side }} {{ last_close(\"TSLAUSDT\").pnl }}"}}]
  - name: never-closed
    when: last_close("NVDAUSDT").pnl < 0 || last_close("NVDAUSDT").pnl >= 0
    actions: [{log: {message: "NVDAUSDT closed"}}]
  - name: busy-day
    when: closes_today("TSLAUSDT") >= 2
    actions: [{log: {message: "two closes"}}]
  - name: two-losses
    when: losses_today("TSLAUSDT") >= 2
    actions: [{log: {message: "two losses"}}]
  - name: daily-loss
    when: pnl_today("USDT-FUTURES") < -500
    actions: [{log: {message: "lost {{ pnl_today(\"USDT-FUTURES\") }}"}}]
  - name: daily-loss-pct
    when: pnl_today("USDT-FUTURES") < -0.05 * equity_day_start("USDT")
    actions: [{log: {message: "lost 5% of {{ equity_day_start(\"USDT\") }}"}}]
  - name: no-recent-loss
    when: none(closed_trades, .symbol == "TSLAUSDT" && .pnl < 0 && .minutes_ago < 30)
    actions: [{log: {message: "free to trade"}}]
`
	test := `tests:
  - name: last_close counts minutes from the close
    start: "2026-03-09 10:00"
    end: "10:06"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: long, size: 1, pnl: -12.5, age: 25m}]
    expect:
      - rule: cooldown-over
        fires: [{at: "10:05", actions: [{log: {message: "cooldown over after long -12.5"}}]}]
      - rule: never-closed
        fires: []
  - name: closes_today counts today's closes
    start: "2026-03-09 10:00"
    end: "10:00:05"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: long, size: 1, pnl: 3, age: 1h}]
    changes:
      - at: "10:00:03"
        closed_trades:
          - {symbol: TSLAUSDT, side: long, size: 1, pnl: 3, age: 1h}
          - {symbol: TSLAUSDT, side: short, size: 2, pnl: 1, age: 1s}
    expect:
      - rule: busy-day
        fires: [{at: "10:00:03"}]
  - name: losses_today starts at midnight New York time
    start: "2026-03-09 10:00"
    end: "10:00:05"
    state:
      closed_trades:
        - {symbol: TSLAUSDT, side: long, size: 1, pnl: -40, age: 10h30m}
        - {symbol: TSLAUSDT, side: long, size: 1, pnl: -5, age: 9h59m}
    changes:
      - at: "10:00:02"
        closed_trades:
          - {symbol: TSLAUSDT, side: long, size: 1, pnl: -40, age: 10h30m}
          - {symbol: TSLAUSDT, side: long, size: 1, pnl: -5, age: 9h59m}
          - {symbol: TSLAUSDT, side: short, size: 1, pnl: -2, fees: -0.5, age: 1s}
    expect:
      - rule: two-losses
        fires: [{at: "10:00:02"}]
  - name: pnl_today adds the open positions' unrealised P&L
    start: "2026-03-09 10:00"
    end: "10:00:05"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: long, size: 1, pnl: -450, age: 2h}]
      positions: [{symbol: NVDAUSDT, side: long, size: 1, entry: 140, mark: 100}]
    changes:
      - at: "10:00:03"
        positions: [{symbol: NVDAUSDT, side: long, size: 1, entry: 140, mark: 80}]
    expect:
      - rule: daily-loss
        fires: [{at: "10:00:03", actions: [{log: {message: "lost -510"}}]}]
  - name: equity_day_start is the equity less today's P&L
    start: "2026-03-09 10:00"
    end: "10:00:05"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: long, size: 1, pnl: -450, age: 2h}]
      positions: [{symbol: NVDAUSDT, side: long, size: 1, entry: 140, mark: 100}]
      balances: {USDT: {available: 9510}}
    changes:
      - at: "10:00:03"
        positions: [{symbol: NVDAUSDT, side: long, size: 1, entry: 140, mark: 80}]
        balances: {USDT: {available: 9490}}
    expect:
      - rule: daily-loss-pct
        fires: [{at: "10:00:03", actions: [{log: {message: "lost 5% of 10000"}}]}]
  - name: closed_trades lists every close; none() is true for a contract never closed
    start: "2026-03-09 10:00"
    end: "10:06"
    state:
      closed_trades: [{symbol: NVDAUSDT, side: long, size: 1, pnl: -3, age: 1m}, {symbol: TSLAUSDT, side: short, size: 1, pnl: -7, age: 25m}]
    expect:
      - rule: no-recent-loss
        fires: [{at: "10:05"}]
`
	for name, text := range map[string]string{"r.yaml": rule, "r_test.yaml": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := RunFile(context.Background(), filepath.Join(dir, "r_test.yaml"), Options{})
	if res.Failed() || len(res.Tests) != 6 {
		t.Fatalf("want 6 passing tests:\n%s", report(t, []FileResult{res}))
	}
}

// TestInlineClosedTradesHow: a closed trade's how: is what
// last_close(...).how reads; without it, the close's how is unknown.
func TestInlineClosedTradesHow(t *testing.T) {
	rule := `rules:
  - name: after-a-stop
    when: last_close("TSLAUSDT").how == "stop-loss"
    actions: [{log: {message: "stopped out"}}]
  - name: how
    when: last_close("TSLAUSDT").minutes_ago >= 0
    once: per_day
    actions: [{log: {message: "{{ last_close(\"TSLAUSDT\").how }}"}}]
`
	test := `tests:
  - name: a stop-loss close
    start: "2026-03-09 10:00"
    end: "10:00:02"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: long, size: 1, pnl: -12.5, age: 5m, how: stop-loss}]
    expect:
      - rule: after-a-stop
        fires: [{at: "10:00"}]               # once: it waits for the condition to turn false
      - rule: how
        fires: [{at: "10:00", actions: [{log: {message: "stop-loss"}}]}]
  - name: by hand
    start: "2026-03-09 10:00"
    end: "10:00:02"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: short, size: 1, pnl: 4, age: 5m, how: by hand}]
    expect:
      - rule: after-a-stop
        fires: []
      - rule: how
        fires: [{at: "10:00", actions: [{log: {message: "by hand"}}]}]
  - name: not said
    start: "2026-03-09 10:00"
    end: "10:00:01"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: short, size: 1, pnl: 4, age: 5m}]
    expect:
      - rule: how
        fires: [{at: "10:00", actions: [{log: {message: "unknown"}}]}]
`
	if res := runInline(t, rule, test); res.Failed() || len(res.Tests) != 3 {
		t.Fatalf("want 3 passing tests:\n%s", report(t, []FileResult{res}))
	}
	bad := `tests:
  - name: a
    start: "2026-03-09 10:00"
    state:
      closed_trades: [{symbol: TSLAUSDT, side: long, size: 1, pnl: 1, how: stoploss}]
`
	res := runInline(t, rule, bad)
	if len(res.Errors) == 0 || !strings.Contains(res.Errors[0].Error(), `a closed trade's how is one of by hand, delivery, liquidation, rule, stop-loss, take-profit, trailing-stop, trigger, not "stoploss"`) {
		t.Errorf("errors %v", res.Errors)
	}
}
