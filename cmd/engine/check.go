package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/sim"
)

// venueCatalogTimeout bounds fetching contracts and stock pairs with --venue.
const venueCatalogTimeout = 15 * time.Second

// cmdCheck loads rule files and reports every mistake. Findings go to
// stderr (text) or stdout (--format json); the per-file summary and the
// polling budget go to stdout.
func cmdCheck(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine check", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	format := fs.String("format", "text", "output `format`: text or json")
	strict := fs.Bool("strict", false, "treat warnings as errors (exit 1), for CI")
	allowEmpty := fs.Bool("allow-empty", false, "accept rule files that are empty or hold only comments (a warning instead of an error)")
	venue := fs.String("venue", "", "`URL` of a running venue (e.g. engine sim) to read contracts and stock pairs from (and, with credentials in the environment, the account's position modes); default: the demo scenario's")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine check [--format text|json] [--strict] [--allow-empty] [--venue URL] DIR|FILE...")
		fmt.Fprintln(fs.Output(), "\nChecks rule files for every mistake that can be found without running them.")
		fmt.Fprintln(fs.Output(), "Without --venue, sizes are also weighed against the demo scenario's account and prices;")
		fmt.Fprintln(fs.Output(), "with --venue, against the venue's largest order sizes only.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 all valid, 1 mistakes found (or warnings, with --strict), 2 usage error.")
		fs.PrintDefaults()
	}
	paths, code, stop := parseWithPaths(fs, args)
	if stop {
		return code
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(env.stderr, "engine check: --format must be text or json (got %q)\n", *format)
		return exitUsage
	}
	if len(paths) == 0 {
		fmt.Fprintln(env.stderr, "engine check: name at least one rules directory or file")
		fs.Usage()
		return exitUsage
	}
	cat, modes, err := checkCatalog(ctx, env, *venue)
	if err != nil {
		fmt.Fprintf(env.stderr, "engine check: %v\n", err)
		return exitFail
	}
	if cat.StockPairsErr != nil {
		fmt.Fprintf(env.stderr, "engine check: warning: %v: stock pair names in the rules are not checked\n", cat.StockPairsErr)
	}
	opts := rules.LoadOptions{Actions: actions.Defs(), Catalog: cat, Getenv: env.getenv, PositionModes: modes, AllowEmpty: *allowEmpty, WarnRepeats: true}
	if *venue == "" {
		opts.Account = demoAccount()
	}
	rs, findings := rules.Load(ctx, paths, opts)
	if *strict {
		findings = findings.Strict()
		if findings.HasErrors() {
			rs = nil
		}
	}
	loaded := []*rules.File(nil)
	if rs != nil {
		loaded = rs.Files
	} else {
		// Count the rules of the files that did load, for the summary.
		loaded, _ = rules.Check(ctx, paths, opts)
	}
	var budget rules.Budget
	if rs != nil {
		if budget, err = rules.PollingBudget(assemble.Demand(rs, cat)); err != nil {
			fmt.Fprintf(env.stderr, "engine check: %v\n", err)
			return exitFail
		}
	}
	files := summarize(paths, loaded, findings)
	if *format == "json" {
		return writeCheckJSON(env.stdout, env.stderr, files, findings, budget)
	}
	if len(findings) > 0 {
		if err := findings.Render(env.stderr); err != nil {
			return exitFail
		}
		fmt.Fprintln(env.stderr)
	}
	for _, f := range files {
		fmt.Fprintln(env.stdout, f.line())
	}
	if findings.HasErrors() {
		errs, warns := findings.Count()
		fmt.Fprintf(env.stderr, "%s, %s\n", count(errs, "error"), count(warns, "warning"))
		return exitFail
	}
	if len(budget.Lines) > 0 {
		fmt.Fprintln(env.stdout, "polling budget (requests the rules' data needs, against the rate limits):")
		if err := budget.Write(env.stdout); err != nil {
			return exitFail
		}
	}
	return exitOK
}

