package ruletest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// maxFileSize bounds a test file: it is text a person wrote.
const maxFileSize = 4 << 20

// maxTicks bounds one test's length in ticks (a week at one-second ticks),
// so that a mistyped end cannot run for hours.
const maxTicks = 7 * 24 * 3600

// IsTestFile reports whether name is a rule test file (*_test.yaml or
// *_test.yml).
func IsTestFile(name string) bool {
	return strings.HasSuffix(name, "_test.yaml") || strings.HasSuffix(name, "_test.yml")
}

// Find returns the rule test files under path (a directory, walked
// recursively skipping hidden directories, or one file), sorted.
func Find(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != path && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if !e.IsDir() && IsTestFile(e.Name()) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// LoadFile reads and checks one test file. Every finding has the file,
// line and column; the File is nil when there is any.
func LoadFile(path string) (*File, rulefmt.Errors) {
	data, err := rules.ReadFile(path)
	if err != nil {
		return nil, rulefmt.Errors{{File: path, Severity: rulefmt.SeverityError, Message: err.Error()}}
	}
	return Parse(path, data)
}

// Parse checks a test file given as bytes; name is the path in findings.
func Parse(name string, data []byte) (*File, rulefmt.Errors) {
	d := &decoder{file: name, lines: strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")}
	if len(data) > maxFileSize {
		d.errorAt(0, 0, fmt.Sprintf("file is larger than %d bytes", maxFileSize), "")
		return nil, d.errs
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		// The rule loader's explanation of YAML mistakes (tabs, indentation,
		// unclosed quotes) applies to any YAML a person wrote.
		if _, errs := rules.LoadBytes(context.Background(), name, data, rules.LoadOptions{Actions: actions.Defs()}); len(errs) > 0 {
			return nil, errs
		}
		d.errorAt(1, 1, "the file is not valid YAML: "+strings.TrimPrefix(err.Error(), "yaml: "), "")
		return nil, d.errs
	}
	if len(root.Content) == 0 {
		d.errorAt(1, 1, "the file is empty", "a rule test file has a tests: list")
		return nil, d.errs
	}
	f := &File{Path: name}
	d.decode(root.Content[0], reflect.ValueOf(f).Elem(), "the test file")
	if len(d.errs) == 0 {
		d.check(f)
	}
	if len(d.errs) > 0 {
		sortFindings(d.errs)
		return nil, d.errs
	}
	return f, nil
}

func sortFindings(es rulefmt.Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Column < es[j].Column
	})
}

// check validates what decoding cannot: required keys, times and names.
func (d *decoder) check(f *File) {
	if len(f.Tests) == 0 {
		d.errorAt(1, 1, "no tests: the file needs a tests: list", "")
	}
	names := map[string]bool{}
	for _, t := range f.Tests {
		if t.Name == "" {
			d.errorAt(t.line, t.column, "this test has no name", "add name: followed by what the test shows")
		} else if names[t.Name] {
			d.errorAt(t.line, t.column, fmt.Sprintf("a second test named %q", t.Name), "give every test its own name, so --run can select it")
		}
		names[t.Name] = true
		d.checkTest(t, f.Tick.D)
	}
}

