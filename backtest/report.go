package backtest

import (
	"bytes"
	"encoding/json"
	"time"
)

// Report is everything report.json holds. Slices only, in a fixed order,
// so that the same inputs always give the same bytes.
type Report struct {
	Version   int           `json:"version"`
	Source    string        `json:"source"` // the scenario's name or the recording's file name
	From      string        `json:"from"`
	To        string        `json:"to"`
	Step      string        `json:"step"`
	Ticks     int64         `json:"ticks"`
	Firings   []Firing      `json:"firings"`
	Orders    []Order       `json:"orders"`
	Fills     []Fill        `json:"fills"`
	Trades    []Trade       `json:"trades"`
	Positions []PositionsAt `json:"positions"`
	Equity    []EquityPoint `json:"equity"`
	Prices    []PriceSeries `json:"prices"`
	Sessions  []SessionBand `json:"sessions"`
	Summary   Summary       `json:"summary"`
	// Notes say what of the run is modelled rather than recorded, and
	// where the data had holes (a backtest on stored history): a gap, a
	// missing mark price, the modelled books.
	Notes []string `json:"notes,omitempty"`
	// Protections are the safety file's protections that tripped, in
	// order (engine backtest --safety).
	Protections []ProtectionTrip `json:"protections,omitempty"`
}

// ProtectionTrip is a protection of the safety file that tripped: from
// Time no order that opens or grows a position went, until Until (empty:
// only by hand, so to the end of the run).
type ProtectionTrip struct {
	Time       string `json:"time"`
	Protection string `json:"protection"`
	Reason     string `json:"reason"`
	Until      string `json:"until,omitempty"`
}

// untilText says how long the trip stopped new entries, its end written
// by format.
func (p ProtectionTrip) untilText(format func(string) string) string {
	if p.Until == "" {
		return "to the end of the run (lifted only by hand)"
	}
	return "until " + format(p.Until)
}

// ReportVersion is the version of the report.json layout.
// Version 2 added the trades and the account figures in percent. Version
// 3 counts fees as the engine's summary does (positive is paid), pairs
// positions held at the start, names what placed an order no rule placed
// (entryBy, exitBy, orderSource), rounds trades to the contract's places
// and adds the metrics.
const ReportVersion = 3

// Firing is one rule firing: when, which rule, the values that made its
// condition true, and every request its actions sent.
type Firing struct {
	Time    string         `json:"time"`
	Rule    string         `json:"rule"`
	Trace   map[string]any `json:"trace"`
	Actions []Action       `json:"actions"`
}

// Action is one request of a firing. Outcome is ok, error, or blocked (a
// risk guard stopped it before it was sent). Request is null when nothing
// was sent (the action failed before a request could be built, e.g. a size
// that rounds to zero).
type Action struct {
	Kind     string          `json:"kind"`
	Request  json.RawMessage `json:"request"`
	Outcome  string          `json:"outcome"`
	OrderIDs []string        `json:"orderIds"`
	Error    string          `json:"error,omitempty"`
	// Note is the message of a log action, or why an ok request did less
	// than asked (nothing to cancel).
	Note string `json:"note,omitempty"`
}

// Order is an order of the account at the end of the run, final or still
// pending.
type Order struct {
	Time        string `json:"time"`
	OrderID     string `json:"orderId"`
	ClientOID   string `json:"clientOid"`
	ProductType string `json:"productType"`
	Symbol      string `json:"symbol"`
	Side        string `json:"side"`
	TradeSide   string `json:"tradeSide,omitempty"`
	Type        string `json:"orderType"`
	Price       string `json:"price,omitempty"`
	Size        string `json:"size"`
	Filled      string `json:"filled"`
	PriceAvg    string `json:"priceAvg,omitempty"`
	State       string `json:"state"`
	// Source is the venue's order source: normal for an order placed
	// through the API, pos_loss_market for a triggered stop-loss, ...
	Source string `json:"orderSource,omitempty"`
}

