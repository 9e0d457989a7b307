package engine

import (
	"fmt"
	"math"
	"strconv"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Extreme is what the engine remembers of one open position: its highest
// and lowest mark price and its best unrealised P&L since it opened, or
// since the engine first saw it (position(...).high_since_open,
// .low_since_open, .peak_pnl).
type Extreme struct {
	High    float64 `json:"high"`
	Low     float64 `json:"low"`
	PeakPnL float64 `json:"peak_pnl"`
}

// extremes are the Extremes of the open positions, by extremeKey. The
// engine observes every tick's State (observe), which sets the positions'
// fields from them, and saves them when they changed; a restart loads them,
// so a trailing stop keeps its high.
type extremes struct {
	byKey map[string]Extreme
	dirty bool // changed since the last save
}

// extremeKey names one position: product type, symbol, side and the time
// the venue says it opened, so that a position opened again after it
// closed starts afresh. Without an opening time, a position is new when a
// fetch of every position of its product type no longer had it.
func extremeKey(p *marketdata.Position) string {
	opened := ""
	if t := p.OpenedAt(); !t.IsZero() {
		opened = strconv.FormatInt(t.UnixMilli(), 10)
	}
	return p.ProductType + "|" + p.Symbol + "|" + p.Side + "|" + opened
}

// observe brings the extremes up to st's open positions and writes them into
// the positions' fields. Positions of a product type fetched whole that are
// no longer open are forgotten.
func (x *extremes) observe(st *marketdata.State) {
	open, err := st.Positions()
	if err != nil {
		return // no positions fetched: nothing to observe
	}
	seen := make(map[string]bool, len(open))
	for _, p := range open {
		k := extremeKey(p)
		seen[k] = true
		e, ok := x.byKey[k]
		next := Extreme{High: p.MarkPrice, Low: p.MarkPrice, PeakPnL: p.UnrealizedPnL}
		if ok {
			next = Extreme{High: math.Max(e.High, p.MarkPrice), Low: math.Min(e.Low, p.MarkPrice), PeakPnL: math.Max(e.PeakPnL, p.UnrealizedPnL)}
		}
		if !ok || next != e {
			x.byKey[k], x.dirty = next, true
		}
		p.HighSinceOpen, p.LowSinceOpen, p.PeakPnL = next.High, next.Low, next.PeakPnL
	}
	for k := range x.byKey {
		if !seen[k] && st.PositionsCover(exchange.ProductType(productOfKey(k))) {
			delete(x.byKey, k)
			x.dirty = true
		}
	}
}

// productOfKey is the product type of an extremeKey.
func productOfKey(k string) string {
	for i := range len(k) {
		if k[i] == '|' {
			return k[:i]
		}
	}
	return k
}

// extremesFile is the file name of the extremes in the state directory.
const extremesFile = "position-extremes.json"

// extremesVersion is the version of the extremes file.
const extremesVersion = 1

type extremesFileForm struct {
	Version   int                `json:"version"`
	Positions map[string]Extreme `json:"positions"`
}

// LoadExtremes reads the saved extremes; a missing file is none. A file that
// does not parse, or holds a low above its high or a value that is not a
// number, is an error wrapping ErrBadStateFile.
func (s *Store) LoadExtremes() (map[string]Extreme, error) {
	return loadFile(s, extremesFile, DecodeExtremes, map[string]Extreme{}, "fix it, or move it away: the highs and lows since entry then start from the current prices")
}

// DecodeExtremes parses an extremes file.
func DecodeExtremes(b []byte) (map[string]Extreme, error) {
	var f extremesFileForm
	if err := strictJSON(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStateFile, err)
	}
	if f.Version != extremesVersion {
		return nil, fmt.Errorf("%w: not a version %d extremes file", ErrBadStateFile, extremesVersion)
	}
	if f.Positions == nil {
		return nil, fmt.Errorf(`%w: "positions" is missing or null`, ErrBadStateFile)
	}
	for k, e := range f.Positions {
		for _, v := range []float64{e.High, e.Low, e.PeakPnL} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: position %q: a value is not a number", ErrBadStateFile, k)
			}
		}
		if e.Low > e.High {
			return nil, fmt.Errorf("%w: position %q: low %v is above high %v", ErrBadStateFile, k, e.Low, e.High)
		}
	}
	return f.Positions, nil
}

// SaveExtremes writes the extremes durably, as Save the rule states.
func (s *Store) SaveExtremes(m map[string]Extreme) error {
	return s.saveFile(extremesFile, extremesFileForm{Version: extremesVersion, Positions: m})
}

// saveExtremes saves the extremes when they changed and there is a store.
// A failed save is logged and tried again on the next tick: the extremes
// in memory stay right, only a restart meanwhile would lose the newest.
func (e *Engine) saveExtremes() {
	if !e.extremes.dirty || e.opts.Store == nil {
		return
	}
	if err := e.opts.Store.SaveExtremes(e.extremes.byKey); err != nil {
		e.opts.Logger.Warn("could not save the positions' highs and lows since entry; trying again next tick", zap.Error(err))
		return
	}
	e.extremes.dirty = false
}
