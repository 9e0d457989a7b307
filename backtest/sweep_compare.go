package backtest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/shopspring/decimal"
)

// CompareFile is the name of a sweep's comparison page in its output
// directory.
const CompareFile = "compare.html"

// compareRow is one variant's figures for one margin account.
type compareRow struct {
	variant *VariantResult
	account AccountSummary
}

// compareGroup is the rows of one margin account, best return first.
type compareGroup struct {
	account string // product type and margin coin
	rows    []compareRow
}

// groups returns, for every margin account that some variant used (in
// the reports' order of accounts), every variant's figures sorted by
// return, highest first; variants with the same return keep the sweep's
// order.
func (s *SweepResult) groups() []compareGroup {
	var out []compareGroup
	index := map[string]int{}
	used := map[string]bool{}
	for _, v := range s.Variants {
		for _, a := range v.Accounts {
			if a.Used() {
				used[a.ProductType+" "+a.MarginCoin] = true
			}
		}
	}
	for i := range s.Variants {
		v := &s.Variants[i]
		for _, a := range v.Accounts {
			key := a.ProductType + " " + a.MarginCoin
			if !used[key] {
				continue
			}
			g, ok := index[key]
			if !ok {
				g = len(out)
				index[key] = g
				out = append(out, compareGroup{account: key})
			}
			out[g].rows = append(out[g].rows, compareRow{variant: v, account: a})
		}
	}
	for _, g := range out {
		slices.SortStableFunc(g.rows, func(a, b compareRow) int {
			return pct(b.account.ReturnPct).Cmp(pct(a.account.ReturnPct))
		})
	}
	return out
}

// pct reads a percentage of a summary; one that is not a number sorts last.
func pct(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.NewFromInt(-1 << 62)
	}
	return d
}

// WriteTable writes the comparison for a terminal: per margin account
// that some variant used, each variant's return, max drawdown, closed
// trades and win rate, best return first.
func (s *SweepResult) WriteTable(w io.Writer) error {
	groups := s.groups()
	if len(groups) == 0 {
		_, err := fmt.Fprintln(w, "No variant traded.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "account\tvariant\treturn\tmax drawdown\ttrades\twin rate")
	for _, g := range groups {
		for _, r := range g.rows {
			a := r.account
			fmt.Fprintf(tw, "%s\t%s\t%s %%\t%s %%\t%d\t%s\n", g.account, r.variant.Name, a.ReturnPct, a.MaxDrawdownPct, a.Trades, orNA(a.WinRatePct, " %"))
		}
	}
	return tw.Flush()
}

// HTML renders compare.html: a self-contained page (no script, nothing
// fetched) with the table of WriteTable, each variant linking to its
// report.html in its folder next to the page.
func (s *SweepResult) HTML() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tickrules sweep</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.2em 1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
</style>
</head><body>
<h1>Sweep: compare a rule's settings</h1>
`)
	b.WriteString("<p>Settings varied:")
	for i, v := range s.Vary {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " <code>%s</code> = %s", esc(v.Name), esc(strings.Join(v.Values, ", ")))
	}
	fmt.Fprintf(&b, ". %d variants, each a backtest of its own; click a variant for its report. Percentages are of the account's equity; the best return is first.</p>\n", len(s.Variants))
	groups := s.groups()
	if len(groups) == 0 {
		b.WriteString("<p>No variant traded.</p>\n<ul>\n")
		for _, v := range s.Variants {
			fmt.Fprintf(&b, "<li>%s</li>\n", variantLink(v.Name))
		}
		b.WriteString("</ul>\n")
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<table>\n<tr><th>variant</th>", esc(g.account))
		for _, v := range s.Vary {
			fmt.Fprintf(&b, "<th>%s</th>", esc(v.Name))
		}
		b.WriteString(`<th class="num">return</th><th class="num">max drawdown</th><th class="num">trades</th><th class="num">win rate</th></tr>` + "\n")
		for _, r := range g.rows {
			a := r.account
			fmt.Fprintf(&b, "<tr><td>%s</td>", variantLink(r.variant.Name))
			for _, val := range r.variant.Values {
				fmt.Fprintf(&b, "<td>%s</td>", esc(val))
			}
			fmt.Fprintf(&b, `<td class="num">%s %%</td><td class="num">%s %%</td><td class="num">%d</td><td class="num">%s</td></tr>`+"\n",
				esc(a.ReturnPct), esc(a.MaxDrawdownPct), a.Trades, esc(orNA(a.WinRatePct, " %")))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// variantLink links a variant's name to its report. The folder name holds
// only letters, digits and . , = + - _ (folderName): safe in a relative URL.
func variantLink(folder string) string {
	return fmt.Sprintf(`<a href="%s/%s">%s</a>`, esc(folder), HTMLFile, esc(folder))
}

// WriteCompare writes dir/compare.html.
func (s *SweepResult) WriteCompare(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, CompareFile), s.HTML(), 0o644); err != nil {
		return fmt.Errorf("backtest: write comparison: %w", err)
	}
	return nil
}
