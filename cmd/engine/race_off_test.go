//go:build !race

package main

// raceEnabled is set when the tests run with -race, which slows the
// backtests several times over.
const raceEnabled = false
