package engine

import (
	"fmt"

	"github.com/tickrules/tickrules/actions"
)

// equityPeaksFile is the file name of max_drawdown's peaks in the state
// directory.
const equityPeaksFile = "equity-peaks.json"

// equityPeaksVersion is the layout version of equity-peaks.json.
const equityPeaksVersion = 1

// equityPeaksFileForm is equity-peaks.json: the highest equity of each
// margin coin by hour, within each coin's max_drawdown window.
type equityPeaksFileForm struct {
	Version int                 `json:"version"`
	Coins   actions.EquityPeaks `json:"coins"`
}

// LoadEquityPeaks reads max_drawdown's peaks; a missing file is none. A
// file that does not parse, or holds an hour twice or out of order, or an
// equity below zero, is an error wrapping ErrBadStateFile.
func (s *Store) LoadEquityPeaks() (actions.EquityPeaks, error) {
	return loadFile(s, equityPeaksFile, DecodeEquityPeaks, actions.EquityPeaks{},
		"fix it, or move it away: max_drawdown then measures from the equity of the next poll")
}

// DecodeEquityPeaks parses an equity-peaks.json.
func DecodeEquityPeaks(b []byte) (actions.EquityPeaks, error) {
	var f equityPeaksFileForm
	if err := strictJSON(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStateFile, err)
	}
	if f.Version != equityPeaksVersion {
		return nil, fmt.Errorf("%w: not a version %d equity peaks file", ErrBadStateFile, equityPeaksVersion)
	}
	if f.Coins == nil {
		return nil, fmt.Errorf(`%w: "coins" is missing or null`, ErrBadStateFile)
	}
	for coin, hours := range f.Coins {
		for i, h := range hours {
			if h.High.IsNegative() {
				return nil, fmt.Errorf("%w: coin %q: equity %s is below zero", ErrBadStateFile, coin, h.High)
			}
			if i > 0 && !hours[i-1].Hour.Before(h.Hour) {
				return nil, fmt.Errorf("%w: coin %q: hour %s is not after the one before it", ErrBadStateFile, coin, h.Hour)
			}
		}
	}
	return f.Coins, nil
}

// SaveEquityPeaks writes max_drawdown's peaks durably, as Save the rule
// states.
func (s *Store) SaveEquityPeaks(p actions.EquityPeaks) error {
	return s.saveFile(equityPeaksFile, equityPeaksFileForm{Version: equityPeaksVersion, Coins: p})
}
