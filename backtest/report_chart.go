package backtest

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// chartData is what the page script of report.html draws, computed here so
// that the page only draws: times are Unix seconds (the chart library's
// time), prices and percentages plain numbers.
type chartData struct {
	Symbols []symbolChart `json:"symbols"`
	Equity  []equityChart `json:"equity"`
}

// symbolChart is one symbol's price line with its session bands and
// markers. Precision is the number of decimals its prices are written with.
type symbolChart struct {
	Symbol    string        `json:"symbol"`
	Precision int           `json:"precision"`
	Prices    []chartPoint  `json:"prices"`
	Bands     []chartBand   `json:"bands"`
	Markers   []chartMarker `json:"markers"`
}

// equityChart is one margin account's return and drawdown, in percent of
// the starting equity and of the previous high.
type equityChart struct {
	Account  string       `json:"account"`
	Return   []chartPoint `json:"return"`
	Drawdown []chartPoint `json:"drawdown"`
}

type chartPoint struct {
	Time  int64   `json:"time"`
	Value float64 `json:"value"`
}

// chartBand is one sample inside a US session, drawn as a full-height bar
// of the session's colour.
type chartBand struct {
	Time  int64  `json:"time"`
	Value int    `json:"value"`
	Color string `json:"color"`
}

// chartMarker is a marker in the chart library's format. Fill markers sit
// at their price (position atPriceMiddle); firings without a fill sit above
// the line (aboveBar) so that they stand apart.
type chartMarker struct {
	Time     int64    `json:"time"`
	Position string   `json:"position"`
	Price    *float64 `json:"price,omitempty"`
	Shape    string   `json:"shape"`
	Color    string   `json:"color"`
	Text     string   `json:"text"`
	Kind     string   `json:"kind"` // fill or firing: for the page's own check
}

// Colours of the page, shared with the legend.
const (
	buyColour    = "#1d8a3a"
	sellColour   = "#c62828"
	firingColour = "#e07b00"
)

// sessionColour shades the samples of each US session on the price charts.
var sessionColour = map[string]string{
	"pre_market":  "rgba(240, 200, 80, 0.22)",
	"regular":     "rgba(60, 170, 90, 0.16)",
	"after_hours": "rgba(80, 130, 220, 0.18)",
	"overnight":   "rgba(150, 110, 200, 0.14)",
}

// sessionOrder lists the sessions in the legend's order.
var sessionOrder = []string{"pre_market", "regular", "after_hours", "overnight"}

// chartedSymbols are the symbols whose price chart the page shows: those
// with an order, a fill or a firing naming them. A run that touched none
// charts every symbol rather than nothing.
func (r *Report) chartedSymbols() (charted, quiet []string) {
	active := map[string]bool{}
	for _, o := range r.Orders {
		active[o.Symbol] = true
	}
	for _, f := range r.Fills {
		active[f.Symbol] = true
	}
	for _, f := range r.Firings {
		for _, a := range f.Actions {
			if s := requestFields(a.Request).Symbol; s != "" {
				active[s] = true
			}
		}
	}
	for _, ps := range r.Prices {
		if active[ps.Symbol] {
			charted = append(charted, ps.Symbol)
		} else {
			quiet = append(quiet, ps.Symbol)
		}
	}
	if len(charted) == 0 {
		return quiet, nil
	}
	return charted, quiet
}

// chartData builds what the page draws.
func (r *Report) chartData() chartData {
	times := make([]int64, len(r.Equity))
	for i, e := range r.Equity {
		times[i] = parseStamp(e.Time).Unix()
	}
	charted, _ := r.chartedSymbols()
	out := chartData{Symbols: []symbolChart{}, Equity: []equityChart{}}
	for _, ps := range r.Prices {
		if !slices.Contains(charted, ps.Symbol) {
			continue
		}
		c := symbolChart{Symbol: ps.Symbol, Prices: []chartPoint{}, Bands: r.bands(times), Markers: r.markers(ps.Symbol, times)}
		for i, p := range ps.Prices {
			v, err := strconv.ParseFloat(p, 64)
			if err != nil || i >= len(times) || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			c.Prices = append(c.Prices, chartPoint{Time: times[i], Value: v})
			if dot := strings.IndexByte(p, '.'); dot >= 0 {
				c.Precision = max(c.Precision, len(p)-dot-1)
			}
		}
		c.Precision = min(c.Precision, 8)
		out.Symbols = append(out.Symbols, c)
	}
	for i, a := range r.Summary.Accounts {
		if !a.Used() {
			continue
		}
		ec := equityChart{Account: a.ProductType + " " + a.MarginCoin, Return: []chartPoint{}, Drawdown: []chartPoint{}}
		var start, peak decimal.Decimal
		for j, e := range r.Equity {
			if i >= len(e.Accounts) {
				continue
			}
			v := parseOrZero(e.Accounts[i])
			if j == 0 {
				start, peak = v, v
			}
			peak = decimal.Max(peak, v)
			ec.Return = append(ec.Return, chartPoint{Time: times[j], Value: percentFloat(v.Sub(start), start)})
			ec.Drawdown = append(ec.Drawdown, chartPoint{Time: times[j], Value: -percentFloat(peak.Sub(v), peak)})
		}
		out.Equity = append(out.Equity, ec)
	}
	return out
}

