package backtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

func TestParseVary(t *testing.T) {
	cases := []struct {
		in   string
		want Vary
		err  string
	}{
		{"STOP=0.02,0.03", Vary{"STOP", []string{"0.02", "0.03"}}, ""},
		{" size = 1, 2 ,3", Vary{"size", []string{"1", "2", "3"}}, ""},
		{"ONE=x", Vary{"ONE", []string{"x"}}, ""},
		{"STOP", Vary{}, "write NAME=value1"},
		{"1STOP=1", Vary{}, "write NAME=value1"},
		{"ST-OP=1", Vary{}, "write NAME=value1"},
		{"STOP=", Vary{}, "is empty"},
		{"STOP=1,,2", Vary{}, "is empty"},
		{"STOP=1,2,1", Vary{}, "STOP=1 is given twice"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseVary(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseVary(%q) = %v, %v; want an error containing %q", c.in, got, err, c.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ParseVary(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
		})
	}
}

func TestVariants(t *testing.T) {
	many := Vary{Name: "A"}
	for i := range 17 {
		many.Values = append(many.Values, strings.Repeat("x", i+1))
	}
	cases := []struct {
		name string
		vary []Vary
		want []Variant
		err  string
	}{
		{"product, first slowest", []Vary{{"stop", []string{"0.02", "0.03"}}, {"size", []string{"1", "2"}}}, []Variant{
			{"stop=0.02,size=1", []string{"0.02", "1"}}, {"stop=0.02,size=2", []string{"0.02", "2"}},
			{"stop=0.03,size=1", []string{"0.03", "1"}}, {"stop=0.03,size=2", []string{"0.03", "2"}},
		}, ""},
		{"unsafe characters", []Vary{{"SYM", []string{"../etc", "a b/c"}}}, []Variant{
			{"SYM=.._etc", []string{"../etc"}}, {"SYM=a_b_c", []string{"a b/c"}},
		}, ""},
		{"same folder", []Vary{{"SYM", []string{"a/b", "a_b"}}}, nil, "would share the folder SYM=a_b"},
		{"twice", []Vary{{"A", []string{"1"}}, {"A", []string{"2"}}}, nil, "--vary A is given twice"},
		{"none", nil, nil, "at least one --vary"},
		{"at the cap", []Vary{{"A", many.Values[:16]}, {"B", many.Values[:16]}}, nil, ""},
		{"over the cap", []Vary{many, {"B", many.Values[:16]}}, nil, "more than 256 combinations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Variants(c.vary)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Variants = %v, %v; want an error containing %q", got, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				if len(got) != MaxVariants {
					t.Fatalf("%d variants, want %d", len(got), MaxVariants)
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Variants = %v\nwant %v", got, c.want)
			}
		})
	}
}

