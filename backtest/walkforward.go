package backtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
)

// WalkForwardFile is the name of a walk-forward's result in its output
// directory.
const WalkForwardFile = "walkforward.json"

// Objective returns the reader of the figure named name that a
// walk-forward can pick the best variant by (higher is better), read from
// an account's summary; ok is false for an unknown name (see
// objectiveNames).
func Objective(name string) (get func(AccountSummary) string, ok bool) {
	switch name {
	case "sharpe":
		return func(a AccountSummary) string { return a.Metrics.Sharpe }, true
	case "sortino":
		return func(a AccountSummary) string { return a.Metrics.Sortino }, true
	case "calmar":
		return func(a AccountSummary) string { return a.Metrics.Calmar }, true
	case "cagr":
		return func(a AccountSummary) string { return a.Metrics.CAGRPct }, true
	case "return":
		return func(a AccountSummary) string { return a.ReturnPct }, true
	case "profit_factor":
		return func(a AccountSummary) string { return a.ProfitFactor }, true
	case "expectancy":
		return func(a AccountSummary) string { return a.Metrics.Expectancy }, true
	}
	return nil, false
}

// objectiveNames lists the names Objective knows, for messages.
const objectiveNames = "sharpe, sortino, calmar, cagr, return, profit_factor, expectancy"

// ParseWalkForward parses TRAIN/TEST as given to engine backtest
// --walk-forward: two durations such as 60d/20d or 6h/2h (d is a day of 24
// hours; every unit of Go durations is accepted too).
func ParseWalkForward(s string) (train, test time.Duration, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		train, err = parseSpan(a)
		if err == nil {
			test, err = parseSpan(b)
		}
	}
	if !ok || err != nil || train <= 0 || test <= 0 {
		return 0, 0, fmt.Errorf("--walk-forward %q: write TRAIN/TEST, two positive spans such as 60d/20d or 6h/2h", s)
	}
	return train, test, nil
}

// parseSpan reads a duration, with d for days.
func parseSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, err
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// WalkForwardOptions configure a walk-forward.
type WalkForwardOptions struct {
	// Sweep is the sweep each training window runs: its Base's From and To
	// bound the whole walk-forward, its Out is the output directory.
	Sweep SweepOptions
	// Train and Test are the lengths of each training window and of the
	// test window after it; the windows move on by Test.
	Train, Test time.Duration
	// Objective names the figure the best variant is picked by (see the
	// function Objective).
	Objective string
}

// WalkForwardResult is a finished walk-forward.
type WalkForwardResult struct {
	Objective string          `json:"objective"`
	Train     string          `json:"train"`
	Test      string          `json:"test"`
	Vary      []Vary          `json:"vary"`
	Windows   []WindowResult  `json:"windows"`
	Summary   WalkForwardNote `json:"summary"`
}

// WalkForwardNote sums the windows up: the mean objective in and out of
// sample, and the out-of-sample returns compounded, so a trader sees how
// much of the training's figure survives on data it did not see.
type WalkForwardNote struct {
	MeanInSample          string `json:"meanInSample"`
	MeanOutOfSample       string `json:"meanOutOfSample"`
	OutOfSampleReturnPct  string `json:"outOfSampleReturnPct"`
	WindowsWithoutFigures int    `json:"windowsWithoutFigures"`
}

// WindowResult is one window: the training span and every variant's
// figure on it, the variant picked, and that variant on the test span.
type WindowResult struct {
	TrainFrom string `json:"trainFrom"`
	TrainTo   string `json:"trainTo"`
	TestFrom  string `json:"testFrom"`
	TestTo    string `json:"testTo"`
	// Account is the margin account the objective was read from: the
	// first one the picked variant used.
	Account string         `json:"account"`
	Scores  []VariantScore `json:"scores"` // in-sample, in the sweep's order
	Best    string         `json:"best"`
	// InSample and OutOfSample are the objective of the picked variant on
	// the training and on the test span ("" when it has no meaning there).
	InSample             string `json:"inSample"`
	OutOfSample          string `json:"outOfSample"`
	InSampleReturnPct    string `json:"inSampleReturnPct"`
	OutOfSampleReturnPct string `json:"outOfSampleReturnPct"`
}