func (d *decoder) checkTest(t *Test, tick time.Duration) {
	if t.Start.Text == "" {
		d.errorAt(t.line, t.column, fmt.Sprintf("test %q has no start", t.Name), `add start: "2026-03-09 09:30" (New York time) or an RFC 3339 time`)
		return
	}
	start, err := parseStart(t.Start.Text)
	if err != nil {
		d.errorAt(t.Start.line, t.Start.column, err.Error(), `write "2026-03-09 09:30" (New York time) or 2026-03-09T13:30:00Z`)
		return
	}
	t.Start.T = start
	latest := start
	resolve := func(w *When, what string) {
		if w.Text == "" {
			return
		}
		if w.T, err = resolveWhen(w.Text, start); err != nil {
			d.errorAt(w.line, w.column, what+": "+err.Error(), `write 09:31, 09:31:30, +90s or "2026-03-10 09:31"`)
			return
		}
		if w.T.Before(start) {
			d.errorAt(w.line, w.column, fmt.Sprintf("%s %s is before the test's start %s", what, w.Text, t.Start.Text), "")
		}
		if w.T.After(latest) {
			latest = w.T
		}
	}
	for i, c := range t.Changes {
		if c.At.Text == "" {
			d.errorAt(t.line, t.column, fmt.Sprintf("change %d has no at: time", i+1), "")
		}
		resolve(&c.At, "at")
		if i > 0 && c.At.T.Before(t.Changes[i-1].At.T) {
			d.errorAt(c.At.line, c.At.column, "changes must be in time order", "")
		}
		if c.State.Account != "" {
			d.errorAt(c.line, c.column, "account: belongs in a test's state:, not in a change", "a change gives new values; the scenario account is where the test starts")
		}
		d.checkState(&c.State, true)
	}
	d.checkState(&t.State, false)
	for name, f := range t.Fired {
		d.checkFired(name, f, start)
	}
	for _, e := range t.Expect {
		if e.Rule == "" {
			d.errorAt(e.line, e.column, "an expectation needs rule: the name of a rule", "")
		}
		if !e.firesGiven && e.DoesNotFire == nil {
			d.errorAt(e.line, e.column, fmt.Sprintf("nothing is expected of %s", e.Rule), "add fires: (a list of times, [] for never) or does_not_fire: {from: ..., to: ...}")
		}
		for _, fi := range e.Fires {
			if fi.At.Text == "" {
				d.errorAt(fi.line, fi.column, "an expected firing needs at: its time", "")
			}
			resolve(&fi.At, "at")
		}
		if w := e.DoesNotFire; w != nil {
			resolve(&w.From, "from")
			resolve(&w.To, "to")
			if !w.From.T.IsZero() && !w.To.T.IsZero() && w.To.T.Before(w.From.T) {
				d.errorAt(w.To.line, w.To.column, "the window ends before it starts", "")
			}
		}
	}
	if t.End.Text != "" {
		resolve(&t.End, "end")
		latest = t.End.T
	} else {
		// One more minute shows a firing that comes late or twice.
		t.End.T = latest.Add(time.Minute)
	}
	if tick <= 0 {
		tick = time.Second
	}
	if n := t.End.T.Sub(start) / tick; n > maxTicks {
		d.errorAt(t.line, t.column, fmt.Sprintf("test %q is %d ticks long; the limit is %d", t.Name, n, maxTicks), "shorten it with end:, or use engine backtest for long runs")
	}
}

// checkState checks a test's state, or a change's (change).
func (d *decoder) checkState(s *State, change bool) {
	for _, p := range s.Positions {
		if p.Symbol == "" {
			d.errorAt(p.line, p.column, "a position needs symbol:", "")
		}
		if p.Side != "long" && p.Side != "short" {
			d.errorAt(p.line, p.column, fmt.Sprintf("a position's side is long or short, not %q", p.Side), "")
		}
		if p.Size == "" {
			d.errorAt(p.line, p.column, "a position needs size: (0 closes a held position)", "")
		}
	}
	for _, o := range s.Orders {
		if o.Symbol == "" || o.Size == "" {
			d.errorAt(o.line, o.column, "an order needs symbol: and size:", "")
		}
		if o.Side != "buy" && o.Side != "sell" {
			d.errorAt(o.line, o.column, fmt.Sprintf("an order's side is buy or sell, not %q", o.Side), "")
		}
		switch {
		case o.Modifications < 0:
			d.errorAt(o.line, o.column, "an order's modifications: is how often the engine moved it, 0 or more", "")
		case o.Modifications > 0 && change:
			d.errorAt(o.line, o.column, "modifications: is stated in the test's state, as a restart finds it, not in a change",
				"an order the engine moves during the test counts its moves itself")
		}
	}
	for _, o := range s.StrategyOrders {
		d.checkStrategyOrder(o)
	}
	for _, r := range s.SpotRecords {
		if r.Coin == "" || r.Type == "" || r.Amount == "" {
			d.errorAt(r.line, r.column, "a spot record needs coin:, type: and amount:", "")
		}
		if r.Type != "" && !exchange.SpotTaxType(r.Type).Valid() {
			d.errorAt(r.line, r.column, fmt.Sprintf("a spot record's type is one of the venue's spotTaxType values, not %q", r.Type),
				"for example Deposit, Withdrawal, Buy, Sell, Transfer in, Transfer out (docs/scenarios.md lists them all)")
		}
	}
	for _, r := range s.ClosedTrades {
		if r.Symbol == "" || r.Size == "" || r.PnL == "" {
			d.errorAt(r.line, r.column, "a closed trade needs symbol:, size: and pnl:", "")
		}
		if r.Side != "long" && r.Side != "short" {
			d.errorAt(r.line, r.column, fmt.Sprintf("a closed trade's side is long or short, not %q", r.Side), "")
		}
		if _, ok := closeSources[r.How]; r.How != "" && !ok {
			d.errorAt(r.line, r.column, fmt.Sprintf("a closed trade's how is one of %s, not %q", strings.Join(sortedKeys(closeSources), ", "), r.How), "")
		}
	}
	for pt, m := range s.PositionMode {
		if _, ok := posModeOf(m); !ok {
			d.errorAt(1, 1, fmt.Sprintf("position_mode of %s is one_way or hedge, not %q", pt, m), "")
		}
	}
}