// sweepRules copies the example rules to a new directory, replacing each
// old text of edits with its new text (it must occur), and returns the
// directory.
func sweepRules(t *testing.T, edits map[string][2]string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../examples/rules")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("../examples/rules", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if ed, ok := edits[e.Name()]; ok {
			if !bytes.Contains(data, []byte(ed[0])) {
				t.Fatalf("%s has no %q: the example changed; update this test", e.Name(), ed[0])
			}
			data = bytes.ReplaceAll(data, []byte(ed[0]), []byte(ed[1]))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSweepReportsMatchSingleRuns runs a 2x2 sweep of the example rules,
// two variants at a time, and checks every variant's report.json and
// report.html byte for byte against a backtest run alone on rule files
// with the values written in by hand. The sizes must change the reports,
// or the substitution would not be shown to happen.
func TestSweepReportsMatchSingleRuns(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	const stopIn = `unrealized_pnl_pct < -0.03`
	const sizeIn = `size: ${TSLA_DIP_SIZE:-1}`
	rules := sweepRules(t, map[string][2]string{"cut-losses.yaml": {stopIn, `unrealized_pnl_pct < -${STOP}`}})
	from, to := demoStart.Add(25*time.Minute), demoStart.Add(90*time.Minute)
	out := t.TempDir()
	// TSLA_DIP_SIZE comes from the sweep, not this environment, which
	// would otherwise win.
	env := map[string]string{"TSLA_DIP_SIZE": "7"}
	var done []string
	res, err := Sweep(context.Background(), SweepOptions{
		Base:    Options{RuleDirs: []string{rules}, From: from, To: to, Getenv: func(k string) string { return env[k] }},
		Prepare: func(o *Options) error { o.Scenario = sim.Demo(); return nil },
		Vary:    []Vary{{"STOP", []string{"0.001", "0.03"}}, {"TSLA_DIP_SIZE", []string{"1", "2"}}},
		Jobs:    2, Out: out,
		Done: func(v VariantResult) { done = append(done, v.Name) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 4 || len(done) != 4 {
		t.Fatalf("%d variants, %d done; want 4", len(res.Variants), len(done))
	}
	reports := map[string][]byte{}
	for _, v := range res.Variants {
		stop, size := v.Values[0], v.Values[1]
		hand := sweepRules(t, map[string][2]string{"cut-losses.yaml": {stopIn, `unrealized_pnl_pct < -` + stop}, "buy-the-open-dip.yaml": {sizeIn, "size: " + size}})
		rep, err := Run(context.Background(), Options{Scenario: sim.Demo(), RuleDirs: []string{hand}, From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		js, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		for file, want := range map[string][]byte{JSONFile: js, HTMLFile: rep.HTML()} {
			got, err := os.ReadFile(filepath.Join(out, v.Name, file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from the run alone:\n%s", v.Name, file, firstDiff(got, want))
			}
		}
		if !reflect.DeepEqual(v.Accounts, rep.Summary.Accounts) {
			t.Errorf("%s: the sweep kept accounts %+v, the report has %+v", v.Name, v.Accounts, rep.Summary.Accounts)
		}
		reports[v.Name] = js
	}
	if bytes.Equal(reports["STOP=0.03,TSLA_DIP_SIZE=1"], reports["STOP=0.03,TSLA_DIP_SIZE=2"]) {
		t.Error("the order size changed nothing in the report: the comparison exercised nothing")
	}
	if !strings.Contains(string(reports["STOP=0.03,TSLA_DIP_SIZE=2"]), `"size":"2"`) &&
		!strings.Contains(string(reports["STOP=0.03,TSLA_DIP_SIZE=2"]), `"size": "2"`) {
		t.Error("no order of size 2 in the TSLA_DIP_SIZE=2 report")
	}
	if err := res.WriteCompare(out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, CompareFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Variants {
		if !strings.Contains(string(page), `href="`+v.Name+`/report.html"`) {
			t.Errorf("compare.html does not link %s", v.Name)
		}
	}
}

func TestSweepErrors(t *testing.T) {
	unknown := sweepRules(t, map[string][2]string{"cut-losses.yaml": {"-0.03", "-${STOPP}"}})
	cases := []struct {
		name  string
		rules string
		vary  []Vary
		err   []string
	}{
		{"unused", "../examples/rules", []Vary{{"STOP", []string{"1", "2"}}, {"TSLA_DIP_SIZE", []string{"1"}}}, []string{"references ${STOP}"}},
		{"another rule set", "testdata/rules", []Vary{{"X", []string{"1"}}}, []string{"references ${X}"}},
		{"unknown reference", unknown, []Vary{{"TSLA_DIP_SIZE", []string{"1", "2"}}},
			[]string{"variant TSLA_DIP_SIZE=", "cut-losses.yaml:11:", "STOPP is not set"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			_, err := Sweep(context.Background(), SweepOptions{
				Base:    Options{RuleDirs: []string{c.rules}, From: demoStart, To: demoStart.Add(time.Minute)},
				Prepare: func(o *Options) error { o.Scenario = sim.Demo(); return nil },
				Vary:    c.vary, Jobs: 2, Out: out,
			})
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range c.err {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestSweepCompareGolden checks the terminal table and compare.html of a
// made-up sweep: sorted by return per account, unused accounts left out.
func TestSweepCompareGolden(t *testing.T) {
	acct := func(pt, ret, dd string, trades int, win string) AccountSummary {
		return AccountSummary{ProductType: pt, MarginCoin: "USDT", EquityStart: "100", EquityEnd: "101", ReturnPct: ret,
			MaxDrawdown: "1", MaxDrawdownPct: dd, Fills: 2 * trades, Trades: trades, WinRatePct: win}
	}
	idle := AccountSummary{ProductType: "COIN-FUTURES", MarginCoin: "BTC", EquityStart: "10", EquityEnd: "10", MaxDrawdown: "0", ReturnPct: "0"}
	res := &SweepResult{Vary: []Vary{{"STOP", []string{"0.02", "0.03"}}, {"SIZE", []string{"1", "2"}}}, Variants: []VariantResult{
		{Variant{"STOP=0.02,SIZE=1", []string{"0.02", "1"}}, 10, []AccountSummary{acct("USDT-FUTURES", "-0.5", "1.2", 3, "33.3333"), idle}},
		{Variant{"STOP=0.02,SIZE=2", []string{"0.02", "2"}}, 10, []AccountSummary{acct("USDT-FUTURES", "1.25", "0.4", 2, "100"), idle}},
		{Variant{"STOP=0.03,SIZE=1", []string{"0.03", "1"}}, 10, []AccountSummary{acct("USDT-FUTURES", "0.1", "0.9", 0, ""), idle}},
		{Variant{"STOP=0.03,SIZE=2", []string{"0.03", "2"}}, 10, []AccountSummary{acct("USDT-FUTURES", "0.1", "2", 1, "0"), idle}},
	}}
	var table bytes.Buffer
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		file string
		got  []byte
	}{{"sweep-table.txt", table.Bytes()}, {"sweep-compare.html", res.HTML()}} {
		t.Run(g.file, func(t *testing.T) {
			path := filepath.Join("testdata", g.file)
			if *update {
				if err := os.WriteFile(path, g.got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./backtest -run TestSweepCompareGolden -update to create it)", err)
			}
			if !bytes.Equal(g.got, want) {
				t.Errorf("%s differs (go test ./backtest -run TestSweepCompareGolden -update, then review):\n%s", path, firstDiff(g.got, want))
			}
		})
	}
	if strings.Contains(table.String(), "COIN-FUTURES") {
		t.Error("the table shows an account no variant used")
	}
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "STOP=0.02,SIZE=2") || !strings.Contains(lines[4], "STOP=0.02,SIZE=1") ||
		!strings.Contains(lines[2], "STOP=0.03,SIZE=1") {
		t.Errorf("the table is not sorted by return, ties in sweep order:\n%s", table.String())
	}
}

// FuzzParseVary feeds --vary arguments to ParseVary and Variants: no
// panic, and every folder name stays one safe path element.
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"STOP=0.02,0.03", "A=../x,a b", "X=", "=1", "S=a/b,a_b", "N=\x00,é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVary(s)
		if err != nil {
			return
		}
		if len(v.Values) == 0 {
			t.Fatalf("ParseVary(%q) has no values and no error", s)
		}
		vs, err := Variants([]Vary{v})
		if err != nil {
			return
		}
		for _, x := range vs {
			if x.Name != folderName(x.Name) || x.Name == "." || x.Name == ".." || strings.ContainsAny(x.Name, `/\`) {
				t.Fatalf("unsafe folder %q from %q", x.Name, s)
			}
		}
	})
}