// VariantScore is one variant's objective on a training span.
type VariantScore struct {
	Variant   string `json:"variant"`
	Objective string `json:"objective"`
	ReturnPct string `json:"returnPct"`
}

// WalkForward runs a walk-forward: for each window, every variant of the
// sweep on the training span; the variant with the highest objective
// (the first in the sweep's order on a tie; a variant whose objective has
// no meaning is never preferred to one that has) then runs on the test
// span after it. The windows start at From and move on by Test while a
// whole window fits before To. Reports are written under Out/window-NN/
// train/<variant> and Out/window-NN/test/<variant>; the result is the same
// for the same inputs, however many jobs run at once.
func WalkForward(ctx context.Context, opts WalkForwardOptions) (*WalkForwardResult, error) {
	get, ok := Objective(opts.Objective)
	if !ok {
		return nil, fmt.Errorf("backtest: --objective %q: choose one of %s", opts.Objective, objectiveNames)
	}
	if opts.Train <= 0 || opts.Test <= 0 {
		return nil, errors.New("backtest: a walk-forward needs positive training and test spans")
	}
	// The span's defaults (the scenario's start and end) need the
	// scenario, which Prepare may be the one to give.
	span := opts.Sweep.Base
	if span.Scenario == nil && opts.Sweep.Prepare != nil {
		if err := opts.Sweep.Prepare(&span); err != nil {
			return nil, err
		}
	}
	if err := span.defaults(); err != nil {
		return nil, err
	}
	if span.From.Add(opts.Train + opts.Test).After(span.To) {
		return nil, fmt.Errorf("backtest: %s to %s is shorter than one training and one test window (%s + %s)",
			stamp(span.From), stamp(span.To), opts.Train, opts.Test)
	}
	res := &WalkForwardResult{Objective: opts.Objective, Train: opts.Train.String(), Test: opts.Test.String(), Vary: opts.Sweep.Vary, Windows: []WindowResult{}}
	for k, start := 1, span.From; !start.Add(opts.Train + opts.Test).After(span.To); k, start = k+1, start.Add(opts.Test) {
		w, err := runWindow(ctx, opts, get, k, start)
		if err != nil {
			return nil, fmt.Errorf("window %d: %w", k, err)
		}
		res.Windows = append(res.Windows, w)
	}
	res.Summary = summariseWindows(res.Windows)
	return res, nil
}

// runWindow runs window k, whose training span starts at start.
func runWindow(ctx context.Context, opts WalkForwardOptions, get func(AccountSummary) string, k int, start time.Time) (WindowResult, error) {
	trainTo, testTo := start.Add(opts.Train), start.Add(opts.Train+opts.Test)
	w := WindowResult{TrainFrom: stamp(start), TrainTo: stamp(trainTo), TestFrom: stamp(trainTo), TestTo: stamp(testTo)}
	dir := filepath.Join(opts.Sweep.Out, fmt.Sprintf("window-%02d", k))
	train := opts.Sweep
	train.Base.From, train.Base.To, train.Out = start, trainTo, filepath.Join(dir, "train")
	sw, err := Sweep(ctx, train)
	if err != nil {
		return w, err
	}
	best, bestScore := -1, decimal.Decimal{}
	for i, v := range sw.Variants {
		a, _ := objectiveAccount(v.Accounts, "")
		score := get(a)
		w.Scores = append(w.Scores, VariantScore{Variant: v.Name, Objective: score, ReturnPct: a.ReturnPct})
		d, err := decimal.NewFromString(score)
		if err != nil {
			continue // no meaning on this span
		}
		if best < 0 || d.GreaterThan(bestScore) {
			best, bestScore = i, d
		}
	}
	if best < 0 {
		best = 0 // no variant has a figure: the first stands for all
	}
	picked := sw.Variants[best]
	a, key := objectiveAccount(picked.Accounts, "")
	w.Best, w.Account, w.InSample, w.InSampleReturnPct = picked.Name, key, get(a), a.ReturnPct
	test := opts.Sweep
	test.Base.From, test.Base.To, test.Out = trainTo, testTo, filepath.Join(dir, "test")
	vr, err := runVariant(ctx, test, picked.Variant)
	if err != nil {
		return w, fmt.Errorf("test %s: %w", picked.Name, err)
	}
	if test.Done != nil {
		test.Done(vr)
	}
	oos, _ := objectiveAccount(vr.Accounts, key)
	w.OutOfSample, w.OutOfSampleReturnPct = get(oos), oos.ReturnPct
	return w, nil
}

