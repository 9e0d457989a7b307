// Package market is the simulated market of the simulator: price paths per
// symbol, the synthetic order books and platform fills derived from them, and
// the US market calendar (sessions, daylight saving time, closures) that the
// states and calendar endpoints serve. It holds no account state.
//
// A price path moves in steps: a random walk's step; for points (and CSV) a
// held stretch, or one second while the price interpolates. The synthetic
// book is drawn once per step, a pure function of the instrument, the step
// and the price, and its snapshot time is the step's start. Asked again
// within a step, the market returns the very same book slices; Epoch tells
// callers when any price can have moved.
package market

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// PathSpec is how a scenario describes the price of one symbol over time.
// Exactly one of Points, CSV, RandomWalk, Candles and CandlePath is set.
type PathSpec struct {
	// Points are (time, price) pairs; the price between two points is the
	// linear interpolation, before the first and after the last it holds.
	Points []Point `yaml:"points,omitempty" json:"points,omitempty"`
	// CSV is a file of "ts,price" lines (ts in RFC 3339 or Unix ms), relative
	// to the scenario file; it is read as Points.
	CSV string `yaml:"csv,omitempty" json:"csv,omitempty"`
	// RandomWalk is a seeded random walk; the same seed gives the same path.
	RandomWalk *WalkSpec `yaml:"random_walk,omitempty" json:"random_walk,omitempty"`
	// Candles is a path inside candles written in the scenario or read from
	// a candle file of the history store, with the model of a backtest on
	// stored history (CandlePoints).
	Candles *CandlesSpec `yaml:"candles,omitempty" json:"candles,omitempty"`
	// CandlePath is a path inside stored candles, set in Go by a backtest on
	// stored history, never read from a scenario file.
	CandlePath *CandleSpec `yaml:"-" json:"-"`
	// Tick is the price step that prices are rounded to and that the
	// synthetic book is built on (default: the contract's price step, else
	// 0.01).
	Tick decimal.Decimal `yaml:"tick,omitempty" json:"tick,omitempty"`
}

// Point is one point of a price path.
type Point struct {
	At    time.Time       `yaml:"at" json:"at"`
	Price decimal.Decimal `yaml:"price" json:"price"`
}

// CandlesSpec is a price path given as candles: each its start and its
// open, high, low and close, one interval long. Exactly one of Rows and
// File is set.
type CandlesSpec struct {
	// Interval is the candles' length, as the venue names it: 1m, 5m, 15m,
	// 30m, 1H, 4H, 1D...
	Interval exchange.Granularity `yaml:"interval" json:"interval"`
	Rows     []CandleRow          `yaml:"rows,omitempty" json:"rows,omitempty"`
	// File is a candle file of the history store (engine data download:
	// time,open,high,low,close,base_volume,quote_volume), relative to the
	// scenario file.
	File string `yaml:"file,omitempty" json:"file,omitempty"`
}

// CandleRow is one candle of a CandlesSpec.
type CandleRow struct {
	At    time.Time       `yaml:"at" json:"at"`
	Open  decimal.Decimal `yaml:"open" json:"open"`
	High  decimal.Decimal `yaml:"high" json:"high"`
	Low   decimal.Decimal `yaml:"low" json:"low"`
	Close decimal.Decimal `yaml:"close" json:"close"`
	// QuoteVolume is the traded value in the quote coin, optional: the
	// modelled book's depth follows it (CandleSpec.BookModel).
	QuoteVolume decimal.Decimal `yaml:"quote_volume,omitempty" json:"quote_volume,omitempty"`
}

// WalkSpec is a seeded geometric random walk. It starts at the scenario's
// start and holds its price after the scenario's end. Two paths with the
// same seed move together (their returns are identical).
type WalkSpec struct {
	Start decimal.Decimal `yaml:"start" json:"start"`
	Seed  int64           `yaml:"seed" json:"seed"`
	// VolatilityBps is the standard deviation of one step's return, in basis points.
	VolatilityBps float64 `yaml:"volatility_bps" json:"volatility_bps"`
	// Step is the time between two draws (default 1s).
	Step time.Duration `yaml:"step,omitempty" json:"step,omitempty"`
}

// StockPairSpec is one US stock pair of a scenario.
type StockPairSpec struct {
	Symbol          string                   `yaml:"symbol" json:"symbol"` // pair name, e.g. TSLAUSDT
	Code            string                   `yaml:"code" json:"code"`     // stock code, e.g. TSLA
	Name            string                   `yaml:"name" json:"name"`     // company name
	TradingPeriod   []exchange.TradingPeriod `yaml:"trading_period" json:"trading_period"`
	WeekendTradable bool                     `yaml:"weekend_tradable" json:"weekend_tradable"`
	// PricePath names the scenario price path the pair's book and fills follow
	// (default: Symbol).
	PricePath string `yaml:"price_path,omitempty" json:"price_path,omitempty"`
}

// CalendarSpec is the closure calendar of a scenario.
type CalendarSpec struct {
	// Closures are holidays and other irregular closures, in Eastern time.
	Closures []ClosureSpec `yaml:"closures,omitempty" json:"closures,omitempty"`
	// RegularClosed lists recurring closure days as weekday names in any
	// case (default, when absent: SATURDAY, SUNDAY; an empty list means
	// none). They close every session of that trading day; see Session.
	RegularClosed []string `yaml:"regular_closed,omitempty" json:"regular_closed,omitempty"`
	// USHolidays adds the US exchange holidays (see USHolidays) of every
	// year from the scenario's start to its end (two years on when it has
	// none) to Closures.
	USHolidays bool `yaml:"us_holidays,omitempty" json:"us_holidays,omitempty"`
	// EarlyCloses are trading days on which the exchanges close early
	// (the day after Thanksgiving, Christmas Eve): each closes the rest of
	// its day from its time, and the overnight session that starts at
	// 20:00 opens as usual. It is the closure from that time to 20:00.
	EarlyCloses []EarlyCloseSpec `yaml:"early_closes,omitempty" json:"early_closes,omitempty"`
}

// EarlyCloseSpec is one early close: the trading day's date and the time
// the market closes, Eastern.
type EarlyCloseSpec struct {
	Date   string `yaml:"date" json:"date"`                         // "YYYY-MM-DD"
	At     string `yaml:"at,omitempty" json:"at,omitempty"`         // "HH:mm", default 13:00
	Remark string `yaml:"remark,omitempty" json:"remark,omitempty"` // default "early close"
}

// SpecError is a mistake in one part of a market's description. Path
// locates that part in the scenario, as keys and indices ("calendar",
// "closures", 0 or "prices", "TSLAUSDT"), so that the scenario's loader can
// name its file and line.
type SpecError struct {
	Path []any
	Err  error
}

// Error returns the mistake in words.
func (e *SpecError) Error() string { return e.Err.Error() }

// Unwrap returns the mistake.
func (e *SpecError) Unwrap() error { return e.Err }

func specError(err error, path ...any) error { return &SpecError{Path: path, Err: err} }

// ClosureSpec is one irregular closure: local Eastern times "YYYY-MM-DD HH:mm",
// closed from Start (inclusive) to End (exclusive). A holiday that also
// closes the overnight session leading into it starts at 20:00 the day
// before.
type ClosureSpec struct {
	Remark string `yaml:"remark" json:"remark"`
	Start  string `yaml:"start" json:"start"`
	End    string `yaml:"end" json:"end"`
}