// fileSummary is one line of check's summary.
type fileSummary struct {
	Path     string `json:"path"`
	Rules    int    `json:"rules"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
}

func (f fileSummary) line() string {
	switch {
	case f.Errors > 0:
		return fmt.Sprintf("%s: %s", f.Path, count(f.Errors, "error"))
	case f.Warnings > 0:
		return fmt.Sprintf("%s: %s OK, %s", f.Path, count(f.Rules, "rule"), count(f.Warnings, "warning"))
	}
	return fmt.Sprintf("%s: %s OK", f.Path, count(f.Rules, "rule"))
}

func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// summarize counts rules, errors and warnings per file, in the order the
// loader reads the files.
func summarize(paths []string, loaded []*rules.File, findings rulefmt.Errors) []fileSummary {
	var out []fileSummary
	index := map[string]int{}
	add := func(path string) int {
		if i, ok := index[path]; ok {
			return i
		}
		index[path] = len(out)
		out = append(out, fileSummary{Path: path})
		return len(out) - 1
	}
	for _, p := range paths {
		files, err := rules.RuleFiles(p)
		if err != nil {
			continue // the loader reported it
		}
		for _, f := range files {
			add(f)
		}
	}
	for _, f := range loaded {
		out[add(f.Path)].Rules = len(f.Rules)
	}
	for _, e := range findings {
		i := add(e.File)
		if e.Severity == rulefmt.SeverityWarning {
			out[i].Warnings++
		} else {
			out[i].Errors++
		}
	}
	return out
}

// checkReport is the --format json output.
type checkReport struct {
	OK       bool               `json:"ok"`
	Files    []fileSummary      `json:"files"`
	Findings rulefmt.Errors     `json:"findings"`
	Budget   []rules.BudgetLine `json:"budget"`
}

func writeCheckJSON(stdout, stderr io.Writer, files []fileSummary, findings rulefmt.Errors, budget rules.Budget) int {
	rep := checkReport{OK: !findings.HasErrors(), Files: files, Findings: findings, Budget: budget.Lines}
	if rep.Findings == nil {
		rep.Findings = rulefmt.Errors{}
	}
	if rep.Budget == nil {
		rep.Budget = []rules.BudgetLine{}
	}
	out, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "engine check: %v\n", err)
		return exitFail
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", out); err != nil {
		return exitFail
	}
	if !rep.OK {
		return exitFail
	}
	return exitOK
}

// checkCatalog returns the contracts and stock pairs rules are checked
// against: the demo scenario's, or those a running venue serves. With a
// venue and credentials (TICKRULES_API_KEY, ... as for engine run) it also
// reads the account's position mode per product type, so that raw fields
// the mode forbids are reported; without credentials the modes stay unknown.
func checkCatalog(ctx context.Context, env *cliEnv, venueURL string) (*rules.Catalog, map[exchange.ProductType]exchange.PosMode, error) {
	if venueURL == "" {
		cat, err := demoCatalog(ctx)
		return cat, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, venueCatalogTimeout)
	defer cancel()
	creds, err := loadCredentials(env.getenv, os.Stat, os.ReadFile)
	if err != nil {
		return nil, nil, err
	}
	client, err := exchange.NewClient(exchange.ClientOptions{BaseURL: venueURL, Credentials: creds})
	if err != nil {
		return nil, nil, fmt.Errorf("--venue: %w", err)
	}
	cat, err := rules.FetchCatalog(ctx, client)
	if err != nil {
		return nil, nil, fmt.Errorf("--venue: %w", err)
	}
	if creds.IsZero() {
		return cat, nil, nil
	}
	modes, err := assemble.ReadPositionModes(ctx, client)
	if me := (*exchange.ModeError)(nil); errors.As(err, &me) {
		// The modes read are checked; the others are not, as engine run
		// refuses their orders until it reads them.
		fmt.Fprintf(env.stderr, "engine check: warning: --venue: %v: rules on those product types are not checked against the mode\n", me)
	} else if err != nil {
		return nil, nil, fmt.Errorf("--venue: %w", err)
	}
	return cat, modes, nil
}

// demoCatalog is the catalog of the built-in demo scenario, the venue
// engine run uses when no other is given.
func demoCatalog(ctx context.Context) (*rules.Catalog, error) {
	x, err := sim.New(sim.Demo(), sim.Options{})
	if err != nil {
		return nil, err
	}
	return rules.FetchCatalog(ctx, x.Public())
}

// demoAccount is what check knows of an account without a venue: the demo
// scenario's first account (its equity per coin), the start of its price
// paths and its default leverage.
func demoAccount() *rules.AccountFacts {
	sc := sim.Demo()
	facts := &rules.AccountFacts{Source: "the demo scenario", Equity: map[string]decimal.Decimal{},
		Prices: map[string]decimal.Decimal{}, Leverage: sc.Settings.DefaultLeverage}
	if len(sc.Accounts) > 0 {
		for coin, v := range sc.Accounts[0].Balances {
			facts.Equity[coin] = v
		}
	}
	for sym, path := range sc.Prices {
		switch {
		case path.RandomWalk != nil:
			facts.Prices[sym] = path.RandomWalk.Start
		case len(path.Points) > 0:
			facts.Prices[sym] = path.Points[0].Price
		}
	}
	return facts
}