// objectiveAccount returns the account the objective is read from and its
// name (product type and margin coin): the one named key, or with key ""
// the first used one (the first of all when none was used).
func objectiveAccount(accounts []AccountSummary, key string) (AccountSummary, string) {
	for _, a := range accounts {
		name := a.ProductType + " " + a.MarginCoin
		if (key == "" && a.Used()) || (key != "" && name == key) {
			return a, name
		}
	}
	if key == "" && len(accounts) > 0 {
		return accounts[0], accounts[0].ProductType + " " + accounts[0].MarginCoin
	}
	return AccountSummary{}, key
}

// summariseWindows averages the objective in and out of sample over the
// windows where both have a meaning, and compounds the out-of-sample
// returns.
func summariseWindows(ws []WindowResult) WalkForwardNote {
	var note WalkForwardNote
	var in, out decimal.Decimal
	n := 0
	growth := decimal.NewFromInt(1)
	hundred := decimal.NewFromInt(100)
	for _, w := range ws {
		growth = growth.Mul(decimal.NewFromInt(1).Add(parseOrZero(w.OutOfSampleReturnPct).Div(hundred)))
		a, errA := decimal.NewFromString(w.InSample)
		b, errB := decimal.NewFromString(w.OutOfSample)
		if errA != nil || errB != nil {
			note.WindowsWithoutFigures++
			continue
		}
		in, out, n = in.Add(a), out.Add(b), n+1
	}
	if n > 0 {
		// Four places: the objective may be a return in percent.
		in = in.DivRound(decimal.NewFromInt(int64(n)), percentPlaces)
		out = out.DivRound(decimal.NewFromInt(int64(n)), percentPlaces)
		note.MeanInSample, note.MeanOutOfSample = in.String(), out.String()
	}
	note.OutOfSampleReturnPct = growth.Sub(decimal.NewFromInt(1)).Mul(hundred).Round(percentPlaces).String()
	return note
}

// JSON returns the result as indented JSON with a final newline.
func (r *WalkForwardResult) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("backtest: encode walk-forward: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteFile writes dir/walkforward.json.
func (r *WalkForwardResult) WriteFile(dir string) error {
	b, err := r.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, WalkForwardFile), b, 0o644); err != nil {
		return fmt.Errorf("backtest: write walk-forward: %w", err)
	}
	return nil
}

// WriteTable writes the windows for a terminal, New York time: the
// variant picked on each training span and its objective and return in
// sample (training) and out of sample (the test span after it), then the
// means.
func (r *WalkForwardResult) WriteTable(w io.Writer) error {
	loc := newYork()
	day := func(s string) string { return parseStamp(s).In(loc).Format("2006-01-02 15:04") }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "window\ttrain from\ttest from\ttest to\tbest\tin-sample %s\tout-of-sample %s\tin-sample return\tout-of-sample return\n", r.Objective, r.Objective)
	for i, win := range r.Windows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, day(win.TrainFrom), day(win.TestFrom), day(win.TestTo), win.Best,
			orNA(win.InSample, ""), orNA(win.OutOfSample, ""), orNA(win.InSampleReturnPct, " %"), orNA(win.OutOfSampleReturnPct, " %"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	_, err := fmt.Fprintf(w, "mean %s: in sample %s, out of sample %s; out-of-sample return compounded %s %%\n",
		r.Objective, orNA(s.MeanInSample, ""), orNA(s.MeanOutOfSample, ""), s.OutOfSampleReturnPct)
	return err
}
