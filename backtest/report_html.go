package backtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
)

// HTML renders report.html: one self-contained page that works offline.
// The tables are written here; the charts are drawn in the browser by
// TradingView's Lightweight Charts, inlined into the page with the page's
// own script (assets/report.js) and the chart data computed in chartData.
// The page writes what it drew (charts, series, markers) and any script
// error into <pre id="chart-status">, for the browser test and for a
// reader whose charts stay blank.
func (r *Report) HTML() []byte {
	loc := newYork()
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tickrules backtest: `)
	b.WriteString(esc(r.Source))
	b.WriteString(`</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.2em 1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.time{white-space:nowrap}
.pos{color:#176c2e}.neg{color:#b3261e}.muted{color:#777}
code{font-size:.9em;white-space:pre-wrap;word-break:break-all}
.chart{height:340px;border:1px solid #ddd;margin:.3em 0}.chart.equity{height:300px}
.legend span{display:inline-block;margin-right:1.2em;font-size:.85em}
.swatch{display:inline-block;width:12px;height:12px;vertical-align:middle;margin-right:.3em;border:1px solid #bbb}
.error,.blocked{color:#b3261e;font-weight:bold}.ok{color:#176c2e}
#chart-status{display:none}#chart-status.failed{display:block;color:#b3261e;border:1px solid #b3261e;padding:.5em}
details summary{cursor:pointer;color:#555}
</style>
<script>
// Collect errors before anything else runs: the page reports them in #chart-status.
window.reportErrors = [];
window.addEventListener("error", function (e) { window.reportErrors.push(String(e.message || e)); });
(function () { var orig = console.error; console.error = function () { window.reportErrors.push(Array.prototype.join.call(arguments, " ")); return orig.apply(console, arguments); }; })();
</script>
</head><body>
`)
	fmt.Fprintf(&b, "<h1>Backtest of %s</h1>\n<p>%s to %s (New York time; UTC %s to %s), step %s, %d ticks. All times on this page are New York time.</p>\n",
		esc(r.Source), esc(nyTime(r.From, loc)), esc(nyTime(r.To, loc)), esc(r.From), esc(r.To), esc(r.Step), r.Ticks)
	writeSummary(&b, r)
	if len(r.Notes) > 0 {
		// What of the run is modelled or missing (a replay of stored
		// history): said before any figure, so that no one reads past it.
		b.WriteString("<h2>Notes on the data</h2>\n<ul>\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", esc(n))
		}
		b.WriteString("</ul>\n")
	}
	if len(r.Protections) > 0 {
		b.WriteString("<h2>Protections tripped</h2>\n<ul>\n")
		for _, p := range r.Protections {
			until := p.untilText(func(s string) string { return nyTime(s, loc) })
			fmt.Fprintf(&b, "<li>%s: <b>%s</b> tripped: %s. No new entries %s.</li>\n", esc(nyTime(p.Time, loc)), esc(p.Protection), esc(p.Reason), esc(until))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString(`<pre id="chart-status"></pre>` + "\n")
	charted, quiet := r.chartedSymbols()
	if len(charted) > 0 {
		b.WriteString("<h2>Prices</h2>\n<div class=\"legend\">")
		for _, s := range sessionOrder {
			fmt.Fprintf(&b, `<span><i class="swatch" style="background:%s"></i>%s session</span>`, sessionColour[s], strings.ReplaceAll(s, "_", " "))
		}
		fmt.Fprintf(&b, `<span style="color:%s">&#9650; buy fill</span><span style="color:%s">&#9660; sell fill</span><span style="color:%s">&#9632; rule fired, nothing filled</span>`,
			buyColour, sellColour, firingColour)
		b.WriteString("</div>\n<p class=\"muted\">Drag to pan, scroll to zoom, double-click a price scale to reset it. Markers name the rule and the side; a fill marker sits at the order's average fill price. " +
			"Zoomed out, markers close together are merged into a circle with their count (grey when they differ), and their names are left out: hover over a marker to list them under the chart. " +
			"Month and year marks of the time axis start at 00:00 UTC.</p>\n")
		for i, s := range charted {
			fmt.Fprintf(&b, "<h3>%s</h3>\n<div class=\"chart price\" id=\"price-%d\"></div>\n<div class=\"marker-info muted\" id=\"marker-info-%d\">Hover over a marker to see what it stands for.</div>\n", esc(s), i, i)
		}
	}
	if len(quiet) > 0 {
		fmt.Fprintf(&b, "<p class=\"muted\">Not charted (no order, fill or firing): %s.</p>\n", esc(strings.Join(quiet, ", ")))
	}
	used := 0
	for _, a := range r.Summary.Accounts {
		if a.Used() {
			fmt.Fprintf(&b, "<h3>Equity of %s %s: return and drawdown in percent</h3>\n<div class=\"chart equity\" id=\"equity-%d\"></div>\n",
				esc(a.ProductType), esc(a.MarginCoin), used)
			used++
		}
	}
	writeTrades(&b, r, loc)
	writeFirings(&b, r, loc)
	data, err := json.Marshal(r.chartData())
	if err != nil {
		// chartData holds strings and finite numbers only.
		panic(err)
	}
	// json.Marshal escapes <, > and &: the data cannot end the script element.
	fmt.Fprintf(&b, "<script type=\"application/json\" id=\"report-data\">%s</script>\n", data)
	fmt.Fprintf(&b, "<!-- TradingView Lightweight Charts %s, Apache License 2.0 -->\n<script>\n%s\n</script>\n<script>\n%s\n</script>\n",
		chartLibraryVersion, chartLibrary, pageScript)
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

func esc(s string) string { return html.EscapeString(s) }

func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// newYork is the time zone of the page's times. The tzdata the marketdata
// package links in makes it load on any machine; UTC is the fallback.
func newYork() *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		return time.UTC
	}
	return loc
}

// nyTime formats a report stamp in New York time ("" stays "").
func nyTime(s string, loc *time.Location) string {
	if s == "" {
		return ""
	}
	return parseStamp(s).In(loc).Format("Mon Jan 2 15:04:05 MST")
}

// signClass colours a signed figure.
func signClass(s string) string {
	switch {
	case s == "" || strings.Trim(s, "0.-") == "":
		return "num"
	case strings.HasPrefix(s, "-"):
		return "num neg"
	}
	return "num pos"
}

// orNA shows a figure that has no meaning as n/a.
func orNA(s, suffix string) string {
	if s == "" {
		return "n/a"
	}
	return s + suffix
}

func writeSummary(b *strings.Builder, r *Report) {
	s := r.Summary
	firings := 0
	for _, rs := range s.Rules {
		firings += rs.Firings
	}
	fmt.Fprintf(b, "<h2>Summary</h2>\n<p>%d firings, %d orders, %d fills, %d closed trades.</p>\n", firings, s.Orders, s.Fills, closedTrades(r.Trades))
	b.WriteString("<table class=\"accounts\"><tr><th>account</th><th class=num>return</th><th class=num>max drawdown</th><th class=num>trades</th>" +
		"<th class=num>win rate</th><th class=num>profit factor</th><th class=num>realised P&amp;L</th><th class=num>fees</th>" +
		"<th class=num>equity at start</th><th class=num>equity at end</th><th class=num>fills</th></tr>\n")
	unused := []string{}
	for _, a := range s.Accounts {
		if !a.Used() {
			unused = append(unused, a.ProductType+" "+a.MarginCoin)
			continue
		}
		fmt.Fprintf(b, "<tr class=\"account\"><td>%s %s</td><td class=\"%s\">%s %%</td><td class=\"num\">%s %% (%s)</td><td class=num>%d</td><td class=num>%s</td>"+
			"<td class=num>%s</td><td class=\"%s\">%s</td><td class=num>%s</td><td class=num>%s</td><td class=num>%s</td><td class=num>%d</td></tr>\n",
			esc(a.ProductType), esc(a.MarginCoin), signClass(a.ReturnPct), esc(a.ReturnPct), esc(a.MaxDrawdownPct), esc(a.MaxDrawdown), a.Trades,
			esc(orNA(a.WinRatePct, " %")), esc(orNA(a.ProfitFactor, "")), signClass(a.RealisedPnL), esc(a.RealisedPnL), esc(a.Fees),
			esc(a.EquityStart), esc(a.EquityEnd), a.Fills)
	}
	b.WriteString("</table>\n")
	if len(unused) > 0 {
		fmt.Fprintf(b, "<p class=\"muted\">Accounts left out (no fills, equity unchanged): %s.</p>\n", esc(strings.Join(unused, ", ")))
	}
	b.WriteString("<p class=\"muted\">Win rate and profit factor count closed trades after fees; the profit factor is the winners' net gain over the losers' net loss (n/a without a losing trade).</p>\n")
	writeMetrics(b, r)
	b.WriteString("<table class=\"rules\"><tr><th>rule</th><th class=num>firings</th><th class=num>errors</th><th class=num>orders</th>" +
		"<th class=num>closed trades opened</th><th class=num>their net P&amp;L</th></tr>\n")
	for _, rs := range s.Rules {
		if rs.Firings == 0 && rs.Errors == 0 {
			continue
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td class=num>%d</td><td class=num>%d</td><td class=num>%d</td><td class=num>%d</td><td class=\"%s\">%s</td></tr>\n",
			esc(rs.Rule), rs.Firings, rs.Errors, rs.Orders, rs.Trades, signClass(rs.NetPnL), esc(rs.NetPnL))
	}
	b.WriteString("</table>\n")
	if quiet := len(s.Rules) - countFired(s.Rules); quiet > 0 {
		fmt.Fprintf(b, "<p class=\"muted\">%d more rules never fired.</p>\n", quiet)
	}
}

func countFired(rs []RuleSummary) int {
	n := 0
	for _, r := range rs {
		if r.Firings > 0 || r.Errors > 0 {
			n++
		}
	}
	return n
}

func closedTrades(ts []Trade) int {
	n, _, _ := tradeStats(ts)
	return n
}

func writeTrades(b *strings.Builder, r *Report, loc *time.Location) {
	fmt.Fprintf(b, "<h2>Trades (%d)</h2>\n", len(r.Trades))
	if len(r.Trades) == 0 {
		b.WriteString("<p>No trades.</p>\n")
		return
	}
	b.WriteString("<p class=\"muted\">Fills paired first in, first out per symbol and side; a position held when the run started enters at the start, at its average open price. " +
		"P&amp;L is the exchange's realised profit of the exit; fees are what was paid (positive), net is P&amp;L minus fees.</p>\n")
	b.WriteString("<table class=\"trades\"><tr><th>symbol</th><th>side</th><th class=num>size</th><th>entry</th><th class=num>entry price</th><th>entry rule</th>" +
		"<th>exit</th><th class=num>exit price</th><th>exit rule</th><th class=num>P&amp;L</th><th class=num>fees</th><th class=num>net</th></tr>\n")
	for _, t := range r.Trades {
		exit, exitRule := nyTime(t.ExitTime, loc), cmp.Or(t.ExitRule, t.ExitBy, "no rule")
		if t.Open {
			exit, exitRule = "still open", ""
		}
		fmt.Fprintf(b, "<tr class=\"trade\"><td>%s</td><td>%s</td><td class=num>%s</td><td class=time>%s</td><td class=num>%s</td><td>%s</td>"+
			"<td class=time>%s</td><td class=num>%s</td><td>%s</td><td class=\"%s\">%s</td><td class=num>%s</td><td class=\"%s\">%s</td></tr>\n",
			esc(t.Symbol), esc(t.Side), esc(t.Size), esc(nyTime(t.EntryTime, loc)), esc(t.EntryPrice), esc(cmp.Or(t.EntryRule, t.EntryBy, "no rule")),
			esc(exit), esc(t.ExitPrice), esc(exitRule), signClass(t.PnL), esc(t.PnL), esc(t.Fees), signClass(t.NetPnL), esc(t.NetPnL))
	}
	b.WriteString("</table>\n")
}

func writeFirings(b *strings.Builder, r *Report, loc *time.Location) {
	fmt.Fprintf(b, "<h2>Firings (%d)</h2>\n", len(r.Firings))
	b.WriteString("<table class=\"firings\"><tr><th>time</th><th>rule</th><th>action</th><th>symbol</th><th>side</th><th class=num>size</th>" +
		"<th class=num>price</th><th>outcome</th><th>details</th></tr>\n")
	for _, f := range r.Firings {
		rows := max(len(f.Actions), 1)
		fmt.Fprintf(b, "<tr class=\"firing\"><td class=time rowspan=%d>%s</td><td rowspan=%d>%s</td>", rows, esc(nyTime(f.Time, loc)), rows, esc(f.Rule))
		if len(f.Actions) == 0 {
			b.WriteString("<td colspan=7>no action</td></tr>\n")
			continue
		}
		for i, a := range f.Actions {
			if i > 0 {
				b.WriteString("<tr class=\"firing-action\">")
			}
			q := requestFields(a.Request)
			// A modify request names its new price and size (newPrice, newSize).
			side, size, price := q.Side, cmp.Or(q.Size, q.NewSize), cmp.Or(q.Price, q.NewPrice, q.TriggerPrice)
			if q.HoldSide != "" {
				side = strings.TrimSpace(side + " " + q.HoldSide)
			}
			if len(q.OrderList) > 0 {
				size = fmt.Sprintf("%d orders", len(q.OrderList))
			}
			fmt.Fprintf(b, "<td>%s</td><td>%s</td><td>%s</td><td class=num>%s</td><td class=num>%s</td><td><span class=\"%s\">%s</span>",
				esc(a.Kind), esc(q.Symbol), esc(side), esc(size), esc(price), esc(a.Outcome), esc(a.Outcome))
			if a.Error != "" {
				fmt.Fprintf(b, " %s", esc(a.Error))
			}
			if a.Note != "" {
				fmt.Fprintf(b, "<div class=\"note\">%s</div>", esc(a.Note))
			}
			b.WriteString("</td><td>")
			writeFiringDetails(b, f, a, i == 0)
			b.WriteString("</td></tr>\n")
		}
	}
	b.WriteString("</table>\n")
}

// writeFiringDetails folds what a trader rarely needs: the order ids, the
// condition's values (with the first action) and the exact request sent.
func writeFiringDetails(b *strings.Builder, f Firing, a Action, withTrace bool) {
	b.WriteString("<details><summary>why and request</summary>")
	if len(a.OrderIDs) > 0 {
		fmt.Fprintf(b, "orders %s<br>", esc(strings.Join(a.OrderIDs, ", ")))
	}
	if withTrace {
		keys := make([]string, 0, len(f.Trace))
		for k := range f.Trace {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, _ := json.Marshal(f.Trace[k])
			fmt.Fprintf(b, "<code>%s = %s</code><br>", esc(k), esc(string(v)))
		}
	}
	fmt.Fprintf(b, "<code>%s</code></details>", esc(string(a.Request)))
}
