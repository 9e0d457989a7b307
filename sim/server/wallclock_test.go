package server

import (
	"testing"
	"time"
)

func TestWallClock(t *testing.T) {
	if _, err := NewWallClock(testStart, 0); err == nil {
		t.Error("speed 0 accepted")
	}
	if _, err := NewWallClock(testStart, -2); err == nil {
		t.Error("negative speed accepted")
	}
	c, err := NewWallClock(testStart, 1000)
	if err != nil {
		t.Fatal(err)
	}
	wallBefore := time.Now()
	first := c.Now()
	if first.Before(testStart) {
		t.Fatalf("Now %v before start %v", first, testStart)
	}
	// One simulated second at speed 1000 is 1 ms of wall time.
	got := <-c.After(time.Second)
	wall := time.Since(wallBefore)
	if sim := got.Sub(first); sim < time.Second {
		t.Errorf("After(1s) fired after %v of simulated time", sim)
	}
	// The simulated time elapsed is the wall time scaled by the speed
	// (bounded above by what passed on the wall clock since wallBefore).
	if sim := c.Now().Sub(testStart); sim > time.Duration(float64(time.Since(wallBefore))*1000)+time.Second {
		t.Errorf("simulated %v after %v of wall time at speed 1000", sim, wall)
	}
}
