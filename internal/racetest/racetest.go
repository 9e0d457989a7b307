// Package racetest lets tests size their work to the race detector. A
// differential test draws many random inputs and checks a fast path
// against its definition (integers against decimals, say) in one
// goroutine, where the detector finds nothing and costs about ten times
// the time; under -race, the README's test command, such a test draws a
// tenth of its inputs, and without -race all of them. A test that walks a
// long span step by step in one goroutine may likewise take longer steps
// when Enabled.
package racetest

// Cases returns how many random inputs a differential test that would
// draw n should draw: n, or a tenth of n when the race detector is on.
// Chosen edge cases are not random inputs: tests run them either way.
func Cases(n int) int {
	if Enabled {
		return n / 10
	}
	return n
}
