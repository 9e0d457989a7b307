//go:build !race

package backtest

// raceDetector: see race_on_test.go.
const raceDetector = false
