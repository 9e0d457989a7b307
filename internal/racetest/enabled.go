//go:build !race

package racetest

// Enabled reports whether the binary was built with -race.
const Enabled = false
