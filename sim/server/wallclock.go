package server

import (
	"fmt"
	"time"
)

// WallClock is the clock of a simulator served to people: it follows the
// wall clock from a chosen start, Speed times faster. It satisfies
// exchange.Clock.
type WallClock struct {
	start     time.Time
	wallStart time.Time
	speed     float64
}

// NewWallClock returns a clock that reads start now and then runs speed
// times as fast as the wall clock. speed must be positive.
func NewWallClock(start time.Time, speed float64) (*WallClock, error) {
	if !(speed > 0) {
		return nil, fmt.Errorf("wall clock speed %v: must be positive", speed)
	}
	return &WallClock{start: start, wallStart: time.Now(), speed: speed}, nil
}

// Now returns the start plus the scaled wall time elapsed since creation.
func (c *WallClock) Now() time.Time {
	return c.start.Add(c.scale(time.Since(c.wallStart)))
}

// After fires once d has passed on this clock, that is after d/speed of
// wall time; it sends this clock's time.
func (c *WallClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	time.AfterFunc(time.Duration(float64(d)/c.speed), func() { ch <- c.Now() })
	return ch
}

func (c *WallClock) scale(wall time.Duration) time.Duration {
	return time.Duration(float64(wall) * c.speed)
}
