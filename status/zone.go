package status

import (
	"time"
	_ "time/tzdata" // New York time on machines without a zone database
)

// NewYork is the zone traders read times in (the US market's), loaded from
// the embedded zone database.
func NewYork() *time.Location { return newYork }

var newYork = mustZone("America/New_York")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // time/tzdata is linked in, so this cannot happen
	}
	return loc
}
