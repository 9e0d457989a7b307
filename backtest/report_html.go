package backtest

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Chart geometry of report.html, in SVG user units.
const (
	chartW, chartH = 1000.0, 240.0
	padL, padR     = 70.0, 10.0
	padT, padB     = 10.0, 24.0
)

// sessionColour fills the band of each US session on the price charts.
var sessionColour = map[string]string{
	"pre_market":  "#fff4d6",
	"regular":     "#dff3e4",
	"after_hours": "#e3ecfa",
	"overnight":   "#eee6f6",
}

// HTML renders report.html: one self-contained page, no network, no
// script. Charts are inline SVG drawn here, so that a test can count what
// is drawn without a browser: every price chart is an <svg class="chart
// price">, every firing marker has class "marker firing" and every fill
// marker class "marker fill".
func (r *Report) HTML() []byte {
	var b strings.Builder
	from, to := parseStamp(r.From), parseStamp(r.To)
	x := axis{from: from, to: to}
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tickrules backtest: `)
	b.WriteString(esc(r.Source))
	b.WriteString(`</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
code{font-size:.9em;white-space:pre-wrap;word-break:break-all}
svg.chart{display:block;max-width:100%;height:auto;border:1px solid #ddd;margin:.3em 0}
.legend span{display:inline-block;margin-right:1em;font-size:.85em}
.ok{color:#176c2e}.error,.blocked{color:#b3261e;font-weight:bold}
</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>Backtest of %s</h1>\n<p>%s to %s, step %s, %d ticks.</p>\n", esc(r.Source), esc(r.From), esc(r.To), esc(r.Step), r.Ticks)
	writeSummary(&b, r)
	b.WriteString(`<div class="legend">`)
	for _, s := range []string{"pre_market", "regular", "after_hours", "overnight"} {
		fmt.Fprintf(&b, `<span><svg width="12" height="12"><rect width="12" height="12" fill="%s"/></svg> %s</span>`, sessionColour[s], s)
	}
	b.WriteString(`<span>&#9650; rule fired</span><span>&#9679; fill (green buy, red sell)</span></div>` + "\n")
	for _, ps := range r.Prices {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", esc(ps.Symbol))
		writePriceChart(&b, r, ps, x)
	}
	b.WriteString("<h2>Equity</h2>\n")
	for i, a := range r.Summary.Accounts {
		fmt.Fprintf(&b, "<p>%s %s</p>\n", esc(a.ProductType), esc(a.MarginCoin))
		vals := make([]string, len(r.Equity))
		for j, e := range r.Equity {
			if i < len(e.Accounts) {
				vals[j] = e.Accounts[i]
			}
		}
		writeLineChart(&b, "chart equity", r, vals, x, nil, nil)
	}
	writeFirings(&b, r)
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

func esc(s string) string { return html.EscapeString(s) }

func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// axis maps times to x.
type axis struct{ from, to time.Time }

func (a axis) x(t time.Time) float64 {
	span := a.to.Sub(a.from)
	if span <= 0 {
		return padL
	}
	f := float64(t.Sub(a.from)) / float64(span)
	return padL + min(max(f, 0), 1)*(chartW-padL-padR)
}

// scale maps values to y.
type scale struct{ lo, hi float64 }

func (s scale) y(v float64) float64 {
	if s.hi <= s.lo {
		return padT + (chartH-padT-padB)/2
	}
	y := padT + (s.hi-v)/(s.hi-s.lo)*(chartH-padT-padB)
	// A fill between two samples may lie outside the sampled range.
	return min(max(y, padT), chartH-padB)
}

func fmtf(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// writeLineChart draws vals (one per Report.Equity sample) as a polyline
// with a value axis; under and over (either may be nil) draw below and
// above the line with the same scale.
func writeLineChart(b *strings.Builder, class string, r *Report, vals []string, x axis, under, over func(*strings.Builder, scale)) {
	var pts []float64
	var ts []time.Time
	sc := scale{}
	for i, v := range vals {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || i >= len(r.Equity) {
			continue
		}
		if len(pts) == 0 || f < sc.lo {
			sc.lo = f
		}
		if len(pts) == 0 || f > sc.hi {
			sc.hi = f
		}
		pts = append(pts, f)
		ts = append(ts, parseStamp(r.Equity[i].Time))
	}
	fmt.Fprintf(b, `<svg class="%s" viewBox="0 0 %s %s" width="%s" height="%s" xmlns="http://www.w3.org/2000/svg">`+"\n",
		class, fmtf(chartW), fmtf(chartH), fmtf(chartW), fmtf(chartH))
	if under != nil {
		under(b, sc)
	}
	if len(pts) > 0 {
		b.WriteString(`<polyline class="line" fill="none" stroke="#1f5fbf" stroke-width="1.2" points="`)
		for i, p := range pts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(fmtf(x.x(ts[i])) + "," + fmtf(sc.y(p)))
		}
		b.WriteString("\"/>\n")
		for _, v := range []float64{sc.lo, sc.hi} {
			fmt.Fprintf(b, `<text x="2" y="%s" font-size="11">%s</text>`+"\n", fmtf(sc.y(v)+4), strconv.FormatFloat(v, 'f', -1, 64))
		}
	} else {
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="13">no data</text>`+"\n", fmtf(chartW/2), fmtf(chartH/2))
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="11">%s</text><text x="%s" y="%s" font-size="11" text-anchor="end">%s</text>`+"\n",
		fmtf(padL), fmtf(chartH-6), esc(stamp(x.from)), fmtf(chartW-padR), fmtf(chartH-6), esc(stamp(x.to)))
	if over != nil {
		over(b, sc)
	}
	b.WriteString("</svg>\n")
}

// writePriceChart draws one symbol's price with the session bands, a
// triangle where a rule fired with an action on the symbol (or on no
// symbol) and a dot at every fill.
func writePriceChart(b *strings.Builder, r *Report, ps PriceSeries, x axis) {
	under := func(b *strings.Builder, _ scale) {
		for _, s := range r.Sessions {
			x0, x1 := x.x(parseStamp(s.From)), x.x(parseStamp(s.To))
			fmt.Fprintf(b, `<rect class="session %s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s %s to %s</title></rect>`+"\n",
				esc(s.Session), fmtf(x0), fmtf(padT), fmtf(max(x1-x0, 1)), fmtf(chartH-padT-padB), sessionColour[s.Session], esc(s.Session), esc(s.From), esc(s.To))
		}
	}
	over := func(b *strings.Builder, sc scale) {
		for _, f := range r.Firings {
			if !firingTouches(f, ps.Symbol) {
				continue
			}
			fx := x.x(parseStamp(f.Time))
			fmt.Fprintf(b, `<path class="marker firing" d="M%s %s l-5 9 h10 z" fill="#e07b00"><title>%s fired at %s</title></path>`+"\n",
				fmtf(fx), fmtf(padT), esc(f.Rule), esc(f.Time))
		}
		for _, f := range r.Fills {
			p, err := strconv.ParseFloat(f.Price, 64)
			if f.Symbol != ps.Symbol || err != nil {
				continue
			}
			colour := "#1d8a3a"
			if f.Side == "sell" {
				colour = "#c62828"
			}
			fmt.Fprintf(b, `<circle class="marker fill" cx="%s" cy="%s" r="3.5" fill="%s"><title>%s %s @ %s at %s</title></circle>`+"\n",
				fmtf(x.x(parseStamp(f.Time))), fmtf(sc.y(p)), colour, esc(f.Side), esc(f.Size), esc(f.Price), esc(f.Time))
		}
	}
	writeLineChart(b, "chart price", r, ps.Prices, x, under, over)
}

// firingTouches reports whether one of f's requests names symbol, or none
// names any symbol (cancel_all: it touches every chart).
func firingTouches(f Firing, symbol string) bool {
	named := false
	for _, a := range f.Actions {
		var req struct {
			Symbol string `json:"symbol"`
		}
		if json.Unmarshal(a.Request, &req) == nil && req.Symbol != "" {
			named = true
			if req.Symbol == symbol {
				return true
			}
		}
	}
	return !named
}

func writeSummary(b *strings.Builder, r *Report) {
	s := r.Summary
	fmt.Fprintf(b, "<h2>Summary</h2>\n<p>%d orders, %d fills.</p>\n", s.Orders, s.Fills)
	b.WriteString("<table class=\"rules\"><tr><th>rule</th><th>firings</th><th>errors</th></tr>\n")
	for _, rs := range s.Rules {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%d</td><td>%d</td></tr>\n", esc(rs.Rule), rs.Firings, rs.Errors)
	}
	b.WriteString("</table>\n<p></p><table class=\"accounts\"><tr><th>account</th><th>equity at start</th><th>equity at end</th><th>realised P&amp;L</th><th>fees</th><th>max drawdown</th></tr>\n")
	for _, a := range s.Accounts {
		fmt.Fprintf(b, "<tr><td>%s %s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(a.ProductType), esc(a.MarginCoin), esc(a.EquityStart), esc(a.EquityEnd), esc(a.RealisedPnL), esc(a.Fees), esc(a.MaxDrawdown))
	}
	b.WriteString("</table>\n")
}

func writeFirings(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "<h2>Firings (%d)</h2>\n", len(r.Firings))
	b.WriteString("<table class=\"firings\"><tr><th>time</th><th>rule</th><th>trace</th><th>actions</th></tr>\n")
	for _, f := range r.Firings {
		fmt.Fprintf(b, "<tr class=\"firing\"><td>%s</td><td>%s</td><td>", esc(f.Time), esc(f.Rule))
		keys := make([]string, 0, len(f.Trace))
		for k := range f.Trace {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, _ := json.Marshal(f.Trace[k])
			fmt.Fprintf(b, "<code>%s = %s</code><br>", esc(k), esc(string(v)))
		}
		b.WriteString("</td><td>")
		for _, a := range f.Actions {
			fmt.Fprintf(b, "%s <span class=\"%s\">%s</span>", esc(a.Kind), esc(a.Outcome), esc(a.Outcome))
			if len(a.OrderIDs) > 0 {
				fmt.Fprintf(b, " orders %s", esc(strings.Join(a.OrderIDs, ", ")))
			}
			if a.Error != "" {
				fmt.Fprintf(b, " <span class=\"error\">%s</span>", esc(a.Error))
			}
			fmt.Fprintf(b, "<br><code>%s</code><br>", esc(string(a.Request)))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table>\n")
}
