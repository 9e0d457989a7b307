package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// venueTimePath is the venue's public time endpoint.
const venueTimePath = "/api/v2/public/time"

// Venue clock sync: two quick samples learn the offset and whether the
// venue runs faster (engine sim --speed); then one every venueSyncEvery.
const (
	venueSyncFirstGap = 300 * time.Millisecond
	venueSyncEvery    = 5 * time.Second
	venueSyncTimeout  = 5 * time.Second
)

// venueTimer states the venue's current market time. timeProbe reads it from
// the time endpoint's requestTime (see decodeVenueTime for why not
// exchange.Client.ServerTime).
type venueTimer interface {
	ServerTime(ctx context.Context) (time.Time, error)
}

// timeProbe asks the venue's time endpoint over plain HTTP, unsigned, and
// reads data.serverTime, or the envelope's requestTime when the venue does
// not serve the endpoint (every answer of the venue, even a 404, carries
// the time it was made).
type timeProbe struct {
	base string
	http *http.Client
}

// newTimeProbe returns a probe of the venue at base.
func newTimeProbe(base string) timeProbe {
	return timeProbe{base: base, http: &http.Client{Timeout: venueSyncTimeout}}
}

// ServerTime returns the time the venue states.
func (p timeProbe) ServerTime(ctx context.Context) (time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+venueTimePath, nil)
	if err != nil {
		return time.Time{}, fmt.Errorf("venue time: %w", err)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return time.Time{}, fmt.Errorf("venue time: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return time.Time{}, fmt.Errorf("venue time: %w", err)
	}
	t, err := decodeVenueTime(body)
	if err != nil {
		return time.Time{}, fmt.Errorf("venue time: HTTP %d: %w", resp.StatusCode, err)
	}
	return t, nil
}

// errNoVenueTime is returned for an answer that states no time.
var errNoVenueTime = errors.New("the answer states no time")

// decodeVenueTime reads the time of a venue's answer: its requestTime, else
// data.serverTime. The live venue has one clock, so the two agree there;
// engine sim stamps requestTime with its market clock (the scenario's, maybe
// sped up) and answers serverTime with the wall clock it checks signatures
// against, which the client's own clock sync (exchange.Client.SyncClock)
// follows for signing. The rules must see the market clock.
func decodeVenueTime(body []byte) (time.Time, error) {
	var env struct {
		RequestTime exchange.Millis `json:"requestTime"`
		Data        json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return time.Time{}, fmt.Errorf("%w: %v", errNoVenueTime, err)
	}
	if env.RequestTime.Int() > 0 {
		return env.RequestTime.Time(), nil
	}
	var data struct {
		ServerTime exchange.Millis `json:"serverTime"`
	}
	if len(env.Data) > 0 && json.Unmarshal(env.Data, &data) == nil && data.ServerTime.Int() > 0 {
		return data.ServerTime.Time(), nil
	}
	return time.Time{}, errNoVenueTime
}

// venueSync makes a venue clock follow the venue's time. A failing venue
// is logged once when it starts failing and once when it answers again;
// meanwhile the clock keeps its last offset.
type venueSync struct {
	src     venueTimer
	vc      *clock.Venue
	local   clock.Real
	log     *zap.Logger
	failing bool
}

// once asks the venue's time and gives it to the clock.
func (s *venueSync) once(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, venueSyncTimeout)
	defer cancel()
	sent := s.local.Now()
	t, err := s.src.ServerTime(ctx)
	received := s.local.Now()
	switch {
	case err != nil && !s.failing && ctx.Err() == nil:
		s.failing = true
		s.log.Warn("the venue does not state its time; the engine keeps the last offset (or the local clock)", zap.Error(err))
	case err == nil:
		s.vc.Observe(t, sent, received)
		if s.failing {
			s.failing = false
			s.log.Info("the venue states its time again", zap.Duration("offset", s.vc.Offset()))
		}
	}
}

// wait waits d on the local clock; false when ctx ended first.
func (s *venueSync) wait(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-s.local.After(d):
		return true
	}
}

// venueClock returns a clock that follows the venue at base and keeps
// following it until ctx ends. Its first two samples are taken before it
// returns, so the engine's first State already has the venue's time and
// speed.
func venueClock(ctx context.Context, src venueTimer, log *zap.Logger) *clock.Venue {
	s := &venueSync{src: src, vc: clock.NewVenue(clock.Real{}), log: log}
	s.once(ctx)
	if s.wait(ctx, venueSyncFirstGap) {
		s.once(ctx)
	}
	if s.vc.Synced() {
		log.Info("following the venue's clock", zap.Time("venue_time", s.vc.Now()), zap.Duration("offset", s.vc.Offset()))
	}
	go func() {
		for s.wait(ctx, venueSyncEvery) {
			s.once(ctx)
		}
	}()
	return s.vc
}
