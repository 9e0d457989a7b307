package clock

import (
	"sync"
	"time"
)

// Venue-clock tuning. A venue's answers arrive with network jitter of tens
// of milliseconds, so a small error is smoothed away; a large one (a
// simulator started at another moment, restarted or run faster) is taken at
// once, because the rules must see the venue's session, not a blend.
const (
	venueJump   = time.Second // an error larger than this is taken whole
	venueAlpha  = 0.25        // the share of a small error taken per sample
	venueMinGap = 200 * time.Millisecond
	// venueRateTolerance is how far a measured rate may be from 1 and still
	// count as 1: a real venue runs at the speed of the local clock, and a
	// rate measured over a second of jitter is off by several percent; only
	// a simulator run faster (engine sim --speed) is far from 1.
	venueRateTolerance = 0.5
)

// Venue is the venue's time as seen from here: a local clock plus an offset
// (and, for a simulator run faster, a rate) learnt from the times the venue
// states in its answers. Before the first Observe it reads the local clock.
// Now never goes backwards. After waits on the local clock: the engine's
// tick is local time, only the time it reads is the venue's. It is safe for
// concurrent use.
type Venue struct {
	local interface {
		Now() time.Time
		After(time.Duration) <-chan time.Time
	}

	mu          sync.Mutex
	synced      bool
	anchorLocal time.Time // a local instant ...
	anchorVenue time.Time // ... and the venue's time then, smoothed
	rate        float64   // venue seconds per local second
	lastLocal   time.Time // the previous sample, for the rate
	lastVenue   time.Time
	lastRead    time.Time // the latest time Now returned
}

// NewVenue returns a venue clock over local (Real{} in production, a
// Virtual in tests).
func NewVenue(local interface {
	Now() time.Time
	After(time.Duration) <-chan time.Time
}) *Venue {
	return &Venue{local: local, rate: 1}
}

// Now returns the venue's current time.
func (v *Venue) Now() time.Time {
	now := v.local.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	t := v.at(now)
	if t.Before(v.lastRead) {
		t = v.lastRead
	}
	v.lastRead = t
	return t
}

// After waits for d on the local clock.
func (v *Venue) After(d time.Duration) <-chan time.Time { return v.local.After(d) }

// Synced reports whether the venue has stated its time at least once.
func (v *Venue) Synced() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.synced
}

// Offset returns the venue's time minus the local time, now.
func (v *Venue) Offset() time.Duration {
	now := v.local.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.at(now).Sub(now)
}

// Observe takes one statement of the venue's time: venue is the time in an
// answer to a request sent at local time sent and answered at received. The
// venue stated it somewhere in between; the midpoint is the best guess.
func (v *Venue) Observe(venue, sent, received time.Time) {
	if received.Before(sent) {
		sent, received = received, sent
	}
	local := sent.Add(received.Sub(sent) / 2)
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.synced {
		v.synced = true
		v.anchorLocal, v.anchorVenue, v.lastLocal, v.lastVenue = local, venue, local, venue
		return
	}
	if gap := local.Sub(v.lastLocal); gap >= venueMinGap {
		r := float64(venue.Sub(v.lastVenue)) / float64(gap)
		if r > 1-venueRateTolerance && r < 1+venueRateTolerance || r <= 0 {
			r = 1
		}
		v.rate = r
		v.lastLocal, v.lastVenue = local, venue
	}
	predicted := v.at(local)
	err := venue.Sub(predicted)
	if err > venueJump || err < -venueJump {
		v.anchorLocal, v.anchorVenue = local, venue
		return
	}
	v.anchorLocal, v.anchorVenue = local, predicted.Add(time.Duration(float64(err)*venueAlpha))
}

// at is the venue's time at local instant now; v.mu is held.
func (v *Venue) at(now time.Time) time.Time {
	if !v.synced {
		return now
	}
	return v.anchorVenue.Add(time.Duration(float64(now.Sub(v.anchorLocal)) * v.rate))
}