func percentFloat(part, base decimal.Decimal) float64 {
	f, _ := strconv.ParseFloat(percent(part, base), 64)
	return f
}

// bands marks every sample time inside a session band.
func (r *Report) bands(times []int64) []chartBand {
	out := []chartBand{}
	b := 0
	for _, t := range times {
		for b < len(r.Sessions) && parseStamp(r.Sessions[b].To).Unix() < t {
			b++
		}
		if b < len(r.Sessions) && parseStamp(r.Sessions[b].From).Unix() <= t {
			out = append(out, chartBand{Time: t, Value: 1, Color: sessionColour[r.Sessions[b].Session]})
		}
	}
	return out
}

// barTime is the sample time at or before t (the first sample before the
// first): markers sit on the price line's own times.
func barTime(times []int64, t time.Time) int64 {
	if len(times) == 0 {
		return t.Unix()
	}
	i, found := slices.BinarySearch(times, t.Unix())
	if found {
		return times[i]
	}
	return times[max(i-1, 0)]
}

// markers are the symbol's fills, one marker per order at its average
// price naming the rule and side, and the firings touching the symbol
// whose orders did not fill, above the line.
func (r *Report) markers(symbol string, times []int64) []chartMarker {
	names := namesOf(r.Firings, r.Orders)
	type orderFills struct {
		first        time.Time
		side         string
		size, volume decimal.Decimal
	}
	var ids []string
	byOrder := map[string]*orderFills{}
	filled := map[string]bool{}
	for _, f := range r.Fills {
		filled[f.OrderID] = true
		if f.Symbol != symbol {
			continue
		}
		o := byOrder[f.OrderID]
		if o == nil {
			o = &orderFills{first: parseStamp(f.Time), side: f.Side}
			byOrder[f.OrderID] = o
			ids = append(ids, f.OrderID)
		}
		size := parseOrZero(f.Size)
		o.size = o.size.Add(size)
		o.volume = o.volume.Add(size.Mul(parseOrZero(f.Price)))
	}
	out := []chartMarker{}
	for _, id := range ids {
		o := byOrder[id]
		if !o.size.IsPositive() {
			continue
		}
		price, _ := o.volume.Div(o.size).Float64()
		rule := cmp.Or(names.rule[id], names.by[id], "no rule")
		m := chartMarker{Time: barTime(times, o.first), Position: "atPriceMiddle", Price: &price, Shape: "arrowUp", Color: buyColour,
			Text: rule + " " + o.side + " " + o.size.String(), Kind: "fill"}
		if o.side == "sell" {
			m.Shape, m.Color = "arrowDown", sellColour
		}
		out = append(out, m)
	}
	for _, f := range r.Firings {
		if !firingTouches(f, symbol) || firingFilled(f, filled) {
			continue
		}
		out = append(out, chartMarker{Time: barTime(times, parseStamp(f.Time)), Position: "aboveBar", Shape: "square", Color: firingColour,
			Text: f.Rule + ": " + firingResult(f), Kind: "firing"})
	}
	slices.SortStableFunc(out, func(a, b chartMarker) int { return cmp.Compare(a.Time, b.Time) })
	return out
}

// firingFilled reports whether an order of f filled (its fills then stand
// for it on the chart).
func firingFilled(f Firing, filled map[string]bool) bool {
	for _, a := range f.Actions {
		for _, id := range a.OrderIDs {
			if filled[id] {
				return true
			}
		}
	}
	return false
}

// firingResult says in a word or two what a firing that filled nothing did.
func firingResult(f Firing) string {
	parts := make([]string, 0, len(f.Actions))
	for _, a := range f.Actions {
		switch {
		case a.Outcome != "ok":
			parts = append(parts, a.Kind+" "+a.Outcome)
		case len(a.OrderIDs) > 0:
			parts = append(parts, a.Kind+" (not filled)")
		default:
			parts = append(parts, a.Kind)
		}
	}
	if len(parts) == 0 {
		return "no action"
	}
	return strings.Join(parts, ", ")
}

// firingTouches reports whether one of f's requests names symbol, or none
// names any symbol (cancel_all, or a request that failed before it was
// built): then it may concern every chart.
func firingTouches(f Firing, symbol string) bool {
	named := false
	for _, a := range f.Actions {
		if s := requestFields(a.Request).Symbol; s != "" {
			named = true
			if s == symbol {
				return true
			}
		}
	}
	return !named
}

// request holds the fields of a request the firings table shows; the
// requests of the different actions share these names.
type request struct {
	Symbol       string    `json:"symbol"`
	Side         string    `json:"side"`
	HoldSide     string    `json:"holdSide"`
	TradeSide    string    `json:"tradeSide"`
	OrderType    string    `json:"orderType"`
	Size         string    `json:"size"`
	Price        string    `json:"price"`
	TriggerPrice string    `json:"triggerPrice"`
	NewPrice     string    `json:"newPrice"`
	NewSize      string    `json:"newSize"`
	OrderList    []request `json:"orderList"`
}

// requestFields reads the shown fields of a request (zero for null).
func requestFields(raw json.RawMessage) request {
	var q request
	_ = json.Unmarshal(raw, &q) // a request the runner recorded is JSON or null
	return q
}