// checkStrategyOrder checks an inline strategy order and fills in its type,
// which the record itself does not carry: the exchange's record is a tpsl
// order when it has a stop-loss or take-profit, so a trigger order cannot
// have one.
func (d *decoder) checkStrategyOrder(o *StrategyOrder) {
	if o.Symbol == "" || o.Size == "" {
		d.errorAt(o.line, o.column, "a strategy order needs symbol: and size:", "")
	}
	if o.Side != "long" && o.Side != "short" {
		d.errorAt(o.line, o.column, fmt.Sprintf("a strategy order's side is the position side it works on, long or short, not %q", o.Side), "")
	}
	hasStop := o.StopLoss != "" || o.TakeProfit != ""
	if o.Type == "" {
		o.Type = string(exchange.StrategyTrigger)
		if hasStop {
			o.Type = string(exchange.StrategyTPSL)
		}
	}
	switch exchange.StrategyType(o.Type) {
	case exchange.StrategyTPSL:
		if !hasStop {
			d.errorAt(o.line, o.column, "a tpsl strategy order needs stop_loss: or take_profit:", "")
		}
	case exchange.StrategyTrigger:
		if o.TriggerPrice == "" {
			d.errorAt(o.line, o.column, "a trigger strategy order needs trigger_price:", "")
		}
		if hasStop {
			d.errorAt(o.line, o.column, "a trigger strategy order cannot have stop_loss: or take_profit:", "the exchange's record of such an order reads as a tpsl order; write type: tpsl")
		}
	default:
		d.errorAt(o.line, o.column, fmt.Sprintf("a strategy order's type is tpsl or trigger here, not %q", o.Type),
			"oco, trailing_stop, iceberg and twap orders come from a scenario account: write account: in the test's state")
	}
	if o.Status != "" && !exchange.StrategyStatus(o.Status).Valid() {
		d.errorAt(o.line, o.column, fmt.Sprintf("a strategy order's status is pending, submitting, success, failed or cancelled, not %q", o.Status), "")
	}
}

// eastern is New York time, where a trader reads the US session.
var eastern = clock.NewYork()

// parseStart reads a test's start with the one time parser every time flag
// of the program uses.
func parseStart(s string) (time.Time, error) {
	t, err := clock.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("start %w", err)
	}
	return t, nil
}

// checkFired checks a rule's firings before the test's start: a count on
// the start's New York day needs the time of the last one, on that day and
// not after the start.
func (d *decoder) checkFired(name string, f *Fired, start time.Time) {
	if f.Today < 0 {
		d.errorAt(f.line, f.column, fmt.Sprintf("fired: %s: today cannot be negative", name), "")
	}
	if f.Last.Text == "" {
		d.errorAt(f.line, f.column, fmt.Sprintf("fired: %s needs last: the time of its last firing", name), `write last: "09:10" (New York time, on the start's day) or "2026-03-06 15:50"`)
		return
	}
	t, err := resolveWhen(f.Last.Text, start)
	if err != nil {
		d.errorAt(f.Last.line, f.Last.column, "last: "+err.Error(), `write "09:10" or "2026-03-06 15:50"`)
		return
	}
	f.Last.T = t
	switch {
	case t.After(start):
		d.errorAt(f.Last.line, f.Last.column, fmt.Sprintf("last %s is after the test's start: a firing before the test is at or before it", f.Last.Text), "")
	case f.Today > 0 && t.In(eastern).Format(time.DateOnly) != start.In(eastern).Format(time.DateOnly):
		d.errorAt(f.Last.line, f.Last.column, fmt.Sprintf("today: %d firings, but the last was on another New York day than the start", f.Today), "give today: 0, or a last: on the start's day")
	}
}

// resolveWhen reads a time of a test: HH:MM[:SS] on the start's New York
// date, +duration after the start, or a full date and time.
func resolveWhen(s string, start time.Time) (time.Time, error) {
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not +duration", s)
		}
		return start.Add(d), nil
	}
	for _, l := range []string{"15:04:05", "15:04"} {
		if c, err := time.Parse(l, s); err == nil {
			y, m, dd := start.In(eastern).Date()
			return time.Date(y, m, dd, c.Hour(), c.Minute(), c.Second(), 0, eastern), nil
		}
	}
	if t, err := parseStart(s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time", s)
}
