//go:build race

package backtest

// raceDetector is set when the tests run with -race, which makes a day of
// backtest run every tick take many minutes: the longest tests then cover
// less of it.
const raceDetector = true
