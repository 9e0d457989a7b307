// Package racetest lets a test size its work to the race detector. A test
// that walks a long span step by step in one goroutine, checking a cache
// against a fresh computation, gives the detector nothing to find while
// it costs about ten times the time; such a test may take longer steps
// when Enabled, as it does under -short.
package racetest