// Fill is one fill of the account.
type Fill struct {
	Time        string `json:"time"`
	TradeID     string `json:"tradeId"`
	OrderID     string `json:"orderId"`
	ProductType string `json:"productType"`
	Symbol      string `json:"symbol"`
	Side        string `json:"side"`
	TradeSide   string `json:"tradeSide,omitempty"`
	Price       string `json:"price"`
	Size        string `json:"size"`
	Fee         string `json:"fee"`
	FeeCoin     string `json:"feeCoin"`
	Profit      string `json:"profit"`
}

// PositionsAt is the account's open positions from Time until the next
// entry: an entry is written when they change, not on every sample.
type PositionsAt struct {
	Time      string     `json:"time"`
	Positions []Position `json:"positions"`
}

// Position is one open position in a PositionsAt.
type Position struct {
	ProductType  string `json:"productType"`
	Symbol       string `json:"symbol"`
	HoldSide     string `json:"holdSide"`
	Size         string `json:"size"`
	OpenPriceAvg string `json:"openPriceAvg"`
}

// EquityPoint is the equity of every margin account at one sample. A run
// of up to 12,000 samples (a week at one a minute) lists every sample; a
// longer one lists, of each of a few hundred equal spans, the first and
// last sample and those where an equity or a price is at its low or high
// in the span, so that the report's size does not grow with the run (the
// account figures of the summary are still taken from every sample).
type EquityPoint struct {
	Time     string   `json:"time"`
	Accounts []string `json:"equity"` // in the order of Summary.Accounts
}

// PriceSeries is the sampled last price of one futures symbol; Prices[i]
// belongs to Report.Equity[i].Time.
type PriceSeries struct {
	Symbol string   `json:"symbol"`
	Prices []string `json:"prices"`
}

// SessionBand is a span of one open US market session.
type SessionBand struct {
	Session string `json:"session"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// Summary sums the run up.
type Summary struct {
	Rules    []RuleSummary    `json:"rules"`
	Orders   int              `json:"orders"`
	Fills    int              `json:"fills"`
	Accounts []AccountSummary `json:"accounts"`
}

// RuleSummary counts one rule's firings and, as Errors, the requests of
// their actions whose outcome is not ok (error, or blocked by a guard);
// Orders are the orders its firings placed, Trades the closed trades it
// opened and NetPnL their net P&L after fees, added up whatever their
// margin coin (ruleFigures).
type RuleSummary struct {
	Rule    string `json:"rule"`
	Firings int    `json:"firings"`
	Errors  int    `json:"errors"`
	Orders  int    `json:"orders"`
	Trades  int    `json:"trades"`
	NetPnL  string `json:"netPnl"`
}

// AccountSummary is one margin account (product type and margin coin):
// equity at start and end, realised P&L and fees paid (positive, as the
// engine's own summary counts them) from the fills, the
// largest fall of the sampled equity from a previous high, and the closed
// trades of the account's symbols. Percentages are strings of numbers
// (-0.0636 is a loss of 0.0636 %); WinRatePct and ProfitFactor are ""
// when they have no meaning (no closed trade; no losing trade).
type AccountSummary struct {
	ProductType    string `json:"productType"`
	MarginCoin     string `json:"marginCoin"`
	EquityStart    string `json:"equityStart"`
	EquityEnd      string `json:"equityEnd"`
	ReturnPct      string `json:"returnPct"`
	RealisedPnL    string `json:"realisedPnl"`
	Fees           string `json:"fees"`
	MaxDrawdown    string `json:"maxDrawdown"`
	MaxDrawdownPct string `json:"maxDrawdownPct"` // of the high it fell from
	Fills          int    `json:"fills"`
	Trades         int    `json:"trades"` // closed round trips
	WinRatePct     string `json:"winRatePct"`
	ProfitFactor   string `json:"profitFactor"` // net gains of winners / net losses of losers
	// Metrics are the performance figures beside the equity curve (see
	// Metrics and docs/backtest-report.md).
	Metrics Metrics `json:"metrics"`
}

// Used reports whether the account traded or its equity moved: a report
// leaves the others out of its charts.
func (a AccountSummary) Used() bool {
	return a.Fills > 0 || a.EquityStart != a.EquityEnd || a.MaxDrawdown != "0"
}

// JSON returns the report as indented JSON with a final newline. HTML
// characters are not escaped: requests stay readable.
func (r *Report) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stamp formats a report time: RFC 3339 in UTC, to the millisecond only
// when it has one.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
